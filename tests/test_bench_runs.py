"""The parsing and GE gate benchmarks still run over every bundled sample (smoke tests: they assert no timings)."""

from bench import gate, parsing
from pipelines.sources import load_sources


def test_parsing_bench_covers_every_sample(monkeypatch):
    monkeypatch.setattr(parsing, "REPS_PAGE", 1)
    monkeypatch.setattr(parsing, "REPS_SOUP", 1)
    names = [r.name for r in parsing.run()]
    for source in load_sources():
        assert any(source.sample in name for name in names), source.id


def test_sources_bench_runs_at_small_n():
    """Two and three sources over the 20 loopback hosts: every ratio row is there (no timing is asserted)."""
    from bench import sources

    names = [r.name for r in sources.run(sizes=(2, 3), latency_s=0.01)]
    for n in (2, 3):
        assert f"RATIO wall / network bound, N={n}" in names
        assert f"per-source overhead, N={n}" in names


def test_gate_bench_covers_every_sample_and_every_batch_passes(monkeypatch):
    for name, value in (("REPS", 1), ("REPS_ALONE", 1), ("SMALL_BATCHES", 6), ("SMALL_TIMED_ALONE", 2)):
        monkeypatch.setattr(gate, name, value)
    results = gate.run()
    names = [r.name for r in results]
    for source in load_sources():
        assert any(f"one by one, {source.id} (" in name for name in names), source.id
    stacked = [r for r in results if "stacked" in r.name and r.timing is not None]
    assert len(stacked) == 2 and all("every batch passes" in r.note for r in stacked)
