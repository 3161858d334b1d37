"""ECB euro foreign exchange reference rates: eurofxref-daily.xml (and the same shape for -hist-90d / -hist).

The file is a gesmes envelope; inside it, `<Cube><Cube time="2026-09-28"><Cube currency="USD" rate="1.1840"/>
...</Cube></Cube>`, one dated Cube per business day (one in the daily file, about 64 in the 90-day file). Each
rate says how many units of the currency one euro buys. Rates are kept as Decimal exactly as printed.

The XML is parsed without network access or entity resolution, and a document carrying a DOCTYPE (which the
ECB file never does, and which could only declare entities) is refused, so nothing outside the body is read.

Rates are found wherever a `Cube` carries a currency, however deep; the batch's shape is the element paths of the
attributes read (`Envelope/Cube/Cube/Cube@rate`, `Envelope/Cube/Cube@time`), so a restructured file still parses
and the drift rule reports it.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from lxml import etree
from pydantic import ValidationError

from pipelines.errors import ParseError
from pipelines.fx.records import FxBatch, FxRate
from pipelines.reading.read_paths import ReadPaths
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "fx_ecb/1.0"

_RATE = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_CURRENCY = re.compile(r"[A-Z]{3}")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def parse(body: bytes, source: SourceSpec) -> FxBatch:
    try:
        root = etree.fromstring(body, _parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise ParseError(source.id, f"not well-formed XML: {exc}") from exc
    if root is None:
        raise ParseError(source.id, "empty XML document")
    docinfo = root.getroottree().docinfo
    if docinfo.internalDTD is not None or docinfo.doctype:
        # The ECB file has no DOCTYPE; one here can only declare entities, which this parser does not honour.
        raise ParseError(source.id, "document carries a DOCTYPE/DTD, which the ECB file never does; refused")

    rates: list[FxRate] = []
    seen: dict[tuple[date, str], Decimal] = {}
    paths = ReadPaths()
    for cube in root.iter():
        if not isinstance(cube.tag, str) or etree.QName(cube).localname != "Cube" or "currency" not in cube.attrib:
            continue
        currency = cube.get("currency", "").strip()
        if not _CURRENCY.fullmatch(currency):
            raise ParseError(source.id, f"currency {currency!r} is not a three-letter ISO code")
        rate_date = _date_of(cube, currency, source.id)
        printed = (cube.get("rate") or "").strip()
        if not _RATE.fullmatch(printed) or Decimal(printed) <= 0:
            raise ParseError(source.id, f"{currency} rate on {rate_date} is {printed!r}, not a positive number")
        amount = Decimal(printed)
        _record_paths(cube, paths)
        key = (rate_date, currency)
        if key in seen:
            if seen[key] != amount:
                raise ParseError(source.id, f"{currency} on {rate_date} has two rates, {seen[key]} and {amount}")
            continue
        seen[key] = amount
        try:
            rates.append(FxRate(currency=currency, rate_date=rate_date, units_per_eur=amount))
        except ValidationError as exc:  # pragma: no cover - the checks above admit only valid rates
            raise ParseError(source.id, f"{currency} on {rate_date}: {exc}") from exc
    if not rates:
        raise ParseError(source.id, "no <Cube currency=... rate=...> rates in the document")
    return FxBatch(source_id=source.id, parser_version=PARSER_VERSION, rates=rates, shape=paths.fingerprint)


def _record_paths(cube: etree._Element, paths: ReadPaths) -> None:
    """The rate Cube's path by local names (the parser ignores namespaces), its attributes and its parent's date."""
    path = "/".join(etree.QName(e).localname for e in reversed([cube, *cube.iterancestors()]))
    paths.found(f"{path}@currency")
    paths.found(f"{path}@rate")
    paths.found(f"{path.rsplit('/', 1)[0]}@time")


def _date_of(cube: etree._Element, currency: str, source_id: str) -> date:
    """The date of the Cube enclosing a rate: `<Cube time="2026-09-28">`."""
    parent = cube.getparent()
    printed = parent.get("time") if parent is not None else None
    if printed is None:
        raise ParseError(source_id, f"{currency} rate is not inside a Cube with a time attribute")
    printed = printed.strip()
    try:
        if not _DATE.fullmatch(printed):
            raise ValueError("not YYYY-MM-DD")
        return date.fromisoformat(printed)
    except ValueError as exc:
        raise ParseError(source_id, f"Cube time {printed!r} is not a date: {exc}") from exc
