"""The price-list refresh bench at a tiny size (smoke test: it asserts what the scenario finds, never timings)."""

import os
import re

from bench import pricelist_refresh


def test_pricelist_refresh_bench_lands_the_region_both_ways():
    results = {r.name: r for r in pricelist_refresh.run(megabytes=2, runs=1)}
    landed = next(r for name, r in results.items() if name.startswith("refresh one 2 MB region"))
    same = re.fullmatch(r"landed, (\d+) rows opened; baseline landed, \1 rows", landed.note)
    assert same is not None and int(same.group(1)) > 0, landed.note
    assert results["peak RSS, streamed"].value.endswith(" MB")
    assert {"RATIO peak RSS in memory ÷ streamed", "RATIO time in memory ÷ streamed"} <= results.keys()
    # CPU seconds are measured in the children (and the server in this process), never zero for real work.
    refresh_cpu = float(results["CPU seconds, refresh (user + system)"].value.removesuffix(" s"))
    bare_cpu = float(results["CPU seconds, bare read_csv"].value.removesuffix(" s"))
    cores = len(os.sched_getaffinity(0))
    floor = float(results[f"floor of the refresh on {cores} cores (CPU ÷ {cores})"].value.removesuffix(" s"))
    assert refresh_cpu > 0 and bare_cpu > 0 and abs(floor - refresh_cpu / cores) <= 0.01
