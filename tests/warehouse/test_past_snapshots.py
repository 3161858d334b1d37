"""Snapshots woven into a type-2 history out of order give the history that landing them in time order gives.

A reference model in plain Python (each key's runs of equal values over the snapshots in time order) is compared
with warehouse.past_snapshots.land_snapshot_at on a real DuckDB table, for snapshots landed in any order, and
with the daily landing (warehouse.versioning.land_snapshot) in time order.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import duckdb
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warehouse.past_snapshots import land_snapshot_at
from warehouse.versioning import Lineage, VersionedTable, land_snapshot, snapshot_table

TABLE = VersionedTable(
    name="toy_history",
    key_columns=("k",),
    attribute_fields=(pa.field("k", pa.string()), pa.field("v", pa.decimal128(10, 2))),
)
CREATE = """
CREATE TABLE toy_history (source_id VARCHAR, k VARCHAR, v DECIMAL(10, 2), attributes_hash VARCHAR,
    valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ, fetch_id BIGINT, source_url VARCHAR, fetched_at TIMESTAMPTZ,
    sha256 VARCHAR, parser_version VARCHAR)
"""
START = datetime(2026, 1, 1, tzinfo=UTC)
Snapshot = dict[str, Decimal]

snapshots = st.lists(
    st.dictionaries(st.sampled_from("abc"), st.sampled_from([Decimal(1), Decimal(2), Decimal(3)]), max_size=3),
    min_size=1,
    max_size=6,
)


def expected_rows(timeline: list[tuple[datetime, Snapshot]]) -> set[tuple[str, Decimal, datetime, datetime | None]]:
    """Each key's runs of one value, over the snapshots in time order (absent: no row)."""
    timeline = sorted(timeline, key=lambda item: item[0])
    rows = set()
    for key in {k for _, snap in timeline for k in snap}:
        run: tuple[Decimal, datetime] | None = None
        for at, snap in timeline:
            value = snap.get(key)
            if run is not None and run[0] != value:
                rows.add((key, run[0], run[1], at))
                run = None
            if run is None and value is not None:
                run = (value, at)
        if run is not None:
            rows.add((key, run[0], run[1], None))
    return rows


def land(
    con: duckdb.DuckDBPyConnection, at: datetime, snap: Snapshot, *, past: bool, next_observed: datetime | None = None
) -> None:
    lineage = Lineage(int(at.timestamp()), "http://127.0.0.1/", at, "sha", "1")
    arrow = snapshot_table(TABLE, [{"k": k, "v": v} for k, v in sorted(snap.items())], "toy", lineage)
    if past:
        land_snapshot_at(con, TABLE, arrow, "toy", at, next_observed=next_observed)
    else:
        land_snapshot(con, TABLE, arrow, "toy", at)


def landed_rows(con: duckdb.DuckDBPyConnection) -> set[tuple[str, Decimal, datetime, datetime | None]]:
    return set(con.execute("SELECT k, v, valid_from, valid_to FROM toy_history").fetchall())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots, st.randoms(use_true_random=False))
def test_any_landing_order_gives_the_time_ordered_history(snaps: list[Snapshot], random):
    timeline = [(START + timedelta(days=30 * i), snap) for i, snap in enumerate(snaps)]
    shuffled = list(timeline)
    random.shuffle(shuffled)
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(CREATE)
        landed: list[datetime] = []
        for at, snap in shuffled:  # as a backfill does, naming the next snapshot landed so far
            land(con, at, snap, past=True, next_observed=min((t for t in landed if t > at), default=None))
            landed.append(at)
        assert landed_rows(con) == expected_rows(timeline)
        # Each row's lineage names a snapshot that held its value, at or before its start (a version that resumes
        # after a snapshot woven in before it keeps the lineage of the one that first held it).
        (later_lineage,) = con.execute(
            "SELECT count(*) FROM toy_history WHERE fetch_id > epoch(valid_from)::BIGINT"
        ).fetchone()
        assert later_lineage == 0
        for at, snap in shuffled:  # the same snapshots again: nothing changes
            land(con, at, snap, past=True, next_observed=min((t for t in landed if t > at), default=None))
        assert landed_rows(con) == expected_rows(timeline)


@settings(max_examples=30, deadline=None)
@given(snapshots)
def test_the_daily_landing_in_time_order_agrees_with_the_model(snaps: list[Snapshot]):
    timeline = [(START + timedelta(days=30 * i), snap) for i, snap in enumerate(snaps)]
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(CREATE)
        for at, snap in timeline:
            land(con, at, snap, past=False)
        assert landed_rows(con) == expected_rows(timeline)
