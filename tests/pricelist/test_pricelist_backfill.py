"""`ratecard backfill pricelist`: the EC2 offer's past versions over real HTTP into real DuckDB files.

The version samples (pipelines/samples/aws/pricelist/versions/) hold three versions: trn1.32xlarge at $24.78
through the first two and $21.50 from 2026-09-01, p5.48xlarge falling on 2026-08-01, g6e.xlarge appearing on
2026-08-01 and eu-south-2 in the current version only. One backfilled warehouse is shared by the read-only tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.errors import ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at, serve_directory
from pipelines.pricelist.steps.backfill import BackfillReport, backfill_pricelist
from pipelines.pricelist.version_index import parse_version_index
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import SourceSpec, load_sources
from pipelines.sources.locations import SAMPLES_DIR
from tests.support.paths import RECORDED
from tests.support.pricelist_server import RATECARD

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_backfill")

RECORDED_INDEX = RECORDED / "aws" / "ec2_version_index.json"
VERSIONS = SAMPLES_DIR / "aws" / "pricelist" / "versions"
EFFECTIVE = [datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 8, 1, tzinfo=UTC), datetime(2026, 9, 1, tzinfo=UTC)]
# Every version of every row, as a set: what two histories must share to be the same history.
TIMELINE = """
SELECT region_code, instance_type, price_kind, lease_years, purchase_option, offering_class, hourly_usd, upfront_usd,
       valid_from, valid_to
FROM aws_pricelist_price_history
"""
ON_DEMAND_AT = """
SELECT instance_type, usd_per_instance_hour FROM aws_instance_prices_as_of(CAST($at AS TIMESTAMPTZ))
WHERE source_family = 'price_list' AND region_code = $region AND price_kind = 'on_demand'
"""


def pricelist_source(base: str) -> SourceSpec:
    return pointed_at([s for s in load_sources() if s.id == "aws_pricelist"], base)[0]


def backfill(db: Path, root: Path = SAMPLES_DIR, **options: object) -> BackfillReport:
    with serve_directory(root) as base, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        return backfill_pricelist(
            pricelist_source(base), fetcher=fetcher, db_path=db, archive=Archive(db.parent / "archive"), **options
        )


def daily_refresh(db: Path) -> None:
    with serve_directory() as base, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        archive = Archive(db.parent / "archive")
        outcomes = refresh_all([pricelist_source(base)], db_path=db, archive=archive, fetcher=fetcher, max_sources=2)
    assert all(o.error is None for o in outcomes), [str(o.error) for o in outcomes]


def rows(db: Path, sql: str, params: dict[str, object] | None = None) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or {}).fetchall()


def on_demand_at(db: Path, at: str, region: str = "us-east-1") -> dict[str, Decimal]:
    return dict(rows(db, ON_DEMAND_AT, {"at": at, "region": region}))


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BackfillReport]:
    db = tmp_path_factory.mktemp("backfilled") / "prices.duckdb"
    return db, backfill(db)


# The version index.


def test_the_recorded_version_index_reads_in_date_order_with_its_open_current_version():
    """A real index (jtdelia/ec2-priceit, see recorded/SOURCES.md): 110 versions keyed in no date order."""
    body = RECORDED_INDEX.read_bytes()
    versions = parse_version_index(body, "aws_pricelist", "https://pricing.us-east-1.amazonaws.com/x")
    assert len(versions) == 110 == len(json.loads(body)["versions"])
    assert list(json.loads(body)["versions"])[:2] == ["20180607191619", "20220304165507"]  # the file's own order
    assert [v.effective_from for v in versions] == sorted(v.effective_from for v in versions)
    first, current = versions[0], versions[-1]
    assert (first.version, first.effective_from) == ("20151209144527", datetime(2015, 12, 1, tzinfo=UTC))
    assert (current.version, current.effective_to) == ("20250912225308", None)  # printed ""
    assert current.region_index_url == (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/20250912225308/region_index.json"
    )
    since = parse_version_index(body, "aws_pricelist", "https://h/", since=date(2025, 3, 15))
    assert [v.version for v in since][:2] == ["20250331133428", "20250429030412"]  # in effect 2025-03-01..04-01
    assert len(since) == 7


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"versionEffectiveBeginDate": "", "versionEffectiveEndDate": ""}, "versionEffectiveBeginDate is empty"),
        ({"versionEffectiveBeginDate": "June 2026"}, "'June 2026' is not an ISO date"),
        ({"offerVersionUrl": "/offers/v1.0/aws/AmazonEC2/20260101000000/index.json"}, "is not this version's"),
        ({"versionEffectiveEndDate": "2026-05-01T00:00:00Z"}, "on or before it begins"),
    ],
)
def test_a_malformed_version_entry_is_refused_naming_the_version(entry, message):
    document = json.loads((VERSIONS / "index.json").read_bytes())
    document["versions"]["20260605120000"] |= entry
    with pytest.raises(ParseError, match=message) as refused:
        parse_version_index(json.dumps(document).encode(), "aws_pricelist", "http://127.0.0.1/")
    assert "[aws_pricelist]" in str(refused.value)


def test_two_versions_in_effect_at_once_are_refused():
    document = json.loads((VERSIONS / "index.json").read_bytes())
    document["versions"]["20260605120000"]["versionEffectiveEndDate"] = "2026-08-15T00:00:00Z"
    with pytest.raises(ParseError, match="20260605120000 and 20260803090000 are both in effect on 2026-08-01"):
        parse_version_index(json.dumps(document).encode(), "aws_pricelist", "http://127.0.0.1/")


# One backfill of the samples.


def test_each_date_reads_the_price_of_the_version_then_in_effect(backfilled):
    db, report = backfilled
    assert [v.version for v in report.versions] == ["20260605120000", "20260803090000", "20260928184207"]
    assert not report.failed and not report.errors
    july, august, october = (on_demand_at(db, day) for day in ("2026-07-15", "2026-08-15", "2026-10-01"))
    assert july["trn1.32xlarge"] == august["trn1.32xlarge"] == Decimal("24.78")
    assert october["trn1.32xlarge"] == Decimal("21.5")
    assert (july["p5.48xlarge"], august["p5.48xlarge"]) == (Decimal("98.32"), Decimal("55.04"))
    assert "g6e.xlarge" not in july and august["g6e.xlarge"] == Decimal("1.861")  # appears with the second version
    assert on_demand_at(db, "2026-05-31") == {}  # before the first version: nothing is claimed
    assert on_demand_at(db, "2026-07-15", "eu-south-2") == {}  # the region is in the current version only


def test_valid_from_is_each_versions_effective_date_and_an_unchanged_price_is_one_row(backfilled):
    db, _ = backfilled
    starts = {row[0] for row in rows(db, "SELECT DISTINCT valid_from FROM aws_pricelist_price_history")}
    assert starts == set(EFFECTIVE)
    trn1 = rows(
        db,
        """SELECT hourly_usd, valid_from, valid_to, offer_version FROM aws_pricelist_price_history
           WHERE instance_type = 'trn1.32xlarge' AND region_code = 'us-east-1' AND price_kind = 'on_demand'
           ORDER BY valid_from""",
    )
    assert trn1 == [
        (Decimal("24.78"), EFFECTIVE[0], EFFECTIVE[2], "20260605120000"),  # one row across two versions
        (Decimal("21.5"), EFFECTIVE[2], None, "20260928184207"),
    ]
    logged = rows(
        db, "SELECT offer_version, effective_from FROM aws_pricelist_backfill WHERE region_code = 'us-east-1'"
    )
    assert sorted(logged) == [
        (v, d) for v, d in zip(["20260605120000", "20260803090000", "20260928184207"], EFFECTIVE, strict=True)
    ]
    archive = Archive(db.parent / "archive")
    archived = rows(db, "SELECT sha256 FROM aws_pricelist_backfill")
    assert len(archived) == 7 and all(archive.verified_path(sha).is_file() for (sha,) in archived)


def test_a_second_backfill_adds_nothing_and_a_daily_refresh_continues_the_history(backfilled, tmp_path):
    db = tmp_path / "prices.duckdb"
    shutil.copy(backfilled[0], db)
    before = sorted(rows(db, TIMELINE), key=str)
    again = backfill(db)
    assert again.inserted == 0 and {u.outcome.status for u in again.units} == {"unchanged"}
    assert sorted(rows(db, TIMELINE), key=str) == before
    daily_refresh(db)
    assert sorted(rows(db, TIMELINE), key=str) == before  # the current version, already landed: no duplicate
    (open_twice,) = rows(
        db,
        """SELECT count(*) FROM (SELECT 1 FROM aws_pricelist_price_history WHERE valid_to IS NULL
           GROUP BY source_id, region_code, instance_type, price_kind, lease_years, purchase_option, offering_class
           HAVING count(*) > 1)""",
    )[0]
    assert open_twice == 0


def test_a_backfill_after_daily_refreshes_gives_the_same_history_and_a_reparse_keeps_it(backfilled, tmp_path):
    db = tmp_path / "prices.duckdb"
    daily_refresh(db)
    backfill(db)
    expected = sorted(rows(backfilled[0], TIMELINE), key=str)
    assert sorted(rows(db, TIMELINE), key=str) == expected  # the daily rows now start at 2026-09-01
    unit = next(s for s in load_sources() if s.id == "aws_pricelist")
    from pipelines.refresh.fan_out import logged_units

    with duckdb.connect(str(db)) as con:
        units = logged_units(con, unit)
    for spec in units:
        reparse_source(spec, db_path=db, archive=Archive(tmp_path / "archive"))
    assert sorted(rows(db, TIMELINE), key=str) == expected


def test_a_broken_version_is_quarantined_by_name_and_a_later_run_puts_it_in_its_place(backfilled, tmp_path):
    root = tmp_path / "samples"
    shutil.copytree(SAMPLES_DIR / "aws", root / "aws")
    broken = root / "aws" / "pricelist" / "versions" / "20260803090000" / "us-east-1.csv"
    good = broken.read_bytes()
    broken.write_bytes(good.replace(b'"Version","20260803090000"', b'"Version","20260701000000"'))
    db = tmp_path / "prices.duckdb"
    first = backfill(db, root, regions=["us-east-1"])
    (failed,) = first.failed
    assert (failed.version, failed.region_code, failed.outcome.status) == ("20260803090000", "us-east-1", "quarantined")
    assert "aws_pricelist_us_east_1" in str(failed.outcome.error) and "20260701000000" in str(failed.outcome.error)
    assert [u.outcome.status for u in first.units] == ["landed", "quarantined", "landed"]  # the others still land
    broken.write_bytes(good)
    second = backfill(db, root, regions=["us-east-1"])
    assert [u.outcome.status for u in second.units] == ["unchanged", "landed", "unchanged"]
    expected = [r for r in rows(backfilled[0], TIMELINE) if r[0] == "us-east-1"]
    assert sorted(rows(db, TIMELINE), key=str) == sorted(expected, key=str)


def test_the_cli_backfills_and_history_shows_the_changes_since_the_first_version(tmp_path):
    db = tmp_path / "prices.duckdb"
    ran = subprocess.run(
        [RATECARD, "backfill", "pricelist", "--offline", "--db", db, "--region", "us-east-1", "--since", "2026-08-15"],
        capture_output=True,
        check=False,
        text=True,
        timeout=180,
    )
    assert ran.returncode == 0, ran.stderr
    assert "20260605120000" not in ran.stdout and "20260803090000 us-east-1: landed" in ran.stdout
    shown = subprocess.run(
        [RATECARD, "history", "trn1.32xlarge", "--region", "us-east-1", "--kind", "on_demand", "--db", db],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "2026-08-01 00:00:00" in shown.stdout and "2026-09-01 00:00:00" in shown.stdout
    assert "1.5488" in shown.stdout and "1.3438" in shown.stdout  # 24.78 / 16 and 21.50 / 16 per Trainium chip


def test_the_dagster_job_backfills_with_run_config(tmp_path):
    from pipelines.definitions import build_definitions
    from tests.support.sourcefiles import write_sources_file

    db = tmp_path / "prices.duckdb"
    with serve_directory() as base:
        declared = [s for s in load_sources() if s.id == "aws_pricelist"]
        sources_file = write_sources_file(tmp_path / "sources.toml", declared, base)
        defs = build_definitions(sources_file, db)
        config = {"ops": {"backfill_pricelist_op": {"config": {"regions": ["us-east-2"], "since": "2026-08-15"}}}}
        result = defs.resolve_job_def("backfill_pricelist").execute_in_process(run_config=config)
    assert result.success
    assert result.output_for_node("backfill_pricelist_op") > 0
    landed = rows(db, "SELECT DISTINCT region_code, offer_version FROM aws_pricelist_backfill ORDER BY 2")
    assert landed == [("us-east-2", "20260803090000"), ("us-east-2", "20260928184207")]


def test_only_the_ec2_region_index_is_backfilled_whatever_the_order_declared():
    from pipelines.pricelist.steps.backfill import ec2_region_indexes

    declared = load_sources()
    assert [s.id for s in ec2_region_indexes(declared[::-1])] == ["aws_pricelist"]  # not aws_savings_plans


def test_daily_fetches_before_a_version_was_published_do_not_cut_it_short(tmp_path):
    """AWS publishes a version days after it takes effect (the second sample: in effect 2026-08-01, published
    2026-08-03). A daily refresh on 2026-08-02 still saw the first version; the backfilled second version holds
    from 2026-08-01 all the same, with no return to the old price in between."""
    from pipelines.pricelist.backfill_landing import VersionDates, land_version
    from pipelines.pricelist.landing import pricelist_snapshots
    from pipelines.pricelist.offer_csv import parse_offer_csv
    from warehouse.db import connect as open_warehouse
    from warehouse.landing import FetchRecord, land_batch

    unit = "aws_pricelist_us_east_1"
    first, second = (
        parse_offer_csv(VERSIONS / stamp / "us-east-1.csv", unit, region_code="us-east-1")
        for stamp in ("20260605120000", "20260803090000")
    )

    def fetch(day: str) -> FetchRecord:
        at = datetime.fromisoformat(f"{day}T06:00:00+00:00")
        return FetchRecord(unit, "http://127.0.0.1/offer.csv", at, sha256="0" * 64)

    db = tmp_path / "prices.duckdb"
    with open_warehouse(db) as con:
        for day, batch in (("2026-06-10", first), ("2026-08-02", first), ("2026-08-04", second)):  # the daily runs
            land_batch(con, fetch(day), "test/1", pricelist_snapshots(batch))
        land_version(con, fetch("2026-12-03"), "test/1", first, VersionDates("20260605120000", *EFFECTIVE[:2]))
        land_version(con, fetch("2026-12-03"), "test/1", second, VersionDates("20260803090000", *EFFECTIVE[1:]))
    p5 = rows(
        db,
        """SELECT hourly_usd, valid_from, valid_to FROM aws_pricelist_price_history
           WHERE instance_type = 'p5.48xlarge' AND price_kind = 'on_demand' ORDER BY valid_from""",
    )
    assert p5 == [(Decimal("98.32"), EFFECTIVE[0], EFFECTIVE[1]), (Decimal("55.04"), EFFECTIVE[1], None)]
