"""From the kept rows of an offer file to a PriceListBatch: pairing reserved dimensions, the gates, records.

Each CSV row is one price dimension. A reserved offer (SKU + offer term code) prints an `Hrs` row, a `Quantity`
"Upfront Fee" row, or both; they are paired here and kept as printed. A price of 0 means "not offered".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from pydantic import ValidationError

from pipelines.errors import ParseError, RecordInvalid
from pipelines.pricelist.curated import CuratedFigures, accelerator_fields, given, is_accelerator_type
from pipelines.pricelist.records import (
    InstanceTypeAttributes,
    OfferingClass,
    PriceListBatch,
    PriceListKind,
    PriceListPrice,
    PurchaseOption,
)

LEASE_YEARS = {"1yr": 1, "3yr": 3}


class KeptRow(NamedTuple):
    sku: str
    term_code: str
    rate_code: str | None
    term_type: str
    unit: str
    price: str
    lease: str | None
    purchase_option: str | None
    offering_class: str | None
    location: str | None
    instance_type: str
    region_code: str
    gpu: str | None
    gpu_memory: str | None


def _money(text: str, row: KeptRow, source_id: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value < 0:
        raise ParseError(source_id, f"SKU {row.sku} term {row.term_code}: price {text!r} is not an amount")
    return value


def _on_demand(rows: list[KeptRow], source_id: str) -> list[tuple[KeptRow, dict[str, Any]]]:
    # Two on-demand rows for one type are left to the gate (pipelines.pricelist.checks), which names their SKUs.
    hourly = [row for row in rows if row.term_type == "OnDemand" and row.unit == "Hrs"]
    priced = [(row, _money(row.price, row, source_id)) for row in hourly]
    return [(row, {"price_kind": PriceListKind.ON_DEMAND, "hourly_usd": price}) for row, price in priced if price > 0]


def _reserved(rows: list[KeptRow], source_id: str) -> list[tuple[KeptRow, dict[str, Any]]]:
    offers: dict[tuple[str, str], list[KeptRow]] = defaultdict(list)
    for row in rows:
        if row.term_type == "Reserved":
            offers[(row.sku, row.term_code)].append(row)
    out = []
    for (sku, term), dims in offers.items():
        units = Counter(dim.unit for dim in dims)
        if units["Hrs"] > 1 or units["Quantity"] > 1 or set(units) - {"Hrs", "Quantity"}:
            raise ParseError(source_id, f"reserved SKU {sku} term {term}: dimensions {dict(units)}")
        hourly = next((_money(d.price, d, source_id) for d in dims if d.unit == "Hrs"), Decimal(0))
        upfront = next((_money(d.price, d, source_id) for d in dims if d.unit == "Quantity"), None)
        if hourly == 0 and not upfront:
            continue  # not offered
        first = next((d for d in dims if d.unit == "Hrs"), dims[0])
        out.append((first, {"price_kind": PriceListKind.RESERVED, "hourly_usd": hourly, "upfront_usd": upfront}))
        out[-1][1].update(_reserved_terms(first, source_id))
    _refuse_duplicate_reserved(out, source_id)
    return out


def _reserved_terms(row: KeptRow, source_id: str) -> dict[str, Any]:
    try:
        return {
            "lease_years": LEASE_YEARS[row.lease or ""],
            "purchase_option": PurchaseOption(row.purchase_option or ""),
            "offering_class": OfferingClass(row.offering_class or ""),
        }
    except (KeyError, ValueError) as exc:
        terms = (row.lease, row.purchase_option, row.offering_class)
        raise ParseError(source_id, f"reserved SKU {row.sku} term {row.term_code}: unknown terms {terms}") from exc


def _refuse_duplicate_reserved(out: list[tuple[KeptRow, dict[str, Any]]], source_id: str) -> None:
    keys = Counter(
        (r.region_code, r.instance_type, f["lease_years"], f["purchase_option"], f["offering_class"]) for r, f in out
    )
    doubled = [key for key, n in keys.items() if n > 1]
    if doubled:
        raise ParseError(source_id, f"more than one reserved offer for {doubled}")


def build_batch(
    rows: Iterable[KeptRow],
    *,
    source_id: str,
    parser_version: str,
    region_code: str | None,
    offer_version: str,
    publication_date: datetime,
    shape: str,
    curated: CuratedFigures,
) -> PriceListBatch:
    """The batch of one file's kept rows; `region_code` is the file's region, every row of which the reader
    (offer_csv.check_file_regions) has already checked."""
    kept = list(rows)
    priced = _on_demand(kept, source_id) + _reserved(kept, source_id)
    prices, found = _records(priced, source_id, offer_version, publication_date, curated)
    return PriceListBatch(
        source_id=source_id,
        parser_version=parser_version,
        region_code=region_code,
        offer_version=offer_version,
        publication_date=publication_date,
        prices=prices,
        types=sorted(found.types, key=lambda t: t.instance_type),
        unpriced=found.unpriced,
        warnings=found.warnings,
        shape=shape,
    )


def _records(
    priced: list[tuple[KeptRow, dict[str, Any]]],
    source_id: str,
    offer_version: str,
    publication_date: datetime,
    curated: CuratedFigures,
) -> tuple[list[PriceListPrice], TypeFindings]:
    found = TypeFindings()
    prices = []
    for row, fields in priced:
        accelerator = found.resolve(row, curated, source_id)
        if accelerator is None:
            continue
        try:
            prices.append(
                PriceListPrice(
                    region_code=row.region_code,
                    location=row.location,
                    instance_type=row.instance_type,
                    sku=row.sku,
                    rate_code=row.rate_code,
                    offer_version=offer_version,
                    publication_date=publication_date,
                    **fields,
                    **accelerator,
                )
            )
        except ValidationError as exc:
            raise RecordInvalid(source_id, f"SKU {row.sku} ({row.instance_type}): {exc}") from exc
    prices.sort(
        key=lambda p: (
            p.instance_type,
            p.price_kind,
            p.lease_years or 0,
            p.purchase_option or "",
            p.offering_class or "",
        )
    )
    return prices, found


@dataclass
class TypeFindings:
    """Per instance type of one file: its accelerator fields (None: unpriced), what the file says of it, and the
    warnings and unpriced types to report."""

    fields: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    types: list[InstanceTypeAttributes] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)

    def resolve(self, row: KeptRow, curated: CuratedFigures, source_id: str) -> dict[str, Any] | None:
        if row.instance_type not in self.fields:
            self.fields[row.instance_type] = self._first_sight(row, curated, source_id)
        return self.fields[row.instance_type]

    def _first_sight(self, row: KeptRow, curated: CuratedFigures, source_id: str) -> dict[str, Any] | None:
        found, said = accelerator_fields(row.instance_type, row.gpu, row.gpu_memory, curated)
        if found is None:
            if is_accelerator_type(row.instance_type, row.gpu, curated):
                self.unpriced += [f"{row.region_code} {message}" for message in said]
            else:
                self.warnings.append(f"{row.region_code} {row.instance_type}: not an accelerator type: no row")
            return None
        self.warnings += [f"{row.region_code} {message}" for message in said]
        self.types.append(
            type_attributes(row.region_code, row.instance_type, row.gpu, row.gpu_memory, found, curated, source_id)
        )
        return found


def type_attributes(
    region_code: str,
    instance_type: str,
    gpu: str | None,
    gpu_memory: str | None,
    found: dict[str, Any],
    curated: CuratedFigures,
    source_id: str,
) -> InstanceTypeAttributes:
    """One type as a file describes it, with the figures its prices use."""
    entry = curated.types.get(instance_type)
    copied = {key: value for key, value in found.items() if key in InstanceTypeAttributes.model_fields}
    copied.pop("price_list_gpu", None)
    try:
        return InstanceTypeAttributes(
            region_code=region_code,
            instance_type=instance_type,
            price_list_gpu=given(gpu),
            price_list_gpu_memory=given(gpu_memory),
            curated_why=entry.why if entry is not None else None,
            **copied,
        )
    except ValidationError as exc:
        raise RecordInvalid(source_id, f"{region_code} {instance_type}: {exc}") from exc
