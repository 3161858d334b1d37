"""Type-2 history on a real DuckDB file: unchanged, changed, removed, reappearing, as-of, atomicity."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from pipelines.aws.landing import PRICES, SPECS, aws_snapshots
from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch
from warehouse.versioning import Lineage, VersionedTable, land_snapshot, rehash, snapshot_table

T0 = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
SOURCE = "aws_test"


def spec(instance_type: str = "trn1.32xlarge", memory: str = "512") -> InstanceSpec:
    return InstanceSpec(
        instance_type=instance_type,
        accelerator="Trainium",
        accelerator_count=16,
        accelerator_memory_value=Decimal(memory),
        accelerator_memory_unit="GB",
        vcpus=128,
    )


def price(
    instance_type: str = "trn1.32xlarge",
    usd: str = "21.50",
    kind: PriceKind = PriceKind.ON_DEMAND,
    region: str | None = None,
) -> InstancePrice:
    return InstancePrice(
        instance_type=instance_type,
        price_kind=kind,
        usd_per_instance_hour=Decimal(usd),
        accelerator_count=16,
        region=region,
    )


def batch(prices: list[InstancePrice], specs: list[InstanceSpec] | None = None) -> SourceBatch:
    types = {p.instance_type for p in prices}
    return SourceBatch(
        source_id=SOURCE,
        parser_version="test/1",
        specs=specs if specs is not None else [spec(t) for t in sorted(types)],
        prices=prices,
    )


def land(con, b: SourceBatch, day: int):
    fetch = FetchRecord(
        source_id=SOURCE,
        url="http://127.0.0.1/page",
        fetched_at=T0 + timedelta(days=day),
        sha256=f"sha-day-{day}",
        status=200,
    )
    return land_batch(con, fetch, b.parser_version, aws_snapshots(b))


def history(con) -> list[tuple]:
    return con.execute("""SELECT instance_type, price_kind, region, usd_per_instance_hour, valid_from, valid_to
                          FROM aws_instance_price_history ORDER BY instance_type, valid_from""").fetchall()


@pytest.fixture
def con(backend_db_path):
    """A warehouse on each backend: a DuckDB file, then a DuckLake on the machine's PostgreSQL."""
    with connect(backend_db_path) as connection:
        yield connection


def test_unchanged_refresh_adds_no_rows(con):
    first = land(con, batch([price(), price(region="US East (Ohio)", kind=PriceKind.CAPACITY_BLOCK)]), 0)
    second = land(con, batch([price(usd="21.5"), price(region="US East (Ohio)", kind=PriceKind.CAPACITY_BLOCK)]), 1)
    assert (first.outcome, first.inserted) == ("landed", 3)  # 1 spec + 2 prices
    assert (second.outcome, second.inserted, second.closed, second.unchanged) == ("unchanged", 0, 0, 3)
    assert len(history(con)) == 2
    assert con.execute("SELECT count(*) FROM fetch_log").fetchone() == (2,)


def test_changed_price_closes_old_row_and_opens_new(con):
    land(con, batch([price()]), 0)
    result = land(con, batch([price(usd="19.99")]), 1)
    assert (result.inserted, result.closed) == (1, 1)
    assert history(con) == [
        ("trn1.32xlarge", "on_demand", None, Decimal("21.500000"), T0, T0 + timedelta(days=1)),
        ("trn1.32xlarge", "on_demand", None, Decimal("19.990000"), T0 + timedelta(days=1), None),
    ]
    current = con.execute("SELECT usd_per_instance_hour FROM aws_instance_prices").fetchall()
    assert current == [(Decimal("19.990000"),)]


def test_as_of_returns_the_version_valid_then(con):
    land(con, batch([price()]), 0)
    land(con, batch([price(usd="19.99")]), 2)
    as_of = "SELECT usd_per_instance_hour FROM aws_instance_prices_as_of(?::TIMESTAMPTZ)"
    assert con.execute(as_of, [T0 - timedelta(hours=1)]).fetchall() == []
    assert con.execute(as_of, [T0 + timedelta(days=1)]).fetchall() == [(Decimal("21.500000"),)]
    assert con.execute(as_of, [T0 + timedelta(days=2)]).fetchall() == [(Decimal("19.990000"),)]
    assert con.execute(as_of, [T0 + timedelta(days=30)]).fetchall() == [(Decimal("19.990000"),)]


def test_row_gone_from_source_is_closed_and_can_come_back(con):
    land(con, batch([price(), price("trn1.2xlarge", "1.34")]), 0)
    gone = land(con, batch([price()]), 1)
    assert gone.closed == 2  # the price and the spec of trn1.2xlarge
    assert con.execute("SELECT instance_type FROM aws_instance_prices").fetchall() == [("trn1.32xlarge",)]
    back = land(con, batch([price(), price("trn1.2xlarge", "1.34")]), 2)
    assert back.inserted == 2
    rows = [r for r in history(con) if r[0] == "trn1.2xlarge"]
    assert [(r[4], r[5]) for r in rows] == [(T0, T0 + timedelta(days=1)), (T0 + timedelta(days=2), None)]


def test_region_not_stated_is_a_key_like_any_other(con):
    both = [price(), price(region="US East (Ohio)")]
    land(con, batch(both), 0)
    assert land(con, batch(both), 1).outcome == "unchanged"
    regions = con.execute("SELECT region, region_stated FROM aws_instance_prices ORDER BY region NULLS FIRST")
    assert regions.fetchall() == [(None, False), ("US East (Ohio)", True)]


def test_spec_change_versions_the_spec_not_the_price(con):
    land(con, batch([price()]), 0)
    result = land(con, batch([price()], specs=[spec(memory="1024")]), 1)
    assert (result.inserted, result.closed) == (1, 1)
    assert len(history(con)) == 1
    as_of = "SELECT accelerator_memory_value FROM aws_instance_prices_as_of(?::TIMESTAMPTZ)"
    assert con.execute(as_of, [T0 + timedelta(hours=1)]).fetchall() == [(Decimal("512.000000"),)]
    assert con.execute(as_of, [T0 + timedelta(days=1)]).fetchall() == [(Decimal("1024.000000"),)]


def test_a_failed_landing_leaves_nothing_behind(con):
    land(con, batch([price()]), 0)
    before = (history(con), con.execute("SELECT count(*) FROM fetch_log").fetchall())
    # A record pydantic would refuse, forced through: the database's CHECK stops it mid-transaction.
    bad = InstancePrice.model_construct(
        instance_type="trn1.32xlarge",
        price_kind=PriceKind.ON_DEMAND,
        usd_per_instance_hour=Decimal("-1"),
        accelerator_count=16,
        region=None,
        printed_usd_per_accelerator_hour=None,
    )
    with pytest.raises(
        duckdb.ConstraintException,
        match=r"CHECK constraint failed on table aws_instance_price_history .*usd_per_instance_hour > 0",
    ):
        land(con, batch([bad], specs=[spec(memory="2048")]), 1)
    assert (history(con), con.execute("SELECT count(*) FROM fetch_log").fetchall()) == before
    assert con.execute("SELECT accelerator_memory_value FROM aws_instance_specs").fetchall() == [
        (Decimal("512.000000"),)
    ]


def test_derived_accelerator_rate_is_exact_and_rounded_half_up(con):
    inf2 = InstancePrice(
        instance_type="inf2.24xlarge",
        price_kind=PriceKind.ON_DEMAND,
        usd_per_instance_hour=Decimal("6.49"),
        accelerator_count=6,
    )
    land(
        con,
        batch(
            [price(usd="35.7608", kind=PriceKind.CAPACITY_BLOCK, region="US East (Ohio)"), inf2],
            specs=[spec(), InstanceSpec(instance_type="inf2.24xlarge", accelerator="Inferentia2", accelerator_count=6)],
        ),
        0,
    )
    rows = con.execute("""SELECT instance_type, usd_per_accelerator_hour, usd_per_accelerator_hour_4dp,
                                 typeof(usd_per_accelerator_hour)
                          FROM aws_instance_prices ORDER BY 1""").fetchall()
    assert rows == [
        # 6.49 / 6 does not terminate: rounded half-up at the 18th decimal, 4 dp half-up 1.0817.
        ("inf2.24xlarge", Decimal("1.081666666666666667"), Decimal("1.0817"), "DECIMAL(38,18)"),
        ("trn1.32xlarge", Decimal("2.23505"), Decimal("2.2351"), "DECIMAL(38,18)"),
    ]


# -- the comparison and the hash, in DuckDB ------------------------------------------------------------------

EXACT = VersionedTable(
    name="exact_history",
    key_columns=("item",),
    attribute_fields=(
        pa.field("item", pa.string()),
        pa.field("rate", pa.decimal128(38, 18)),
        pa.field("note", pa.string()),
    ),
)
EXACT_DDL = """CREATE TABLE exact_history (source_id VARCHAR, item VARCHAR, rate DECIMAL(38, 18), note VARCHAR,
    attributes_hash VARCHAR NOT NULL, valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ, fetch_id BIGINT,
    source_url VARCHAR, fetched_at TIMESTAMPTZ, sha256 VARCHAR, parser_version VARCHAR)"""


def land_exact(con, rows: list[dict[str, Any]], day: int):
    lineage = Lineage(day, "http://127.0.0.1/exact", T0 + timedelta(days=day), f"sha-{day}", "test/1")
    snapshot = snapshot_table(EXACT, rows, SOURCE, lineage)
    return land_snapshot(con, EXACT, snapshot, SOURCE, lineage.fetched_at)


def test_attributes_compare_exactly_and_nulls_as_equal(con):
    con.execute(EXACT_DDL)
    one = Decimal("1.000000000000000000")
    first = land_exact(con, [{"item": "a", "rate": one, "note": None}, {"item": "b", "rate": one, "note": "x"}], 0)
    assert (first.inserted, first.closed) == (2, 0)
    same = land_exact(
        con, [{"item": "a", "rate": Decimal("1"), "note": None}, {"item": "b", "rate": one, "note": "x"}], 1
    )
    assert (same.inserted, same.closed, same.unchanged) == (0, 0, 2)  # 1 and 1.000…0 are one value; NULL = NULL
    tiny = land_exact(
        con,
        [
            {"item": "a", "rate": Decimal("1.000000000000000001"), "note": None},
            {"item": "b", "rate": one, "note": None},
        ],
        2,
    )
    assert (tiny.inserted, tiny.closed) == (2, 2)  # a change at the 18th decimal and a value turning NULL both count
    open_rows = con.execute(
        "SELECT item, rate, note FROM exact_history WHERE valid_to IS NULL ORDER BY item"
    ).fetchall()
    assert open_rows == [("a", Decimal("1.000000000000000001"), None), ("b", one, None)]


def test_hashes_written_on_landing_are_what_rehash_computes(con):
    land(con, batch([price(), price(region="US East (Ohio)", kind=PriceKind.CAPACITY_BLOCK)]), 0)
    land(con, batch([price(usd="19.99"), price(region="US East (Ohio)", kind=PriceKind.CAPACITY_BLOCK)]), 1)
    hashes = con.execute("SELECT attributes_hash FROM aws_instance_price_history ORDER BY valid_from").fetchall()
    assert len({h for (h,) in hashes}) == 3 and all(len(h) == 64 for (h,) in hashes)
    assert (rehash(con, PRICES), rehash(con, SPECS)) == (0, 0)


def previous_release_hash(row: dict[str, Any], columns: tuple[str, ...]) -> str:
    """How the previous release hashed attributes, in Python (kept here to make files in its shape)."""
    canonical = [format(row[c].normalize(), "f") if isinstance(row[c], Decimal) else row[c] for c in columns]
    return hashlib.sha256(json.dumps(canonical, default=str, separators=(",", ":")).encode()).hexdigest()


def to_previous_release_hashes(con, table: VersionedTable) -> None:
    result = con.execute(f"SELECT rowid AS row_id, * FROM {table.name}")
    names = [d[0] for d in result.description]
    for values in result.fetchall():
        row = dict(zip(names, values, strict=True))
        old = previous_release_hash(row, table.attribute_columns)
        con.execute(f"UPDATE {table.name} SET attributes_hash = ? WHERE rowid = ?", [old, row["row_id"]])


def test_a_file_hashed_by_the_previous_release_upgrades_and_its_unchanged_rows_stay_unchanged(backend_db_path):
    path = backend_db_path
    prices = [price(), price("trn1.2xlarge", "1.34", region="US East (Ohio)")]
    with connect(path) as con:
        land(con, batch(prices), 0)
        current = con.execute("SELECT attributes_hash FROM aws_instance_price_history ORDER BY ALL").fetchall()
        for table in (SPECS, PRICES):
            to_previous_release_hashes(con, table)
        con.execute("UPDATE schema_version SET sql_sha256 = 'previous release'")
        assert con.execute("SELECT attributes_hash FROM aws_instance_price_history ORDER BY ALL").fetchall() != current

    with connect(path) as con:  # opening it read-write applies the schema, and the upgrade with it
        assert con.execute("SELECT attributes_hash FROM aws_instance_price_history ORDER BY ALL").fetchall() == current
        assert rehash(con, SPECS) == 0
        before = history(con)
        again = land(con, batch(prices), 1)
        assert (again.outcome, again.inserted, again.closed, again.unchanged) == ("unchanged", 0, 0, 4)
        assert history(con) == before
