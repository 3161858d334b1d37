"""The AWS pages' bundled samples as tests read them: the exact records each yields (EXPECTED), and the helpers
that build an altered page from a sample with BeautifulSoup (the samples themselves are never modified)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import cache

from bs4 import BeautifulSoup, Tag

from pipelines.adapters import parser_for
from pipelines.aws.records import PriceKind, SourceBatch
from pipelines.reading.tables import cell_text
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.support.paths import PAGES

D = Decimal
# The AWS sources; GPU and FX adapters have their own test modules (tests/adapters/test_gpu_*.py, test_fx_ecb.py).
SOURCES: dict[str, SourceSpec] = {s.id: s for s in load_sources() if s.kind == "aws"}
# The Capacity Blocks page in its earlier shape (an HTML table that also printed each type's memory, vCPUs and host
# memory), read by the same adapter: the restyle tests edit its table. Its id is this module's own.
TABLE_PAGE = "aws_capacity_blocks_table"
SOURCES[TABLE_PAGE] = SOURCES["aws_capacity_blocks"]
_PAGES = {TABLE_PAGE: PAGES / "capacity_blocks_table.html"}
# The pages whose prices sit in an HTML table (today's Capacity Blocks page carries them as embedded JSON).
TABLE_SHAPED = sorted(sid for sid in SOURCES if sid != "aws_capacity_blocks")
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
    TABLE_PAGE: {
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
    # Today's page: embedded tables that print each type's accelerator and count, no memory, vCPUs or host memory.
    "aws_capacity_blocks": {
        "specs": {
            "p5.48xlarge": S("H100", 8, None, None, None, None),
            "p4d.24xlarge": S("A100", 8, None, None, None, None),
            "trn1.32xlarge": S("Trainium", 16, None, None, None, None),
            "trn2.48xlarge": S("Trainium2", 16, None, None, None, None),
        },
        "prices": {
            ("p5.48xlarge", CB, "US East (N. Virginia)"): P("39.33", "4.91625", "4.9163", "4.916"),
            ("p4d.24xlarge", CB, "US East (Ohio)"): P("14.75", "1.84375", "1.8438", "1.844"),
            ("trn1.32xlarge", CB, "Asia Pacific (Melbourne)"): P("15.49", "0.968125", "0.9681", "0.968"),
            ("trn2.48xlarge", CB, "US East (Ohio)"): P("35.7608", "2.23505", "2.2351", "2.235"),
        },
    },
}


@cache
def sample_bytes(source_id: str) -> bytes:
    return (_PAGES.get(source_id) or sample_path(SOURCES[source_id])).read_bytes()


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


def price_of(batch: SourceBatch, instance_type: str, kind: PriceKind, region: str | None = None):
    found = [p for p in batch.prices if (p.instance_type, p.price_kind, p.region) == (instance_type, kind, region)]
    assert len(found) == 1, f"{instance_type} {kind} {region}: {found}"
    return found[0]


def check_records(source_id: str) -> None:
    """The source's bundled sample yields exactly EXPECTED's records: specs in page order, every price."""
    batch = parse(source_id)
    expected = EXPECTED[source_id]
    assert batch.source_id == SOURCES[source_id].id
    assert [s.instance_type for s in batch.specs] == list(expected["specs"])
    assert spec_rows(batch) == expected["specs"]
    assert len(batch.prices) == len(expected["prices"])
    assert price_rows(batch) == expected["prices"]
