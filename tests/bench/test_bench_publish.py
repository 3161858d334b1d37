"""The publish benchmark still runs, at a tiny size (it asserts what it measured, never a timing)."""

from bench import publish


def test_publish_bench_times_both_ways_and_gives_the_ratio():
    results = publish.run(rows=1_000, reps=1)
    names = [r.name for r in results]
    assert names[:2] == ["byte copy (checkpoint + copy), 1,000 rows", "publish_snapshot (v1.1.0), 1,000 rows"]
    assert all(r.timing is not None and r.timing.n == 1 for r in results[:2])
    assert results[2].name == "RATIO publish_snapshot ÷ byte copy" and results[2].value.endswith("×")
