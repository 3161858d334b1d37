"""LeaderGPU (source "gpu_leadergpu"): the XHR JSON whose `matchesHtml` carries the server cards.

The bundled sample must yield exactly the expected offers; altered responses (reordered keys and blocks,
restyled markup) parse the same, and broken ones fail with a ParseError naming the source."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import parser_for
from pipelines.errors import CellError, ParseError
from tests.support.leadergpu import (
    EXPECTED,
    EXPECTED_UNPRICED,
    OD,
    RES,
    SAMPLE,
    SAMPLE_HTML,
    SAMPLE_JSON,
    SPEC,
    D,
    card_titled,
    edited,
    offers_of,
    parse_html,
)


def test_reordered_and_extra_json_keys_parse_the_same() -> None:
    reordered = {"matchesHtml": SAMPLE_HTML, "newKey": {"a": [1, 2]}}
    reordered.update({k: v for k, v in reversed(list(SAMPLE_JSON.items())) if k != "matchesHtml"})
    batch = parser_for("gpu_leadergpu")(json.dumps(reordered, ensure_ascii=False).encode(), SPEC)
    assert offers_of(batch) == EXPECTED
    assert batch.unpriced == EXPECTED_UNPRICED


def test_php_escaped_json_parses_the_same() -> None:
    # PHP's json_encode, which the live backend may use, escapes slashes and non-ASCII (`\/`, `\u20ac`).
    escaped = json.dumps(SAMPLE_JSON, ensure_ascii=True).replace("/", "\\/").encode()
    assert b"\\u20ac 410.00" in escaped and b"<\\/section>" in escaped
    batch = parser_for("gpu_leadergpu")(escaped, SPEC)
    assert offers_of(batch) == EXPECTED
    assert batch.unpriced == EXPECTED_UNPRICED


def test_reordered_blocks_and_cards_parse_the_same() -> None:
    def shuffle(soup: BeautifulSoup) -> None:
        for card in soup.select("section.b-product-gpu"):
            blocks = [c.extract() for c in card.find_all(recursive=False)]
            for block in reversed(blocks):  # prices and button first, title last
                card.append(block)
            for price_list in card.select("ul"):
                items = [li.extract() for li in price_list.find_all("li", recursive=False)]
                for li in reversed(items):  # month, week, day, minute
                    price_list.append(li)
        container = soup.select_one(".b-servers__list")
        cards = [c.extract() for c in soup.select("section.b-product-gpu")]
        for card in reversed(cards):
            container.append(card)

    batch = parse_html(edited(shuffle))
    assert offers_of(batch) == EXPECTED
    assert batch.unpriced == EXPECTED_UNPRICED
    assert batch.offers[0].listing == "2 pcs NVIDIA RTX A6000 / minute"  # reversed cards, periods still sorted


def test_restyled_card_markup_parses_the_same() -> None:
    html = SAMPLE_HTML
    # Titles in a plain heading, specs as "label: value" list items, prices as bare lines in one block.
    html = html.replace('<h3 class="b-product-gpu__title">', "<h2>").replace("</h3>", "</h2>")
    soup = BeautifulSoup(html, "lxml")
    for dl in soup.select("dl"):
        li = soup.new_tag("li")
        li.string = f"{dl.dt.get_text()}: {dl.dd.get_text()}"
        dl.replace_with(li)
    for price_list in soup.select("ul.b-product-gpu__price-list"):
        block = soup.new_tag("div", attrs={"class": "prices"})
        for i, li in enumerate(price_list.find_all("li")):
            if i:
                block.append(soup.new_tag("br"))
            block.append(li.get_text(" ", strip=True))
        price_list.replace_with(block)
    batch = parse_html(str(soup))
    assert offers_of(batch) == EXPECTED
    assert batch.unpriced == EXPECTED_UNPRICED


def test_extra_spec_rows_badges_and_struck_out_old_prices_are_ignored() -> None:
    def add(soup: BeautifulSoup) -> None:
        card = card_titled(soup, "8 pcs NVIDIA H100")
        specs = card.select_one(".b-product-gpu__specs")
        specs.append(
            BeautifulSoup(
                '<dl><dt>Uptime</dt><dd>99.9 %</dd></dl><span class="badge">-15% / month</span>', "html.parser"
            )
        )
        minute = card.select_one('[data-period="minute"] .b-product-gpu__price-value')
        minute.insert(0, BeautifulSoup("<del>€ 0.35</del> ", "html.parser"))

    batch = parse_html(edited(add))
    assert offers_of(batch) == EXPECTED


def test_promo_text_outside_the_cards_is_not_an_offer() -> None:
    assert "GPU servers from € 0.0053 / minute" in SAMPLE_HTML
    batch = parser_for("gpu_leadergpu")(SAMPLE, SPEC)
    assert len(batch.offers) == 12


def test_stock_status_follows_the_label_and_button() -> None:
    def relabel(soup: BeautifulSoup) -> None:
        card_titled(soup, "1 pcs NVIDIA A10").select_one(".js-rent-server").decompose()  # no Rent button
        h100 = card_titled(soup, "8 pcs NVIDIA H100")  # a Rent button, but labelled sold out
        h100.select_one(".b-product-gpu__actions").append(BeautifulSoup("<span>Sold out</span>", "html.parser"))

    batch = parse_html(edited(relabel))
    stock = {o.listing: o.stock_status.value for o in batch.offers}
    assert stock["1 pcs NVIDIA A10 / day"] == "unknown"
    assert stock["8 pcs NVIDIA H100 / day"] == "sold_out"
    assert stock["2 pcs NVIDIA RTX A6000 / day"] == "sold_out"


def test_unpriced_card_goes_to_unpriced_never_to_offers() -> None:
    batch = parser_for("gpu_leadergpu")(SAMPLE, SPEC)
    assert "4 pcs Tesla V100" in batch.unpriced
    assert not any("V100" in o.listing or "V100" in o.gpu_name for o in batch.offers)
    assert all(o.amount > 0 for o in batch.offers)


def test_blank_prices_make_a_card_unpriced() -> None:
    def blank(soup: BeautifulSoup) -> None:
        for value in card_titled(soup, "1 pcs NVIDIA A10").select(".b-product-gpu__price-value"):
            value.string = "—"

    batch = parse_html(edited(blank))
    assert batch.unpriced == ["1 pcs NVIDIA A10", "4 pcs Tesla V100"]
    assert not any(o.gpu_name == "NVIDIA A10" for o in batch.offers)
    assert len(batch.offers) == 8


@pytest.mark.parametrize(
    "body", [b"", b"{", b"<html>not json</html>", b'{"matchesHtml": "x",}', b"\xff\xfe\x00", b"[" * 100_000]
)
def test_malformed_json_is_a_parse_error_naming_the_source(body: bytes) -> None:
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*not valid JSON"):
        parser_for("gpu_leadergpu")(body, SPEC)


@pytest.mark.parametrize("body", [b"[]", b"null", b'"matchesHtml"', b"42"])
def test_json_that_is_not_an_object_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*matchesHtml"):
        parser_for("gpu_leadergpu")(body, SPEC)


def test_missing_matches_html_key_is_a_parse_error_naming_the_key() -> None:
    without = {k: v for k, v in SAMPLE_JSON.items() if k != "matchesHtml"}
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*'matchesHtml' missing") as caught:
        parser_for("gpu_leadergpu")(json.dumps(without).encode(), SPEC)
    assert caught.value.source_id == "gpu_leadergpu"


@pytest.mark.parametrize("value", [None, 3, ["<section/>"], {"html": "x"}])
def test_matches_html_of_the_wrong_type_is_a_parse_error(value) -> None:
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*'matchesHtml' is a"):
        parser_for("gpu_leadergpu")(json.dumps({**SAMPLE_JSON, "matchesHtml": value}).encode(), SPEC)


@pytest.mark.parametrize(
    "html", ["", "<p>No servers match your filter</p>", "<table><tr><td>8 pcs H100</td></tr></table>"]
)
def test_html_without_server_cards_is_a_parse_error(html: str) -> None:
    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*no server cards"):
        parse_html(html)


def test_card_without_a_title_refuses_the_page_naming_its_prices() -> None:
    # Without its title the card is no card: its prices sit in none, and the page is refused rather than
    # landed one server short.
    def untitle(soup: BeautifulSoup) -> None:
        card_titled(soup, "8 pcs NVIDIA H100").select_one("h3").decompose()

    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*'€ 0.29 / minute'.*sit in no server card"):
        parse_html(edited(untitle))


@pytest.mark.parametrize(
    ("printed", "currency"), [("$ 410.00", "USD"), ("£ 410.00", "GBP"), ("410.00 USD", "USD"), ("CHF 410.00", "CHF")]
)
def test_one_price_in_another_currency_than_its_card_is_a_cell_error(printed: str, currency: str) -> None:
    html = SAMPLE_HTML.replace("€ 410.00", printed)
    assert html != SAMPLE_HTML
    with pytest.raises(
        CellError,
        match=rf"\[gpu_leadergpu\].*8 pcs NVIDIA H100.*price per day.*in {currency}, the "
        r"card's other prices in EUR",
    ) as caught:
        parse_html(html)
    assert caught.value.column == "price per day"


def test_prices_keep_the_currency_printed() -> None:
    batch = parse_html(SAMPLE_HTML.replace("€ ", "$ "))
    assert {o.currency for o in batch.offers} == {"USD"}
    assert offers_of(batch)["8 pcs NVIDIA H100 / week"][3:5] == (D("2650.00"), "USD")
    unmarked = parse_html(SAMPLE_HTML.replace("€ ", ""))  # no mark at all: the source's declared currency
    assert {o.currency for o in unmarked.offers} == {"EUR"}


def test_two_currency_marks_in_one_amount_are_a_cell_error() -> None:
    with pytest.raises(CellError, match=r"price per day.*more than one currency"):
        parse_html(SAMPLE_HTML.replace("€ 410.00", "€ 410.00 USD"))


@pytest.mark.parametrize("printed", ["€ 0.00", "€ -410.00"])
def test_zero_or_negative_price_is_a_cell_error(printed: str) -> None:
    with pytest.raises(CellError, match=r"\[gpu_leadergpu\].*8 pcs NVIDIA H100.*price per day"):
        parse_html(SAMPLE_HTML.replace("€ 410.00", printed))


def test_two_different_prices_for_one_period_is_a_cell_error() -> None:
    html = SAMPLE_HTML.replace(
        '€ 7.50</span> <span class="b-product-gpu__price-unit">/ day',
        '€ 7.50</span> <span class="b-product-gpu__price-unit">/ day</span></li><li><span>€ 8.50</span> <span>/ day',
    )
    assert html != SAMPLE_HTML
    with pytest.raises(CellError, match=r"\[gpu_leadergpu\].*1 pcs NVIDIA A10.*two different prices"):
        parse_html(html)


def test_gpu_count_out_of_range_is_a_cell_error() -> None:
    with pytest.raises(CellError, match=r"\[gpu_leadergpu\].*GPU count 0"):
        parse_html(SAMPLE_HTML.replace("1 pcs NVIDIA A10", "0 pcs NVIDIA A10"))


def test_the_same_server_twice_is_a_parse_error_not_a_silent_duplicate() -> None:
    def duplicate(soup: BeautifulSoup) -> None:
        card = card_titled(soup, "8 pcs NVIDIA H100")
        card.insert_after(BeautifulSoup(str(card), "html.parser"))

    with pytest.raises(ParseError, match=r"\[gpu_leadergpu\].*'8 pcs NVIDIA H100 / minute' appears twice"):
        parse_html(edited(duplicate))


CARD = (
    '<section class="b-product-gpu"><h3 class="b-product-gpu__title">{title}</h3>'
    "<dl><dt>GPU memory</dt><dd>{memory}</dd></dl><ul>{prices}</ul>{action}</section>"
)
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
messy = st.one_of(
    text,
    st.sampled_from(
        [
            "€ 1.5 / day",
            "$ 3 / hour",
            "— / week",
            "0 pcs X",
            "9 pcs Y",
            "€ 0 / month",
            "€ 1,2,3 / minute",
            "Out of stock",
            "Rent",
            "5 GB",
        ]
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=messy, memory=messy, prices=st.lists(messy, max_size=4), action=messy)
def test_arbitrary_text_in_a_card_raises_nothing_but_parse_error(title, memory, prices, action) -> None:
    html = CARD.format(title=title, memory=memory, action=action, prices="".join(f"<li>{p}</li>" for p in prices))
    try:
        batch = parser_for("gpu_leadergpu")(json.dumps({"matchesHtml": html}).encode(), SPEC)
    except ParseError as exc:
        assert exc.source_id == "gpu_leadergpu"
        return
    assert all(o.amount > 0 and o.currency in ("EUR", "USD") and o.price_per.value == "instance" for o in batch.offers)


@settings(max_examples=60, deadline=None)
@given(
    body=st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.sampled_from(["matchesHtml", "count", "x"]), inner, max_size=3)
            ),
            max_leaves=8,
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_arbitrary_bodies_raise_nothing_but_parse_error(body: bytes) -> None:
    try:
        parser_for("gpu_leadergpu")(body, SPEC)
    except ParseError as exc:
        assert exc.source_id == "gpu_leadergpu"


amounts = st.decimals(min_value=D("0.0001"), max_value=D("99999.99"), places=4, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 16), minute=amounts, month=amounts)
def test_generated_cards_round_trip_to_exactly_their_amounts(count: int, minute: Decimal, month: Decimal) -> None:
    html = CARD.format(
        title=f"{count} pcs NVIDIA H200",
        memory="141 GB",
        action="<a>Rent</a>",
        prices=f"<li>€ {month:,} / month</li><li>€ {minute} / minute</li>",
    )
    batch = parser_for("gpu_leadergpu")(json.dumps({"matchesHtml": html}).encode(), SPEC)
    assert offers_of(batch) == {
        f"{count} pcs NVIDIA H200 / minute": (
            "NVIDIA H200",
            count,
            OD,
            minute,
            "EUR",
            "instance",
            "minute",
            "in_stock",
            None,
            D("141"),
            1,
        ),
        f"{count} pcs NVIDIA H200 / month": (
            "NVIDIA H200",
            count,
            RES,
            month,
            "EUR",
            "instance",
            "month",
            "in_stock",
            None,
            D("141"),
            1,
        ),
    }
