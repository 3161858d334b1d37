"""FX rate age and ECB corrections, end to end: ECB files and GPU pages served over HTTP on 127.0.0.1, refreshed
with `refresh_source` into a temporary DuckDB file, then read back in SQL.

- A listing converted with a rate older than `[fx] max_rate_age_days` lands flagged fx_rate_stale, with a
  warning naming the source, currency, rate date and age.
- An ECB correction of a landed rate is a new fx_rates version: later conversions use it, replays do not.
- A warehouse file in the shape the previous release wrote upgrades in place, and its next refresh adds nothing.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pydantic
import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fx.landing import load_fx_rates
from pipelines.gpu.landing import GPU_LISTINGS
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import DEFAULT_SOURCES_FILE, FxSettings, SourceSpec, load_sources
from tests.adapters.test_fx_ecb import envelope
from tests.support.localserver import LocalServer, Reply
from warehouse.db import connect
from warehouse.versioning import VersionedTable, rehash

SAMPLE_RATE_DATE = date(2026, 9, 28)
USED = ("fx_ecb", "gpu_leadergpu", "gpu_lambda")  # the rates, a EUR-priced provider, a USD-priced one


class Pipeline:
    """The three sources at the local site, refreshed one at a time into one warehouse file."""

    def __init__(self, site: LocalServer, declared: list[SourceSpec], tmp_path: Path):
        self.site = site
        self.db_path = tmp_path / "warehouse" / "prices.duckdb"
        self.archive = Archive(tmp_path / "archive")
        self.sources = {
            s.id: SourceSpec.model_validate({**s.model_dump(), "url": site.url(f"/{s.sample}")})
            for s in declared
            if s.id in USED
        }

    def serve_ecb(self, day: date, usd: str = "1.1840") -> None:
        body = envelope({day.isoformat(): [("USD", usd), ("GBP", "0.87215")]})
        self.site.set(f"/{self.sources['fx_ecb'].sample}", Reply(body=body, content_type="text/xml"))

    def refresh(self, source_id: str, **overrides: object) -> SourceOutcome:
        source = self.sources[source_id].model_copy(update=overrides)
        with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
            outcome = refresh_source(source, fetcher=fetcher, db_path=self.db_path, archive=self.archive)
        assert outcome.ok, outcome.error
        return outcome

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()


@pytest.fixture
def pipeline(site, sources, tmp_path) -> Pipeline:
    return Pipeline(site, sources, tmp_path)


def today() -> date:
    return datetime.now(UTC).date()


def flags(pipeline: Pipeline, provider: str, table: str = "gpu_listings") -> list[tuple]:
    return pipeline.query(f"SELECT DISTINCT fx_rate_stale FROM {table} WHERE provider = ?", [provider])


# -- rate age ------------------------------------------------------------------------------------------------


def test_a_listing_converted_with_an_old_rate_lands_flagged_and_warned_about(pipeline):
    pipeline.refresh("fx_ecb")  # the bundled sample, dated 28 September 2026
    eur = pipeline.refresh("gpu_leadergpu")
    usd = pipeline.refresh("gpu_lambda")

    age = (eur.fetched_at.date() - SAMPLE_RATE_DATE).days
    assert age > 7 and eur.status == "landed"
    stale = [w for w in eur.warnings if "fx_rate_stale" in w]
    assert stale == [
        f"[gpu_leadergpu] EUR converted at the ECB rate of 2026-09-28, {age} days before the fetch date "
        f"{eur.fetched_at.date().isoformat()} (limit 7): {eur.counts['listing_rows']} listing(s) landed "
        "with fx_rate_stale"
    ]
    assert eur.counts["stale_fx_rate_rows"] == eur.counts["listing_rows"] > 0
    assert flags(pipeline, "LeaderGPU", "gpu_listing_history") == flags(pipeline, "LeaderGPU") == [(True,)]
    # USD needs no rate: NULL, and no warning.
    assert flags(pipeline, "Lambda") == [(None,)] and not any("fx_rate_stale" in w for w in usd.warnings)
    assert usd.counts["stale_fx_rate_rows"] == 0


def test_the_age_limit_is_the_sources_files_and_a_flag_change_is_a_new_version(pipeline):
    pipeline.serve_ecb(today() - timedelta(days=10))
    pipeline.refresh("fx_ecb")
    assert pipeline.refresh("gpu_leadergpu").counts["stale_fx_rate_rows"] > 0  # 10 days > the default 7

    relaxed = pipeline.refresh("gpu_leadergpu", fx=FxSettings(max_rate_age_days=30))

    assert relaxed.status == "landed" and relaxed.inserted == relaxed.closed > 0
    assert not any("fx_rate_stale" in w for w in relaxed.warnings)
    assert flags(pipeline, "LeaderGPU") == [(False,)]
    history = pipeline.query("""SELECT fx_rate_stale, valid_to IS NULL, count(*) FROM gpu_listing_history
                                GROUP BY ALL ORDER BY ALL""")
    assert [(stale, current) for stale, current, _ in history] == [(False, True), (True, False)]


def test_the_sources_file_sets_the_limit_and_a_source_may_override_it(tmp_path):
    text = DEFAULT_SOURCES_FILE.read_text()
    assert "[fx]\nmax_rate_age_days = 7" in text
    path = tmp_path / "sources.toml"
    leadergpu = 'options = { provider = "LeaderGPU" }'
    path.write_text(
        text.replace("max_rate_age_days = 7", "max_rate_age_days = 3").replace(
            leadergpu, leadergpu + "\nfx = { max_rate_age_days = 14 }"
        )
    )
    limits = {s.id: s.fx.max_rate_age_days for s in load_sources(path)}
    assert limits["gpu_leadergpu"] == 14 and limits["gpu_lambda"] == 3 and limits["fx_ecb"] == 3
    with pytest.raises(pydantic.ValidationError, match="max_rate_age_days"):
        FxSettings(max_rate_age_days=-1)


# -- ECB corrections -----------------------------------------------------------------------------------------


def test_an_ecb_correction_is_a_new_version_used_from_then_on_and_not_by_replays(pipeline):
    pipeline.serve_ecb(today())
    first = pipeline.refresh("fx_ecb")
    before = pipeline.refresh("gpu_leadergpu")
    pipeline.serve_ecb(today(), usd="1.1850")  # the ECB republishes the day's USD rate

    corrected = pipeline.refresh("fx_ecb")
    again = pipeline.refresh("fx_ecb")
    after = pipeline.refresh("gpu_leadergpu")

    assert (corrected.status, corrected.inserted, corrected.closed) == ("landed", 1, 1)  # GBP is unchanged
    assert (again.status, again.inserted, again.closed) == ("unchanged", 0, 0)
    assert pipeline.query("""SELECT units_per_eur, fetch_id, fetched_at, valid_to FROM fx_rates
                             WHERE currency = 'USD' ORDER BY fetched_at""") == [
        (Decimal("1.184000"), first.fetch_id, first.fetched_at, corrected.fetched_at),
        (Decimal("1.185000"), corrected.fetch_id, corrected.fetched_at, None),
    ]
    assert pipeline.query("SELECT count(*) FROM fx_rates WHERE currency = 'GBP'") == [(1,)]
    # Conversions from then on use the corrected rate, exactly; the earlier version stays in history.
    assert pipeline.query(
        "SELECT DISTINCT usd_per_currency_unit, fx_rate_stale FROM gpu_listings WHERE provider = 'LeaderGPU'"
    ) == [(Decimal("1.1850000000"), False)]
    assert after.closed == before.inserted > 0
    # What was known at the first GPU fetch is the value before the correction.
    with connect(pipeline.db_path) as con:
        usd_at = {
            when: [r.units_per_eur for r in load_fx_rates(con, when) if r.currency == "USD"]
            for when in (before.fetched_at, corrected.fetched_at, None)
        }
    assert usd_at == {
        before.fetched_at: [Decimal("1.1840")],
        corrected.fetched_at: [Decimal("1.1850")],
        None: [Decimal("1.1850")],
    }


def test_a_replay_converts_each_fetch_with_the_rate_known_then(pipeline):
    pipeline.serve_ecb(today())
    pipeline.refresh("fx_ecb")
    pipeline.refresh("gpu_leadergpu")
    pipeline.serve_ecb(today(), usd="1.1850")
    pipeline.refresh("fx_ecb")
    pipeline.refresh("gpu_leadergpu")
    listing_history = """SELECT usd_per_currency_unit, valid_to IS NULL FROM gpu_listing_history
                         WHERE listing = '1 pcs NVIDIA A10 / day' ORDER BY valid_from"""
    expected = [(Decimal("1.1840000000"), False), (Decimal("1.1850000000"), True)]
    assert pipeline.query(listing_history) == expected

    for source_id in ("fx_ecb", "gpu_leadergpu"):
        reparse_source(pipeline.sources[source_id], db_path=pipeline.db_path, archive=pipeline.archive)

    assert pipeline.query(listing_history) == expected
    assert pipeline.query(
        "SELECT units_per_eur, valid_to IS NULL FROM fx_rates WHERE currency = 'USD' ORDER BY fetched_at"
    ) == [(Decimal("1.184000"), False), (Decimal("1.185000"), True)]


# -- upgrading a file the previous release wrote -------------------------------------------------------------

PREVIOUS_GPU_LISTINGS = VersionedTable(
    GPU_LISTINGS.name,
    GPU_LISTINGS.key_columns,
    tuple(f for f in GPU_LISTINGS.attribute_fields if f.name != "fx_rate_stale"),
)


def to_previous_release(db_path: Path) -> None:
    """Put a file in the previous release's shape: no fx_rate_stale or valid_to, hashes over the old columns."""
    with duckdb.connect(str(db_path)) as con:
        con.execute("ALTER TABLE gpu_listing_history DROP COLUMN fx_rate_stale")
        con.execute("ALTER TABLE fx_rates DROP COLUMN valid_to")
        rehash(con, PREVIOUS_GPU_LISTINGS)
        con.execute("UPDATE schema_version SET sql_sha256 = 'previous release'")


@pytest.mark.parametrize(("rate_date", "stale"), [(SAMPLE_RATE_DATE, True), (None, False)])
def test_a_file_from_the_previous_release_upgrades_and_its_next_refresh_adds_nothing(pipeline, rate_date, stale):
    pipeline.serve_ecb(rate_date or today())
    for source_id in USED:
        pipeline.refresh(source_id)
    hashes = pipeline.query("SELECT attributes_hash FROM gpu_listing_history ORDER BY ALL")
    to_previous_release(pipeline.db_path)
    assert pipeline.query("SELECT attributes_hash FROM gpu_listing_history ORDER BY ALL") != hashes

    with connect(pipeline.db_path) as con:  # opening it read-write applies the schema
        comments = con.execute("""SELECT table_name, column_name FROM duckdb_columns()
                                  WHERE column_name IN ('fx_rate_stale', 'valid_to') AND comment IS NULL
                                    AND table_name IN ('gpu_listing_history', 'gpu_listings', 'fx_rates')""").fetchall()

    assert comments == []
    assert pipeline.query("SELECT attributes_hash FROM gpu_listing_history ORDER BY ALL") == hashes
    assert flags(pipeline, "LeaderGPU", "gpu_listing_history") == [(stale,)]  # judged against the default 7 days
    assert flags(pipeline, "Lambda", "gpu_listing_history") == [(None,)]
    assert pipeline.query("SELECT count(*) FROM fx_rates WHERE valid_to IS NOT NULL") == [(0,)]
    for source_id in USED:
        outcome = pipeline.refresh(source_id)
        assert (outcome.status, outcome.inserted, outcome.closed) == ("unchanged", 0, 0), source_id
