"""History from before install day, from captures others made: the seven versions of koyakimu's scraped Capacity
Blocks `data/pricing.json` (tests/recorded/capacity_blocks_json/) and two web-archive captures of RunPod's pricing
page (tests/recorded/runpod_pages/; provenance of both in SOURCES.md), served on 127.0.0.1 at their raw-GitHub paths
and landed by the real `ratecard backfill captures` into a warehouse whose daily refresh landed both sources already.
Each capture lands at its own time, flagged by its id; a rerun adds nothing; a daily fetch's rows are never
overwritten; a reparse rebuilds the same history."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.dashboard.data import read_site_data
from pipelines.sources.captures import load_captures
from tests.support.captures import served_captures
from tests.support.localserver import LocalServer
from tests.support.paths import RECORDED
from tests.support.pilot_runs import ratecard, rows

pytestmark = pytest.mark.xdist_group("backfilled_captures")  # one worker, one landed warehouse

FOLDER = RECORDED / "capacity_blocks_json"
SET = "koyakimu_capacity_blocks"
TRN2_OHIO = """
SELECT valid_from, valid_to, usd_per_instance_hour, backfilled_from
FROM aws_instance_prices_as_of(TIMESTAMPTZ '{at}')
WHERE instance_type = '{type}' AND region = '{region}' AND price_kind = 'capacity_block'
"""


def recordings() -> dict[str, Path]:
    """Capture id -> its recording, for the Capacity Blocks set."""
    (capture_set,) = [s for s in load_captures() if s.id == SET]
    return {c.id: FOLDER / f"pricing-{c.id.rsplit('@', 1)[1]}.json" for c in capture_set.captures}


def runpod_recordings() -> dict[str, Path]:
    """The RunPod pricing page's captures, and its Serverless page's Markdown versions, by capture id."""
    sets = {s.id: s for s in load_captures()}
    pages = {
        c.id: RECORDED / "runpod_pages" / str(c.url).rsplit("/", 1)[1] for c in sets["runpod_pricing_page"].captures
    }
    docs = RECORDED / "runpod_serverless_docs"
    versions = {
        c.id: next(docs.glob(f"pricing-{c.id.split('@')[1][:12]}.*")) for c in sets["runpod_serverless_docs"].captures
    }
    return pages | versions


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("captures")
    db = root / "prices.duckdb"
    daily = ratecard(
        "refresh", "--offline", "--source", "aws_capacity_blocks", "--source", "gpu_runpod",
        "--source", "gpu_runpod_serverless", "--db", db,
    )  # fmt: skip
    assert daily.returncode == 0, daily.stdout + daily.stderr
    before = rows(db, "SELECT * EXCLUDE (fetched_at) FROM aws_instance_price_history ORDER BY ALL")
    with LocalServer() as server:
        captures = served_captures(server, recordings() | runpod_recordings(), root)
        first = ratecard("backfill", "captures", "--captures", captures, "--db", db)
        history = rows(db, "SELECT * FROM aws_instance_price_history ORDER BY ALL")
        again = ratecard("backfill", "captures", "--captures", captures, "--db", db)
    return {"db": db, "daily_rows": before, "first": first, "again": again, "history": history}


def test_every_capture_lands_once_at_its_own_time(backfilled):
    first = backfilled["first"]
    assert first.returncode == 0, first.stdout + first.stderr
    logged = rows(
        backfilled["db"],
        "SELECT capture_id, captured_at, outcome FROM capture_log ORDER BY captured_at, capture_id",
    )
    assert len(logged) == 15 and {o for *_, o in logged} <= {"landed", "unchanged"}
    assert logged[0][:2] == (
        "web.archive.org/web/20230929070808/https://www.runpod.io/gpu-instance/pricing",
        datetime(2023, 9, 29, 7, 8, 8, tzinfo=UTC),
    )
    assert logged[7][:2] == (
        "koyakimu/ec2-capacity-blocks-for-ml-pricing-json@45e3e84db470",
        datetime(2026, 1, 31, 14, 16, 57, tzinfo=UTC),
    )
    assert logged[-1][1] == datetime(2026, 8, 10, 8, 23, 17, tzinfo=UTC)
    # Its fetch is logged at the capture time: the page as it was then.
    fetched = rows(
        backfilled["db"],
        "SELECT min(f.fetched_at) FROM fetch_log f JOIN capture_log c USING (fetch_id)"
        " WHERE c.capture_set = 'koyakimu_capacity_blocks'",
    )
    assert fetched == [(datetime(2026, 1, 31, 14, 16, 57, tzinfo=UTC),)]


@pytest.mark.parametrize(
    ("at", "instance_type", "region", "usd"),
    [
        ("2026-02-15 00:00:00+00", "trn2.48xlarge", "US East (Ohio)", Decimal("35.7608")),
        ("2026-05-01 00:00:00+00", "trn2.48xlarge", "US East (Ohio)", Decimal("35.7608")),
        ("2026-02-15 00:00:00+00", "trn1.32xlarge", "US East (N. Virginia)", Decimal("9.532")),
        ("2026-07-30 00:00:00+00", "trn1.32xlarge", "US East (Ohio)", Decimal("9.532")),
    ],
)
def test_the_prices_as_they_stood_come_from_the_capture_of_that_time(backfilled, at, instance_type, region, usd):
    found = rows(backfilled["db"], TRN2_OHIO.format(at=at, type=instance_type, region=region))
    assert len(found) == 1, found
    valid_from, _, price, backfilled_from = found[0]
    assert price == usd
    assert backfilled_from.startswith("koyakimu/ec2-capacity-blocks-for-ml-pricing-json@")
    assert valid_from <= datetime.fromisoformat(at)


def test_before_the_first_capture_nothing_is_known(backfilled):
    assert rows(backfilled["db"], TRN2_OHIO.format(at="2026-01-01 00:00:00+00", type="trn2.48xlarge",
                                                   region="US East (Ohio)")) == []  # fmt: skip


def test_a_rerun_adds_nothing(backfilled):
    again = backfilled["again"]
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already backfilled" in again.stdout and "0 rows added" in again.stdout
    assert rows(backfilled["db"], "SELECT * FROM aws_instance_price_history ORDER BY ALL") == backfilled["history"]
    assert rows(backfilled["db"], "SELECT count(*) FROM capture_log") == [(15,)]


def test_the_daily_fetch_still_says_what_it_saw(backfilled):
    db = backfilled["db"]
    # What the daily refresh landed holds from its fetch on, whatever a capture said before it.
    daily = rows(
        db,
        """SELECT instance_type, region, usd_per_instance_hour FROM aws_instance_prices
           WHERE source_id = 'aws_capacity_blocks' ORDER BY ALL""",
    )
    landed_daily = sorted({(r[1], r[3], r[5]) for r in backfilled["daily_rows"]})  # type, region, usd
    assert daily == landed_daily
    # No capture row reaches past the daily fetch.
    (daily_at,) = rows(
        db, "SELECT min(fetched_at) FROM fetch_log WHERE fetch_id NOT IN (SELECT fetch_id FROM capture_log)"
    )[0]
    late = rows(db, f"""SELECT count(*) FROM aws_instance_price_history h JOIN capture_log c USING (fetch_id)
                        WHERE h.valid_from >= TIMESTAMPTZ '{daily_at}'""")  # fmt: skip
    assert late == [(0,)]


def test_an_ultraserver_in_a_capture_is_reported_not_read(backfilled):
    warnings = rows(
        backfilled["db"],
        "SELECT DISTINCT unnest(warnings) FROM fetch_log JOIN capture_log USING (fetch_id) ORDER BY 1",
    )
    assert ("'u-p6e-gb200x72' is an UltraServer, not an instance type: not read",) in warnings


@pytest.mark.parametrize(
    ("source", "table"),
    [
        ("aws_capacity_blocks", "aws_instance_price_history"),
        ("gpu_runpod", "gpu_listing_history"),
        ("gpu_runpod_serverless", "gpu_listing_history"),
    ],
)
def test_a_reparse_rebuilds_the_same_history(backfilled, source, table):
    db = backfilled["db"]
    history = f"SELECT * EXCLUDE (attributes_hash) FROM {table} ORDER BY ALL"
    before = rows(db, history)
    done = ratecard("reparse", "--source", source, "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert rows(db, history) == before


def test_a_bad_capture_is_refused_by_name_and_the_daily_refresh_after_captures_still_lands(tmp_path):
    """On a new warehouse: the captures first (one of them broken), then the page's first daily refresh, whose drift
    rules have nothing of the page itself to compare with (a capture is another's reading of it)."""
    db = tmp_path / "prices.duckdb"
    files = recordings()
    broken = tmp_path / "broken.json"
    broken.write_text('{"metadata": {}, "instance_types": "none"}', encoding="utf-8")
    bad_id = next(iter(files))
    with LocalServer() as server:
        captures = served_captures(server, files | {bad_id: broken}, tmp_path)
        done = ratecard("backfill", "captures", "--captures", captures, "--db", db)
    assert done.returncode == 1
    assert f"{bad_id}: quarantined" in done.stdout
    assert "no mapping of instance types with a 'pricing' list" in done.stdout
    assert rows(db, "SELECT outcome, count(*) FROM capture_log GROUP BY ALL ORDER BY ALL") == [
        ("landed", 3), ("quarantined", 1), ("unchanged", 3)
    ]  # fmt: skip
    daily = ratecard("refresh", "--offline", "--source", "aws_capacity_blocks", "--db", db)
    assert daily.returncode == 0, daily.stdout + daily.stderr
    (last,) = rows(db, "SELECT last_outcome FROM source_freshness WHERE source_id = 'aws_capacity_blocks'")
    assert last == ("landed",)


RUNPOD = """
SELECT listing, price_kind, usd_per_gpu_hour_4dp, backfilled_from
FROM gpu_listings_as_of(TIMESTAMPTZ '{at}')
WHERE source_id = 'gpu_runpod' AND gpu_model IN ('H100', 'A100') AND listing LIKE '{listing}%'
ORDER BY listing, price_kind
"""


@pytest.mark.parametrize(
    ("at", "listing", "expected"),
    [
        ("2024-06-01 00:00:00+00", "H100 80GB SXM5", [("H100 80GB SXM5 (community)", "community", "4.0900"),
                                                     ("H100 80GB SXM5 (secure)", "on_demand", "4.4900")]),
        ("2025-09-01 00:00:00+00", "A100 80GB", [("A100 80GB (community)", "community", "1.6900"),
                                                ("A100 80GB (secure)", "on_demand", "1.9900")]),
        ("2026-09-01 00:00:00+00", "H100 SXM", [("H100 SXM (community)", "community", "2.6900"),
                                               ("H100 SXM (secure)", "on_demand", "2.9900")]),
        ("2026-09-01 00:00:00+00", "A100 SXM", [("A100 SXM (community)", "community", "1.3900"),
                                               ("A100 SXM (secure)", "on_demand", "1.4900")]),
    ],
)  # fmt: skip
def test_runpods_h100_and_a100_prices_as_they_stood_years_before_install_day(backfilled, at, listing, expected):
    found = rows(backfilled["db"], RUNPOD.format(at=at, listing=listing))
    assert [(name, kind, str(usd)) for name, kind, usd, _ in found] == expected
    assert all(source.startswith("web.archive.org/web/") for *_, source in found)


def test_runpods_h100_and_a100_history_spans_more_than_two_years(backfilled):
    (span,) = rows(
        backfilled["db"],
        """SELECT min(valid_from), max(coalesce(valid_to, fetched_at)) FROM gpu_listing_history
           WHERE source_id = 'gpu_runpod' AND gpu_model = 'H100'""",
    )
    first, last = span
    assert first == datetime(2023, 9, 29, 7, 8, 8, tzinfo=UTC)
    assert (last - first).days > 2 * 365


def test_the_dashboards_history_page_draws_the_long_series(backfilled):
    site = read_site_data(Path(backfilled["db"]).with_suffix(".snapshot.duckdb"))
    gpu = {chart.title: chart for chart in site.gpu_charts}
    assert gpu["H100"].days > 2 * 365
    assert min(p["point_at"] for p in gpu["H100"].points) == "2023-09-29T07:08:08Z"
    aws = {chart.title: chart for chart in site.aws_charts}
    assert min(p["point_at"] for p in aws["trn2.48xlarge"].points) == "2026-01-31T14:16:57Z"


def test_runpods_serverless_prices_as_its_docs_printed_them_in_2025(backfilled):
    found = rows(
        backfilled["db"],
        """SELECT listing, price_kind, usd_per_gpu_second, idle_timeout_seconds, billing_increment_seconds,
                  backfilled_from
           FROM gpu_listings_as_of(TIMESTAMPTZ '2025-06-01 00:00:00+00')
           WHERE source_id = 'gpu_runpod_serverless' AND listing LIKE '%H100 PRO' ORDER BY price_kind""",
    )
    assert [r[:5] for r in found] == [
        ("serverless pool 80 GB (H100 PRO): H100 PRO", "serverless", Decimal("0.00116"), 5, 1),
        ("serverless pool 80 GB (H100 PRO): H100 PRO", "serverless_active", Decimal("0.00093"), 5, 1),
    ]
    assert {r[5] for r in found} == {"runpod/docs@345cda701431:docs/serverless/pricing.md"}
