"""Hyperstack GPU pricing page (source "gpu_hyperstack", adapter gpu_hyperstack): exact offers from the bundled
sample (the live page's shape: cards drawn with <div>s), then the ways the page can drift. Altered pages are built from
the page's earlier <table> shape (tests/support/pages/hyperstack_table.html), which the 2024 page had and the adapter
still reads; neither file is ever modified."""

from __future__ import annotations

import html
from decimal import Decimal
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import adapter_module, gpu_hyperstack, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows, render
from tests.support.paths import PAGES
from tests.support.source_kit import declared

SOURCE = declared()["gpu_hyperstack"]  # as pipelines/sources.toml declares it
SAMPLE = sample_path(SOURCE).read_bytes()
TABLE = (PAGES / "hyperstack_table.html").read_bytes()  # the drift tests' page: one <table>, a stock link per row
D = Decimal


EXPECTED = recorded_offer_rows("gpu_hyperstack")  # tests/sources/expected/gpu_hyperstack.jsonl


def parse(body: bytes = SAMPLE) -> GpuBatch:
    return parser_for("gpu_hyperstack")(body, SOURCE)


TABLE_EXPECTED = rows(parse(TABLE))


def soup() -> BeautifulSoup:
    return BeautifulSoup(TABLE, "lxml")


def gpu_table(page: BeautifulSoup) -> Tag:
    return page.find("table", id="tblSortTest_jquery")


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def row_of(page: BeautifulSoup, model: str) -> Tag:
    return next(tr for tr in gpu_table(page).find_all("tr") if cells(tr)[0].get_text(strip=True) == model)


def test_sample_yields_the_exact_offers() -> None:
    batch = parse()
    assert batch.source_id == "gpu_hyperstack"
    assert batch.provider == "Hyperstack"
    assert batch.parser_version == "gpu_hyperstack/1.1"
    assert rows(batch) == EXPECTED
    assert batch.unpriced == []


def test_only_the_on_demand_card_is_read_and_no_stock_is_guessed() -> None:
    offers = parse().offers
    # The Reservation card's "Starting from" $2.04 and the Spot VM card's $1.08 are other price kinds, not read here.
    assert {o.price_kind.value for o in offers} == {"on_demand"}
    assert not {D("2.04"), D("1.08")} & {o.amount for o in offers}
    assert {o.stock_status.value for o in offers} == {"unknown"}  # the live page states no stock


def test_the_table_shaped_page_reads_its_stock_links() -> None:
    stock = {row[0]: row[8] for row in TABLE_EXPECTED}
    assert (stock["NVIDIA H100 SXM"], stock["NVIDIA RTX A6000"]) == ("in_stock", "sold_out")


def test_registered_parser_is_this_module() -> None:
    assert adapter_module("gpu_hyperstack") is gpu_hyperstack


def test_provider_name_comes_from_the_source_options() -> None:
    other = SOURCE.model_copy(update={"options": {"provider": "Hyperstack (NexGen)"}})
    assert parser_for("gpu_hyperstack")(SAMPLE, other).provider == "Hyperstack (NexGen)"


def test_reordered_columns_and_no_table_id_parse_the_same() -> None:
    page = soup()
    table = gpu_table(page)
    del table["id"]
    for tr in table.find_all("tr"):
        found = [c.extract() for c in cells(tr)]
        for cell in [found[4], found[5], found[1], found[0], found[3], found[2]]:
            tr.append(cell)
    assert rows(parse(render(page))) == TABLE_EXPECTED


def test_an_extra_column_is_ignored() -> None:
    page = soup()
    for index, tr in enumerate(gpu_table(page).find_all("tr")):
        extra = page.new_tag("th" if index == 0 else "td")
        extra.string = "Reserved price" if index == 0 else "$ 1.90 per Hour"
        cells(tr)[4].insert_after(extra)
    assert rows(parse(render(page))) == TABLE_EXPECTED


def test_stock_from_the_link_text() -> None:
    page = soup()
    row_of(page, "NVIDIA H100 SXM").find("a").string = "Reserve"
    row_of(page, "NVIDIA RTX A6000").find("a").string = "Deploy now"
    stock = {o.listing: o.stock_status.value for o in parse(render(page)).offers}
    assert stock["NVIDIA H100 SXM"] == "unknown"
    assert stock["NVIDIA RTX A6000"] == "in_stock"
    assert stock["NVIDIA H200 SXM"] == "in_stock"


def test_contact_sales_and_blank_prices_are_unpriced_not_zero() -> None:
    page = soup()
    cells(row_of(page, "NVIDIA H200 SXM"))[4].string = "Contact sales"
    cells(row_of(page, "NVIDIA L40"))[4].string = ""
    batch = parse(render(page))
    assert batch.unpriced == ["NVIDIA H200 SXM", "NVIDIA L40"]
    assert [o.listing for o in batch.offers] == [
        "NVIDIA H100 SXM",
        "NVIDIA H100 PCIe",
        "NVIDIA A100 PCIe 80GB",
        "NVIDIA RTX A6000",
    ]


def test_a_per_minute_price_keeps_its_period() -> None:
    body = TABLE.replace(b"$ 2.50 per Hour", b"$ 0.0417 per Minute")
    offer = parse(body).offers[0]
    assert (offer.amount, offer.period.value) == (D("0.0417"), "minute")


@pytest.mark.parametrize("header", ["On-demand price", "GPU model"])
def test_a_missing_required_column_is_named(header: str) -> None:
    page = soup()
    table = gpu_table(page)
    index = [c.get_text(strip=True) for c in cells(table.find("tr"))].index(header)
    for tr in table.find_all("tr"):
        cells(tr)[index].decompose()
    with pytest.raises(MissingColumnError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_hyperstack"
    assert ("price" if header.startswith("On") else "gpu") in err.value.missing
    assert "gpu_hyperstack" in str(err.value)


def test_a_page_without_any_table_is_a_typed_error() -> None:
    page = soup()
    for table in page.find_all("table"):
        table.decompose()
    with pytest.raises(TableNotFoundError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_hyperstack"


def test_not_html_at_all_is_a_typed_error() -> None:
    with pytest.raises(ParseError) as err:
        parse(b'{"prices": []}')
    assert err.value.source_id == "gpu_hyperstack"


@pytest.mark.parametrize("cell", ["€ 2.50 per Hour", "2.50 EUR per Hour", "£2.50", "$ 0.00 per Hour"])
def test_a_price_in_another_currency_or_zero_is_a_cell_error(cell: str) -> None:
    body = TABLE.replace(b"$ 2.50 per Hour", cell.encode())
    with pytest.raises(CellError) as err:
        parse(body)
    assert err.value.source_id == "gpu_hyperstack"
    assert "NVIDIA H100 SXM" in str(err.value)
    assert err.value.column == "On-demand price"


def test_a_model_listed_twice_is_refused() -> None:
    body = TABLE.replace(b"<td>NVIDIA L40</td>", b"<td>NVIDIA H100 SXM</td>")
    with pytest.raises(ParseError, match="listed twice"):
        parse(body)


def test_the_bundled_sample_is_declared_a_sample_and_small() -> None:
    assert b"ratecard SAMPLE" in SAMPLE[:400]
    assert b"https://www.hyperstack.cloud/gpu-pricing" in SAMPLE[:400]
    assert len(SAMPLE) < 30_000
    assert Path(sample_path(SOURCE)).parent.name == "gpu"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_arbitrary_price_text_yields_a_valid_offer_or_a_parse_error(text: str) -> None:
    body = TABLE.replace(b"$ 2.59 per Hour", html.escape(text).encode("utf-8", "surrogatepass"))
    try:
        batch = parse(body)
    except ParseError as exc:
        assert exc.source_id == "gpu_hyperstack"
        return
    listings = [o.listing for o in batch.offers]
    assert ("NVIDIA H100 PCIe" in listings) != ("NVIDIA H100 PCIe" in batch.unpriced)
    for offer in batch.offers:
        assert offer.amount > 0 and offer.currency == "USD"
