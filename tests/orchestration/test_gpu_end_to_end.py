"""The GPU half for real: every provider and the ECB rates served over HTTP on 127.0.0.1, materialised by
Dagster into a temporary DuckDB file; the articles' table must come out of gpu_cheapest exactly.

The tests that read use the session's landing of every sample (tests/support/dagster_landed.py, shared with
test_end_to_end.py); those that refresh with other answers land into a warehouse or a copy of their own."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from pipelines.sources.file import sample_path
from tests.adapters.test_fx_ecb import envelope
from tests.orchestration.test_end_to_end import query
from tests.support.dagster_landed import check_outcomes, failures_by_step, landing_group, run_refresh
from tests.support.landed import copy_of
from tests.support.localserver import Reply
from tests.support.sourcefiles import serve_samples

# GPU, cheapest $/GPU-hr, provider, providers in stock (28 September 2026). Most pricing pages state no stock: the
# articles' count is the providers offering the model on demand, not stated sold out (providers_offering).
ARTICLE_TABLE = [
    ("A10", Decimal("0.37"), "LeaderGPU", 2),
    ("B200", Decimal("6.79"), "RunPod", 3),
    ("H100", Decimal("2.50"), "Hyperstack", 9),
    ("H200", Decimal("3.43"), "QuantaCloud", 6),
    ("L4", Decimal("0.49"), "RunPod", 2),
]
# The articles count GPU clouds; these hyperscalers, which they leave out, are counted apart.
HYPERSCALERS = ("Azure", "Google Cloud", "Oracle Cloud")


def cheapest(db_path) -> list[tuple]:
    """The view's rows for the articles' models, each count less the hyperscalers offering the model on demand."""
    return query(
        db_path,
        f"""SELECT c.gpu_model, c.usd_per_gpu_hour, c.provider,
                   c.providers_offering - (SELECT count(DISTINCT l.provider) FROM gpu_listings AS l
                                           WHERE l.gpu_model = c.gpu_model AND l.price_kind = 'on_demand'
                                             AND l.provider IN {HYPERSCALERS})
            FROM gpu_cheapest AS c
            WHERE c.gpu_model IN ('A10', 'B200', 'H100', 'H200', 'L4') ORDER BY c.gpu_model""",
    )


def test_the_hyperscalers_are_counted_among_the_providers(landed_db):
    """On demand: Azure offers H100 and H200, Google Cloud H100, H200 and L4 (its B200 has no on-demand price), Oracle
    Cloud A10, B200, H100 and H200. Each counts once."""
    counts = dict(query(landed_db, "SELECT gpu_model, providers_offering FROM gpu_cheapest"))
    assert [counts[m] for m in ("A10", "B200", "H100", "H200", "L4")] == [3, 4, 12, 9, 3]


pytestmark = landing_group("file")


@pytest.fixture
def shared(dagster_landings):
    return dagster_landings.get("file")


@pytest.fixture
def landed(shared):
    """The Dagster runs' events of the shared landing."""
    return shared.result


@pytest.fixture
def landed_db(shared):
    """The shared landed warehouse: read it, never write it."""
    return shared.db_path


def test_the_articles_gpu_table_comes_out_exactly(landed_db):
    db_path = landed_db
    assert cheapest(db_path) == ARTICLE_TABLE


def test_eur_prices_convert_at_the_ecb_rate_and_keep_the_original(landed_db):
    db_path = landed_db
    row = query(
        db_path,
        """SELECT original_amount, original_currency, original_unit, usd_per_currency_unit,
                                   fx_rate_date, usd_per_gpu_hour, gpu_count
                            FROM gpu_listings WHERE listing = '1 pcs NVIDIA A10 / day'""",
    )
    assert row == [
        (Decimal("7.50"), "EUR", "per instance-day", Decimal("1.1840"), date(2026, 9, 28), Decimal("0.37"), 1)
    ]
    h100 = query(
        db_path,
        """SELECT usd_per_gpu_hour FROM gpu_listings
                             WHERE listing = '8 pcs NVIDIA H100 / minute'""",
    )
    assert h100 == [(Decimal("0.29") * Decimal("1.1840") * 60 / 8,)]  # per minute x 60, per node / 8 GPUs


def test_price_kinds_and_stock_are_kept_apart(landed_db):
    db_path = landed_db
    # Cheaper H100 prices exist, but as spot, community, reserved or sold out: none is the cheapest on-demand.
    cheaper = query(
        db_path,
        """SELECT DISTINCT price_kind FROM gpu_listings
                                WHERE gpu_model = 'H100' AND usd_per_gpu_hour < 2.50 ORDER BY 1""",
    )
    assert cheaper == [("community",), ("reserved",), ("spot",)]
    sold_out = query(
        db_path,
        """SELECT provider, usd_per_gpu_hour FROM gpu_listings
                                 WHERE gpu_model = 'B200' AND stock_status = 'sold_out' ORDER BY 1""",
    )
    assert sold_out == [("Lambda", Decimal("5.99")), ("QuantaCloud", Decimal("5.49"))]


def test_serverless_listings_land_with_their_per_second_price_and_terms(landed_db):
    providers = query(
        landed_db,
        """SELECT provider, count(*), min(billing_increment_seconds), max(billing_increment_seconds),
                  bool_and(usd_per_gpu_second * 3600 = usd_per_gpu_hour AND period = 'second'),
                  bool_and(billing_terms_url IS NOT NULL AND billing_terms <> '')
           FROM gpu_listings WHERE price_kind IN ('serverless', 'serverless_active') GROUP BY ALL ORDER BY 1""",
    )
    assert [p[0] for p in providers] == ["Beam", "Replicate", "RunPod"]
    assert all(p[1] > 0 and p[2:] == (1, 1, True, True) for p in providers), providers
    terms = query(
        landed_db,
        """SELECT DISTINCT provider, idle_timeout_seconds, cold_start_billed FROM gpu_listings
           WHERE price_kind = 'serverless' ORDER BY 1""",
    )
    assert terms == [("Beam", 180, True), ("Replicate", None, False), ("RunPod", 5, True)]  # None: not stated
    by_kind = query(
        landed_db,
        """SELECT price_kind, provider, usd_per_gpu_second FROM gpu_cheapest_by_kind
           WHERE gpu_model = 'H100' AND price_kind LIKE 'serverless%' ORDER BY 1""",
    )
    assert by_kind == [
        ("serverless", "RunPod", Decimal("0.00116")),
        ("serverless_active", "RunPod", Decimal("0.00093")),
    ]
    assert query(landed_db, "SELECT count(*) FROM gpu_cheapest WHERE original_unit LIKE '%second%'") == [(0,)]


def test_unknown_names_are_kept_and_flagged(landed, landed_db):
    db_path = landed_db
    unknown = query(
        db_path,
        """SELECT provider, gpu_name FROM gpu_listings
                                WHERE gpu_model IS NULL AND NOT gpu_name_recognised ORDER BY 1, 2""",
    )
    assert ("Crusoe", "AMD MI300X 192GB") in unknown and ("Oracle Cloud", "E3") in unknown
    assert check_outcomes(landed)[("gpu_cheapest", "gpu_names_recognised")] is False  # a WARN check


def check_metadata(result, check_name: str) -> dict:
    (event,) = [
        e
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION" and e.event_specific_data.check_name == check_name
    ]
    return {name: value.value for name, value in event.event_specific_data.metadata.items()}


def test_the_demo_converts_with_the_samples_old_ecb_rate_and_says_so(landed, landed_db):
    db_path = landed_db
    # The bundled ECB file is dated 28 September 2026: today's LeaderGPU prices convert with it, flagged.
    assert check_outcomes(landed)[("gpu_cheapest", "gpu_fx_rates_fresh")] is False  # a WARN check
    metadata = check_metadata(landed, "gpu_fx_rates_fresh")
    (stale,) = query(db_path, "SELECT count(*) FROM gpu_listings WHERE fx_rate_stale")[0]
    assert metadata["stale_listings"] == stale > 0 and metadata["oldest_rate_date"] == "2026-09-28"
    assert query(db_path, "SELECT DISTINCT provider FROM gpu_listings WHERE fx_rate_stale") == [("LeaderGPU",)]
    assert query(
        db_path, "SELECT count(*) FROM gpu_listings WHERE fx_rate_stale IS NULL AND original_currency <> 'USD'"
    ) == [(0,)]


def test_todays_ecb_rates_pass_the_fx_age_check(sources_file, db_path, site):
    today = datetime.now(UTC).date().isoformat()
    site.set("/fx/eurofxref-daily.xml", Reply(body=envelope({today: [("USD", "1.1840")]}), content_type="text/xml"))

    result = run_refresh(sources_file, db_path)

    assert result.success, failures_by_step(result)
    assert check_outcomes(result)[("gpu_cheapest", "gpu_fx_rates_fresh")] is True
    assert check_metadata(result, "gpu_fx_rates_fresh")["stale_listings"] == 0
    assert query(
        db_path, "SELECT DISTINCT fx_rate_date, fx_rate_stale FROM gpu_listings WHERE provider = 'LeaderGPU'"
    ) == [(date.fromisoformat(today), False)]


def test_accelerator_hour_prices_puts_both_halves_in_one_unit(landed_db):
    db_path = landed_db
    rows = query(
        db_path,
        """SELECT vendor, accelerator_model, billed_unit, usd_per_accelerator_hour
                             FROM accelerator_hour_prices
                             WHERE (vendor = 'AWS' AND offering = 'trn2.48xlarge')
                                OR (vendor = 'CoreWeave' AND accelerator_model = 'B200')
                                OR (vendor = 'Hyperstack' AND offering = 'NVIDIA H100 SXM')
                             ORDER BY vendor""",
    )
    assert rows == [
        ("AWS", "Trainium2", "instance-hour", Decimal("2.23505")),
        ("CoreWeave", "B200", "instance-hour", Decimal("8.6")),
        ("Hyperstack", "H100", "GPU-hour", Decimal("2.5")),
    ]


def test_a_stock_change_is_a_new_version(shared, sources, tmp_path, monkeypatch):
    site, sources_file = shared.site, shared.sources_file
    page = sample_path(next(s for s in sources if s.id == "gpu_quantacloud")).read_text()
    h200_row = page[page.index("H200 SXM 141GB") :]
    sold_out = page.replace(h200_row, h200_row.replace("Available", "Waitlist", 1), 1)
    assert sold_out != page
    site.set("/gpu/quantacloud.html", Reply(body=sold_out.encode()))

    try:
        with copy_of(shared.db_path, tmp_path / "copy", monkeypatch) as db_path:
            assert run_refresh(sources_file, db_path).success
    finally:
        serve_samples(site, sources)  # the shared server answers with the samples again
    versions = query(
        db_path,
        """SELECT stock_status, valid_to IS NULL FROM gpu_listing_history
                                 WHERE listing = 'H200 SXM 141GB' ORDER BY valid_from""",
    )
    assert versions == [("in_stock", False), ("sold_out", True)]
    # QuantaCloud offers no other H200: the next cheapest takes its place, and it no longer counts among the providers.
    assert cheapest(db_path)[3] == ("H200", Decimal("3.47"), "Vast.ai", 5)


def test_a_currency_without_a_rate_is_refused_not_guessed(sources_file, db_path, site, sources):
    ecb = sample_path(next(s for s in sources if s.id == "fx_ecb")).read_text()
    no_usd = "\n".join(line for line in ecb.splitlines() if "currency='USD'" not in line)
    assert no_usd != ecb
    site.set("/fx/eurofxref-daily.xml", Reply(body=no_usd.encode(), content_type="text/xml"))

    result = run_refresh(sources_file, db_path)

    failures = failures_by_step(result)
    assert "USD" in failures["sources__fx_ecb"]  # the FX gate wants the USD leg
    assert "no ECB rate for USD" in failures["sources__gpu_leadergpu"]
    assert query(db_path, "SELECT count(*) FROM gpu_listing_history WHERE provider = 'LeaderGPU'") == [(0,)]
    # USD-priced providers never needed a rate and still landed.
    # 11 of the 12 hourly providers, and Beam and Replicate (RunPod Serverless shares RunPod's name): USD throughout.
    assert query(db_path, "SELECT count(DISTINCT provider) FROM gpu_listings") == [(13,)]
