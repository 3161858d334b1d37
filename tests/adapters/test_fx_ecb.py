"""ECB euro reference rates (source "fx_ecb"): the daily XML and the 90-day/historical shape.

Rates must come back as Decimals exactly as printed; anything unreadable is a ParseError naming the source.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.adapters import fx_ecb
from pipelines.errors import ParseError
from pipelines.sources.file import SourceSpec, sample_path

D = Decimal
SOURCE_ID = "fx_ecb"
SPEC = SourceSpec(
    id=SOURCE_ID,
    adapter="fx_ecb",
    url="https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
    sample="fx/eurofxref-daily.xml",
)
SAMPLE = sample_path(SPEC).read_bytes()
DAY = date(2026, 9, 28)

# The real file's currency order (BGN gone since Bulgaria joined the euro in 2026).
ORDER = [
    "USD",
    "JPY",
    "CZK",
    "DKK",
    "GBP",
    "HUF",
    "PLN",
    "RON",
    "SEK",
    "CHF",
    "ISK",
    "NOK",
    "TRY",
    "AUD",
    "BRL",
    "CAD",
    "CNY",
    "HKD",
    "IDR",
    "ILS",
    "INR",
    "KRW",
    "MXN",
    "MYR",
    "NZD",
    "PHP",
    "SGD",
    "THB",
    "ZAR",
]

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
    'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject>'
    "<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender><Cube>"
)
TAIL = "</Cube></gesmes:Envelope>"


def envelope(days: dict[str, list[tuple[str, str]]]) -> bytes:
    cubes = "".join(
        f"<Cube time='{day}'>" + "".join(f"<Cube currency='{c}' rate='{r}'/>" for c, r in rates) + "</Cube>"
        for day, rates in days.items()
    )
    return (HEAD + cubes + TAIL).encode()


def by_key(batch) -> dict[tuple[date, str], Decimal]:
    return {(r.rate_date, r.currency): r.units_per_eur for r in batch.rates}


# -- the bundled sample ------------------------------------------------------------------------------------


def test_sample_yields_the_dated_rates_exactly() -> None:
    batch = fx_ecb.parse(SAMPLE, SPEC)
    assert batch.source_id == "fx_ecb"
    assert batch.parser_version == "fx_ecb/1.0"
    assert [r.currency for r in batch.rates] == ORDER
    assert {r.rate_date for r in batch.rates} == {DAY}
    rates = {r.currency: r.units_per_eur for r in batch.rates}
    assert rates["USD"] == D("1.1840") and str(rates["USD"]) == "1.1840"  # the demo depends on this figure
    assert rates["GBP"] == D("0.87215") and str(rates["GBP"]) == "0.87215"
    assert rates["JPY"] == D("171.62") and str(rates["JPY"]) == "171.62"
    assert "EUR" not in rates and "BGN" not in rates
    assert all(isinstance(r.units_per_eur, Decimal) and r.units_per_eur > 0 for r in batch.rates)


def test_sample_starts_with_the_sample_comment() -> None:
    head = SAMPLE[:600].decode()
    assert "ratecard SAMPLE" in head
    assert "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml" in head
    assert "USD 1.1840" in head


# -- other shapes that must parse ----------------------------------------------------------------------------


def test_ninety_day_file_gives_one_rate_per_date_and_currency() -> None:
    body = envelope(
        {
            "2026-09-28": [("USD", "1.1840"), ("GBP", "0.87215"), ("JPY", "171.62")],
            "2026-09-25": [("USD", "1.1795"), ("GBP", "0.87010"), ("JPY", "170.90")],
            "2026-09-24": [("USD", "1.1802"), ("GBP", "0.8699")],
        }
    )
    batch = fx_ecb.parse(body, SPEC)
    assert len(batch.rates) == 8
    assert by_key(batch) == {
        (date(2026, 9, 28), "USD"): D("1.1840"),
        (date(2026, 9, 28), "GBP"): D("0.87215"),
        (date(2026, 9, 28), "JPY"): D("171.62"),
        (date(2026, 9, 25), "USD"): D("1.1795"),
        (date(2026, 9, 25), "GBP"): D("0.87010"),
        (date(2026, 9, 25), "JPY"): D("170.90"),
        (date(2026, 9, 24), "USD"): D("1.1802"),
        (date(2026, 9, 24), "GBP"): D("0.8699"),
    }


def test_double_quotes_whitespace_and_no_namespace_parse_the_same() -> None:
    body = (
        b'<Envelope>\n <Cube>\n  <Cube time="2026-09-28">\n   <Cube rate=" 1.1840 " currency="USD" />\n'
        b"  </Cube>\n </Cube>\n</Envelope>"
    )
    batch = fx_ecb.parse(body, SPEC)
    assert [(r.currency, r.rate_date, str(r.units_per_eur)) for r in batch.rates] == [("USD", DAY, "1.1840")]


def test_an_identical_repeated_rate_is_kept_once() -> None:
    batch = fx_ecb.parse(envelope({"2026-09-28": [("USD", "1.1840"), ("USD", "1.1840")]}), SPEC)
    assert len(batch.rates) == 1


def test_shape_is_the_paths_read_not_attribute_order_or_unread_parts() -> None:
    shape = fx_ecb.parse(SAMPLE, SPEC).shape
    assert shape and len(shape) == 16
    ninety_days = envelope({"2026-09-28": [("USD", "1.1840")], "2026-09-25": [("USD", "1.1795")]})
    assert fx_ecb.parse(ninety_days, SPEC).shape == shape
    reordered = SAMPLE.replace(b"<Cube currency='USD' rate='1.1840'/>", b"<Cube rate='1.1840' currency='USD' src='x'/>")
    unread = reordered.replace(b"<gesmes:subject>", b"<gesmes:note>new</gesmes:note><gesmes:subject>")
    assert unread != SAMPLE and fx_ecb.parse(unread, SPEC).shape == shape


def test_shape_changes_when_the_dated_element_is_renamed() -> None:
    renamed = SAMPLE.replace(b"<Cube time='2026-09-28'>", b"<Day time='2026-09-28'>").replace(b"</Cube>", b"</Day>", 1)
    batch = fx_ecb.parse(renamed, SPEC)
    assert by_key(batch) == by_key(fx_ecb.parse(SAMPLE, SPEC))  # rates are still found by meaning
    assert batch.shape != fx_ecb.parse(SAMPLE, SPEC).shape


# -- broken input -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   ",
        b"<gesmes:Envelope",
        b"\x00\xff\xfe",
        b'{"rates": {}}',
        SAMPLE.replace(b"</Cube>", b"", 1),
        SAMPLE[:-40],
    ],
)
def test_malformed_xml_is_a_parse_error_naming_the_source(body: bytes) -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\]") as caught:
        fx_ecb.parse(body, SPEC)
    assert caught.value.source_id == "fx_ecb"


@pytest.mark.parametrize("rate", ["0", "0.0000", "-1.1840", "", "n/a", "1,1840", "1.18.40", "1e3", "NaN", "Infinity"])
def test_a_rate_that_is_not_a_positive_number_is_a_parse_error(rate: str) -> None:
    body = SAMPLE.replace(b"rate='1.1840'", f"rate='{rate}'".encode())
    assert body != SAMPLE
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*USD rate on 2026-09-28 is .*not a positive number"):
        fx_ecb.parse(body, SPEC)


def test_a_missing_rate_attribute_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*GBP rate"):
        fx_ecb.parse(SAMPLE.replace(b" rate='0.87215'", b""), SPEC)


def test_a_missing_time_attribute_is_a_parse_error() -> None:
    body = SAMPLE.replace(b"<Cube time='2026-09-28'>", b"<Cube>")
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*USD rate is not inside a Cube with a time attribute"):
        fx_ecb.parse(body, SPEC)


@pytest.mark.parametrize("day", ["2026-13-01", "28/09/2026", "", "2026-9-28", "yesterday"])
def test_a_time_that_is_not_a_date_is_a_parse_error(day: str) -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*Cube time .* is not a date"):
        fx_ecb.parse(SAMPLE.replace(b"time='2026-09-28'", f"time='{day}'".encode()), SPEC)


@pytest.mark.parametrize("code", ["usd", "US", "USDX", "", "1SD"])
def test_a_currency_that_is_not_an_iso_code_is_a_parse_error(code: str) -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*currency .* is not a three-letter ISO code"):
        fx_ecb.parse(SAMPLE.replace(b"currency='USD'", f"currency='{code}'".encode()), SPEC)


@pytest.mark.parametrize(
    "body",
    [
        envelope({}),
        envelope({"2026-09-28": []}),
        b"<html><body><table><tr><td>USD</td><td>1.1840</td></tr></table></body></html>",
    ],
)
def test_a_document_with_no_rates_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*no <Cube currency"):
        fx_ecb.parse(body, SPEC)


def test_two_different_rates_for_one_day_and_currency_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match=r"\[fx_ecb\].*USD on 2026-09-28 has two rates"):
        fx_ecb.parse(envelope({"2026-09-28": [("USD", "1.1840"), ("USD", "1.1850")]}), SPEC)


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE r [<!ENTITY one "1.1840">]>',
        '<!DOCTYPE r SYSTEM "http://127.0.0.1:9/evil.dtd">',
        '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    ],
)
@pytest.mark.parametrize("where", ["attribute", "text"])
def test_documents_declaring_entities_are_refused_without_resolving_them(doctype: str, where: str) -> None:
    entity = "xxe" if "xxe" in doctype else "one" if "one" in doctype else "c" if "ENTITY c" in doctype else "amp"
    rate = f"&{entity};" if where == "attribute" else "1.1840"
    text = f"&{entity};" if where == "text" else ""
    body = (
        f'<?xml version="1.0"?>{doctype}<Envelope>{text}<Cube><Cube time="2026-09-28">'
        f'<Cube currency="USD" rate="{rate}"/></Cube></Cube></Envelope>'
    ).encode()
    with pytest.raises(ParseError, match=r"\[fx_ecb\]") as caught:
        fx_ecb.parse(body, SPEC)
    assert "root:" not in str(caught.value)  # nothing from /etc/passwd


# -- properties ----------------------------------------------------------------------------------------------

currency = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3)
printed_rate = st.builds(
    lambda whole, frac: f"{whole}.{frac}" if frac else str(whole),
    st.integers(0, 99999),
    st.text(alphabet="0123456789", max_size=6),
).filter(lambda s: D(s) > 0)
days = st.dates(min_value=date(1999, 1, 4), max_value=date(2099, 12, 31))


@settings(max_examples=80, deadline=None)
@given(
    table=st.dictionaries(days, st.dictionaries(currency, printed_rate, min_size=1, max_size=8), min_size=1, max_size=4)
)
def test_generated_files_round_trip_to_exactly_those_decimals(table) -> None:
    body = envelope({d.isoformat(): list(rates.items()) for d, rates in table.items()})
    batch = fx_ecb.parse(body, SPEC)
    expected = {(d, c): r for d, rates in table.items() for c, r in rates.items()}
    assert {(r.rate_date, r.currency): str(r.units_per_eur) for r in batch.rates} == expected
    assert len(batch.rates) == len(expected)


@settings(max_examples=150, deadline=None)
@given(
    body=st.one_of(
        st.binary(max_size=300),
        st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.builds(
            lambda a, b, c: envelope({a: [(b, c)]}),
            st.text(max_size=12).map(lambda t: t.replace("'", "")),
            st.text(max_size=4).map(lambda t: t.replace("'", "")),
            st.text(max_size=12).map(lambda t: t.replace("'", "")),
        ),
    )
)
def test_arbitrary_bytes_raise_nothing_but_parse_error(body: bytes) -> None:
    try:
        batch = fx_ecb.parse(body, SPEC)
    except ParseError as exc:
        assert exc.source_id == "fx_ecb"
        return
    assert batch.rates and all(r.units_per_eur > 0 for r in batch.rates)
