"""GPU listings keep memory as printed with its unit and convert to GiB by that unit's definition: Crusoe's
"192GB" is 178.813934 GiB, not 192. A figure the listing does not print comes from the canonical catalog (as
NVIDIA prints it, GB) and is flagged. Files landed before the unit existed are upgraded in place."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pipelines.adapters import parser_for
from pipelines.fx.records import FxRate
from pipelines.gpu.normalise import FxTable, listing, normalise
from pipelines.gpu.records import BillingPeriod, GpuOffer, GpuPriceKind, PricePer
from pipelines.sources.file import load_sources, sample_path
from warehouse.db import connect

DAY = date(2026, 9, 28)
FX = FxTable.of([FxRate(currency="USD", rate_date=DAY, units_per_eur=Decimal("1.1840"))])


def test_crusoes_192gb_is_stored_as_printed_and_converted_as_decimal_gb():
    (spec,) = [s for s in load_sources() if s.id == "gpu_crusoe"]
    batch = normalise(parser_for("declarative_table")(sample_path(spec).read_bytes(), spec), FX, DAY)
    (mi300x,) = [item for item in batch.listings if "192GB" in item.gpu_name]
    assert (mi300x.gpu_memory_printed, mi300x.gpu_memory_unit, mi300x.gpu_memory_from_catalog) == (
        Decimal(192),
        "GB",
        False,
    )
    assert mi300x.gpu_memory_gib == Decimal("178.813934")  # 192 x 10^9 / 2^30
    assert all(item.gpu_memory_from_catalog is False for item in batch.listings if item.gpu_memory_printed)


def offer(name: str, memory: str | None = None, unit: str = "GB") -> GpuOffer:
    return GpuOffer(
        listing=name,
        gpu_name=name,
        gpu_count=1,
        price_kind=GpuPriceKind.ON_DEMAND,
        amount=Decimal("2.5"),
        currency="USD",
        price_per=PricePer.GPU,
        period=BillingPeriod.HOUR,
        gpu_memory_gb_printed=Decimal(memory) if memory else None,
        gpu_memory_unit=unit,
    )


def test_a_listing_without_memory_takes_the_catalogs_figure_flagged():
    item = listing("P", offer("NVIDIA H100 SXM"), FX, DAY)
    assert (item.gpu_memory_printed, item.gpu_memory_unit, item.gpu_memory_from_catalog) == (Decimal(80), "GB", True)
    assert item.gpu_memory_gib == Decimal("74.505806")


def test_a_gib_figure_stays_gib_and_an_unknown_gpu_without_one_is_null():
    assert listing("P", offer("Mystery 9000", "24", "GiB"), FX, DAY).gpu_memory_gib == Decimal(24)
    unknown = listing("P", offer("Mystery 9000"), FX, DAY)
    assert (unknown.gpu_memory_gib, unknown.gpu_memory_unit, unknown.gpu_memory_from_catalog) == (None, None, None)


OLD_ROW = """
INSERT INTO gpu_listing_history (source_id, provider, listing, gpu_name, gpu_model, gpu_variant, gpu_memory_gib,
    gpu_count, price_kind, original_amount, original_currency, original_unit, price_per, period,
    usd_per_currency_unit, usd_per_gpu_hour, usd_per_gpu_hour_4dp, stock_status, offer_count, attributes_hash,
    valid_from, fetch_id, source_url, fetched_at, sha256, parser_version)
VALUES (?, 'P', ?, ?, ?, NULL, ?, 1, 'on_demand', 3.45, 'USD', 'per GPU-hour', 'gpu', 'hour', 1, 3.45, 3.45,
    'unknown', 1, 'old', now(), 1, 'https://example.test/', now(), 'x', ?)
"""


def test_an_old_file_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.duckdb"
    with connect(path) as con:  # make the file, then take it back to the shape before memory units existed
        for column in ("gpu_memory_printed", "gpu_memory_unit", "gpu_memory_from_catalog"):
            con.execute(f"ALTER TABLE gpu_listing_history DROP COLUMN {column}")
        con.execute(OLD_ROW, ["gpu_crusoe", "AMD MI300X 192GB", "AMD MI300X 192GB", None, 192, "declarative_table/1.0"])
        con.execute(OLD_ROW, ["gpu_vastai", "A40", "A40", None, "44.988281", "gpu_vastai/1.0"])
        con.execute("DELETE FROM schema_version")
    with connect(path) as con:
        rows = con.execute(
            """SELECT listing, gpu_memory_printed, gpu_memory_unit, gpu_memory_gib, gpu_memory_from_catalog,
                      attributes_hash <> 'old'
               FROM gpu_listing_history ORDER BY listing"""
        ).fetchall()
    assert rows == [
        ("A40", Decimal("44.988281"), "GiB", Decimal("44.988281"), None, True),  # Vast's MiB / 1024: GiB already
        ("AMD MI300X 192GB", Decimal(192), "GB", Decimal("178.813934"), None, True),
    ]
