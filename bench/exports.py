"""Scenario 6 — exports and the change feed on a year of daily history (synthetic, landed as scenario 2 does).

Reported: the whole `ratecard export` (every view, and every history table partitioned by fetch date: one
file per table per day, so a year is ~365 files a table), one history table through DuckDB COPY against the
same rows written one by one from Python (csv.writer over fetched rows, what a row-by-row exporter does), and
the `price_changes` view over that history.
"""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

from bench.history import Sizes, simulate
from bench.report import Result, fmt_ratio, measure, progress, ratio
from warehouse.db import connect
from warehouse.export import columns_by_relation, export_one, export_warehouse
from warehouse.queries import one_row

SCENARIO = "6 exports + change feed"
SIZES = Sizes(days=365, aws_types=20, gpu_listings=1_500, reps=3)
TABLE = "gpu_listing_history"


def row_by_row_csv(db: Path, out: Path) -> None:
    with connect(db, read_only=True) as con, out.open("w", newline="") as f:
        cursor = con.execute(f"FROM {TABLE}")
        writer = csv.writer(f)
        writer.writerow([d[0] for d in cursor.description])
        while row := cursor.fetchone():
            writer.writerow(row)


def copy_csv(db: Path, out: Path) -> None:
    with connect(db, read_only=True) as con:
        export_one(con, TABLE, None, out, "csv", partitioned=False, columns=columns_by_relation(con)[TABLE])


def run(sizes: Sizes = SIZES) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="ratecard-bench-exports-") as tmp:
        db, out = Path(tmp) / "year.duckdb", Path(tmp) / "out"
        out.mkdir()
        with connect(db) as con:
            progress(f"{SCENARIO}: {sizes.days} daily refreshes")
            simulate(con, sizes)
            con.execute("CHECKPOINT")
            (table_rows,) = one_row(con, f"SELECT count(*) FROM {TABLE}")
            (changes,) = one_row(con, "SELECT count(*) FROM price_changes")
            progress(f"{SCENARIO}: price_changes x {sizes.reps + 1}")
            feed = measure(lambda _: con.execute("SELECT * FROM price_changes").fetchall(), reps=sizes.reps)
        progress(f"{SCENARIO}: export x {sizes.reps + 1}")
        whole = measure(lambda _: export_warehouse(db, out / "parquet", "parquet"), reps=sizes.reps)
        manifest = export_warehouse(db, out / "parquet", "parquet")
        files = sum(len(f.get("partitions", [None])) for f in manifest["files"])
        total = sum(f["rows"] for f in manifest["files"])
        progress(f"{SCENARIO}: one table, COPY and row by row")
        copy = measure(lambda _: copy_csv(db, out), reps=sizes.reps)
        by_row = measure(lambda _: row_by_row_csv(db, out / "rows.csv"), reps=sizes.reps)
    return [
        Result(SCENARIO, "export parquet: every view + history by day", whole, rows=total, note=f"{files:,} files"),
        Result(SCENARIO, f"COPY {TABLE} to csv", copy, rows=table_rows),
        Result(SCENARIO, f"row-by-row csv.writer, {TABLE}", by_row, rows=table_rows),
        Result(
            SCENARIO,
            "RATIO row-by-row ÷ COPY",
            value=fmt_ratio(ratio(by_row.median, copy.median)),
            note="same table, same format, medians of this run",
        ),
        Result(SCENARIO, "view price_changes", feed, rows=changes, note=f"{changes:,} changes over {sizes.days} days"),
    ]
