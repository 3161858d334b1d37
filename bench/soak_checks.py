"""The soak's invariants, checked after every simulated day on the warehouse as it stands (a file or a lake).

- no source's last good version is lost: a source that landed nothing that day keeps every open row exactly;
- history intervals do not overlap: per source and business key, each version ends before the next starts, at most
  one is open, and none ends before it starts;
- every day is accounted for: each source has a fetch_log row for the day, and a day with none landed or unchanged
  has a failure saying why (the gap in its history is a recorded failure);
- the published snapshot equals the working warehouse's public views (row counts and exact DECIMAL sums);
- the change feed posts each change once: what the notifier claimed is what it posted, and after a post that went
  through, every change over the threshold since the start is claimed.
"""

from __future__ import annotations

import importlib
from datetime import datetime
from pathlib import Path

import duckdb

from pipelines.orchestration.notify import pending_changes
from pipelines.sources.file import NotifySettings
from warehouse.versioning import VersionedTable

LANDING_MODULES = ("aws", "gpu", "pricelist", "specs", "neuron_gate", "benchmarks")
OPEN_ROWS = "SELECT source_id, count(*), sum(hash(t)) FROM {table} AS t WHERE valid_to IS NULL GROUP BY source_id"
OVERLAPS = """
SELECT count(*) FROM (
    SELECT valid_from, valid_to,
           lead(valid_from) OVER (PARTITION BY source_id, {keys} ORDER BY valid_from) AS next_from
    FROM {table}
) WHERE (valid_to IS NULL AND next_from IS NOT NULL) OR valid_to > next_from OR valid_to < valid_from
"""
DAY_OUTCOMES = """
SELECT source_id, list(outcome), count(*) FILTER (WHERE error IS NOT NULL)
FROM fetch_log WHERE fetched_at >= $start AND fetched_at < $end GROUP BY source_id
"""
PUBLIC_VIEWS = """
SELECT view_name FROM duckdb_views()
WHERE NOT internal AND database_name = current_database() AND schema_name = 'main' ORDER BY view_name
"""
CLAIMS = "SELECT count(*), count(DISTINCT change_key) FROM notify_claims"
Fingerprints = dict[tuple[str, str], tuple[int, int]]


def versioned_tables() -> list[VersionedTable]:
    """Every kind's versioned tables, found in the kinds' landing modules."""
    found: dict[str, VersionedTable] = {}
    for kind in LANDING_MODULES:
        module = importlib.import_module(f"pipelines.{kind}.landing")
        found |= {v.name: v for v in vars(module).values() if isinstance(v, VersionedTable)}
    return sorted(found.values(), key=lambda t: t.name)


def open_fingerprints(con: duckdb.DuckDBPyConnection) -> Fingerprints:
    """(table, source) -> (open rows, sum of their hashes)."""
    prints: Fingerprints = {}
    for table in versioned_tables():
        for source_id, count, digest in con.execute(OPEN_ROWS.format(table=table.name)).fetchall():
            prints[(table.name, source_id)] = (int(count), int(digest))
    return prints


def day_outcomes(con: duckdb.DuckDBPyConnection, start: datetime, end: datetime) -> dict[str, tuple[list[str], int]]:
    rows = con.execute(DAY_OUTCOMES, {"start": start, "end": end}).fetchall()
    return {source_id: (list(outcomes), int(errors)) for source_id, outcomes, errors in rows}


def lost_versions(before: Fingerprints, after: Fingerprints, outcomes: dict[str, tuple[list[str], int]]) -> list[str]:
    """Open rows of a source that landed nothing today but changed anyway."""
    landed = {sid for sid, (found, _) in outcomes.items() if "landed" in found}
    return [
        f"{table} {sid}: open rows {before.get((table, sid))} -> {after.get((table, sid))} with nothing landed"
        for table, sid in sorted(set(before) | set(after))
        if sid not in landed and before.get((table, sid)) != after.get((table, sid))
    ]


def overlapping_versions(con: duckdb.DuckDBPyConnection) -> list[str]:
    problems = []
    for table in versioned_tables():
        keys = ", ".join((*table.key_columns, *table.scope_columns))
        (count,) = con.execute(OVERLAPS.format(table=table.name, keys=keys)).fetchone() or (0,)
        if count:
            problems.append(f"{table.name}: {count} version(s) overlapping the next or ending before they start")
    return problems


def unaccounted_days(outcomes: dict[str, tuple[list[str], int]], expected: list[str]) -> list[str]:
    # A price-list index logs each of its regions as a unit of its own (`aws_pricelist_us_east_1`).
    problems = [
        f"{sid}: no fetch_log row for the day"
        for sid in expected
        if not any(found == sid or found.startswith(f"{sid}_") for found in outcomes)
    ]
    for sid, (found, errors) in sorted(outcomes.items()):
        if not {"landed", "unchanged"} & set(found) and not errors:
            problems.append(f"{sid}: nothing landed and no failure recorded ({found})")
    return problems


def view_summary(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[object, ...]]:
    """Each public view's row count and its DECIMAL columns' exact sums."""
    summary = {}
    for (view,) in con.execute(PUBLIC_VIEWS).fetchall():
        money = [c for c, kind, *_ in con.execute(f'DESCRIBE "{view}"').fetchall() if kind.startswith("DECIMAL")]
        sums = "".join(f', sum("{c}")' for c in money)
        summary[view] = tuple(con.execute(f'SELECT count(*){sums} FROM "{view}"').fetchone() or ())
    return summary


def snapshot_differences(working: Path, snapshot: Path) -> list[str]:
    with duckdb.connect(str(working), read_only=True) as con:
        expected = view_summary(con)
    with duckdb.connect(str(snapshot), read_only=True) as con:
        published = view_summary(con)
    return [
        f"{view}: working {expected.get(view)} snapshot {published.get(view)}"
        for view in sorted(set(expected) | set(published))
        if expected.get(view) != published.get(view)
    ]


def feed_problems(
    con: duckdb.DuckDBPyConnection, posted: int, settings: NotifySettings, last_failed: bool
) -> list[str]:
    """Each change claimed once and posted once; after a notification that went through, none left unsent."""
    claims, distinct = con.execute("SELECT count(*), count(DISTINCT change_key) FROM notify_claims").fetchone() or (
        0,
        0,
    )
    problems = []
    if claims != distinct:
        problems.append(f"change feed: {claims - distinct} change(s) claimed twice")
    if claims != posted:
        problems.append(f"change feed: {claims} change(s) claimed, {posted} posted")
    if not last_failed and (left := pending_changes(con, settings)[1]):
        problems.append(f"change feed: {len(left)} change(s) over the threshold never sent")
    return problems
