"""Lambda pricing page (source "gpu_lambda", adapter gpu_lambda): exact offers from the bundled sample, then the
ways the page can drift. Altered pages are built from the sample; the sample is never modified."""

from __future__ import annotations

import html

import pytest
from bs4 import BeautifulSoup, Tag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import adapter_module, gpu_lambda, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows, render
from tests.support.source_kit import declared

SOURCE = declared()["gpu_lambda"]  # as pipelines/sources.toml declares it
SAMPLE = sample_path(SOURCE).read_bytes()
OD, RES = "on_demand", "reserved"


EXPECTED = recorded_offer_rows("gpu_lambda")  # tests/sources/expected/gpu_lambda.jsonl


def parse(body: bytes = SAMPLE) -> GpuBatch:
    return parser_for("gpu_lambda")(body, SOURCE)


def soup() -> BeautifulSoup:
    return BeautifulSoup(SAMPLE, "lxml")


def panel(page: BeautifulSoup, kind: str) -> Tag:
    return page.find(id=f"panel-{kind}")


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def row_of(page: BeautifulSoup, plan: str, kind: str = "on-demand") -> Tag:
    return next(tr for tr in panel(page, kind).find_all("tr") if cells(tr)[0].get_text(strip=True) == plan)


def price_cell(page: BeautifulSoup, plan: str, kind: str = "on-demand") -> Tag:
    return row_of(page, plan, kind).find("td", attrs={"data-label": "Price / GPU / hr"})


def stock(body: bytes) -> dict[str, str]:
    return {o.listing: o.stock_status.value for o in parse(body).offers if o.price_kind.value == OD}


def test_sample_yields_the_exact_offers() -> None:
    batch = parse()
    assert batch.source_id == "gpu_lambda"
    assert batch.provider == "Lambda"
    assert batch.parser_version == "gpu_lambda/1.2"
    assert rows(batch) == EXPECTED
    assert batch.unpriced == [] and batch.refused == []


def test_registered_parser_is_this_module() -> None:
    assert adapter_module("gpu_lambda") is gpu_lambda


def split_on_demand_table(page: BeautifulSoup) -> Tag:
    """The on-demand table split in two at its second group (1x plans), as the page may print it; the second."""
    table = panel(page, "on-demand").find("table")
    second = page.new_tag("table")
    second.append(table.find("thead").__copy__())
    body = page.new_tag("tbody")
    second.append(body)
    group = table.find_all("tr", class_="group-row")[1]
    for tr in [group, *group.find_next_siblings("tr")]:
        body.append(tr.extract())
    table.insert_after(second)
    return second


def test_one_table_per_gpu_count_group_parses_the_same() -> None:
    page = soup()
    split_on_demand_table(page)
    assert len(panel(page, "on-demand").find_all("table")) == 2
    batch = parse(render(page))
    assert rows(batch) == EXPECTED and batch.refused == []


def test_an_unreadable_table_beside_a_readable_one_is_refused_by_name_and_the_other_lands() -> None:
    page = soup()
    second = split_on_demand_table(page)
    second.find("thead").find(string=lambda text: "Price" in text).replace_with("Cost")
    batch = parse(render(page))
    assert rows(batch) == [row for row in EXPECTED if not (row[0].startswith("1x") and row[3] == OD)]
    assert batch.refused == [
        "the 'On-Demand' tab's table 2 of 2, not read: required column(s) price missing; the closest table has "
        "headers ['GPU', 'VRAM / GPU', 'vCPUs', 'RAM', 'Storage', 'Cost', '']"
    ]


def test_reordered_and_extra_columns_parse_the_same() -> None:
    page = soup()
    for table in page.select("[role=tabpanel] table"):
        for tr in table.find_all("tr"):
            found = [c.extract() for c in cells(tr)]
            if len(found) > 1:
                extra = page.new_tag(found[0].name)
                extra.string = "Network" if tr.parent.name == "thead" else "3200 Gbps"
                found = [*reversed(found), extra]
            for c in found:
                tr.append(c)
    assert rows(parse(render(page))) == EXPECTED


def test_panel_label_from_a_heading_when_no_tab_names_it() -> None:
    page = soup()
    for kind, name in (("on-demand", "On-demand instances"), ("reserved", "Reserved instances")):
        p = panel(page, kind)
        del p["aria-labelledby"]
        heading = page.new_tag("h3")
        heading.string = name
        p.insert(0, heading)
    page.find(attrs={"role": "tablist"}).decompose()
    assert rows(parse(render(page))) == EXPECTED


def test_the_tab_text_decides_the_kind() -> None:
    page = soup()
    page.find(id="tab-on-demand").string, page.find(id="tab-reserved").string = "Reserved", "On-Demand"
    kinds = [(o.listing, o.price_kind.value) for o in parse(render(page)).offers]
    assert kinds[0] == ("8x NVIDIA B200 SXM6", RES)
    assert kinds[-1] == ("8x NVIDIA H100 SXM", OD)


def test_a_price_tab_of_unknown_kind_is_refused() -> None:
    page = soup()
    page.find(id="tab-reserved").string = "Spot"
    with pytest.raises(ParseError, match="Spot") as err:
        parse(render(page))
    assert err.value.source_id == "gpu_lambda"


def test_a_row_class_alone_says_nothing_about_stock() -> None:
    # Class names are styling, renamed at any restyle: only text and ARIA labels say "sold out".
    page = soup()
    price_cell(page, "8x NVIDIA B200 SXM6").find("span").decompose()
    assert "sold-out" in row_of(page, "8x NVIDIA B200 SXM6")["class"]
    row_of(page, "8x NVIDIA H100 SXM")["class"] = ["sold-out"]
    result = stock(render(page))
    assert result["8x NVIDIA B200 SXM6"] == "unknown"
    assert result["8x NVIDIA H100 SXM"] == "in_stock"


def test_sold_out_from_an_aria_label() -> None:
    page = soup()
    badge = price_cell(page, "8x NVIDIA B200 SXM6").find("span")
    badge.clear()
    badge["aria-label"] = "Sold out"
    assert stock(render(page))["8x NVIDIA B200 SXM6"] == "sold_out"


def test_a_disabled_launch_control_is_not_in_stock() -> None:
    page = soup()
    row_of(page, "8x NVIDIA H100 SXM").find("a")["aria-disabled"] = "true"
    row_of(page, "1x NVIDIA A10").find("a").name = "button"
    row_of(page, "1x NVIDIA A10").find("button")["disabled"] = ""
    result = stock(render(page))
    assert result["8x NVIDIA H100 SXM"] == "unknown"
    assert result["1x NVIDIA A10"] == "unknown"
    assert result["1x NVIDIA GH200"] == "in_stock"


def test_sold_out_from_the_badge_alone_or_the_price_text() -> None:
    page = soup()
    del row_of(page, "8x NVIDIA B200 SXM6")["class"]
    price_cell(page, "1x NVIDIA A10").string = "$0.75 / GPU / hr Sold out"
    result = stock(render(page))
    assert result["8x NVIDIA B200 SXM6"] == "sold_out"
    assert result["1x NVIDIA A10"] == "sold_out"
    assert result["1x NVIDIA GH200"] == "in_stock"


def test_no_marker_and_no_launch_button_is_unknown() -> None:
    page = soup()
    del row_of(page, "8x NVIDIA B200 SXM6")["class"]
    price_cell(page, "8x NVIDIA B200 SXM6").find("span").decompose()
    row_of(page, "1x NVIDIA A10").find("a").decompose()
    result = stock(render(page))
    assert result["8x NVIDIA B200 SXM6"] == "unknown"
    assert result["1x NVIDIA A10"] == "unknown"
    assert result["8x NVIDIA H100 SXM"] == "in_stock"


def test_contact_sales_price_is_unpriced_not_zero() -> None:
    page = soup()
    price_cell(page, "8x NVIDIA H100 SXM", "reserved").string = "Contact sales"
    batch = parse(render(page))
    assert batch.unpriced == ["8x NVIDIA H100 SXM"]
    assert [o.price_kind.value for o in batch.offers] == [OD] * 6


def test_a_plan_without_a_gpu_count_is_a_cell_error() -> None:
    page = soup()
    cells(row_of(page, "1x NVIDIA A10"))[0].string = "NVIDIA A10"
    with pytest.raises(CellError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_lambda"
    assert "NVIDIA A10" in str(err.value)


def test_a_missing_price_column_is_named() -> None:
    page = soup()
    table = panel(page, "on-demand").find("table")
    for tr in table.find_all("tr"):
        found = cells(tr)
        if len(found) > 1:
            found[5].decompose()
    with pytest.raises(MissingColumnError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_lambda"
    assert err.value.missing == ["price"]


def test_a_page_without_tab_panels_is_a_typed_error() -> None:
    page = soup()
    for p in page.find_all(attrs={"role": "tabpanel"}):
        p.decompose()
    with pytest.raises(TableNotFoundError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_lambda"


def test_not_html_at_all_is_a_typed_error() -> None:
    with pytest.raises(ParseError) as err:
        parse(b"<<<not a page>>>")
    assert err.value.source_id == "gpu_lambda"


@pytest.mark.parametrize("text", ["€2.99 / GPU / hr", "2.99 EUR / GPU / hr", "$0.00 / GPU / hr"])
def test_a_price_in_another_currency_or_zero_is_a_cell_error(text: str) -> None:
    page = soup()
    price_cell(page, "8x NVIDIA H100 SXM").string = text
    with pytest.raises(CellError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_lambda"
    assert "8x NVIDIA H100 SXM" in str(err.value)


def test_a_plan_listed_twice_under_one_kind_is_refused() -> None:
    page = soup()
    cells(row_of(page, "1x NVIDIA A10"))[0].string = "1x NVIDIA GH200"
    with pytest.raises(ParseError, match="listed twice"):
        parse(render(page))


def test_the_bundled_sample_is_declared_a_sample_and_small() -> None:
    assert b"ratecard SAMPLE" in SAMPLE[:400]
    assert b"https://lambda.ai/pricing" in SAMPLE[:400]
    assert len(SAMPLE) < 30_000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_arbitrary_price_text_yields_a_valid_offer_or_a_parse_error(text: str) -> None:
    body = SAMPLE.replace(b"$2.89 / GPU / hr", html.escape(text).encode())
    try:
        batch = parse(body)
    except ParseError as exc:
        assert exc.source_id == "gpu_lambda"
        return
    listings = [o.listing for o in batch.offers]
    assert ("1x NVIDIA H100 PCIe" in listings) != ("1x NVIDIA H100 PCIe" in batch.unpriced)
    for offer in batch.offers:
        assert offer.amount > 0 and offer.price_per.value == "gpu"
