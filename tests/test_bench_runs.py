"""The parsing benchmark still runs over every bundled sample (a smoke test: it asserts no timings)."""

from bench import parsing
from pipelines.sources import load_sources


def test_parsing_bench_covers_every_sample(monkeypatch):
    monkeypatch.setattr(parsing, "REPS_PAGE", 1)
    monkeypatch.setattr(parsing, "REPS_SOUP", 1)
    names = [r.name for r in parsing.run()]
    for source in load_sources():
        assert any(source.sample in name for name in names), source.id
