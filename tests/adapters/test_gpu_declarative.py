"""The declarative_table adapter: three providers described only by their sources.toml options
(gpu_quantacloud, gpu_nebius, gpu_crusoe), each parsed from its bundled sample to exact offers; pages that
drift (reordered or extra columns) parse the same; bad declarations and broken pages fail loudly and typed.
"""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup, Tag
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import declarative_table, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError
from pipelines.reading.tables import cell_text
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.support.gpu_offers import offer_rows, recorded_offer_rows
from tests.support.paths import PAGES

D = Decimal


def _options(provider: str, columns: dict, sold_out: list[str]) -> dict:
    return {
        "provider": provider,
        "currency": "USD",
        "price_per": "gpu",
        "period": "hour",
        "price_kind": "on_demand",
        "gpu_count": 1,
        "columns": columns,
        "stock_values": {"in_stock": ["available"], "sold_out": sold_out},
    }


# The [[sources]] entries proposed for pipelines/sources.toml, copied here as dicts.
DECLARED: dict[str, dict] = {
    "gpu_quantacloud": {
        "id": "gpu_quantacloud",
        "title": "QuantaCloud GPU pricing",
        "adapter": "declarative_table",
        "url": "https://quantacloud.ai/pricing",
        "sample": "gpu/quantacloud.html",
        "options": _options(
            "QuantaCloud",
            {
                "gpu": ["^accelerator", "^gpu$"],
                "price": ["^on-demand"],
                "memory": ["memory", "vram"],
                "stock": ["^status", "^availability"],
            },
            ["waitlist", "sold out"],
        ),
    },
    "gpu_nebius": {
        "id": "gpu_nebius",
        "title": "Nebius AI Cloud prices (GPU)",
        "adapter": "declarative_table",
        "url": "https://nebius.com/prices",
        "sample": "gpu/nebius.html",
        "options": _options(
            "Nebius",
            {
                "gpu": ["^gpu$", "^item$"],
                "price": ["^price per gpu-hour", "^on-demand, gpu-hour"],
                "spot": ["^preemptible"],
                "stock": ["^availability"],
            },
            ["unavailable", "sold out"],
        ),
    },
    "gpu_crusoe": {
        "id": "gpu_crusoe",
        "title": "Crusoe Cloud pricing (GPU)",
        "adapter": "declarative_table",
        "url": "https://www.crusoe.ai/cloud/pricing",
        "sample": "gpu/crusoe.html",
        "options": {
            **_options(
                "Crusoe",
                {
                    "gpu": ["^gpu( pricing| model)?$"],
                    "price": ["^on-demand"],
                    "spot": ["^current spot"],
                    "memory": ["^gpu memory"],
                    "stock": ["^status"],
                },
                ["sold out"],
            ),
            "memory_in_gpu_cell": True,
        },
    },
}
SPECS = {sid: SourceSpec(**fields) for sid, fields in DECLARED.items()}
IDS = list(SPECS)


# (provider, offers as offer_rows gives them, unpriced listings): the offers are the recorded figures
# (tests/sources/expected/<source id>.jsonl).
EXPECTED = {
    "gpu_quantacloud": ("QuantaCloud", recorded_offer_rows("gpu_quantacloud"), []),
    "gpu_nebius": ("Nebius", recorded_offer_rows("gpu_nebius"), ["NVIDIA GB200 NVL72"]),
    "gpu_crusoe": ("Crusoe", recorded_offer_rows("gpu_crusoe"), ["NVIDIA H200 141GB SXM"]),
}


def sample(sid: str) -> bytes:
    return sample_path(SPECS[sid]).read_bytes()


# Pages in the <table> shape the drift tests alter: QuantaCloud's sample is one; Nebius's and Crusoe's samples are in
# their live pages' <div> shapes, so their earlier table-shaped pages are kept as test pages.
TABLE_PAGES = {"gpu_nebius": PAGES / "nebius_table.html", "gpu_crusoe": PAGES / "crusoe_table.html"}


def table_page(sid: str) -> bytes:
    return TABLE_PAGES[sid].read_bytes() if sid in TABLE_PAGES else sample(sid)


def table_offers(sid: str) -> tuple[list, list[str]]:
    """The offers and unpriced rows of the unaltered table page, which an altered one must give again."""
    batch = parse(sid, table_page(sid))
    return offer_rows(batch), batch.unpriced


def parse(sid: str, body: bytes | None = None, **option_changes):
    spec = SPECS[sid]
    if option_changes:
        spec = spec.model_copy(update={"options": {**spec.options, **option_changes}})
    return parser_for("declarative_table")(sample(sid) if body is None else body, spec)


def price_table(soup: BeautifulSoup) -> Tag:
    """The GPU table of a sample: the first whose header row starts with the GPU column."""
    for table in soup.find_all("table"):
        first = cell_text(table.find("tr").find(["th", "td"])).lower()
        if first in ("accelerator", "gpu"):
            return table
    raise AssertionError("sample has no GPU table")


def edit_table(sid: str, edit) -> bytes:
    soup = BeautifulSoup(table_page(sid), "lxml")
    for tr in price_table(soup).find_all("tr"):
        edit(tr, tr.find_all(["th", "td"], recursive=False))
    return str(soup).encode()


def column_index(sid: str, header_start: str) -> int:
    headers = price_table(BeautifulSoup(table_page(sid), "lxml")).find("tr").find_all("th")
    return next(i for i, th in enumerate(headers) if cell_text(th).lower().startswith(header_start))


PRICE_HEADER = {"gpu_quantacloud": "on-demand", "gpu_nebius": "price per", "gpu_crusoe": "on-demand"}


# --- the bundled samples --------------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", IDS)
def test_sample_yields_exact_offers_and_unpriced(sid: str) -> None:
    provider, offers, unpriced = EXPECTED[sid]
    batch = parse(sid)
    assert batch.source_id == sid
    assert batch.parser_version == "declarative_table/1.1"
    assert batch.provider == provider
    assert offer_rows(batch) == offers
    assert batch.unpriced == unpriced
    assert all(isinstance(o.amount, Decimal) for o in batch.offers)


def test_each_declared_price_column_is_its_own_price_kind() -> None:
    """Crusoe's on-demand and current spot columns: two offers of a GPU, each priced from its own column; the
    spot one's stock unknown (what the page says of stock is said of the on-demand offer)."""
    amounts = {(o.listing, o.price_kind.value): (o.amount, o.stock_status.value) for o in parse("gpu_crusoe").offers}
    assert amounts[("NVIDIA H100 80GB SXM", "on_demand")][0] == D("3.90")
    assert amounts[("NVIDIA H100 80GB SXM", "spot")] == (D("1.60"), "unknown")
    # No spot column declared: the page's spot prices are not read at all, never as on-demand ones.
    columns = {k: v for k, v in DECLARED["gpu_crusoe"]["options"]["columns"].items() if k != "spot"}
    plain = parse("gpu_crusoe", columns=columns).offers
    assert {o.price_kind.value for o in plain} == {"on_demand"} and D("1.60") not in {o.amount for o in plain}


def test_declared_specs_match_sources_toml() -> None:
    loaded = {s.id: s for s in load_sources()}
    for sid in IDS:
        assert loaded.get(sid) == SPECS[sid], f"{sid}: sources.toml entry differs from this test's declaration"


# --- pages that drift -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", IDS)
def test_reordered_columns_give_identical_offers(sid: str) -> None:
    def reverse(tr: Tag, cells: list[Tag]) -> None:
        for cell in cells:
            cell.extract()
        for cell in reversed(cells):
            tr.append(cell)

    body = edit_table(sid, reverse)
    assert body != table_page(sid)
    batch = parse(sid, body)
    assert (offer_rows(batch), batch.unpriced) == table_offers(sid)


@pytest.mark.parametrize("sid", IDS)
def test_extra_columns_give_identical_offers(sid: str) -> None:
    soup_tag = BeautifulSoup("", "lxml")

    def add(tr: Tag, cells: list[Tag]) -> None:
        is_head = cells[0].name == "th"
        for text in ("Interconnect", "Reserved price ($/GPU/hr)") if is_head else ("3.2 Tb/s InfiniBand", "$0.01"):
            new = soup_tag.new_tag("th" if is_head else "td")
            new.string = text
            cells[0].insert_after(new)

    batch = parse(sid, edit_table(sid, add))
    assert (offer_rows(batch), batch.unpriced) == table_offers(sid)


@pytest.mark.parametrize("sid", IDS)
def test_absent_price_column_is_missing_column_error(sid: str) -> None:
    index = column_index(sid, PRICE_HEADER[sid])
    body = edit_table(sid, lambda tr, cells: cells[index].decompose())
    with pytest.raises(MissingColumnError) as info:
        parse(sid, body)
    assert info.value.source_id == sid and info.value.missing == ["price"]
    assert sid in str(info.value) and "price" in str(info.value)


def test_page_without_any_gpu_table_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as info:
        parse("gpu_nebius", b"<html><body><p>We are updating our prices.</p></body></html>")
    assert "gpu_nebius" in str(info.value)


@pytest.mark.parametrize("sid", IDS)
def test_price_in_another_currency_is_cell_error(sid: str) -> None:
    first = table_offers(sid)[0][0]
    old = str(first[4])
    body = table_page(sid).replace(f"${old}".encode(), f"€{old}".encode(), 1)
    assert body != table_page(sid)
    with pytest.raises(CellError) as info:
        parse(sid, body)
    assert sid in str(info.value) and first[0] in str(info.value)


def test_zero_price_is_refused_not_landed() -> None:
    body = sample("gpu_quantacloud").replace(b"$2.79", b"$0.00")
    with pytest.raises(CellError, match=r"gpu_quantacloud.*not positive"):
        parse("gpu_quantacloud", body)


def test_stock_longest_phrase_wins_and_unmatched_is_unknown() -> None:
    body = table_page("gpu_nebius").replace(b"<td>Available</td>", b"<td>Unavailable</td>", 1)
    body = body.replace(b"<td>Available</td>", b"<td>Limited</td>", 1)
    stock = [o.stock_status.value for o in parse("gpu_nebius", body).offers]
    assert stock == ["sold_out", "unknown", "in_stock", "in_stock"]


def test_gpu_count_column_and_instance_pricing() -> None:
    columns = {**DECLARED["gpu_crusoe"]["options"]["columns"], "gpu_count": ["^gpus$"]}
    body = edit_table(
        "gpu_crusoe",
        lambda tr, cells: cells[0].insert_after(
            BeautifulSoup("<th>GPUs</th>" if cells[0].name == "th" else "<td>8x</td>", "lxml").find(["th", "td"])
        ),
    )
    options = {k: v for k, v in DECLARED["gpu_crusoe"]["options"].items() if k != "gpu_count"}
    spec = SPECS["gpu_crusoe"].model_copy(update={"options": {**options, "columns": columns, "price_per": "instance"}})
    batch = parser_for("declarative_table")(body, spec)
    assert [(o.gpu_count, o.price_per.value) for o in batch.offers] == [(8, "instance")] * 3


# --- bad declarations -----------------------------------------------------------------------------------------


def _without(mapping: dict, key: str) -> dict:
    return {k: v for k, v in mapping.items() if k != key}


BASE = DECLARED["gpu_quantacloud"]["options"]
BAD_DECLARATIONS = {
    "no price patterns": ({**BASE, "columns": _without(BASE["columns"], "price")}, "columns.price"),
    "empty price patterns": ({**BASE, "columns": {**BASE["columns"], "price": []}}, "columns.price"),
    "lower-case currency": ({**BASE, "currency": "usd"}, "currency"),
    "currency symbol": ({**BASE, "currency": "$"}, "currency"),
    "no currency": (_without(BASE, "currency"), "currency"),
    "unknown period": ({**BASE, "period": "hourly"}, "period"),
    "unknown price kind": ({**BASE, "price_kind": "ondemand"}, "price_kind"),
    "bad regex": ({**BASE, "columns": {**BASE["columns"], "gpu": ["(accelerator"]}}, "columns.gpu"),
    "misspelt option": ({**BASE, "colums": {}}, "colums"),
    "no gpu count": (_without(BASE, "gpu_count"), "gpu_count"),
    "two gpu counts": ({**BASE, "columns": {**BASE["columns"], "gpu_count": ["^gpus"]}}, "gpu_count"),
}


@pytest.mark.parametrize("case", BAD_DECLARATIONS)
def test_bad_declaration_names_source_and_option(case: str) -> None:
    options, option = BAD_DECLARATIONS[case]
    spec = SPECS["gpu_quantacloud"].model_copy(update={"options": copy.deepcopy(options)})
    with pytest.raises(declarative_table.DeclarationError) as info:
        parser_for("declarative_table")(sample("gpu_quantacloud"), spec)
    assert isinstance(info.value, ParseError)
    assert info.value.source_id == "gpu_quantacloud"
    assert "gpu_quantacloud" in str(info.value) and option in str(info.value)


# --- property -------------------------------------------------------------------------------------------------

QUANTA_SOUP = BeautifulSoup(sample("gpu_quantacloud"), "lxml")
H100_LISTING = "H100 SXM 80GB"
QUANTA_PRICE_INDEX = column_index("gpu_quantacloud", "on-demand")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_arbitrary_price_cell_gives_parse_error_or_valid_offers(text: str) -> None:
    soup = copy.copy(QUANTA_SOUP)
    row = next(tr for tr in price_table(soup).find_all("tr") if H100_LISTING in tr.get_text())
    row.find_all("td")[QUANTA_PRICE_INDEX].string = text
    try:
        batch = parse("gpu_quantacloud", str(soup).encode())
    except ParseError as exc:
        assert exc.source_id == "gpu_quantacloud"
        return
    others = [o for o in EXPECTED["gpu_quantacloud"][1] if o[0] != H100_LISTING]
    assert [o for o in offer_rows(batch) if o[0] != H100_LISTING] == others
    priced = [o for o in batch.offers if o.listing == H100_LISTING]
    assert len(priced) + batch.unpriced.count(H100_LISTING) == 1
    for offer in priced:
        assert isinstance(offer.amount, Decimal) and offer.amount > 0 and offer.currency == "USD"


def test_duplicate_listing_is_refused() -> None:
    row = b"<tr><td><strong>L40S 48GB</strong></td><td>48 GB</td><td>$0.89</td><td>Available</td></tr>"
    body = sample("gpu_quantacloud").replace(b"</tbody>", row + b"</tbody>", 1)
    with pytest.raises(ParseError, match=r"gpu_quantacloud.*'L40S 48GB' appears twice"):
        parse("gpu_quantacloud", body)
