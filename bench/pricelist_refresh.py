"""Scenario 9 — one full-size region landed through the whole refresh path: region index, offer file over HTTP
on 127.0.0.1, archive, DuckDB parse, Great Expectations, landing.

The seeded generator (bench/offer_full_size.py) writes a >= 400 MB offer file into a temporary folder laid out
as the offline server serves AWS's paths. Each refresh runs in a child process, so its peak RSS (ru_maxrss) is
its own. Two children run in the same session: the real path, where the offer file streams to disk and is
archived and parsed from there, and the naive baseline, where the same body is held in memory (the path every
page takes). The issue's bound: peak RSS < 600 MB while one full-size region lands.
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

from bench.offer_files import VERSION
from bench.offer_full_size import write_full_size
from bench.report import Result, Timing, fmt_ratio, progress, ratio

SCENARIO = "9 price-list refresh"
MEGABYTES = 420
RSS_BOUND_MB = 600
STAMP = VERSION  # the file prints the version its index entry names


def lay_out(folder: Path, megabytes: int) -> int:
    """The region index and one region's offer file, where pipelines.fetch.offline's server answers AWS's paths."""
    offer = folder / "aws" / "pricelist" / "us-west-2.csv"
    offer.parent.mkdir(parents=True)
    size = write_full_size(offer, megabytes, region="us-west-2")
    url = f"/offers/v1.0/aws/AmazonEC2/{STAMP}/us-west-2/index.json"
    index = {"regions": {"us-west-2": {"regionCode": "us-west-2", "currentVersionUrl": url}}}
    (folder / "region_index.json").write_text(json.dumps(index))
    return size


def child(mode: str, folder: str) -> None:
    """In a fresh interpreter: one refresh of the price-list source against the folder; prints seconds, peak RSS
    (MB), the outcome and the rows opened as JSON. Imports happen before the timed span and count alike."""
    from pipelines.fetch.archive import Archive
    from pipelines.fetch.http import Fetcher
    from pipelines.fetch.offline import serve_directory
    from pipelines.refresh.many_sources import refresh_all
    from pipelines.sources.file import SourceSpec, load_sources

    root = Path(folder)
    declared = next(s for s in load_sources() if s.id == "aws_pricelist")
    # The baseline: the adapter is said not to read files, so the body stays in memory, as a page's does.
    in_memory = mock.patch("pipelines.refresh.one_source.reads_files", return_value=False)
    with (
        serve_directory(root) as base,
        Fetcher() as fetcher,
        in_memory if mode == "memory" else contextlib.nullcontext(),
    ):
        source = SourceSpec.model_validate({**declared.model_dump(), "url": f"{base}/region_index.json"})
        started = time.perf_counter()
        (outcome,) = refresh_all(
            [source], db_path=root / f"{mode}.duckdb", archive=Archive(root / mode), fetcher=fetcher, max_sources=4
        )
        seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "status": outcome.status, "rows": outcome.inserted}))


def _run_child(mode: str, folder: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.pricelist_refresh", mode, str(folder)], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(megabytes: int = MEGABYTES) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="ratecard-bench-plrefresh-") as name:
        folder = Path(name)
        progress(f"{SCENARIO}: writing a {megabytes} MB offer file")
        size = lay_out(folder, megabytes)
        progress(f"{SCENARIO}: refresh, offer file streamed to disk (child process)")
        ours = _run_child("streamed", folder)
        progress(f"{SCENARIO}: refresh, body held in memory (child process)")
        naive = _run_child("memory", folder)
    t_ours, t_naive = float(ours["seconds"]), float(naive["seconds"])  # type: ignore[arg-type]
    mb_ours, mb_naive = float(ours["peak_mb"]), float(naive["peak_mb"])  # type: ignore[arg-type]
    bound = "under" if mb_ours < RSS_BOUND_MB else "OVER"
    landed = f"{ours['status']}, {ours['rows']} rows opened; baseline {naive['status']}, {naive['rows']} rows"

    rss_ratio = fmt_ratio(ratio(mb_naive, mb_ours))
    return [
        Result(SCENARIO, f"refresh one {size / 1e6:,.0f} MB region, streamed to disk", Timing((t_ours,)), note=landed),
        Result(SCENARIO, "baseline: the same refresh, body in memory", Timing((t_naive,)), note="same path"),
        Result(SCENARIO, "peak RSS, streamed", value=f"{mb_ours:,.0f} MB", note=f"{bound} the {RSS_BOUND_MB} MB bound"),
        Result(SCENARIO, "peak RSS, body in memory", value=f"{mb_naive:,.0f} MB", note="child process ru_maxrss"),
        Result(SCENARIO, "RATIO peak RSS in memory ÷ streamed", value=rss_ratio, note="> 1: streaming leaner"),
        Result(
            SCENARIO, "RATIO time in memory ÷ streamed", value=fmt_ratio(ratio(t_naive, t_ours)), note="> 1: faster"
        ),
    ]


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2])
