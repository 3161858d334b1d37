"""RunPod pricing-page capture reader (adapter "gpu_runpod_page") on real dated Wayback captures of the page
(tests/recorded/runpod_pages/, provenance in SOURCES.md): the 2023 page's embedded GPU types are read exactly as the
GraphQL API's are (placeholders ignored, prices rounded as set); the 2026 page's schema.org offers are read per
cloud; a page printing prices only in HTML attributes (the 2025 shape) is refused, nothing filled in; a page without
the data names the source."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest

from pipelines.adapters import gpu_runpod_page as page
from pipelines.errors import ParseError
from pipelines.gpu.records import GpuRows
from pipelines.reading.json_body import exact_json
from pipelines.sources.file import SourceSpec
from tests.support.paths import RECORDED

D = Decimal
SPEC = SourceSpec.model_validate(
    {
        "id": "gpu_runpod_page",
        "adapter": "gpu_runpod_page",
        "url": "https://www.runpod.io/gpu-instance/pricing",
        "sample": "gpu/runpod_page.html",
        "options": {"provider": "RunPod"},
    }
)
PAGES = RECORDED / "runpod_pages"
PAGE_2023 = (PAGES / "runpod_20230929070808.html").read_bytes()
PAGE_2026 = (PAGES / "runpod_20260810082317.html").read_bytes()
OD, COM, SPOT = "on_demand", "community", "spot"


def offers(rows: GpuRows) -> dict[tuple[str, str], tuple[str, Decimal, str]]:
    """(listing, price kind) -> (gpu_name, amount, stock status)."""
    return {(o.listing, o.price_kind.value): (o.gpu_name, o.amount, o.stock_status.value) for o in rows.offers}


def next_data(body: bytes) -> dict[str, Any]:
    """The 2023 page's __NEXT_DATA__ JSON, numbers as Decimal (for variations made in memory)."""
    match = re.search(rb'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', body, re.S)
    assert match is not None
    document: dict[str, Any] = json.loads(match.group(1), parse_float=Decimal)
    return document


def script(document: object, attributes: str = 'type="application/json"') -> bytes:
    return f"<script {attributes}>{exact_json(document)}</script>".encode()


def test_2023_capture_gives_the_h100_and_a100_offers_it_embeds() -> None:
    read = offers(page.parse(PAGE_2023, SPEC))
    h100_a100 = {key: value for key, value in read.items() if key[0].startswith(("H100", "A100"))}
    assert h100_a100 == {
        ("H100 80GB SXM5 (secure)", OD): ("NVIDIA H100 80GB HBM3", D("4.49"), "in_stock"),
        ("H100 80GB SXM5 (community)", COM): ("NVIDIA H100 80GB HBM3", D("4.09"), "in_stock"),
        ("H100 80GB PCIe (secure)", OD): ("NVIDIA H100 PCIe", D("4.29"), "in_stock"),
        ("H100 80GB PCIe (community)", COM): ("NVIDIA H100 PCIe", D("3.99"), "in_stock"),
        ("A100 80GB (secure)", OD): ("NVIDIA A100 80GB PCIe", D("1.99"), "in_stock"),
        ("A100 80GB (community)", COM): ("NVIDIA A100 80GB PCIe", D("1.69"), "in_stock"),
        ("A100 SXM 80GB (secure)", OD): ("NVIDIA A100-SXM4-80GB", D("2.19"), "unknown"),  # stockStatus null
        ("A100 40GB (community)", COM): ("NVIDIA A100-PCIE-40GB", D("0.79"), "unknown"),
    }


def test_2023_capture_counts_and_kinds() -> None:
    rows = page.parse(PAGE_2023, SPEC)
    assert len(next_data(PAGE_2023)["props"]["pageProps"]["data"]) == 25  # GPU types embedded
    assert len(rows.offers) == 40
    kinds = [o.price_kind.value for o in rows.offers]
    assert (kinds.count(OD), kinds.count(COM), kinds.count(SPOT)) == (14, 22, 4)
    assert rows.unpriced == []
    assert {o.currency for o in rows.offers} == {"USD"}
    assert {(o.price_per.value, o.period.value, o.gpu_count) for o in rows.offers} == {("gpu", "hour", 1)}
    assert offers(rows)[("RTX A6000 (secure)", SPOT)] == ("NVIDIA RTX A6000", D("0.49"), "in_stock")


def test_2023_capture_placeholders_and_clouds_not_offered_are_not_read() -> None:
    read = offers(page.parse(PAGE_2023, SPEC))
    # L40: communityCloud false with the API's communityPrice 0.5 placeholder.
    assert ("L40 (community)", COM) not in read
    assert read[("L40 (secure)", OD)] == ("NVIDIA L40", D("1.14"), "in_stock")
    assert all(amount != D("0.5") for (_, kind), (_, amount, _) in read.items() if kind == COM)
    # A100 SXM 80GB: communityPrice 1.69 on a type with communityCloud false; A100 40GB: securePrice 1.09 with
    # secureCloud false; V100 FHHL: securePrice 0 (not offered on secure cloud).
    assert ("A100 SXM 80GB (community)", COM) not in read
    assert ("A100 40GB (secure)", OD) not in read
    assert ("V100 FHHL (secure)", OD) not in read
    assert read[("V100 FHHL (community)", COM)] == ("Tesla V100-FHHL-16GB", D("0.28"), "in_stock")


def test_the_data_is_found_by_what_it_holds_not_where_it_sits() -> None:
    """The same GPU types under another key path, as JSON text inside a string of another script, and twice."""
    types = next_data(PAGE_2023)["props"]["pageProps"]["data"]
    expected = offers(page.parse(PAGE_2023, SPEC))
    escaped = script({"state": {"cache": {"pricing": exact_json(types)}}})  # JSON text in a JSON string
    assert offers(page.parse(b"<html><head>" + escaped + b"</head></html>", SPEC)) == expected
    nested = script({"x": [{"gpus": types}]}, 'id="other" type="application/ld+json"')
    assert offers(page.parse(b"<html><body>" + nested + b"</body></html>", SPEC)) == expected
    twice = PAGE_2023 + escaped + nested  # one list embedded three times: read once
    assert offers(page.parse(twice, SPEC)) == expected


def test_gpu_types_lacking_keys_the_graphql_reader_needs_are_refused_not_filled_in() -> None:
    types = next_data(PAGE_2023)["props"]["pageProps"]["data"]
    for entry in types:
        del entry["secureSpotPrice"]
    with pytest.raises(ParseError, match=r"lack key\(s\) secureSpotPrice .*nothing is filled in") as caught:
        page.parse(script({"data": types}), SPEC)
    assert caught.value.source_id == SPEC.id


def test_a_page_printing_prices_only_in_html_attributes_is_refused() -> None:
    # The 2025 page's shape (a Webflow row per GPU, its prices in data attributes only): nothing is made up.
    body = (
        b'<html><body><div class="row" data-secure-cloud-price="2.69" data-community-cloud-price="2.69">'
        b"<div>H100 SXM</div><div>$0</div></div></body></html>"
    )
    with pytest.raises(ParseError, match="data-community-cloud-price, data-secure-cloud-price") as caught:
        page.parse(body, SPEC)
    assert caught.value.source_id == SPEC.id
    assert "0 <script> block(s)" in caught.value.message


def test_2026_capture_gives_each_gpus_schema_org_cloud_offers() -> None:
    found = offers(page.parse(PAGE_2026, SPEC))
    assert len(found) == 38  # 19 GPUs, a community and a secure price each
    assert found["H100 SXM (secure)", OD] == ("H100 SXM", D("2.99"), "unknown")
    assert found["H100 SXM (community)", COM] == ("H100 SXM", D("2.69"), "unknown")
    assert found["H100 PCIe (secure)", OD] == ("H100 PCIe", D("2.89"), "unknown")
    assert found["A100 SXM (secure)", OD] == ("A100 SXM", D("1.49"), "unknown")
    assert found["A100 PCIe (community)", COM] == ("A100 PCIe", D("1.19"), "unknown")
    # The page's own words say the same figures.
    assert b"Runpod. Community Cloud $2.69/hr, Secure Cloud $2.99/hr." in PAGE_2026  # H100 SXM


def test_a_page_without_the_embedded_data_names_the_source_and_what_was_looked_for() -> None:
    body = b'<html><head><script>window.x = {"securePrice": 1};</script></head><body><p>GPU pricing</p></body></html>'
    with pytest.raises(
        ParseError, match=r"^\[gpu_runpod_page\] parse: no JSON objects with the GraphQL API's"
    ) as caught:
        page.parse(body, SPEC)
    assert caught.value.source_id == "gpu_runpod_page"
    assert "securePrice, communityPrice" in caught.value.message
