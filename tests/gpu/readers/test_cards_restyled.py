"""Card pages restyled harder: one card naming its GPU more than once, in other words, is still one listing.

Every card-based provider (an adapter reading pages with pipelines/gpu/readers/cards.py) gets the sample's servers
in several restylings: the GPU named twice (`4x`, `4 x`, `4 pcs`, `×4`, with and without `NVIDIA`, with and
without `24GB`), spec rows reordered, extra wrappers with other tag names and no classes, footnote markers,
prices in other elements. Each must give exactly the sample's offers. A card naming two different GPUs, two
counts or two memory sizes is refused with the adapter's typed parse error naming the source and both names.
Pages here are samples in the real shape, written as HTML strings; one goes end to end over HTTP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pytest
from bs4 import BeautifulSoup

from pipelines import adapters
from pipelines.adapters import gpu_leadergpu, parser_for
from pipelines.errors import CellError, ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.gpu.readers.cards import read_cards
from pipelines.gpu.records import GpuBatch
from pipelines.refresh.one_source import refresh_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.gpu.readers.test_cards_by_meaning import ACTIONS, BANNER, SERVERS, Server, list_to_table
from tests.support.gpu_offers import offer_rows
from tests.support.localserver import LocalServer, Reply


@dataclass(frozen=True)
class CardProvider:
    adapter: ModuleType
    source_id: str
    wrap: Callable[[dict[str, Any], str], bytes]  # (the sample's body as data, card HTML) -> a body the adapter reads


def _matches_html(sample: dict[str, Any], html: str) -> bytes:
    return json.dumps({**sample, "matchesHtml": html}).encode()


PROVIDERS = {"gpu_leadergpu": CardProvider(gpu_leadergpu, "gpu_leadergpu", _matches_html)}
DECLARED = {s.id: s for s in load_sources()}


def spec_of(provider: CardProvider) -> SourceSpec:
    return DECLARED[provider.source_id]


def sample_of(provider: CardProvider) -> dict[str, Any]:
    return dict(json.loads(sample_path(spec_of(provider)).read_bytes()))


def parse_page(provider: CardProvider, html: str) -> GpuBatch:
    batch: GpuBatch = parser_for(spec_of(provider).adapter)(provider.wrap(sample_of(provider), html), spec_of(provider))
    return batch


def reference(provider: CardProvider) -> GpuBatch:
    batch: GpuBatch = parser_for(spec_of(provider).adapter)(
        sample_path(spec_of(provider)).read_bytes(), spec_of(provider)
    )
    return batch


def test_every_card_based_adapter_is_covered_here() -> None:
    folder = Path(adapters.__file__).parent
    readers = {path.stem for path in folder.glob("*.py") if "pipelines.gpu.readers.cards" in path.read_text()}
    assert readers == set(PROVIDERS)


# -- the GPU in other words ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gpu:
    count: int
    vendor: str  # `NVIDIA`, `Tesla`
    model: str  # `A10`, `RTX A6000`
    memory: str  # `24`


def gpu_of(server: Server) -> Gpu:
    count, vendor, model = re.fullmatch(r"(\d+) pcs (\S+) (.+)", server.title).groups()  # type: ignore[union-attr]
    return Gpu(int(count), vendor, model, server.memory.split()[0])


# The same GPU as other pages print it: count forms, with and without the vendor word and the memory.
WORDINGS: list[Callable[[Gpu], str]] = [
    lambda g: f"{g.count}x {g.vendor} {g.model}",
    lambda g: f"{g.count} x {g.model}",
    lambda g: f"{g.count} pcs {g.vendor} {g.model} {g.memory}GB",
    lambda g: f"{g.vendor} {g.model} ×{g.count}",
    lambda g: f"×{g.count} {g.model} {g.memory} GB",
]


def worded(server: Server, index: int) -> str:
    return WORDINGS[index % len(WORDINGS)](gpu_of(server))


def price_items(server: Server, item: str = "<li>{amount} / {period}</li>") -> str:
    prices = "".join(item.format(amount=amount, period=period) for amount, period in server.prices)
    return prices or item.replace("{amount} / {period}", "Price on request")


# -- restylings: each returns the whole page for one wording of the second name ----------------------------------


def restyled_page(card: Callable[[Server, int], str], index: int) -> str:
    """The sample's servers, each as `card` writes it, after the sample's banner."""
    return f"<div><p>{BANNER}</p>{''.join(card(server, index) for server in SERVERS)}</div>"


def heading_and_spec_row(s: Server, index: int) -> str:
    """The sample's heading, and a spec row `GPU` naming the same GPU in another wording."""
    return (
        f"<section><h3>{s.title}</h3><dl><dt>GPU</dt><dd>{worded(s, index)}</dd><dt>GPU memory</dt>"
        f"<dd>{s.memory}</dd><dt>CPU</dt><dd>{s.cpu}</dd></dl><ul>{price_items(s)}</ul>{ACTIONS[s.stock]}</section>"
    )


def spec_rows_reordered(s: Server, index: int) -> str:
    """Prices first, then the spec rows in another order (`GPU: ...` after the disk), the heading in between."""
    return (
        f"<section><ul>{price_items(s)}</ul><h3>{s.title}</h3><ul><li>Disk: {s.disk}</li>"
        f"<li>GPU: {worded(s, index)}</li><li>CPU: {s.cpu}</li><li>GPU memory: {s.memory}</li></ul>"
        f"<footer>{ACTIONS[s.stock]}</footer></section>"
    )


def wrappers_and_other_tags(s: Server, index: int) -> str:
    """Extra wrappers, other tag names, no classes; the second name in a table row, prices in table rows."""
    prices = price_items(s, "<tr><td>{amount}</td><td>per {period}</td></tr>")
    return (
        f"<article><div><div><header><h2><span>{s.title}</span></h2></header></div><div><figure><table>"
        f"<tr><th>Graphics card</th><td>{worded(s, index)}</td></tr><tr><th>GPU memory</th><td>{s.memory}</td></tr>"
        f"</table></figure><aside><table>{prices}</table></aside></div><nav>{ACTIONS[s.stock]}</nav></div></article>"
    )


def footnote_markers(s: Server, index: int) -> str:
    """A footnote marker after both names (`*`, `<sup>1</sup>`) and the footnotes at the card's foot."""
    return (
        f"<section><h3>{s.title}<sup>1</sup></h3><p>GPU: {worded(s, index)}*</p><p>GPU memory: {s.memory}</p>"
        f"<ul>{price_items(s)}</ul>{ACTIONS[s.stock]}<small>1 Billed per minute. * Dedicated, not shared.</small>"
        "</section>"
    )


def price_in_other_elements(s: Server, index: int) -> str:
    """Amount and period in sibling elements of a button; the second name as a subtitle."""
    prices = price_items(s, "<button><b>{amount}</b><i>/ {period}</i></button>")
    return (
        f"<div><div><h4>{s.title}</h4><h5>{worded(s, index)}</h5></div><p>GPU memory: {s.memory}</p>"
        f"<div>{prices}</div><div>{ACTIONS[s.stock]}</div></div>"
    )


def flat_layout(index: int) -> str:
    """No element per card: heading, `GPU: ...` row, specs, prices and button all siblings."""
    parts = [f"<div><p>{BANNER}</p>"]
    for s in SERVERS:
        parts.append(f"<h4>{s.title}</h4><p><span>GPU:</span> <span>{worded(s, index)}</span></p>")
        parts.append(f"<p>GPU memory: {s.memory}</p><div>{price_items(s, '<p>{amount} / {period}</p>')}</div>")
        parts.append(f"<p>{ACTIONS[s.stock]}</p>")
    return "".join(parts) + "</div>"


def one_table(index: int) -> str:
    """The sample's servers as one table, a row per card, with a `GPU` column naming each server's GPU again."""
    soup = BeautifulSoup(list_to_table(), "html.parser")
    rows = soup.find_all("tr")
    gpu_header = soup.new_tag("th")
    gpu_header.string = "GPU"
    for row, server in zip(rows, [None, *SERVERS], strict=True):
        cell = soup.new_tag("td" if server else "th")
        cell.string = worded(server, index) if server else "GPU"
        first = row.find(["th", "td"])
        assert first is not None
        first.insert_after(cell)
    return str(soup)


RESTYLINGS: dict[str, Callable[[int], str]] = {
    "heading and spec row": partial(restyled_page, heading_and_spec_row),
    "spec rows reordered": partial(restyled_page, spec_rows_reordered),
    "wrappers and other tags": partial(restyled_page, wrappers_and_other_tags),
    "footnote markers": partial(restyled_page, footnote_markers),
    "price in other elements": partial(restyled_page, price_in_other_elements),
    "flat layout": flat_layout,
    "one table": one_table,
}


@pytest.mark.parametrize("wording", range(len(WORDINGS)))
@pytest.mark.parametrize("restyling", list(RESTYLINGS))
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_gpu_named_twice_is_one_card_with_the_samples_offers(provider: str, restyling: str, wording: int) -> None:
    html = RESTYLINGS[restyling](wording)
    assert "class=" not in html
    assert all(worded(s, wording) in html for s in SERVERS)  # every card names its GPU a second time
    batch = parse_page(PROVIDERS[provider], html)
    expected = reference(PROVIDERS[provider])
    assert offer_rows(batch) == offer_rows(expected)
    assert batch.unpriced == expected.unpriced == ["4 pcs Tesla V100"]


def test_the_restylings_really_differ_in_markup() -> None:
    shapes = {name: re.sub(r">[^<]*<", "><", restyle(0)) for name, restyle in RESTYLINGS.items()}
    assert len(set(shapes.values())) == len(shapes)


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_heading_in_another_wording_titles_the_listing(provider: str) -> None:
    # The heading gives the listing; the spec row only confirms it.
    html = RESTYLINGS["heading and spec row"](0).replace("<h3>8 pcs NVIDIA H100</h3>", "<h3>NVIDIA H100 80GB ×8</h3>")
    batch = parse_page(PROVIDERS[provider], html)
    h100 = [o for o in batch.offers if o.gpu_count == 8]
    assert [o.listing for o in h100] == [f"NVIDIA H100 80GB ×8 / {p}" for p in ("minute", "day", "week", "month")]
    assert {(o.gpu_name, o.gpu_memory_gb_printed) for o in h100} == {("NVIDIA H100 80GB", Decimal("80"))}
    assert [o.amount for o in h100] == [Decimal("0.29"), Decimal("410.00"), Decimal("2650.00"), Decimal("10900.00")]
    assert len(batch.offers) == 12


# -- conflicts are refused -------------------------------------------------------------------------------------


def a10_card(heading: str, spec_row: str, layout: str = "nested") -> str:
    prices = "<p>€ 0.0053 / minute</p><p>€ 7.50 / day</p>"
    if layout == "flat":
        return f"<div><h4>{heading}</h4><p>GPU: {spec_row}</p>{prices}<a>Rent</a><h4>1 pcs NVIDIA L4</h4>{prices}</div>"
    if layout == "prices first":
        return f"<section><h3>{heading}</h3>{prices}<dl><dt>GPU</dt><dd>{spec_row}</dd></dl><a>Rent</a></section>"
    return (
        f"<section><div><h3>{heading}</h3></div><div><dl><dt>GPU</dt><dd>{spec_row}</dd></dl>{prices}</div></section>"
    )


@pytest.mark.parametrize("layout", ["nested", "flat", "prices first"])
@pytest.mark.parametrize(
    ("heading", "spec_row", "conflict"),
    [
        ("4x NVIDIA A10", "4 pcs NVIDIA H100", r"two different GPUs, '4x NVIDIA A10' and '4 pcs NVIDIA H100'"),
        (
            "4x NVIDIA A10",
            "8 pcs NVIDIA A10",
            r"conflicting GPU counts, 4 in '4x NVIDIA A10' and 8 in '8 pcs NVIDIA A10'",
        ),
        ("A10 ×4", "4 pcs RTX A6000", r"two different GPUs, 'A10 ×4' and '4 pcs RTX A6000'"),
        ("4 x A100 40GB", "4 pcs NVIDIA A100 80GB", r"conflicting GPU memory, 40 GB and 80 GB"),
    ],
)
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_card_naming_two_gpus_or_counts_is_refused(
    provider: str, heading: str, spec_row: str, conflict: str, layout: str
) -> None:
    with pytest.raises(CellError, match=rf"^\[{provider}\] parse: row '{re.escape(heading)}'.*{conflict}") as caught:
        parse_page(PROVIDERS[provider], a10_card(heading, spec_row, layout))
    assert isinstance(caught.value, ParseError) and caught.value.source_id == provider


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_conflicting_spec_row_in_one_restyled_card_refuses_the_whole_page(provider: str) -> None:
    html = RESTYLINGS["spec rows reordered"](2).replace(
        "<li>GPU: 8 pcs NVIDIA H100 80GB</li>", "<li>GPU: 4 pcs NVIDIA H100</li>"
    )
    assert "GPU: 4 pcs NVIDIA H100" in html
    with pytest.raises(
        ParseError, match=r"conflicting GPU counts, 8 in '8 pcs NVIDIA H100' and 4 in '4 pcs NVIDIA H100'"
    ):
        parse_page(PROVIDERS[provider], html)


# -- the card boundaries themselves (pipelines/gpu/readers/cards.py) -------------------------------------------------


def cards_of(html: str) -> list[tuple[str, list[str]]]:
    page = read_cards(BeautifulSoup(html, "lxml"), gpu_leadergpu._is_title, gpu_leadergpu._same_gpu)
    return [(card.title, [m.text for m in card.mentions]) for card in page.cards]


def test_a_card_keeps_every_name_it_gives_its_heading_first() -> None:
    html = "<section><p>GPU: 4 pcs NVIDIA A10</p><h2>4x A10</h2><h5>NVIDIA A10 ×4</h5><p>€ 1 / day</p></section>"
    assert cards_of(html) == [("4x A10", ["4x A10", "NVIDIA A10 ×4", "4 pcs NVIDIA A10"])]


@pytest.mark.parametrize(
    "html",
    [
        "<div><section><h3>8 pcs H100</h3><p>€ 1 / day</p></section>"
        "<section><h3>8x H100</h3><p>€ 2 / day</p></section></div>",
        "<div><h4>8 pcs H100</h4><p>€ 1 / day</p><h4>8x H100</h4><p>€ 2 / day</p></div>",
        "<table><tr><th>8 pcs H100</th><td>€ 1 / day</td></tr><tr><th>8x H100</th><td>€ 2 / day</td></tr></table>",
    ],
)
def test_two_servers_of_the_same_gpu_stay_two_cards(html: str) -> None:
    assert cards_of(html) == [("8 pcs H100", ["8 pcs H100"]), ("8x H100", ["8x H100"])]


def test_a_card_with_no_price_then_another_gpu_stays_two_cards() -> None:
    html = "<div><h4>1 pcs L4</h4><p>Price on request</p><h4>4x A10</h4><p>€ 1 / day</p></div>"
    assert cards_of(html) == [("1 pcs L4", ["1 pcs L4"]), ("4x A10", ["4x A10"])]


# -- end to end ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_card_naming_its_gpu_twice_lands_once_over_http(provider: str, tmp_path: Path) -> None:
    card_provider = PROVIDERS[provider]
    body = card_provider.wrap(sample_of(card_provider), RESTYLINGS["footnote markers"](3))
    db_path, archive = tmp_path / "prices.duckdb", Archive(tmp_path / "archive")
    settings = FetchSettings(connect_timeout_s=2, read_timeout_s=5, max_attempts=1)
    with LocalServer() as server, Fetcher(settings) as fetcher:
        server.set("/fx", Reply(body=sample_path(DECLARED["fx_ecb"]).read_bytes(), content_type="text/xml"))
        server.set("/cards", Reply(body=body, content_type="application/json"))
        outcomes = [
            refresh_source(
                SourceSpec.model_validate({**DECLARED[source_id].model_dump(), "url": server.url(path)}),
                fetcher=fetcher,
                db_path=db_path,
                archive=archive,
            )
            for source_id, path in (("fx_ecb", "/fx"), (provider, "/cards"))  # FX first: GPU prices convert
        ]
    assert [(o.status, o.error) for o in outcomes] == [("landed", None), ("landed", None)]
    with duckdb.connect(str(db_path), read_only=True) as con:
        rows = con.execute(
            "SELECT listing, original_amount FROM gpu_listing_history WHERE source_id = ? AND fetch_id = ?"
            " ORDER BY listing",
            [provider, outcomes[1].fetch_id],
        ).fetchall()
    assert rows == sorted((o.listing, o.amount) for o in reference(card_provider).offers)
    assert len(rows) == 12 and all(isinstance(amount, Decimal) for _, amount in rows)
