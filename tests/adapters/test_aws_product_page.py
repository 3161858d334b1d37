"""The AWS pages' adapters (product pages and Capacity Blocks) survive, or refuse loudly, the ways real pages drift:
columns moved, added or removed, footnotes, group rows, decoy tables, encodings and markup. Each source's exact
records are checked in its own file (tests/sources/), from tests/support/aws_pages.py's EXPECTED."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup, Tag

from pipelines.adapters import aws_capacity_blocks, aws_product_page, parser_for
from pipelines.aws.records import PriceKind
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.reading.tables import cell_text
from pipelines.sources.file import load_sources, sample_path
from tests.support.aws_pages import (
    EXPECTED,
    OD,
    PRODUCT_PAGES,
    R1,
    R3,
    SOURCES,
    TABLE_PAGE,
    TABLE_SHAPED,
    D,
    altered,
    cell,
    cells,
    col,
    drop_column,
    dump,
    header_cells,
    insert_column,
    main_table,
    move_column,
    new_row,
    parse,
    price_of,
    price_rows,
    render,
    row_of,
    sample_bytes,
    set_html,
    soup_of_sample,
    spec_rows,
    table_rows,
)


def test_expected_names_every_source() -> None:
    assert sorted(EXPECTED) == sorted(SOURCES)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_parser_version_is_the_adapters(source_id: str) -> None:
    module = {"aws_product_page": aws_product_page, "aws_capacity_blocks": aws_capacity_blocks}
    assert parse(source_id).parser_version == module[SOURCES[source_id].adapter].PARSER_VERSION


def test_no_on_demand_for_trn2_or_trn3_anywhere() -> None:
    for source_id in SOURCES:
        for p in parse(source_id).prices:
            if p.instance_type.startswith(("trn2.", "trn3.")):
                assert p.price_kind != PriceKind.ON_DEMAND, (source_id, p)


@pytest.mark.parametrize("source_id", PRODUCT_PAGES)
def test_product_page_prices_state_no_region_and_are_never_capacity_blocks(source_id: str) -> None:
    for p in parse(source_id).prices:
        assert p.region is None
        assert p.region_stated is False
        assert p.price_kind != PriceKind.CAPACITY_BLOCK
        assert p.printed_usd_per_accelerator_hour is None


def _reverse_columns(soup: BeautifulSoup, table: Tag) -> None:
    width = len(header_cells(table))
    for i in range(width):
        move_column(table, width - 1, i)


@pytest.mark.parametrize("source_id", TABLE_SHAPED)
def test_columns_in_reverse_order_give_the_same_records(source_id: str) -> None:
    body = altered(source_id, _reverse_columns)
    headers = [cell_text(c) for c in header_cells(main_table(BeautifulSoup(body, "lxml")))]
    original = [cell_text(c) for c in header_cells(main_table(soup_of_sample(source_id)))]
    assert headers == original[::-1]
    assert dump(parse(source_id, body)) == dump(parse(source_id))


def test_trn1_price_first_and_chips_memory_swapped_give_the_same_records() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        move_column(table, col(table, "On-Demand Price/hr"), 0)
        move_column(table, col(table, "Accelerator Memory (GB)"), col(table, "Trainium Chips"))

    body = altered("aws_trn1", edit)
    headers = [cell_text(c) for c in header_cells(main_table(BeautifulSoup(body, "lxml")))]
    assert headers[:4] == ["On-Demand Price/hr", "Instance Size", "Accelerator Memory (GB)", "Trainium Chips"]
    assert dump(parse("aws_trn1", body)) == dump(parse("aws_trn1"))


@pytest.mark.parametrize("source_id", TABLE_SHAPED)
def test_unknown_columns_are_ignored(source_id: str) -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        insert_column(table, 1, "NeuronCores", "2")
        insert_column(table, 0, "Placement Group Support", "Yes")
        insert_column(table, len(header_cells(table)) - 1, "Availability Zones", "use2-az1, use2-az2")

    body = altered(source_id, edit)
    assert (
        len(header_cells(main_table(BeautifulSoup(body, "lxml"))))
        == len(header_cells(main_table(soup_of_sample(source_id)))) + 3
    )
    assert dump(parse(source_id, body)) == dump(parse(source_id))


@pytest.mark.parametrize("source_id", TABLE_SHAPED)
def test_footnote_marks_on_headers_and_cells_are_ignored(source_id: str) -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        rows = table_rows(table)
        for c in cells(rows[0]):
            c.append("*")
            sup = soup.new_tag("sup")
            sup.string = "1"
            c.append(sup)
        for tr in rows[1:]:
            for index, c in enumerate(cells(tr)):
                if not cell_text(c):
                    continue
                c.append("*†"[index % 2])
                sup = soup.new_tag("sup")
                sup.string = str(index + 2)
                c.append(sup)

    body = altered(source_id, edit)
    assert b"<sup>1</sup>" in body and b"*<sup>2</sup>" in body
    assert dump(parse(source_id, body)) == dump(parse(source_id))


@pytest.mark.parametrize(
    ("source_id", "instance_type"),
    [
        ("aws_trn1", "trn1.2xlarge"),
        ("aws_trn1", "trn1n.32xlarge"),
        ("aws_inf1", "inf1.xlarge"),
        ("aws_inf2", "inf2.xlarge"),
        (TABLE_PAGE, "trn1.32xlarge"),
    ],
)
def test_group_header_rows_spanning_the_table_are_ignored(source_id: str, instance_type: str) -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        width = len(header_cells(table))
        row_of(table, instance_type).insert_before(new_row(f'<tr><td colspan="{width}">Trn1</td></tr>'))
        table_rows(table)[-1].insert_after(new_row(f'<tr><th colspan="{width}">Footnotes follow</th></tr>'))

    body = altered(source_id, edit)
    assert body.count(b"colspan=") >= 2
    assert dump(parse(source_id, body)) == dump(parse(source_id))


def test_a_spanning_title_row_above_a_header_without_thead() -> None:
    # inf1's table has no <thead>: the header is the first all-<th> row, even below a spanning title row.
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        table_rows(table)[0].insert_before(new_row('<tr><td colspan="9">Product details</td></tr>'))

    assert dump(parse("aws_inf1", altered("aws_inf1", edit))) == dump(parse("aws_inf1"))


def test_header_row_of_td_cells_without_thead() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        for th in table.find_all("th"):
            th.name = "td"
        for section in table.find_all(["thead", "tbody"]):
            section.unwrap()

    body = altered("aws_trn1", edit)
    assert b"<th" not in body.split(b'class="lb-tbl"')[1].split(b"</table>")[0]
    assert dump(parse("aws_trn1", body)) == dump(parse("aws_trn1"))


def test_a_decoy_table_with_some_of_the_headers_is_passed_over() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        decoy = BeautifulSoup(
            "<table><tr><th>Instance Size</th><th>vCPUs</th><th>Memory (GiB)</th></tr>"
            "<tr><td>trn1.2xlarge</td><td>999</td><td>999</td></tr></table>",
            "lxml",
        ).find("table")
        table.insert_before(decoy)

    assert dump(parse("aws_trn1", altered("aws_trn1", edit))) == dump(parse("aws_trn1"))


def test_empty_vcpu_cell_is_none() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "trn1.2xlarge", "vCPUs").clear()

    batch = parse("aws_trn1", altered("aws_trn1", edit))
    specs = spec_rows(batch)
    assert batch.specs[0].vcpus is None
    assert specs["trn1.32xlarge"][5] == 128
    assert price_rows(batch) == EXPECTED["aws_trn1"]["prices"]


def test_optional_column_removed_leaves_that_field_empty() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        drop_column(table, col(table, "vCPUs"))
        drop_column(table, col(table, "1-Year Reserved Instance Effective Hourly"))

    batch = parse("aws_trn1", altered("aws_trn1", edit))
    assert [s.vcpus for s in batch.specs] == [None, None, None]
    expected = {k: v for k, v in EXPECTED["aws_trn1"]["prices"].items() if k[1] != R1}
    assert len(expected) == 6
    assert price_rows(batch) == expected


def test_thousands_separator_in_aprice_of() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "trn1.32xlarge", "On-Demand Price/hr").string = "$1,021.50"

    price = price_of(parse("aws_trn1", altered("aws_trn1", edit)), "trn1.32xlarge", PriceKind.ON_DEMAND)
    assert str(price.usd_per_instance_hour) == "1021.50"
    assert price.usd_per_accelerator_hour == D("63.84375")
    assert str(price.usd_per_accelerator_hour_4dp) == "63.8438"


@pytest.mark.parametrize("empty", ["", "-", "N/A", "–", "<sup>*</sup>"])
def test_empty_on_demand_cell_is_an_absent_price_never_zero(empty: str) -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        set_html(cell(table, "trn1.2xlarge", "On-Demand Price/hr"), empty)

    batch = parse("aws_trn1", altered("aws_trn1", edit))
    expected = dict(EXPECTED["aws_trn1"]["prices"])
    del expected[("trn1.2xlarge", OD, None)]
    assert price_rows(batch) == expected
    assert ("trn1.2xlarge", R1, None) in price_rows(batch)
    assert ("trn1.2xlarge", R3, None) in price_rows(batch)
    assert all(p.usd_per_instance_hour > 0 for p in batch.prices)
    assert len(batch.specs) == 3


def test_rowspan_on_a_product_page_instance_cell() -> None:
    # A rowspan'd cell in the middle of a row: the grid must place the following cells after it.
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "trn1.32xlarge", "Trainium Chips")["rowspan"] = "2"
        cells(row_of(table, "trn1n.32xlarge"))[1].decompose()

    assert dump(parse("aws_trn1", altered("aws_trn1", edit))) == dump(parse("aws_trn1"))


@pytest.mark.parametrize(
    ("source_id", "header", "key"),
    [
        ("aws_trn1", "Trainium Chips", "accelerators"),
        ("aws_trn1", "On-Demand Price/hr", "on_demand"),
        ("aws_trn1", "Instance Size", "instance_type"),
        ("aws_inf1", "Inferentia Chips", "accelerators"),
        ("aws_inf1", "On-Demand Price", "on_demand"),
        ("aws_inf2", "Accelerator Memory (GB)", "accelerator_memory"),
        ("aws_trn2", "Trainium2 Chips", "accelerators"),
        (TABLE_PAGE, "Region", "region"),
        (TABLE_PAGE, "Effective Instance Hourly Rate", "instance_rate"),
        (TABLE_PAGE, "GPU", "accelerators"),
        (TABLE_PAGE, "Instance Type", "instance_type"),
    ],
)
def test_required_column_removed_is_a_missing_column_error(source_id: str, header: str, key: str) -> None:
    body = altered(source_id, lambda soup, table: drop_column(table, col(table, header)))
    with pytest.raises(MissingColumnError) as caught:
        parse(source_id, body)
    error = caught.value
    assert isinstance(error, ParseError)
    assert error.source_id == SOURCES[source_id].id
    assert error.missing == [key]
    assert SOURCES[source_id].id in str(error)
    assert key in str(error)
    assert header not in error.headers


@pytest.mark.parametrize("source_id", TABLE_SHAPED)
def test_no_table_at_all_is_table_not_found(source_id: str) -> None:
    soup = soup_of_sample(source_id)
    for table in soup.find_all("table"):
        table.decompose()
    with pytest.raises(TableNotFoundError) as caught:
        parse(source_id, render(soup))
    assert isinstance(caught.value, ParseError)
    assert caught.value.source_id == SOURCES[source_id].id
    assert f"[{SOURCES[source_id].id}]" in str(caught.value)


@pytest.mark.parametrize("source_id", TABLE_SHAPED)
def test_only_unrelated_tables_left_is_table_not_found(source_id: str) -> None:
    # The samples keep a "Benefits" table that shares no header with the price table.
    body = altered(source_id, lambda soup, table: table.decompose())
    assert body.count(b"<table") == 1
    with pytest.raises(TableNotFoundError) as caught:
        parse(source_id, body)
    assert caught.value.source_id == SOURCES[source_id].id


def test_empty_document_is_table_not_found() -> None:
    with pytest.raises(TableNotFoundError, match=r"\[aws_trn1\]"):
        parse("aws_trn1", b"")


@pytest.mark.parametrize(
    ("source_id", "instance_type", "header", "text", "detail"),
    [
        ("aws_trn1", "trn1.32xlarge", "On-Demand Price/hr", "call us", "call us"),
        ("aws_trn1", "trn1.2xlarge", "1-Year Reserved Instance Effective Hourly", "€0.79", "EUR|€"),
        ("aws_trn1", "trn1.2xlarge", "On-Demand Price/hr", "1.34", "no currency"),
        ("aws_trn1", "trn1n.32xlarge", "Trainium Chips", "sixteen", "sixteen"),
        ("aws_inf1", "inf1.6xlarge", "On-Demand Price", "Contact sales", "Contact sales"),
        (TABLE_PAGE, "p5.48xlarge", "Effective Instance Hourly Rate", "call us", "call us"),
        (TABLE_PAGE, "trn1.32xlarge", "Accelerator Memory", "lots", "lots"),
    ],
)
def test_unreadable_cell_is_a_cell_error_naming_row_and_column(
    source_id: str, instance_type: str, header: str, text: str, detail: str
) -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, instance_type, header).string = text

    with pytest.raises(CellError) as caught:
        parse(source_id, altered(source_id, edit))
    error = caught.value
    assert isinstance(error, ParseError)
    assert error.source_id == SOURCES[source_id].id
    assert error.column == header
    message = str(error)
    assert f"[{SOURCES[source_id].id}]" in message
    assert repr(instance_type) in message
    assert repr(header) in message
    assert re.search(detail, message)


_CP1252_EDIT = ("<td>$1.34</td><td>$0.79</td>", "<td>$1.34†</td><td>–</td>")


@pytest.mark.parametrize(
    "declaration",
    [
        '<meta charset="windows-1252">',
        '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">',
        "",  # charset named only in the HTTP header, which the parser never sees
    ],
)
def test_windows_1252_page_with_non_ascii_text(declaration: str) -> None:
    text = sample_bytes("aws_trn1").decode("utf-8")
    assert text.count(_CP1252_EDIT[0]) == 1
    text = text.replace('<meta charset="utf-8">', declaration).replace(*_CP1252_EDIT)
    text = text.replace("<h1>Amazon EC2 Trn1 instances</h1>", "<h1>Amazon EC2 Trn1 instances – café</h1>")
    body = text.encode("windows-1252")
    assert b"\x86" in body and b"\x96" in body  # † and – in windows-1252, invalid as UTF-8
    batch = parse("aws_trn1", body)
    expected = dict(EXPECTED["aws_trn1"]["prices"])
    del expected[("trn1.2xlarge", R1, None)]  # the en dash means "not available"
    assert price_rows(batch) == expected
    assert spec_rows(batch) == EXPECTED["aws_trn1"]["specs"]


def test_utf8_page_with_non_ascii_text() -> None:
    text = sample_bytes("aws_trn1").decode("utf-8").replace(*_CP1252_EDIT)
    batch = parse("aws_trn1", text.encode("utf-8"))
    assert ("trn1.2xlarge", R1, None) not in price_rows(batch)
    assert price_of(batch, "trn1.2xlarge", PriceKind.ON_DEMAND).usd_per_instance_hour == D("1.34")


def test_markup_inside_cells() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        set_html(
            cell(table, "trn1.2xlarge", "On-Demand Price/hr"),
            '<script>var p = "$9.99"; document.write(p);</script><b>$1.34</b>',
        )
        set_html(
            cell(table, "trn1.2xlarge", "Instance Size"),
            '<a href="/ec2/instance-types/trn1/#sizes"><strong>trn1.2xlarge</strong></a>',
        )
        set_html(cell(table, "trn1.2xlarge", "Trainium Chips"), "<span>1</span><!-- 16 -->")
        set_html(cell(table, "trn1.2xlarge", "Accelerator Memory (GB)"), "<style>td{content:'64'}</style>32")
        set_html(cell(table, "trn1.2xlarge", "Network Bandwidth (Gbps)"), "Up to<br>12.5")
        set_html(cell(table, "trn1.32xlarge", "On-Demand Price/hr"), "$&nbsp;<em>21.50</em>")
        set_html(
            cell(table, "trn1.32xlarge", "Local NVMe Storage (TB)"), '<script>throw new Error("never run")</script>'
        )

    body = altered("aws_trn1", edit)
    assert b"<script>var p" in body and b"<b>$1.34</b>" in body
    assert dump(parse("aws_trn1", body)) == dump(parse("aws_trn1"))


def test_blank_instance_cell_on_a_product_page_is_a_cell_error():
    trn1 = next(s for s in load_sources() if s.id == "aws_trn1")
    page = sample_path(trn1).read_text().replace("<td>trn1.2xlarge</td>", "<td></td>")
    with pytest.raises(CellError) as raised:
        parser_for(trn1.adapter)(page.encode(), trn1)
    assert "aws_trn1" in str(raised.value) and "Instance Size" in str(raised.value)


def test_shape_fingerprint_follows_the_headers_not_the_values():
    trn1 = SOURCES["aws_trn1"]
    page = sample_path(trn1).read_text()
    same_headers = page.replace("$1.34", "$1.35")
    renamed = page.replace("Trainium Chips", "Trainium chips (count)")
    shape = parse("aws_trn1").shape
    assert shape and len(shape) == 16
    assert parse("aws_trn1", same_headers.encode()).shape == shape
    assert parse("aws_trn1", renamed.encode()).shape != shape
