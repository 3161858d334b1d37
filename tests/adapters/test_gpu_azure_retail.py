"""Azure Retail Prices adapter (source "gpu_azure"): each meter's kind from its own words, the sizes' GPUs from the
size catalog, meters left out by design left out, and a bad item refused by name while the rest lands."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest

from pipelines.adapters import gpu_azure_retail as azure
from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.fx.records import FxRate
from pipelines.gpu.normalise import FxTable, normalise
from pipelines.gpu.records import GpuPriceKind
from pipelines.reading.json_body import exact_json
from pipelines.sources.file import load_sources, sample_path

D = Decimal
SPEC = next(s for s in load_sources() if s.id == "gpu_azure")
H100 = "Standard_ND96isr_H100_v5"


def item(**changes: object) -> dict:
    """The sample's first item (ND H100 v5, eastus, Linux on-demand, with its savings-plan rates), changed."""
    first = json.loads(sample_path(SPEC).read_bytes(), parse_float=Decimal)["Items"][0]
    return {**first, **changes}


def parse(*items: dict):
    return parser_for("gpu_azure_retail")(exact_json({"Items": list(items), "NextPageLink": None}).encode(), SPEC)


def kinds(batch) -> dict[str, Decimal]:
    return {o.price_kind.value: o.amount for o in batch.offers}


def test_an_on_demand_meter_lands_with_its_savings_plan_rates_and_the_catalogs_gpus():
    batch = parse(item())
    assert kinds(batch) == {"on_demand": D("98.32"), "savings_plan_3y": D("46.6616"), "savings_plan_1y": D("68.824")}
    offer = batch.offers[0]
    assert (offer.listing, offer.region, offer.gpu_count, offer.gpu_name) == (H100, "eastus", 8, "NVIDIA H100 SXM 80GB")
    assert (offer.currency, offer.price_per.value, offer.period.value, offer.stock_status.value) == (
        "USD",
        "instance",
        "hour",
        "unknown",
    )
    assert batch.provider == "Azure" and batch.refused == []


def test_spot_and_reservations_are_their_own_kinds_and_a_reservation_is_priced_for_its_term():
    spot = item(meterName="ND96isr H100 v5 Spot", skuName="ND96isr H100 v5 Spot", retailPrice=D("19.664"))
    year = item(type="Reservation", reservationTerm="1 Year", retailPrice=D("603564.0"))
    three = item(type="Reservation", reservationTerm="3 Years", retailPrice=D("1226487.6"))
    batch = parse(spot, year, three)
    assert kinds(batch) == {"spot": D("19.664"), "reserved_1y": D("603564.0"), "reserved_3y": D("1226487.6")}
    assert [o.period.value for o in batch.offers] == ["hour", "year", "3 years"]
    listings = {listing.price_kind: listing for listing in normalise(batch, FxTable(), date(2026, 12, 7)).listings}
    # The whole term's price over its hours (8,760 a year), per GPU: exact.
    assert listings[GpuPriceKind.RESERVED_1Y].usd_per_gpu_hour == D("603564.0") / 8760 / 8 == D("8.6125")
    assert listings[GpuPriceKind.RESERVED_3Y].usd_per_gpu_hour == D("5.83375")
    assert listings[GpuPriceKind.RESERVED_3Y].original_unit == "per instance for 3 years"


def test_windows_low_priority_and_devtest_meters_are_left_out_without_an_error():
    windows = item(productName="Virtual Machines NDsr H100 v5 Series Windows", retailPrice=D("102.736"))
    low = item(meterName="ND96isr H100 v5 Low Priority", retailPrice=D("39.328"))
    devtest = item(type="DevTestConsumption", retailPrice=D("60"))
    batch = parse(item(savingsPlan=[]), windows, low, devtest)
    assert kinds(batch) == {"on_demand": D("98.32")} and batch.refused == []


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"armSkuName": "Standard_NC6s_v9"}, "size 'Standard_NC6s_v9' is not in the Azure size catalog"),
        ({"unitOfMeasure": "1/Month"}, "priced per '1/Month', not per '1 Hour'"),
        ({"type": "Reservation", "reservationTerm": "5 Years"}, "reservationTerm '5 Years' is neither"),
        ({"type": "Commitment"}, "price type 'Commitment' is none ratecard reads"),
        ({"retailPrice": D("0.0"), "savingsPlan": []}, "on_demand: amount: Input should be greater than 0"),
        ({"retailPrice": "98.32"}, "on_demand price '98.32' is not a number"),
        ({"currencyCode": "usd"}, "currency: String should match pattern"),
    ],
)
def test_a_bad_item_is_refused_by_name_while_the_rest_lands(changes, why):
    other = item(armRegionName="westeurope", retailPrice=D("113.068"), savingsPlan=[])
    batch = parse(item(**changes), other)
    assert [(o.region, o.price_kind.value) for o in batch.offers] == [("westeurope", "on_demand")]
    assert len(batch.refused) == 1 and batch.refused[0].startswith(f"{changes.get('armSkuName', H100)} in eastus (")
    assert why in batch.refused[0]


def test_two_prices_for_one_meter_keep_the_first_and_say_so():
    batch = parse(item(savingsPlan=[]), item(savingsPlan=[], retailPrice=D("99.00")))
    assert kinds(batch) == {"on_demand": D("98.32")}
    assert batch.refused == [
        f"{H100} in eastus (ND96isr H100 v5): a second on_demand price, 99.00 against 98.32; the first is kept"
    ]


def test_an_answer_with_no_gpu_price_is_refused_naming_why():
    with pytest.raises(ParseError, match=r"\[gpu_azure\] parse: no GPU VM price in the answer \(1 item\(s\) refused\)"):
        parse(item(armSkuName="Standard_D2s_v5"))
    with pytest.raises(ParseError, match=r"page 1 has no list at key Items"):
        parser_for("gpu_azure_retail")(b'{"BillingCurrency": "USD", "Count": 0}', SPEC)


def test_the_sources_filter_names_exactly_the_catalogs_sizes():
    """The URL asks only for the sizes the catalog knows the GPUs of, and for every one of them."""
    (flt,) = parse_qs(urlsplit(str(SPEC.url)).query)["$filter"]
    asked = set(flt.split("armSkuName eq '")[1:])
    assert {name.split("'")[0] for name in asked} == set(azure.vm_sizes())
    assert flt.startswith("serviceName eq 'Virtual Machines' and (")


def test_a_price_in_another_currency_converts_at_the_dated_ecb_rate():
    """Asked in euros (`currencyCode=EUR`), the API answers in euros: the price is kept as printed and converted at
    the ECB rate of the fetch date or the latest before it, as every other provider's is."""
    batch = parse(item(currencyCode="EUR", retailPrice=D("90.58"), savingsPlan=[]))
    rates = FxTable.of([FxRate(currency="USD", rate_date=date(2026, 12, 4), units_per_eur=D("1.1840"))])
    (listing,) = normalise(batch, rates, date(2026, 12, 7)).listings
    assert (listing.original_amount, listing.original_currency, listing.fx_rate_date) == (
        D("90.58"),
        "EUR",
        date(2026, 12, 4),
    )
    assert listing.usd_per_gpu_hour == D("90.58") * D("1.1840") / 8
