"""Scenario 7 — publishing the snapshot: what writing it in the older storage format (v1.1.0) costs.

A warehouse file with the real schema plus ROWS generated history-like rows (an id, a DECIMAL amount, a label, a
timestamp). Two ways of making the snapshot from it:
- byte copy: checkpoint and copy the file as it is (the publish before the snapshot was written in v1.1.0,
  whose copy DuckDB 1.x clients cannot open);
- publish_snapshot: COPY FROM DATABASE into a file attached with STORAGE_VERSION 'v1.1.0', fsync, rename.
Both read the same file; the ratio is publish_snapshot ÷ byte copy, from medians of this run.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bench.report import Result, fmt_ratio, measure, progress, ratio
from warehouse.db import connect
from warehouse.publish import SNAPSHOT_STORAGE_VERSION, publish_snapshot, snapshot_path

SCENARIO = "7 publish"
ROWS = 500_000
REPS = 3
FILLER = """
CREATE TABLE bench_filler AS
SELECT i::BIGINT AS id, ((i % 100000) / 7)::DECIMAL(18, 6) AS usd_amount, 'listing ' || i AS label,
       TIMESTAMPTZ '2026-09-28 00:00:00+00' + to_seconds(i) AS fetched_at
FROM range($rows) AS t(i)
"""


def byte_copy(db: Path, out: Path) -> None:
    with connect(db) as con:
        con.execute("CHECKPOINT")
    shutil.copyfile(db, out)


def run(rows: int = ROWS, reps: int = REPS) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="ratecard-bench-publish-") as tmp:
        db = Path(tmp) / "prices.duckdb"
        progress(f"publish: warehouse with {rows:,} generated rows")
        with connect(db) as con:
            con.execute(FILLER, {"rows": rows})
            con.execute("CHECKPOINT")
        copied = measure(lambda _: byte_copy(db, Path(tmp) / "copy.duckdb"), reps=reps)
        published = measure(lambda _: publish_snapshot(db), reps=reps)
        sizes = f"working file {db.stat().st_size:,} B, snapshot {snapshot_path(db).stat().st_size:,} B"
    return [
        Result(SCENARIO, f"byte copy (checkpoint + copy), {rows:,} rows", copied, rows, note=sizes),
        Result(SCENARIO, f"publish_snapshot ({SNAPSHOT_STORAGE_VERSION}), {rows:,} rows", published, rows),
        Result(
            SCENARIO,
            "RATIO publish_snapshot ÷ byte copy",
            value=fmt_ratio(ratio(published.median, copied.median)),
            note="the price of a snapshot DuckDB 1.1+ clients open",
        ),
    ]
