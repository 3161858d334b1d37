"""CoreWeave pricing page (source "gpu_coreweave", adapter gpu_coreweave): exact offers from the bundled sample,
then the ways the page can drift. Altered pages are built from the sample; the sample is never modified."""

from __future__ import annotations

import html
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup, Tag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import adapter_module, gpu_coreweave, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows, render
from tests.support.source_kit import declared

SOURCE = declared()["gpu_coreweave"]  # as pipelines/sources.toml declares it
SAMPLE = sample_path(SOURCE).read_bytes()
D = Decimal


EXPECTED = recorded_offer_rows("gpu_coreweave")  # tests/sources/expected/gpu_coreweave.jsonl


def parse(body: bytes = SAMPLE) -> GpuBatch:
    return parser_for("gpu_coreweave")(body, SOURCE)


def soup() -> BeautifulSoup:
    return BeautifulSoup(SAMPLE, "lxml")


def gpu_table(page: BeautifulSoup) -> Tag:
    return page.select_one("#gpu-compute table")


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def headers(page: BeautifulSoup) -> list[str]:
    return [c.get_text(strip=True) for c in cells(gpu_table(page).find("tr"))]


def row_of(page: BeautifulSoup, model: str) -> Tag:
    return next(tr for tr in gpu_table(page).find_all("tr") if cells(tr)[0].get_text(strip=True) == model)


def cell(page: BeautifulSoup, model: str, header: str) -> Tag:
    return cells(row_of(page, model))[headers(page).index(header)]


def test_sample_yields_the_exact_offers() -> None:
    batch = parse()
    assert batch.source_id == "gpu_coreweave"
    assert batch.provider == "CoreWeave"
    assert batch.parser_version == "gpu_coreweave/1.0"
    assert rows(batch) == EXPECTED
    assert batch.unpriced == ["NVIDIA GB200 NVL72"]


def test_registered_parser_is_this_module() -> None:
    assert adapter_module("gpu_coreweave") is gpu_coreweave


def test_reordered_columns_parse_the_same() -> None:
    page = soup()
    for tr in gpu_table(page).find_all("tr"):
        found = [c.extract() for c in cells(tr)]
        for c in reversed(found):
            tr.append(c)
    batch = parse(render(page))
    assert rows(batch) == EXPECTED
    assert batch.unpriced == ["NVIDIA GB200 NVL72"]


def test_an_extra_per_gpu_price_column_before_the_instance_price_is_not_taken_for_it() -> None:
    page = soup()
    for index, tr in enumerate(gpu_table(page).find_all("tr")):
        extra = page.new_tag("th" if index == 0 else "td")
        extra.string = "Price per GPU (per hour)" if index == 0 else "$8.60"
        tr.insert(0, extra)
    assert rows(parse(render(page))) == EXPECTED


def test_gpu_table_after_the_cpu_table_is_still_found() -> None:
    page = soup()
    page.select_one("#cpu-compute").append(gpu_table(page).extract())
    assert rows(parse(render(page))) == EXPECTED


def test_availability_maps_to_stock() -> None:
    page = soup()
    cell(page, "NVIDIA HGX B200", "Availability").string = "Limited"
    cell(page, "NVIDIA HGX H100", "Availability").string = "Sold out"
    cell(page, "NVIDIA HGX H200", "Availability").string = "Coming soon"
    stock = {o.listing: o.stock_status.value for o in parse(render(page)).offers}
    assert stock == {
        "NVIDIA HGX B200": "in_stock",
        "NVIDIA HGX H100": "sold_out",
        "NVIDIA HGX H200": "unknown",
        "NVIDIA L40S": "in_stock",
    }


def test_without_an_availability_column_stock_is_unknown() -> None:
    page = soup()
    index = headers(page).index("Availability")
    for tr in gpu_table(page).find_all("tr"):
        cells(tr)[index].decompose()
    assert {o.stock_status.value for o in parse(render(page)).offers} == {"unknown"}


def test_gpu_count_comes_from_its_column() -> None:
    page = soup()
    cell(page, "NVIDIA L40S", "GPU Count").string = "4"
    offer = next(o for o in parse(render(page)).offers if o.listing == "NVIDIA L40S")
    assert (offer.gpu_count, offer.amount, offer.price_per.value) == (4, D("18.00"), "instance")


def test_blank_and_dash_prices_are_unpriced_not_zero() -> None:
    page = soup()
    cell(page, "NVIDIA HGX H200", "Instance Price (per hour)").string = "—"
    cell(page, "NVIDIA L40S", "Instance Price (per hour)").string = ""
    batch = parse(render(page))
    assert batch.unpriced == ["NVIDIA HGX H200", "NVIDIA L40S", "NVIDIA GB200 NVL72"]
    assert [o.listing for o in batch.offers] == ["NVIDIA HGX B200", "NVIDIA HGX H100"]


@pytest.mark.parametrize(
    ("header", "key"), [("Instance Price (per hour)", "price"), ("GPU Count", "count"), ("GPU Model", "model")]
)
def test_a_missing_required_column_is_named(header: str, key: str) -> None:
    page = soup()
    index = headers(page).index(header)
    for tr in gpu_table(page).find_all("tr"):
        cells(tr)[index].decompose()
    with pytest.raises(MissingColumnError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_coreweave"
    assert key in err.value.missing
    assert "gpu_coreweave" in str(err.value)


def test_a_page_without_any_table_is_a_typed_error() -> None:
    page = soup()
    for table in page.find_all("table"):
        table.decompose()
    with pytest.raises(TableNotFoundError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_coreweave"


@pytest.mark.parametrize(
    ("header", "text"),
    [
        ("Instance Price (per hour)", "€68.80"),
        ("Instance Price (per hour)", "68.80 GBP"),
        ("Instance Price (per hour)", "$0.00"),
        ("GPU Count", "eight"),
        ("GPU Count", "0"),
        ("GPU Count", "2.5"),
        ("VRAM (GB)", "lots"),
    ],
)
def test_an_unreadable_cell_is_a_cell_error(header: str, text: str) -> None:
    page = soup()
    cell(page, "NVIDIA HGX H100", header).string = text
    with pytest.raises(CellError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_coreweave"
    assert err.value.column == header
    assert "NVIDIA HGX H100" in str(err.value)


def test_a_model_listed_twice_is_refused() -> None:
    body = SAMPLE.replace(b"<td>NVIDIA L40S</td>", b"<td>NVIDIA HGX H100</td>")
    with pytest.raises(ParseError, match="listed twice"):
        parse(body)


def test_the_bundled_sample_is_declared_a_sample_and_small() -> None:
    assert b"ratecard SAMPLE" in SAMPLE[:400]
    assert b"https://www.coreweave.com/pricing" in SAMPLE[:400]
    assert len(SAMPLE) < 30_000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(price=st.text(max_size=40), count=st.text(max_size=8))
def test_arbitrary_cell_text_yields_a_valid_offer_or_a_parse_error(price: str, count: str) -> None:
    body = SAMPLE.replace(b"<td>$49.24</td>", f"<td>{html.escape(price)}</td>".encode()).replace(
        b"<td>NVIDIA HGX H100</td><td>8</td>", f"<td>NVIDIA HGX H100</td><td>{html.escape(count)}</td>".encode()
    )
    try:
        batch = parse(body)
    except ParseError as exc:
        assert exc.source_id == "gpu_coreweave"
        return
    listings = [o.listing for o in batch.offers]
    assert ("NVIDIA HGX H100" in listings) != ("NVIDIA HGX H100" in batch.unpriced)
    for offer in batch.offers:
        assert offer.amount > 0 and offer.gpu_count >= 1 and offer.price_per.value == "instance"
