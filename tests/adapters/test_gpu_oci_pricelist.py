"""Oracle Cloud price-list adapter (source "gpu_oci"): GPU parts priced per GPU-hour land on demand with no region
stated; other services are left out; a GPU part with no usable price is refused by name while the rest lands."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.reading.json_body import exact_json
from pipelines.sources.file import SourceSpec, load_sources, sample_path

D = Decimal
SPEC = next(s for s in load_sources() if s.id == "gpu_oci")


def items() -> list[dict]:
    return json.loads(sample_path(SPEC).read_bytes(), parse_float=Decimal)["items"]


def parse(found: list[dict], spec: SourceSpec = SPEC):
    return parser_for("gpu_oci_pricelist")(exact_json({"lastUpdated": "2026-10-01", "items": found}).encode(), spec)


def h100(**changes: object) -> dict:
    return {**next(i for i in items() if i["partNumber"] == "B98415"), **changes}


def test_gpu_parts_land_per_gpu_hour_on_demand_with_no_region_stated():
    batch = parse(items())
    offers = {o.gpu_name: o for o in batch.offers}
    assert set(offers) == {"L40S", "MI300X", "H200", "B200", "GB200", "E3", "A100 - v2", "A10", "H100"}
    h = offers["H100"]
    assert (h.listing, h.amount, h.currency, h.gpu_count) == (
        "Oracle Cloud Infrastructure - Compute - GPU - H100",
        D(10),
        "USD",
        1,
    )
    assert (h.price_kind.value, h.price_per.value, h.period.value, h.region, h.stock_status.value) == (
        "on_demand",
        "gpu",
        "hour",
        None,
        "unknown",
    )
    # The OCPU part, the VMware node and the Cloud@Customer GPU are other services' prices.
    assert not any("VMware" in o.listing or "Customer" in o.listing or "OCPU" in o.listing for o in batch.offers)
    assert batch.provider == "Oracle Cloud" and batch.refused == []


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        (
            {
                "currencyCodeLocalizations": [
                    {"currencyCode": "EUR", "prices": [{"model": "PAY_AS_YOU_GO", "value": 9}]}
                ]
            },
            "no price in USD",
        ),
        (
            {
                "currencyCodeLocalizations": [
                    {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": "10"}]}
                ]
            },
            "its PAY_AS_YOU_GO price in USD is '10', not a number",
        ),
        (
            {
                "currencyCodeLocalizations": [
                    {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": 0}]}
                ]
            },
            "amount: Input should be greater than 0",
        ),
        ({"displayName": "Compute - GPU Standard"}, 'the display name prints no GPU after "GPU - "'),
    ],
)
def test_a_gpu_part_with_no_usable_price_is_refused_by_name_while_the_rest_lands(changes, why):
    batch = parse([h100(**changes), *[i for i in items() if i["partNumber"] != "B98415"]])
    assert "H100" not in {o.gpu_name for o in batch.offers} and len(batch.offers) == 8
    assert len(batch.refused) == 1 and batch.refused[0].startswith("B98415 ") and why in batch.refused[0]


def test_the_currency_asked_for_is_the_one_read():
    both = [
        {"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": 10}]},
        {"currencyCode": "EUR", "prices": [{"model": "PAY_AS_YOU_GO", "value": D("9.2")}]},
    ]
    euro = SourceSpec.model_validate({**SPEC.model_dump(), "options": {"currency": "EUR"}})
    (offer,) = parse([h100(currencyCodeLocalizations=both)], euro).offers
    assert (offer.amount, offer.currency) == (D("9.2"), "EUR")


def test_an_answer_with_no_gpu_price_is_refused():
    with pytest.raises(ParseError, match=r"\[gpu_oci\] parse: no GPU price per GPU-hour in the answer \(1 items\)"):
        parse([i for i in items() if "OCPU" in i["displayName"]])
    with pytest.raises(ParseError, match=r"response has no list at key items"):
        parser_for("gpu_oci_pricelist")(b'{"lastUpdated": "2026-10-01"}', SPEC)
