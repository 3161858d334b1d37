"""The price-list bench at a tiny size (smoke test: it asserts what the scenario finds, never timings)."""

from bench import pricelist


def test_pricelist_bench_runs_both_parsers_on_a_small_generated_file():
    results = {r.name: r for r in pricelist.run(megabytes=2)}
    assert any(name.startswith("generate offer file (2 MB") for name in results)
    assert "ours ⊆ baseline: True" in results["baseline: pandas read_csv whole file + filter"].note
    assert results["peak RSS, DuckDB parser"].value.endswith(" MB")
    assert {"RATIO time baseline ÷ ours", "RATIO peak RSS baseline ÷ ours"} <= results.keys()
