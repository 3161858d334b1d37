"""Card pages read by meaning (pipelines/gpu/readers/cards.py through the LeaderGPU adapter).

The same four server cards as the bundled sample, written in other markup: class names changed, nesting
changed (a flat layout), the list turned into a table, price and period in swapped order. Each rendering must
give exactly the sample's offers, unpriced cards and shape fingerprint. Near-misses (a card with no price, a
promotion with a price, a lone price with no title) are ignored or refused, never landed. One rendering goes
end to end over HTTP into a DuckDB file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from bs4 import BeautifulSoup

from pipelines.adapters import gpu_leadergpu, parser_for
from pipelines.errors import ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.gpu.readers.cards import read_cards, read_price
from pipelines.gpu.records import BillingPeriod, GpuBatch
from pipelines.refresh.one_source import refresh_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.support.gpu_offers import offer_rows
from tests.support.localserver import LocalServer, Reply

SPEC = next(s for s in load_sources() if s.id == "gpu_leadergpu")
SAMPLE = sample_path(SPEC).read_bytes()
SAMPLE_JSON = json.loads(SAMPLE)
REFERENCE = parser_for("gpu_leadergpu")(SAMPLE, SPEC)
BANNER = "GPU servers from € 0.0053 / minute. Per-minute billing, no setup fee."


@dataclass(frozen=True)
class Server:
    title: str
    memory: str
    cpu: str
    disk: str
    prices: tuple[tuple[str, str], ...]  # (amount as printed, period)
    stock: str  # "rent" | "out" | "contact"


def priced(minute: str, day: str, week: str, month: str) -> tuple[tuple[str, str], ...]:
    return ((minute, "minute"), (day, "day"), (week, "week"), (month, "month"))


# The sample's cards, as data.
SERVERS = [
    Server(
        "1 pcs NVIDIA A10",
        "24 GB",
        "1 x Intel Xeon Gold 6326, 16 cores",
        "1 x 960 GB SSD",
        priced("€ 0.0053", "€ 7.50", "€ 49.00", "€ 199.00"),
        "rent",
    ),
    Server(
        "8 pcs NVIDIA H100",
        "80 GB",
        "2 x Intel Xeon Platinum 8468, 96 cores",
        "8 x 3.84 TB NVMe",
        priced("€ 0.29", "€ 410.00", "€ 2,650.00", "€ 10,900.00"),
        "rent",
    ),
    Server(
        "2 pcs NVIDIA RTX A6000",
        "48 GB",
        "1 x AMD EPYC 7313, 16 cores",
        "2 x 1.92 TB NVMe",
        priced("€ 0.0180", "€ 24.00", "€ 150.00", "€ 560.00"),
        "out",
    ),
    Server("4 pcs Tesla V100", "32 GB", "2 x Intel Xeon Gold 6148, 40 cores", "2 x 960 GB SSD", (), "contact"),
]
ACTIONS = {
    "rent": "<a href='/order'>Rent</a>",
    "out": "<span>Out of stock</span> <a href='/notify'>Notify me</a>",
    "contact": "<a href='/contacts'>Contact us</a>",
}


def classes_changed() -> str:
    """The sample's own markup with every class renamed and every data- attribute dropped."""
    soup = BeautifulSoup(SAMPLE_JSON["matchesHtml"], "lxml")
    names: dict[str, str] = {}
    for tag in soup.find_all(True):
        if tag.get("class"):
            tag["class"] = [names.setdefault(c, f"k{len(names)}") for c in tag["class"]]
        for attribute in [a for a in tag.attrs if a.startswith("data-")]:
            del tag[attribute]
    html = str(soup.body.decode_contents())
    assert "b-product" not in html and "data-period" not in html
    return html


def nesting_changed() -> str:
    """A flat layout: every card's heading, specs, prices and button are siblings, no element per card."""
    parts = [f"<div><div><p>{BANNER}</p>"]
    for s in SERVERS:
        parts.append(f"<h4>{s.title}</h4><p>GPU memory: {s.memory}</p><p>CPU: {s.cpu}</p><p>Disk: {s.disk}</p>")
        parts += [
            f"<div><div><strong>{amount}</strong></div><div><em>/ {period}</em></div></div>"
            for amount, period in s.prices
        ] or ["<div><div>Price on request</div></div>"]
        parts.append(f"<p>{ACTIONS[s.stock]}</p>")
    return "".join(parts) + "</div></div>"


def list_to_table() -> str:
    """One table, a row per card; periods and the memory label only in the column headers."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "Server",
            "GPU memory",
            "CPU",
            "Disk",
            "Per minute",
            "Per day",
            "Per week",
            "Per month",
            "Availability",
        )
    )
    rows = []
    for s in SERVERS:
        prices = "".join(f"<td>{amount}</td>" for amount, _ in s.prices) or "<td colspan='4'>Price on request</td>"
        rows.append(
            f"<tr><th scope='row'>{s.title}</th><td>{s.memory}</td><td>{s.cpu}</td><td>{s.disk}</td>"
            f"{prices}<td>{ACTIONS[s.stock]}</td></tr>"
        )
    return f"<p>{BANNER}</p><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


SWAPPED = {
    "minute": "<span>per minute</span> <span>{}</span>",
    "day": "Daily: <b>{}</b>",
    "week": "<span>/ week</span> <span>{}</span>",
    "month": "monthly <span>{}</span>",
}


def price_period_swapped() -> str:
    """Cards like the sample's, the period printed before the amount, in words as well as with a slash."""
    cards = []
    for s in SERVERS:
        prices = "".join(f"<li>{SWAPPED[period].format(amount)}</li>" for amount, period in s.prices)
        cards.append(
            f"<section><h3>{s.title}</h3><dl><dt>GPU memory</dt><dd>{s.memory}</dd><dt>CPU</dt>"
            f"<dd>{s.cpu}</dd></dl><ul>{prices or '<li>Price on request</li>'}</ul>"
            f"<div>{ACTIONS[s.stock]}</div></section>"
        )
    return f"<div><p>{BANNER}</p>{''.join(cards)}</div>"


RENDERINGS: dict[str, Callable[[], str]] = {
    "class names changed": classes_changed,
    "nesting changed": nesting_changed,
    "list to table": list_to_table,
    "price and period swapped": price_period_swapped,
}


def parse_html(html: str) -> GpuBatch:
    return parser_for("gpu_leadergpu")(json.dumps({**SAMPLE_JSON, "matchesHtml": html}).encode(), SPEC)


@pytest.mark.parametrize("rendering", list(RENDERINGS))
def test_every_rendering_gives_the_samples_offers_and_shape(rendering: str) -> None:
    html = RENDERINGS[rendering]()
    assert "class=" not in html or rendering == "class names changed"
    batch = parse_html(html)
    assert offer_rows(batch) == offer_rows(REFERENCE)
    assert len(batch.offers) == 12
    assert batch.unpriced == REFERENCE.unpriced == ["4 pcs Tesla V100"]
    assert batch.shape == REFERENCE.shape is not None


def test_the_renderings_really_differ_in_markup() -> None:
    shapes = {name: re.sub(r">[^<]*<", "><", render()) for name, render in RENDERINGS.items()}
    assert len(set(shapes.values())) == len(shapes)
    assert "<table" in list_to_table() and "<section" not in nesting_changed()


@pytest.mark.parametrize(
    ("title", "count", "name"),
    [("8x NVIDIA H100", 8, "NVIDIA H100"), ("8 × H100", 8, "H100"), ("1 pc NVIDIA L4", 1, "NVIDIA L4")],
)
def test_other_title_forms_read_count_and_name(title: str, count: int, name: str) -> None:
    batch = parse_html(f"<article><h2>{title}</h2><p>€ 0.29 / minute</p><button>Order now</button></article>")
    assert [(o.listing, o.gpu_count, o.gpu_name, o.stock_status.value) for o in batch.offers] == [
        (f"{title} / minute", count, name, "in_stock")
    ]


@pytest.mark.parametrize(
    ("printed", "amount", "period"),
    [
        ("€ 0.29 / minute", "€ 0.29", BillingPeriod.MINUTE),
        ("€ 7.50 per day", "€ 7.50", BillingPeriod.DAY),
        ("per day € 7.50", "€ 7.50", BillingPeriod.DAY),
        ("Daily: €7.50", "€7.50", BillingPeriod.DAY),
        ("monthly €210", "€210", BillingPeriod.MONTH),
        ("$ 2.40 / hr", "$ 2.40", BillingPeriod.HOUR),
        ("410.00 EUR a week", "410.00 EUR", BillingPeriod.WEEK),
    ],
)
def test_price_forms(printed: str, amount: str, period: BillingPeriod) -> None:
    price = read_price(printed)
    assert price is not None and (price.amount, price.period) == (amount, period)


@pytest.mark.parametrize(
    "printed",
    [
        "Save € 50 / month on annual plans",
        "-15% / month",
        "€ 7.50",
        "/ day",
        "from € 0.29 / minute",
        "2 x Intel Xeon / day",
    ],
)
def test_texts_that_are_not_a_price(printed: str) -> None:
    assert read_price(printed) is None


def test_a_price_table_inside_a_card_with_its_own_headers() -> None:
    table = (
        "<table><thead><tr><th>Period</th><th>Price</th></tr></thead><tbody><tr><td>per day</td>"
        "<td>€ 7.50</td></tr><tr><th>Month</th><td>€ 199.00</td></tr></tbody></table>"
    )
    batch = parse_html(f"<div><h3>1 pcs NVIDIA A10</h3>{table}<a>Rent</a></div>")
    read = [(o.period.value, o.amount) for o in batch.offers]
    assert read == [("day", Decimal("7.50")), ("month", Decimal("199.00"))]


def test_cpu_and_disk_lines_are_not_titles() -> None:
    page = read_cards(BeautifulSoup(list_to_table(), "lxml"), gpu_leadergpu._is_title)
    assert [card.title for card in page.cards] == [s.title for s in SERVERS]


# -- shape fingerprint -----------------------------------------------------------------------------------------


def test_a_page_that_stops_printing_the_memory_label_has_a_new_shape() -> None:
    unlabelled = parse_html(price_period_swapped().replace("<dt>GPU memory</dt>", "<dt>Accelerator</dt>"))
    assert offer_rows(unlabelled) != offer_rows(REFERENCE)  # the memory is no longer read
    assert unlabelled.shape != REFERENCE.shape
    other_title = parse_html(price_period_swapped().replace(" pcs ", "x "))
    assert other_title.shape not in (REFERENCE.shape, unlabelled.shape)


# -- near-misses -----------------------------------------------------------------------------------------------


def test_a_card_with_no_price_is_unpriced_never_landed() -> None:
    html = price_period_swapped().replace("Price on request", "Call us for a quote")
    batch = parse_html(html)
    assert batch.unpriced == ["4 pcs Tesla V100"]
    assert not any("V100" in o.listing for o in batch.offers)


@pytest.mark.parametrize(
    "banner", ["<p>Save € 50 / month on annual plans</p>", "<p>Save <strong>€ 50 / month</strong> on annual plans</p>"]
)
@pytest.mark.parametrize("rendering", ["class names changed", "list to table", "price and period swapped"])
def test_a_promotion_outside_every_card_is_ignored(banner: str, rendering: str) -> None:
    html = banner + RENDERINGS[rendering]() + banner
    batch = parse_html(html)
    assert offer_rows(batch) == offer_rows(REFERENCE)


def test_a_lone_price_with_no_title_refuses_the_page() -> None:
    lone = "<section><ul><li>€ 9.99 / day</li></ul><a>Rent</a></section>"
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*'€ 9.99 / day'.*sit in no server card") as caught:
        parse_html(price_period_swapped().replace("<section>", lone + "<section>", 1))
    assert caught.value.source_id == "gpu_leadergpu"


def test_no_class_name_is_read_anywhere() -> None:
    # Card-looking class names on a block with no title make no card; on the cards themselves they change nothing.
    decoy = "<section class='b-product-gpu'><p>Server of the month</p></section>"
    batch = parse_html(decoy + classes_changed())
    assert offer_rows(batch) == offer_rows(REFERENCE)
    source = Path(gpu_leadergpu.__file__).read_text() + Path(read_cards.__code__.co_filename).read_text()
    assert "class_" not in source and '"class"' not in source


# -- end to end ------------------------------------------------------------------------------------------------

FAST = FetchSettings(connect_timeout_s=2, read_timeout_s=5, max_attempts=1)


def test_a_restyled_page_lands_over_http_with_the_samples_figures(tmp_path: Path) -> None:
    declared = {s.id: s for s in load_sources()}
    body = json.dumps({**SAMPLE_JSON, "matchesHtml": list_to_table()}).encode()
    db_path, archive = tmp_path / "prices.duckdb", Archive(tmp_path / "archive")
    with LocalServer() as server, Fetcher(FAST) as fetcher:
        server.set("/fx", Reply(body=sample_path(declared["fx_ecb"]).read_bytes(), content_type="text/xml"))
        server.set("/leadergpu", Reply(body=body, content_type="application/json"))
        outcomes = []
        for source_id, path in (("fx_ecb", "/fx"), ("gpu_leadergpu", "/leadergpu")):  # FX first: GPU converts
            source = SourceSpec.model_validate({**declared[source_id].model_dump(), "url": server.url(path)})
            outcomes.append(refresh_source(source, fetcher=fetcher, db_path=db_path, archive=archive))
        # The page stops printing the memory label: a new shape, which the drift rule reports.
        unlabelled = list_to_table().replace("<th>GPU memory</th>", "<th>Accelerator</th>")
        server.set(
            "/leadergpu",
            Reply(
                body=json.dumps({**SAMPLE_JSON, "matchesHtml": unlabelled}).encode(), content_type="application/json"
            ),
        )
        drifted = refresh_source(source, fetcher=fetcher, db_path=db_path, archive=archive)
    assert [(o.status, o.error) for o in outcomes] == [("landed", None), ("landed", None)]
    with duckdb.connect(str(db_path), read_only=True) as con:
        rows = con.execute(
            """SELECT listing, original_amount, original_currency, stock_status, parser_version
                              FROM gpu_listing_history WHERE source_id = 'gpu_leadergpu' AND fetch_id = ?
                              ORDER BY listing""",
            [outcomes[1].fetch_id],
        ).fetchall()
        shape = con.execute("""SELECT shape_fingerprint FROM fetch_log WHERE source_id = 'gpu_leadergpu'
                               ORDER BY fetch_id""").fetchall()
    expected = sorted(
        (o.listing, o.amount, o.currency, o.stock_status.value, "gpu_leadergpu/2.1") for o in REFERENCE.offers
    )
    assert rows == expected
    minute = next(row for row in rows if row[0] == "1 pcs NVIDIA A10 / minute")
    assert isinstance(minute[1], Decimal) and minute[1] == Decimal("0.0053")
    assert shape[0] == (REFERENCE.shape,) and len(shape) == 2 and shape[1] != shape[0]
    assert [w for w in drifted.warnings if "drift: table shape changed" in w], drifted.warnings
