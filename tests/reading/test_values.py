"""Cell parsers on the quirks real pricing pages print. Every figure is compared as a Decimal, never a float."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pipelines.reading.values import (
    clean,
    is_empty,
    parse_accelerators,
    parse_decimal,
    parse_int,
    parse_memory,
    parse_memory_in,
    parse_money,
    parse_usd,
    unit_in_header,
)


def exact(value: object, expected: str) -> None:
    """Equal as a Decimal and printed with the same digits (so 4.916 can never pass as 4916 or 4.9160...)."""
    assert isinstance(value, Decimal), f"{value!r} is not a Decimal"
    assert value == Decimal(expected)
    assert str(value) == expected


# --- US dollars -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$39.33 USD", "39.33"),  # Capacity Blocks instance rate
        ("$ 2.40", "2.40"),  # a space after the sign
        ("$ 2.40 per Hour", "2.40"),
        ("$4.916 USD", "4.916"),  # regression: price-parser left to guess reads this as 4916
        ("$35.7608 USD", "35.7608"),
        ("$0.228/hr", "0.228"),
        ("$1,234.50", "1234.50"),
        ("$1,021.50", "1021.50"),
        ("$1.234", "1.234"),  # three decimals, not a thousands group
        ("$1.34*", "1.34"),
        ("$1.34†", "1.34"),
        ("$1.34‡", "1.34"),
        ("$1.34¹", "1.34"),
        ("$0.4744", "0.4744"),
        ("$12", "12"),
        ("US$ 3.5", "3.5"),
        ("USD 4.916", "4.916"),
        ("1.34 USD", "1.34"),
        ("  $1.34  ", "1.34"),
        ("$\u00a02.40", "2.40"),  # &nbsp; between sign and amount
    ],
)
def test_parse_usd_reads_the_printed_amount(text: str, expected: str) -> None:
    exact(parse_usd(text), expected)


def test_parse_usd_does_not_read_three_decimals_as_thousands() -> None:
    amount = parse_usd("$4.916 USD")
    assert amount == Decimal("4.916")
    assert amount != Decimal("4916")
    assert amount < 5


@pytest.mark.parametrize("text", [None, "", "   ", "-", "–", "—", "N/A", "n/a", "NA", "TBD", "Not available", "-*"])
def test_parse_usd_empty_cells_are_none_not_zero(text: str | None) -> None:
    assert parse_usd(text) is None


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("€2.10", "€"),
        ("2,10 EUR", "EUR"),
        ("2.10 EUR", "EUR"),
        ("£2.10", "£"),
        ("2.10 GBP", "GBP"),
        ("C$2.10", "C$"),
    ],
)
def test_parse_usd_refuses_other_currencies_naming_them(text: str, currency: str) -> None:
    with pytest.raises(ValueError, match="USD") as caught:
        parse_usd(text)
    message = str(caught.value)
    assert currency in message
    assert "not USD" in message
    assert repr(text) in message


@pytest.mark.parametrize("text", ["12.5", "1.34", "1,021.50"])
def test_parse_usd_refuses_a_bare_number(text: str) -> None:
    with pytest.raises(ValueError, match="names no currency"):
        parse_usd(text)


@pytest.mark.parametrize("text", ["call us", "Contact sales", "$", "USD", "Free*", "$ Free", "Free USD"])
def test_parse_usd_refuses_a_cell_without_an_amount(text: str) -> None:
    with pytest.raises(ValueError, match="no amount"):
        parse_usd(text)


# --- plain numbers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Up to 12.5", "12.5"),
        ("up-to 25", "25"),
        ("1,536", "1536"),
        ("3,040", "3040"),
        ("12.5*", "12.5"),
        ("800", "800"),
        ("0.5", "0.5"),
        ("Up to 4.75", "4.75"),
    ],
)
def test_parse_decimal(text: str, expected: str) -> None:
    exact(parse_decimal(text), expected)


@pytest.mark.parametrize("text", [None, "", "-", "N/A", "—"])
def test_parse_decimal_empty_is_none(text: str | None) -> None:
    assert parse_decimal(text) is None


def test_parse_decimal_refuses_words() -> None:
    with pytest.raises(ValueError, match="no number"):
        parse_decimal("EBS only")


@pytest.mark.parametrize(("text", "expected"), [("1,536", 1536), ("16", 16), ("192*", 192), ("Up to 8", 8)])
def test_parse_int(text: str, expected: int) -> None:
    value = parse_int(text)
    assert type(value) is int
    assert value == expected


def test_parse_int_empty_and_fraction() -> None:
    assert parse_int("") is None
    assert parse_int("-") is None
    with pytest.raises(ValueError, match="whole number"):
        parse_int("12.5")


# --- accelerators -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16 x AWS Trainium2 accelerators", (16, "Trainium2")),
        ("16 x AWS Trainium", (16, "Trainium")),
        ("8 x H100", (8, "H100")),
        ("8x H100", (8, "H100")),
        ("8 x NVIDIA A100 GPUs", (8, "A100")),
        ("16 × Trainium2", (16, "Trainium2")),
        ("4 x Inferentia2 chip", (4, "Inferentia2")),
        ("16", (16, None)),
        ("1", (1, None)),
        ("16*", (16, None)),
        ("1,024", (1024, None)),
    ],
)
def test_parse_accelerators(text: str, expected: tuple[int, str | None]) -> None:
    count, name = parse_accelerators(text)
    assert type(count) is int
    assert (count, name) == expected


@pytest.mark.parametrize("text", ["", "-", "N/A", "many", "1.5"])
def test_parse_accelerators_refuses_a_cell_without_a_whole_count(text: str) -> None:
    with pytest.raises(ValueError, match=r"cell '.*'"):  # the message quotes the cell
        parse_accelerators(text)


# --- memory -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("640 GB HBM3", "640", "GB"),
        ("320 GB HBM2e", "320", "GB"),
        ("1.5 TB", "1.5", "TB"),
        ("2048 GiB", "2048", "GiB"),
        ("512 GB", "512", "GB"),
        ("1,536 GiB", "1536", "GiB"),
        ("512GB", "512", "GB"),
        ("96 gib", "96", "GiB"),
        ("2 TiB", "2", "TiB"),
        ("640 GB HBM3*", "640", "GB"),
    ],
)
def test_parse_memory_keeps_value_and_unit_as_printed(text: str, value: str, unit: str) -> None:
    parsed = parse_memory(text)
    assert parsed is not None
    exact(parsed[0], value)
    assert parsed[1] == unit


@pytest.mark.parametrize("text", ["", "-", "N/A"])
def test_parse_memory_empty_is_none(text: str) -> None:
    assert parse_memory(text) is None


@pytest.mark.parametrize("text", ["512", "8 x 3.84", "lots"])
def test_parse_memory_refuses_a_cell_without_a_unit(text: str) -> None:
    with pytest.raises(ValueError, match="no memory figure"):
        parse_memory(text)


def test_parse_memory_in_takes_the_unit_from_the_header() -> None:
    value, unit = parse_memory_in("512", "GB")
    exact(value, "512")
    assert unit == "GB"
    value, unit = parse_memory_in("2,304", "GB")
    exact(value, "2304")
    assert unit == "GB"


def test_parse_memory_in_prefers_the_unit_in_the_cell() -> None:
    value, unit = parse_memory_in("1.5 TB", "GB")
    exact(value, "1.5")
    assert unit == "TB"


def test_parse_memory_in_empty_and_unitless() -> None:
    assert parse_memory_in("", "GB") is None
    assert parse_memory_in("-", None) is None
    with pytest.raises(ValueError, match="no unit"):
        parse_memory_in("512", None)


@pytest.mark.parametrize(
    ("header", "unit"),
    [
        ("Accelerator Memory (GB)", "GB"),
        ("Instance Memory (GiB)", "GiB"),
        ("Memory (TB)", "TB"),
        ("Memory ( gib )", "GiB"),
        ("Memory (GiB)*", "GiB"),
        ("Accelerator Memory", None),
        ("Memory", None),
        ("Network Bandwidth (Gbps)", None),
    ],
)
def test_unit_in_header(header: str, unit: str | None) -> None:
    assert unit_in_header(header) == unit


# --- clean / is_empty -------------------------------------------------------------------------------------


def test_clean_drops_footnote_marks_and_collapses_whitespace() -> None:
    assert clean("  On-Demand\n Price/hr* ") == "On-Demand Price/hr"
    assert clean("$1.34†‡") == "$1.34"
    assert clean("Memory (GiB)²") == "Memory (GiB)"
    assert clean(None) == ""


def test_is_empty() -> None:
    assert is_empty("N/A*")
    assert is_empty(" — ")
    assert not is_empty("0")
    assert not is_empty("$0.228/hr")


@pytest.mark.parametrize("text", ["-5", "$ -5", "$1e308", "$3,43", "-$2.40"])
def test_parse_money_refuses_what_price_parser_would_misread(text):
    with pytest.raises(ValueError, match=re.escape(text)):  # the message quotes the cell
        parse_money(text, "USD")


def test_parse_money_reads_a_declared_comma_decimal():
    assert parse_money("7,50 EUR", "EUR", decimal_separator=",") == Decimal("7.50")
    assert parse_money("€ 2,650.00", "EUR") == Decimal("2650.00")


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (("$2.99 / GPU / hr",), "hour"),
        (("$ 2.40 per Hour",), "hour"),
        (("€ 7.50 / day",), "day"),
        (("€0.0053 per minute, billed monthly",), "minute"),  # the first period printed wins
        (("$68.80", "Instance Price (per hour)"), "hour"),  # the header names it when the cell does not
        (("$1,000", "Price per month"), "month"),
        (("$5",), "hour"),  # neither names one: the caller's default
    ],
)
def test_parse_period(texts, expected):
    from pipelines.reading.values import parse_period

    assert parse_period(*texts) == expected
