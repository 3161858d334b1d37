"""The parsing benchmark still runs over every bundled sample (a smoke test: it asserts no timings)."""

from bench import parsing
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
