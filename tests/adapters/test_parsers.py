"""Every source in pipelines/sources.toml, parsed from its bundled sample, yields exactly the expected records;
and the adapters survive (or refuse loudly) the ways real pages drift.

Altered pages are built here from the bundled samples with BeautifulSoup or string edits; the samples
themselves are never modified.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import cache

import pytest
from bs4 import BeautifulSoup, Tag

from pipelines.adapters import aws_capacity_blocks, aws_product_page, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.reading.tables import cell_text
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from schemas.records import PriceKind, SourceBatch

D = Decimal
# The AWS sources; GPU and FX adapters have their own test modules (tests/adapters/test_gpu_*.py, test_fx_ecb.py).
SOURCES: dict[str, SourceSpec] = {s.id: s for s in load_sources() if s.kind == "aws"}
PRODUCT_PAGES = [sid for sid, s in SOURCES.items() if s.adapter == "aws_product_page"]
INF1_BASIS = "chips x 8 GiB per Inferentia chip (AWS Neuron Inferentia specification)"


def S(accelerator, count, memory, unit, vcpus, host_gib, derived=False):
    """Expected spec: (accelerator, count, memory value, memory unit, derived?, vcpus, host memory GiB)."""
    return (
        accelerator,
        count,
        None if memory is None else D(memory),
        unit,
        derived,
        vcpus,
        None if host_gib is None else D(host_gib),
    )


def P(usd_per_instance_hour, usd_per_accelerator_hour, four_dp, printed=None):
    """Expected price: (instance rate, per-accelerator rate, per-accelerator rate at 4dp as text, printed rate)."""
    return (D(usd_per_instance_hour), D(usd_per_accelerator_hour), four_dp, None if printed is None else D(printed))


OD, R1, R3, CB = "on_demand", "reserved_1y", "reserved_3y", "capacity_block"

# source id -> the exact records its bundled sample must yield. Specs in page order; prices keyed by
# (instance type, price kind, region).
EXPECTED: dict[str, dict] = {
    "aws_trn1": {
        "specs": {
            "trn1.2xlarge": S("Trainium", 1, "32", "GB", 8, "32"),
            "trn1.32xlarge": S("Trainium", 16, "512", "GB", 128, "512"),
            "trn1n.32xlarge": S("Trainium", 16, "512", "GB", 128, "512"),
        },
        "prices": {
            ("trn1.2xlarge", OD, None): P("1.34", "1.34", "1.3400"),
            ("trn1.2xlarge", R1, None): P("0.79", "0.79", "0.7900"),
            ("trn1.2xlarge", R3, None): P("0.4744", "0.4744", "0.4744"),
            ("trn1.32xlarge", OD, None): P("21.50", "1.34375", "1.3438"),
            ("trn1.32xlarge", R1, None): P("12.60", "0.7875", "0.7875"),
            ("trn1.32xlarge", R3, None): P("7.59", "0.474375", "0.4744"),
            ("trn1n.32xlarge", OD, None): P("24.78", "1.54875", "1.5488"),
            ("trn1n.32xlarge", R1, None): P("14.52", "0.9075", "0.9075"),
            ("trn1n.32xlarge", R3, None): P("8.59", "0.536875", "0.5369"),
        },
    },
    "aws_inf1": {
        # The page prints no accelerator memory: 8 GiB per Inferentia chip x chip count, marked derived.
        "specs": {
            "inf1.xlarge": S("Inferentia", 1, "8", "GiB", 4, "8", derived=True),
            "inf1.2xlarge": S("Inferentia", 1, "8", "GiB", 8, "16", derived=True),
            "inf1.6xlarge": S("Inferentia", 4, "32", "GiB", 24, "48", derived=True),
            "inf1.24xlarge": S("Inferentia", 16, "128", "GiB", 96, "192", derived=True),
        },
        "prices": {
            ("inf1.xlarge", OD, None): P("0.228", "0.228", "0.2280"),
            ("inf1.2xlarge", OD, None): P("0.362", "0.362", "0.3620"),
            ("inf1.6xlarge", OD, None): P("1.18", "0.295", "0.2950"),
            ("inf1.24xlarge", OD, None): P("4.721", "0.2950625", "0.2951"),
        },
    },
    "aws_inf2": {
        "specs": {
            "inf2.xlarge": S("Inferentia2", 1, "32", "GB", 4, "16"),
            "inf2.8xlarge": S("Inferentia2", 1, "32", "GB", 32, "128"),
            "inf2.24xlarge": S("Inferentia2", 6, "192", "GB", 96, "384"),
            "inf2.48xlarge": S("Inferentia2", 12, "384", "GB", 192, "768"),
        },
        "prices": {
            ("inf2.xlarge", OD, None): P("0.76", "0.76", "0.7600"),
            ("inf2.8xlarge", OD, None): P("1.97", "1.97", "1.9700"),
            ("inf2.24xlarge", OD, None): P("6.49", "1.081666666666666667", "1.0817"),
            ("inf2.48xlarge", OD, None): P("12.98", "1.081666666666666667", "1.0817"),
        },
    },
    "aws_trn2": {
        # Host memory is printed under `Memory (TB)` as 2: converted by the unit's definition (2 x 10^12 bytes).
        "specs": {"trn2.48xlarge": S("Trainium2", 16, "1.5", "TB", 192, "1862.645149")},
        "prices": {},
    },
    "aws_capacity_blocks": {
        "specs": {
            "p5.48xlarge": S("H100", 8, "640", "GB", 192, "2048"),
            "p4d.24xlarge": S("A100", 8, "320", "GB", None, "1152"),  # the vCPU cell is empty
            "trn1.32xlarge": S("Trainium", 16, "512", "GB", 128, "512"),
            "trn2.48xlarge": S("Trainium2", 16, "1.5", "TB", 192, "2048"),
        },
        "prices": {
            ("p5.48xlarge", CB, "US East (N. Virginia)"): P("39.33", "4.91625", "4.9163", "4.916"),
            ("p4d.24xlarge", CB, "US East (Ohio)"): P("14.75", "1.84375", "1.8438", "1.844"),
            ("trn1.32xlarge", CB, "Asia Pacific (Melbourne)"): P("15.49", "0.968125", "0.9681", "0.968"),
            ("trn2.48xlarge", CB, "US East (Ohio)"): P("35.7608", "2.23505", "2.2351", "2.235"),
        },
    },
}


# --- helpers ----------------------------------------------------------------------------------------------


@cache
def sample_bytes(source_id: str) -> bytes:
    return sample_path(SOURCES[source_id]).read_bytes()


def parse(source_id: str, body: bytes | None = None) -> SourceBatch:
    source = SOURCES[source_id]
    return parser_for(source.adapter)(sample_bytes(source_id) if body is None else body, source)


def spec_rows(batch: SourceBatch) -> dict[str, tuple]:
    rows = {}
    for s in batch.specs:
        assert s.instance_type not in rows, f"duplicate spec {s.instance_type}"
        rows[s.instance_type] = (
            s.accelerator,
            s.accelerator_count,
            s.accelerator_memory_value,
            s.accelerator_memory_unit,
            s.accelerator_memory_derived,
            s.vcpus,
            s.host_memory_gib,
        )
    return rows


def price_rows(batch: SourceBatch) -> dict[tuple, tuple]:
    rows = {}
    for p in batch.prices:
        key = (p.instance_type, p.price_kind.value, p.region)
        assert key not in rows, f"duplicate price {key}"
        for money in (p.usd_per_instance_hour, p.usd_per_accelerator_hour, p.usd_per_accelerator_hour_4dp):
            assert isinstance(money, Decimal)
        rows[key] = (
            p.usd_per_instance_hour,
            p.usd_per_accelerator_hour,
            str(p.usd_per_accelerator_hour_4dp),
            p.printed_usd_per_accelerator_hour,
        )
    return rows


def dump(batch: SourceBatch) -> dict:
    """The whole batch with every Decimal as its digits, so "same records" means the same printed figures."""
    return batch.model_dump(mode="json", exclude={"shape"})  # the shape fingerprint is meant to differ


def soup_of_sample(source_id: str) -> BeautifulSoup:
    return BeautifulSoup(sample_bytes(source_id), "lxml")


def render(soup: BeautifulSoup) -> bytes:
    return str(soup).encode("utf-8")


def main_table(soup: BeautifulSoup) -> Tag:
    table = soup.select_one("div.lb-tbl table")
    assert table is not None
    return table


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def is_group_row(tr: Tag) -> bool:
    found = cells(tr)
    return len(found) == 1 and int(found[0].get("colspan", "1")) > 1


def table_rows(table: Tag) -> list[Tag]:
    return [tr for tr in table.find_all("tr") if not is_group_row(tr)]


def header_cells(table: Tag) -> list[Tag]:
    return cells(table_rows(table)[0])


def col(table: Tag, header: str) -> int:
    """Index of the column whose header text (footnotes dropped) is exactly `header`."""
    texts = [cell_text(c) for c in header_cells(table)]
    assert header in texts, f"{header!r} not in {texts}"
    return texts.index(header)


def row_of(table: Tag, instance_type: str) -> Tag:
    for tr in table_rows(table)[1:]:
        if any(cell_text(c) == instance_type for c in cells(tr)):
            return tr
    raise AssertionError(f"no row {instance_type}")


def cell(table: Tag, instance_type: str, header: str) -> Tag:
    return cells(row_of(table, instance_type))[col(table, header)]


def set_html(target: Tag, html: str) -> None:
    target.clear()
    fragment = BeautifulSoup(html, "html.parser")
    for node in list(fragment.contents):
        target.append(node.extract())


def move_column(table: Tag, src: int, dst: int) -> None:
    for tr in table_rows(table):
        moving = cells(tr)[src].extract()
        rest = cells(tr)
        if dst >= len(rest):
            tr.append(moving)
        else:
            rest[dst].insert_before(moving)


def drop_column(table: Tag, index: int) -> None:
    for tr in table_rows(table):
        cells(tr)[index].decompose()


def insert_column(table: Tag, index: int, header: str, value: str) -> None:
    soup = BeautifulSoup("", "lxml")
    for position, tr in enumerate(table_rows(table)):
        new = soup.new_tag("th" if position == 0 else "td")
        new.string = header if position == 0 else value
        cells(tr)[index].insert_before(new)


def altered(source_id: str, edit: Callable[[BeautifulSoup, Tag], None]) -> bytes:
    soup = soup_of_sample(source_id)
    edit(soup, main_table(soup))
    return render(soup)


def new_row(html: str) -> Tag:
    return BeautifulSoup(f"<table>{html}</table>", "lxml").find("tr")


# --- the bundled samples ----------------------------------------------------------------------------------


def test_expected_names_every_source() -> None:
    assert sorted(EXPECTED) == sorted(SOURCES)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_sample_yields_exactly_the_expected_records(source_id: str) -> None:
    batch = parse(source_id)
    expected = EXPECTED[source_id]
    assert batch.source_id == source_id
    assert [s.instance_type for s in batch.specs] == list(expected["specs"])
    assert spec_rows(batch) == expected["specs"]
    assert len(batch.prices) == len(expected["prices"])
    assert price_rows(batch) == expected["prices"]


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_parser_version_is_the_adapters(source_id: str) -> None:
    module = {"aws_product_page": aws_product_page, "aws_capacity_blocks": aws_capacity_blocks}
    assert parse(source_id).parser_version == module[SOURCES[source_id].adapter].PARSER_VERSION


def _price(batch: SourceBatch, instance_type: str, kind: PriceKind, region: str | None = None):
    found = [p for p in batch.prices if (p.instance_type, p.price_kind, p.region) == (instance_type, kind, region)]
    assert len(found) == 1, f"{instance_type} {kind} {region}: {found}"
    return found[0]


def test_trn1_on_demand_per_accelerator() -> None:
    batch = parse("aws_trn1")
    small = _price(batch, "trn1.2xlarge", PriceKind.ON_DEMAND)
    assert small.usd_per_instance_hour == D("1.34")
    assert small.usd_per_accelerator_hour == D("1.34")
    assert str(small.usd_per_accelerator_hour_4dp) == "1.3400"
    large = _price(batch, "trn1.32xlarge", PriceKind.ON_DEMAND)
    assert large.accelerator_count == 16
    assert large.usd_per_instance_hour == D("21.50")
    assert large.usd_per_accelerator_hour == D("1.34375")
    assert str(large.usd_per_accelerator_hour_4dp) == "1.3438"


def test_inf1_price_and_derived_memory() -> None:
    batch = parse("aws_inf1")
    price = _price(batch, "inf1.xlarge", PriceKind.ON_DEMAND)
    assert price.usd_per_instance_hour == D("0.228")
    for spec in batch.specs:
        assert spec.accelerator_memory_derived is True
        assert spec.accelerator_memory_unit == "GiB"
        assert spec.accelerator_memory_value == D(8) * spec.accelerator_count
        assert spec.accelerator_memory_gib == D(8) * spec.accelerator_count
        assert spec.accelerator_memory_basis == INF1_BASIS
        assert "8 GiB" in spec.accelerator_memory_basis


def test_inf2_memory_as_printed() -> None:
    batch = parse("aws_inf2")
    specs = {s.instance_type: s for s in batch.specs}
    for instance_type, usd in (("inf2.xlarge", "0.76"), ("inf2.8xlarge", "1.97")):
        assert specs[instance_type].accelerator_memory_value == D(32)
        assert specs[instance_type].accelerator_memory_unit == "GB"
        assert specs[instance_type].accelerator_memory_derived is False
        assert specs[instance_type].accelerator_memory_basis is None
        assert _price(batch, instance_type, PriceKind.ON_DEMAND).usd_per_instance_hour == D(usd)


@pytest.mark.parametrize("source_id", ["aws_trn2"])
def test_spec_only_pages_yield_specs_and_no_prices(source_id: str) -> None:
    batch = parse(source_id)
    assert len(batch.specs) == 1
    assert batch.prices == []


def test_no_on_demand_for_trn2_or_trn3_anywhere() -> None:
    for source_id in SOURCES:
        for p in parse(source_id).prices:
            if p.instance_type.startswith(("trn2.", "trn3.")):
                assert p.price_kind != PriceKind.ON_DEMAND, (source_id, p)


def test_capacity_block_trn2() -> None:
    batch = parse("aws_capacity_blocks")
    price = _price(batch, "trn2.48xlarge", PriceKind.CAPACITY_BLOCK, "US East (Ohio)")
    assert price.usd_per_instance_hour == D("35.7608")
    assert price.accelerator_count == 16
    assert price.usd_per_accelerator_hour == D("2.23505")
    assert str(price.usd_per_accelerator_hour_4dp) == "2.2351"
    assert str(price.printed_usd_per_accelerator_hour) == "2.235"
    assert price.region_stated is True


@pytest.mark.parametrize("source_id", PRODUCT_PAGES)
def test_product_page_prices_state_no_region_and_are_never_capacity_blocks(source_id: str) -> None:
    for p in parse(source_id).prices:
        assert p.region is None
        assert p.region_stated is False
        assert p.price_kind != PriceKind.CAPACITY_BLOCK
        assert p.printed_usd_per_accelerator_hour is None


def test_capacity_blocks_page_yields_only_capacity_block_prices_with_regions() -> None:
    prices = parse("aws_capacity_blocks").prices
    assert len(prices) == 4
    assert {p.price_kind for p in prices} == {PriceKind.CAPACITY_BLOCK}
    assert all(p.region_stated and p.region for p in prices)


# --- drift the adapters absorb ----------------------------------------------------------------------------


def _reverse_columns(soup: BeautifulSoup, table: Tag) -> None:
    width = len(header_cells(table))
    for i in range(width):
        move_column(table, width - 1, i)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
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


def test_capacity_blocks_rate_first_and_gpu_memory_swapped_give_the_same_records() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        move_column(table, col(table, "Effective Instance Hourly Rate"), 0)
        move_column(table, col(table, "Accelerator Memory"), col(table, "GPU"))

    assert dump(parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit))) == dump(
        parse("aws_capacity_blocks")
    )


@pytest.mark.parametrize("source_id", sorted(SOURCES))
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


@pytest.mark.parametrize("source_id", sorted(SOURCES))
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
        ("aws_capacity_blocks", "trn1.32xlarge"),
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


def test_thousands_separator_in_a_price() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "trn1.32xlarge", "On-Demand Price/hr").string = "$1,021.50"

    price = _price(parse("aws_trn1", altered("aws_trn1", edit)), "trn1.32xlarge", PriceKind.ON_DEMAND)
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


def test_capacity_blocks_empty_rate_is_an_absent_price_but_the_spec_stays() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "p4d.24xlarge", "Effective Instance Hourly Rate").string = "N/A"

    batch = parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit))
    assert "p4d.24xlarge" in spec_rows(batch)
    assert [p.instance_type for p in batch.prices] == ["p5.48xlarge", "trn1.32xlarge", "trn2.48xlarge"]


# --- capacity blocks: follow-on region rows ---------------------------------------------------------------

OREGON = ("trn2.48xlarge", CB, "US West (Oregon)")


def _trn2_prices(batch: SourceBatch) -> dict[tuple, tuple]:
    return {k: v for k, v in price_rows(batch).items() if k[0] == "trn2.48xlarge"}


def _assert_two_trn2_regions(batch: SourceBatch) -> None:
    assert [s.instance_type for s in batch.specs] == list(EXPECTED["aws_capacity_blocks"]["specs"])
    assert spec_rows(batch) == EXPECTED["aws_capacity_blocks"]["specs"]
    assert len(batch.prices) == 5
    assert _trn2_prices(batch) == {
        ("trn2.48xlarge", CB, "US East (Ohio)"): P("35.7608", "2.23505", "2.2351", "2.235"),
        OREGON: P("36.50", "2.28125", "2.2813", "2.281"),
    }


def test_follow_on_row_with_an_empty_instance_cell_is_another_region_of_the_same_type() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row_of(table, "trn2.48xlarge").insert_after(
            new_row(
                "<tr><td></td><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td></td><td></td><td></td><td></td><td></td><td></td></tr>"
            )
        )

    _assert_two_trn2_regions(parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit)))


def test_follow_on_row_repeating_the_spec_cells() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row_of(table, "trn2.48xlarge").insert_after(
            new_row(
                "<tr><td>&nbsp;</td><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td>16 x AWS Trainium2</td><td>192</td><td>2048 GiB</td><td>1.5 TB</td><td>4 x 1.92</td>"
                "<td>3200 Gigabit</td></tr>"
            )
        )

    _assert_two_trn2_regions(parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit)))


def test_rowspan_instance_cell_covers_both_region_rows() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row = row_of(table, "trn2.48xlarge")
        cells(row)[0]["rowspan"] = "2"
        row.insert_after(
            new_row(
                "<tr><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td>16 x AWS Trainium2</td><td>192</td><td>2048 GiB</td><td>1.5 TB</td><td>4 x 1.92</td>"
                "<td>3200 Gigabit</td></tr>"
            )
        )

    _assert_two_trn2_regions(parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit)))


def test_rowspan_on_every_spec_cell_covers_both_region_rows() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row = row_of(table, "trn2.48xlarge")
        for index, c in enumerate(cells(row)):
            if index not in (1, 2, 3):  # region and the two rates differ per row
                c["rowspan"] = "2"
        row.insert_after(new_row("<tr><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td></tr>"))

    _assert_two_trn2_regions(parse("aws_capacity_blocks", altered("aws_capacity_blocks", edit)))


def test_rowspan_on_a_product_page_instance_cell() -> None:
    # A rowspan'd cell in the middle of a row: the grid must place the following cells after it.
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "trn1.32xlarge", "Trainium Chips")["rowspan"] = "2"
        cells(row_of(table, "trn1n.32xlarge"))[1].decompose()

    assert dump(parse("aws_trn1", altered("aws_trn1", edit))) == dump(parse("aws_trn1"))


# --- drift the adapters refuse ----------------------------------------------------------------------------


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
        ("aws_capacity_blocks", "Region", "region"),
        ("aws_capacity_blocks", "Effective Instance Hourly Rate", "instance_rate"),
        ("aws_capacity_blocks", "GPU", "accelerators"),
        ("aws_capacity_blocks", "Instance Type", "instance_type"),
    ],
)
def test_required_column_removed_is_a_missing_column_error(source_id: str, header: str, key: str) -> None:
    body = altered(source_id, lambda soup, table: drop_column(table, col(table, header)))
    with pytest.raises(MissingColumnError) as caught:
        parse(source_id, body)
    error = caught.value
    assert isinstance(error, ParseError)
    assert error.source_id == source_id
    assert error.missing == [key]
    assert source_id in str(error)
    assert key in str(error)
    assert header not in error.headers


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_no_table_at_all_is_table_not_found(source_id: str) -> None:
    soup = soup_of_sample(source_id)
    for table in soup.find_all("table"):
        table.decompose()
    with pytest.raises(TableNotFoundError) as caught:
        parse(source_id, render(soup))
    assert isinstance(caught.value, ParseError)
    assert caught.value.source_id == source_id
    assert f"[{source_id}]" in str(caught.value)


@pytest.mark.parametrize("source_id", sorted(SOURCES))
def test_only_unrelated_tables_left_is_table_not_found(source_id: str) -> None:
    # The samples keep a "Benefits" table that shares no header with the price table.
    body = altered(source_id, lambda soup, table: table.decompose())
    assert body.count(b"<table") == 1
    with pytest.raises(TableNotFoundError) as caught:
        parse(source_id, body)
    assert caught.value.source_id == source_id


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
        ("aws_capacity_blocks", "p5.48xlarge", "Effective Instance Hourly Rate", "call us", "call us"),
        ("aws_capacity_blocks", "trn1.32xlarge", "Accelerator Memory", "lots", "lots"),
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
    assert error.source_id == source_id
    assert error.column == header
    message = str(error)
    assert f"[{source_id}]" in message
    assert repr(instance_type) in message
    assert repr(header) in message
    assert re.search(detail, message)


# --- encodings and markup ---------------------------------------------------------------------------------

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
    assert _price(batch, "trn1.2xlarge", PriceKind.ON_DEMAND).usd_per_instance_hour == D("1.34")


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
