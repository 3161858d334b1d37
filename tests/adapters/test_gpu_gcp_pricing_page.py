"""Google Cloud GPU pricing page adapter (source "gpu_gcp"): each price column its own kind, by its header's words;
group titles and fractional machines are no listings; an unreadable price is refused by name, the row's others land."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.gpu.normalise import FxTable, normalise
from pipelines.sources.file import load_sources, sample_path

D = Decimal
SPEC = next(s for s in load_sources() if s.id == "gpu_gcp")
PAGE = sample_path(SPEC).read_text(encoding="utf-8")


def parse(page: str = PAGE):
    return parser_for("gpu_gcp_pricing_page")(page.encode(), SPEC, "text/html; charset=utf-8")


def prices(batch, machine: str) -> dict[str, Decimal]:
    return {o.price_kind.value: o.amount for o in batch.offers if o.listing == machine}


def test_each_way_to_buy_a_machine_is_its_own_kind_as_printed():
    batch = parse()
    assert prices(batch, "a3-megagpu-8g") == {
        "on_demand": D("93.400712807"),
        "dws_flex_start": D("40.3200"),
        "dws_calendar": D("44.0000"),  # booked ahead: a reservation of its own, never the on-demand cell
        "spot": D("55.894488548"),
        "committed_use_1y": D("64.206558727"),
        "committed_use_3y": D("40.650103355"),
    }
    # The G-series table adds the spend-based (flexible) commitments.
    assert prices(batch, "g2-standard-4")["flexible_cud_3y"] == D("0.382012566")
    # a4-highgpu-8g has no on-demand price (N/A): not sold that way, no row and no zero.
    assert "on_demand" not in prices(batch, "a4-highgpu-8g")
    offer = next(o for o in batch.offers if o.listing == "a3-megagpu-8g")
    assert (offer.gpu_name, offer.gpu_count, offer.currency, offer.price_per.value, offer.region) == (
        "Nvidia H100",
        8,
        "USD",
        "instance",
        None,
    )
    listing = normalise(batch, FxTable(), date(2026, 12, 7)).listings[0]
    assert listing.usd_per_gpu_hour == listing.original_amount / listing.gpu_count
    assert batch.provider == "Google Cloud" and batch.refused == []


def test_group_titles_and_machines_with_part_of_a_gpu_are_no_listings():
    machines = {o.listing for o in parse().offers}
    assert not {"A3 Mega", "G4 Standard", "g4-standard-6"} & machines  # g4-standard-6 holds 1/8 of a GPU
    assert {"g4-standard-48", "g4-standard-96", "a2-highgpu-1g"} <= machines


def test_an_unreadable_price_is_refused_by_name_while_the_rows_other_prices_land():
    page = PAGE.replace("$55.894488548 / 1 hour", "€55.89 / 1 hour")
    batch = parse(page)
    assert "spot" not in prices(batch, "a3-megagpu-8g") and "on_demand" in prices(batch, "a3-megagpu-8g")
    assert len(batch.refused) == 1 and batch.refused[0].startswith("a3-megagpu-8g, spot ('€55.89 / 1 hour'): ")
    no_count = parse(PAGE.replace("<p>GPUs: 8</p><p>vCPUs: 208</p><p>Memory: 1,872GB</p>", "<p>vCPUs: 208</p>"))
    assert "a3-megagpu-8g" not in {o.listing for o in no_count.offers}
    assert no_count.refused == ["a3-megagpu-8g: its components name no GPU count"]


def test_a_page_without_a_machine_type_table_is_refused_naming_what_is_missing():
    with pytest.raises(ParseError, match=r"\[gpu_gcp\] parse: required column\(s\) components missing"):
        parse(PAGE.replace("Components", "Parts"))
    with pytest.raises(ParseError, match=r"\[gpu_gcp\] parse: no table of machine types with a GPU"):
        parse("<html><body><p>GPU pricing has moved.</p></body></html>")
