"""Cloud Billing Catalog adapter (source "gpu_gcp_tpu"): TPU SKUs priced per chip-hour land in every region they list,
by their usage type; DWS and non-TPU SKUs are left out; a TPU SKU with no usable price is refused by name while the
rest lands."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.adapters.gpu_gcp_billing_catalog import tpu_name
from pipelines.errors import ParseError
from pipelines.fetch.pages import PageText, envelope
from pipelines.sources.file import load_sources
from tests.support.sourcefiles import sample_answer

D = Decimal
SPEC = next(s for s in load_sources() if s.id == "gpu_gcp_tpu")


def sample_skus() -> list[dict]:
    pages = json.loads(sample_answer(SPEC))["pages"]
    return [sku for page in pages for sku in json.loads(page["text"])["skus"]]


def parse(skus: list[dict]):
    return parser_for("gpu_gcp_billing_catalog")(json.dumps({"skus": skus, "nextPageToken": ""}).encode(), SPEC)


def v6e(**changes: object) -> dict:
    return {**next(s for s in sample_skus() if s["description"] == "TpuV6e running in Dallas"), **changes}


def priced(sku: dict, **expression: object) -> dict:
    info = {**sku["pricingInfo"][0], "pricingExpression": {**sku["pricingInfo"][0]["pricingExpression"], **expression}}
    return {**sku, "pricingInfo": [info]}


def test_both_pages_land_each_tpu_price_per_chip_hour_in_each_region_it_lists():
    batch = parser_for("gpu_gcp_billing_catalog")(sample_answer(SPEC), SPEC)
    found = {(o.gpu_name, o.price_kind.value, o.region): o.amount for o in batch.offers}
    assert found == {
        ("TPU v6e", "on_demand", "us-south1"): D("2.7"),
        ("TPU v6e", "on_demand", "us-east5"): D("2.7"),
        ("TPU v6e", "committed_use_1y", "us-east5"): D("1.89"),
        ("TPU v6e", "committed_use_3y", "us-east5"): D("1.22"),
        ("TPU v6e", "dws_flex_start", "us-east5"): D("1.35"),  # "DWS Defined Duration V6e": Flex-start
        ("TPU v5e", "on_demand", "us-central1"): D("1.2"),
        ("TPU v5e", "spot", "asia-southeast1"): D("0.78"),
        ("TPU v5p", "on_demand", "us-central1"): D("4.2"),
        ("TPU v5p", "committed_use_3y", "europe-west4"): D("1.89"),  # from the second page
        ("TPU v6e", "on_demand", "europe-west4"): D("2.97"),
        ("TPU7x", "on_demand", "us-central1"): D(12),  # one SKU, two regions
        ("TPU7x", "on_demand", "us-east5"): D(12),
    }
    offer = next(o for o in batch.offers if o.region == "us-south1")
    assert (offer.listing, offer.currency, offer.gpu_count, offer.price_per.value, offer.period.value) == (
        "TpuV6e running in Dallas",
        "USD",
        1,
        "gpu",
        "hour",
    )
    assert str(offer.amount) == "2.7"  # units "2" and 700000000 nanos, exactly, no trailing zeros
    # A chip qualified by other words is a kind ratecard does not read; the N2 core is no TPU.
    assert not any("Capacity Optimized" in o.listing or "N2" in o.listing for o in batch.offers)
    assert batch.provider == "Google Cloud" and batch.refused == []


@pytest.mark.parametrize(
    ("sku", "why"),
    [
        (v6e(category={**v6e()["category"], "usageType": "Commit5Yr"}), "usage type 'Commit5Yr'"),
        (
            v6e(
                description="DWS Defined Duration V6e running in Dallas",
                category={**v6e()["category"], "usageType": "Commit1Yr"},
            ),
            "usage type 'Commit1Yr' is none ratecard reads for this SKU",
        ),
        (priced(v6e(), usageUnit="mo"), "priced per 'mo', not per hour"),
        (v6e(serviceRegions=[]), "names no region"),
        (v6e(pricingInfo=[]), "no pricingInfo"),
        (
            priced(
                v6e(),
                tieredRates=[
                    {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "2", "nanos": 0}},
                    {"startUsageAmount": 100, "unitPrice": {"currencyCode": "USD", "units": "1", "nanos": 0}},
                ],
            ),
            "give no single price",
        ),
        (
            priced(v6e(), tieredRates=[{"unitPrice": {"currencyCode": "USD", "units": "two", "nanos": 0}}]),
            "is not units and nanos",
        ),
        (
            priced(v6e(), tieredRates=[{"unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 0}}]),
            "amount: Input should be greater than 0",
        ),
    ],
)
def test_a_tpu_sku_without_a_usable_price_is_refused_by_name_and_the_rest_lands(sku: dict, why: str):
    others = [s for s in sample_skus() if s["skuId"] != sku["skuId"]]
    batch = parse([sku, *others])
    assert len(batch.refused) == 1
    assert batch.refused[0].startswith(f"{sku['skuId']} {sku['description']!r}: ")
    assert why in batch.refused[0]
    assert ("TPU v6e", "us-south1") not in {(o.gpu_name, o.region) for o in batch.offers}
    assert len(batch.offers) == 11


def test_a_price_in_another_currency_is_kept_in_it_for_the_fx_rates():
    rate = {"unitPrice": {"currencyCode": "EUR", "units": "2", "nanos": 480000000}}
    (offer,) = parse([priced(v6e(), tieredRates=[rate])]).offers
    assert (offer.amount, offer.currency) == (D("2.48"), "EUR")


def test_an_answer_with_no_tpu_price_is_refused_naming_the_source_and_the_first_refusal():
    with pytest.raises(
        ParseError, match=r"\[gpu_gcp_tpu\] parse: no TPU price per chip-hour .*1 SKU\(s\) refused.*'mo'"
    ):
        parse([priced(v6e(), usageUnit="mo"), *[s for s in sample_skus() if "N2" in s["description"]]])


def test_a_page_without_its_skus_fails_the_answer_naming_the_page():
    good = json.dumps({"skus": [v6e()], "nextPageToken": "t2"})
    pages = [PageText(None, good, "0" * 64), PageText("t2", json.dumps({"error": "quota"}), "1" * 64)]
    body = envelope("nextPageToken", pages)
    with pytest.raises(ParseError, match=r"\[gpu_gcp_tpu\]"):
        parser_for("gpu_gcp_billing_catalog")(body, SPEC)


@pytest.mark.parametrize(
    ("description", "chip"),
    [
        ("TpuV6e running in Dallas", "TPU v6e"),
        ("TpuV5e attached to Spot Preemptible VMs running in Singapore", "TPU v5e"),
        ("Commitment v1: TpuV5p running in Netherlands for 3 Years", "TPU v5p"),
        ("TPU7x running in Americas", "TPU7x"),
        ("Tpu-v5 Lite Pod running in Iowa", "TPU v5e"),
        ("DWS Defined Duration V6e running in Columbus", "TPU v6e"),
        ("Nvidia H100 80GB GPU running in Americas", None),
    ],
)
def test_the_tpu_version_is_read_from_the_description(description: str, chip: str | None):
    assert tpu_name(description) == chip
