"""The benchmarks still run, at tiny sizes (smoke tests: they assert what each scenario counts, never timings)."""

from pathlib import Path

from bench import gate, history, landing, parsing
from pipelines.refresh.fan_out import sample_units
from pipelines.sources.file import load_sources


def values(results) -> dict[str, str]:
    return {r.name: r.value for r in results if r.value is not None}


def test_parsing_bench_covers_every_sample(monkeypatch):
    monkeypatch.setattr(parsing, "REPS_PAGE", 1)
    monkeypatch.setattr(parsing, "REPS_SOUP", 1)
    names = [r.name for r in parsing.run()]
    for source in (unit for declared in load_sources() for unit in sample_units(declared)):  # price list: regions
        assert any(source.sample in name for name in names), source.id


def test_sources_bench_runs_at_small_n():
    """Two and three sources over the 20 loopback hosts: every ratio row is there (no timing is asserted)."""
    from bench import sources

    names = [r.name for r in sources.run(sizes=(2, 3), latency_s=0.01)]
    for n in (2, 3):
        assert f"RATIO wall / network bound, N={n}" in names
        assert f"per-source overhead, N={n}" in names
    assert "RATIO CLI / in-process, N=3" in names  # the largest size also runs through the CLI, as a process


def test_dagster_job_bench_runs_at_small_n():
    """Three sources through the Dagster price job and through the CLI path: every ratio row is there."""
    from bench import dagster_job

    names = [r.name for r in dagster_job.run(n=3, latency_s=0.01)]
    for name in ("RATIO Dagster wall / network bound, N=3", "RATIO Dagster wall / CLI wall, N=3"):
        assert name in names
    assert "Dagster cost per source, N=3" in names and "Dagster fixed cost per run" in names


def test_gate_bench_covers_every_sample_and_every_batch_passes(monkeypatch):
    for name, value in (("REPS", 1), ("REPS_ALONE", 1), ("SMALL_BATCHES", 6), ("SMALL_TIMED_ALONE", 2)):
        monkeypatch.setattr(gate, name, value)
    # A fresh Great Expectations context per call costs most of a second each, and the kept-results pass validates
    # every sample again: what they time is the bench's, not this test's (coverage, and every batch passes).
    monkeypatch.setattr(gate, "FRESH_CONTEXT", False)
    monkeypatch.setattr(gate, "KEPT_SAMPLES", 2)
    results = gate.run()
    names = [r.name for r in results]
    for source in (unit for declared in load_sources() for unit in sample_units(declared)):  # price list: regions
        assert any(f"one by one, {source.id} (" in name for name in names), source.id
    stacked = [r for r in results if "stacked" in r.name and r.timing is not None]
    assert len(stacked) == 2 and all("every batch passes" in r.note for r in stacked)


def test_landing_bench_lands_one_percent_against_a_generated_history():
    # 2 sources x 200 keys, then 10 rounds re-pricing 2 keys of each: 400 + 40 rows.
    results = landing.run(landing.Sizes(sources=2, n_types=2, rounds=10, reps=1))
    assert values(results)["history rows (setup)"] == "440"
    notes = {r.name: r.note for r in results}
    assert notes["type-2 land_snapshot, 200 rows"].startswith("+2 rows, 2 closed")
    assert notes["raw append, 200 rows"].startswith("+200 rows")
    assert {"RATIO type-2 ÷ append, landing only", "RATIO type-2 ÷ append, incl. build"} <= values(results).keys()


def test_history_bench_grows_with_changes_not_runs():
    # 12 days of 200 AWS + 100 GPU rows, 2 + 1 re-priced a day after the first: 300 + 11 x 3 rows.
    results = history.run(history.Sizes(days=12, aws_types=2, gpu_listings=100, reps=1))
    assert values(results)["history rows vs rows x runs"] == "333 vs 3,600"
    names = {r.name for r in results}
    assert {"view gpu_cheapest", "view accelerator_hour_prices", "RATIO as-of ÷ full scan, AWS"} <= names
    # Each view is also read to Arrow, and returns the same rows.
    notes = {r.name: r.note for r in results}
    for view in ("view gpu_cheapest", "view accelerator_hour_prices"):
        assert notes[f"{view} -> Arrow"] == notes[view]
        assert notes[view].endswith("rows returned") and not notes[view].startswith("0 ")


def test_pricelist_bench_lands_regions_and_finds_the_unchanged_ones_unchanged():
    from bench import pricelist_landing as pricelist

    results = pricelist.run(pricelist.Sizes(regions=2, n_types=2, reps=1))
    notes = {r.name: r.note for r in results}
    # 2 regions x 2 types x 13 prices, plus one offer row a region; then nothing; then 2 on-demand prices move.
    assert notes["first landing, 2 regions"].startswith("+54 rows")
    assert notes["unchanged landing, 2 regions"] == "+0 rows"
    assert values(results)["one region, every on-demand price changed"] == "+2 / -2"


def test_exports_bench_counts_one_file_per_history_day_and_the_changes():
    from bench import exports

    # 5 days of 200 AWS + 100 GPU rows, 2 + 1 re-priced a day after the first: 4 x 3 price changes.
    results = {r.name: r for r in exports.run(history.Sizes(days=5, aws_types=2, gpu_listings=100, reps=1))}
    assert results["view price_changes"].rows == 12
    assert results["export parquet: every view + history by day"].note.endswith(" files")
    assert "RATIO row-by-row ÷ COPY" in results


def test_engines_bench_compares_two_interpreters(capsys):
    """The DuckDB comparison at tiny sizes, this interpreter against itself: a ratio line per timed row."""
    import sys

    from bench import engines

    assert engines.main([sys.executable, "--small", "--rounds", "1", "pricelist_landing"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.rstrip().endswith("×")]
    assert len(lines) == 4 and all("price-list landing" in line for line in lines)


def test_offline_refresh_bench_times_a_new_and_an_unchanged_refresh():
    from bench import offline_refresh

    # Five sources of four kinds: the refresh of every sample is what the refresh-phases bench's test runs.
    kinds = ("aws_trn1", "fx_ecb", "gpu_hyperstack", "neuron_trainium", "neuron_torch_status")
    results = {r.name: r for r in offline_refresh.run(offline_refresh.Sizes(reps=1, sources=kinds))}
    new, again = results["refresh --offline into a new file"], results["refresh --offline again (unchanged)"]
    landed, unchanged, failed = (int(part.split()[0]) for part in new.note.split(", "))
    assert landed == len(kinds) and failed == 0, new.note
    assert again.note == f"0 landed, {landed + unchanged} unchanged, 0 failed"
    assert new.timing is not None and again.timing is not None and min(new.timing.samples + again.timing.samples) > 0


def test_refresh_phases_bench_marks_every_landing_and_the_publish(tmp_path):
    from bench import refresh_phases

    phases = refresh_phases.refresh_phases(tmp_path / "prices.duckdb", Path(refresh_phases.__file__).parents[1])
    assert phases.landings > 20  # every bundled source and region, and the reference files
    assert 0 < phases.to_first_landing < phases.whole
    assert 0 < phases.last_landing_to_publish < phases.whole
