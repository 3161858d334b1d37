"""One region's Amazon SageMaker offer file (CSV variant of the AmazonSageMaker offer) read in DuckDB.

The AmazonSageMaker region index (`/offers/v1.0/aws/AmazonSageMaker/current/region_index.json`) names one offer
file per region, in the EC2 offer's shape: the same five metadata lines (OfferCode AmazonSageMaker), a header, one
row per price dimension. Kept: on-demand `Hrs` rows in USD of `ml.` instance types whose EC2 family is allowlisted
(ml.inf2.*, ml.trn1.*, ml.trn2.*, ml.p*, ml.g*), for the components Hosting (a real-time inference endpoint) and
Training (a training job). Every other component is left out: the known ones (notebooks, processing, batch
transform) silently, any other counted and named in the batch's warnings.

Columns are found by their header's meaning. The column names are those of AWS's other offer files where the
SageMaker ones are known to match (SKU, TermType, Unit, PricePerUnit, Currency, Location, Region Code, usageType,
GPU, GPU Memory); where ratecard has no real SageMaker file to check against, the reader takes each documented
spelling: the type from `Instance Name`, else `Instance Type`, else the usage type after its colon
(`USE1-Host:ml.inf2.xlarge`); the component from `Component`, else the usage type before its colon (Host, Train);
the accelerator count from `GPU`, else `Physical GPU`.

The rows name accelerator figures only sometimes, so each price is pending until the kind prices it with the EC2
price list's landed attributes of the same type without `ml.` (else the row's own GPU column; pipelines.pricelist.
spot.priced_quotes). Each price stands alone: a row whose price is no amount, whose type cannot be priced, or that
the file prices twice at two amounts is refused by itself, named, and the rest of the region lands.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, NamedTuple

import duckdb
from pydantic import ValidationError

from pipelines.errors import MissingColumnError, model_problems
from pipelines.pricelist.offer_csv import rows_by_region, select_list
from pipelines.pricelist.records import (
    SAGEMAKER_PREFIX,
    PriceListKind,
    RefusedRow,
    SageMakerQuote,
)
from pipelines.pricelist.regional_csv import RegionalReader

PARSER_VERSION = "aws_sagemaker_csv/1.0"
OFFER_CODE = "AmazonSageMaker"
# Semantic name -> the spellings its header may take (letters and digits, lower case), the first one found read.
COLUMNS: dict[str, tuple[str, ...]] = {
    "sku": ("sku",),
    "rate_code": ("ratecode",),
    "term_type": ("termtype",),
    "unit": ("unit",),
    "price": ("priceperunit",),
    "currency": ("currency",),
    "location": ("location",),
    "region_code": ("regioncode",),
    "instance_name": ("instancename",),
    "instance_type": ("instancetype",),
    "component": ("component",),
    "usage_type": ("usagetype",),
    "gpu": ("gpu", "physicalgpu"),
    "gpu_memory": ("gpumemory",),
}
OPTIONAL = {"rate_code", "location", "instance_name", "instance_type", "component", "usage_type", "gpu", "gpu_memory"}
# Each needs one of its columns: the type and the component can also be read from the usage type.
ONE_OF = {"instance_name": ("instance_name", "instance_type", "usage_type"), "component": ("component", "usage_type")}
FILTERS = """"term_type" = 'OnDemand' AND "unit" = 'Hrs' AND "currency" = 'USD'"""
# The ml. type: Instance Name, else Instance Type, else the usage type after its colon.
ML_TYPE = (
    "coalesce(nullif(trim(instance_name), ''), nullif(trim(instance_type), ''), "
    "nullif(split_part(usage_type, ':', 2), ''))"
)
# The component: as printed, else the usage type's operation with its region prefix cut (USE1-Host -> Host).
COMPONENT = (
    "coalesce(nullif(trim(component), ''), "
    "nullif(regexp_replace(split_part(usage_type, ':', 1), '^[A-Z]{2,4}[0-9]+-', ''), ''))"
)
FIELDS = f"sku, rate_code, price, location, region_code, instance_type, component := {COMPONENT}, gpu, gpu_memory"

KINDS = {
    "hosting": PriceListKind.SAGEMAKER_HOSTING,
    "host": PriceListKind.SAGEMAKER_HOSTING,
    "training": PriceListKind.SAGEMAKER_TRAINING,
    "train": PriceListKind.SAGEMAKER_TRAINING,
}
# Components left out on purpose, as printed or as the usage type abbreviates them: not accelerator-hour offers
# that compare with an instance (notebooks, processing and batch transform jobs).
LEFT_OUT = frozenset({"notebook", "notebk", "studionotebook", "processing", "batchtransform", "transform", "tsform"})


class SageMakerRow(NamedTuple):
    sku: str
    rate_code: str | None
    price: str
    location: str | None
    region_code: str
    instance_type: str  # the ml. type
    component: str | None
    gpu: str | None
    gpu_memory: str | None


def _header_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def read_columns(header: list[str], source_id: str) -> str:
    """The select list of the wanted columns, each under the first spelling the header prints; a needed column
    that no spelling names is a MissingColumnError naming the source and the column."""
    printed = {_header_key(name) for name in header}
    chosen = {name: next((k for k in keys if k in printed), keys[0]) for name, keys in COLUMNS.items()}
    missing = [name for name, names in ONE_OF.items() if not any(chosen[n] in printed for n in names)]
    if missing:
        raise MissingColumnError(source_id, missing, header)
    return select_list(header, source_id, chosen, OPTIONAL)


def query_rows(
    con: duckdb.DuckDBPyConnection, path: Path, header: list[str], families: Sequence[str], source_id: str
) -> tuple[list[SageMakerRow], list[str]]:
    """The kept rows, and every region code any row names (one scan, grouped by region, as the EC2 reader)."""
    columns = read_columns(header, source_id)
    ml_families = [SAGEMAKER_PREFIX + family for family in families]  # ml.inf2.xlarge's family is ml.inf2
    kept, regions = rows_by_region(con, path, columns, FIELDS, FILTERS, ml_families, source_id, ML_TYPE)
    return [SageMakerRow(**row) for row in kept], regions


class Findings:
    """What one file's kept rows become: one pending quote per type and component, the rows refused, and the
    components left out that this reader does not know (counted, for the warnings)."""

    def __init__(self) -> None:
        self.quotes: dict[tuple[str, PriceListKind], SageMakerQuote] = {}
        self.refused: dict[tuple[str, PriceListKind], RefusedRow] = {}
        self.unknown: dict[str, list[str]] = defaultdict(list)

    def take(self, row: SageMakerRow) -> None:
        component = _header_key(row.component or "")
        kind = KINDS.get(component)
        if kind is None:
            if component not in LEFT_OUT:
                self.unknown[row.component or "(none)"].append(row.instance_type)
            return
        key = (row.instance_type, kind)
        if key in self.refused:
            return
        try:
            quote = _quote(row, kind)
        except NotAPrice as exc:
            self.refuse(row, kind, str(exc))
            return
        if quote is None:
            return  # a price of 0: not offered
        seen = self.quotes.setdefault(key, quote)
        if seen.hourly_usd != quote.hourly_usd:
            amounts = f"{seen.hourly_usd} (SKU {seen.sku}) and {quote.hourly_usd} (SKU {row.sku})"
            self.refuse(row, kind, f"priced twice in the file, at {amounts}")

    def refuse(self, row: SageMakerRow, kind: PriceListKind, reason: str) -> None:
        key = (row.instance_type, kind)
        self.quotes.pop(key, None)
        self.refused[key] = RefusedRow(
            region_code=row.region_code, instance_type=row.instance_type, price_kind=kind, reason=reason
        )

    def warnings(self) -> list[str]:
        return [
            f"{len(types)} SageMaker row(s) of component {component!r}, which this reader does not know, left out: "
            f"{', '.join(sorted(set(types)))}"
            for component, types in sorted(self.unknown.items())
        ]


class NotAPrice(ValueError):
    """A row's price is no amount, or no valid price record: the row is refused by itself."""


def _quote(row: SageMakerRow, kind: PriceListKind) -> SageMakerQuote | None:
    try:
        amount = Decimal(row.price)
    except InvalidOperation:
        raise NotAPrice(f"SKU {row.sku}: price {row.price!r} is not an amount") from None
    if not amount.is_finite() or amount < 0:
        raise NotAPrice(f"SKU {row.sku}: price {row.price!r} is not a price")
    if amount == 0:
        return None
    try:
        return SageMakerQuote(
            region_code=row.region_code,
            instance_type=row.instance_type,
            hourly_usd=amount,
            price_kind=kind,
            location=row.location or None,
            sku=row.sku,
            rate_code=row.rate_code,
            price_list_gpu=row.gpu or None,
            price_list_gpu_memory=row.gpu_memory or None,
        )
    except ValidationError as exc:
        raise NotAPrice(f"SKU {row.sku}: {model_problems(exc)}") from exc


def _batch_fields(rows: list[SageMakerRow], _source_id: str) -> dict[str, Any]:
    found = Findings()
    for row in sorted(rows, key=lambda r: (r.instance_type, r.component or "", r.sku)):
        found.take(row)
    return {
        "pending": list(found.quotes.values()),
        "refused": list(found.refused.values()),
        "warnings": found.warnings(),
    }


# Read one region's SageMaker offer file (a path, plain or .gz, or a body) into a batch of pending hosting and
# training prices; raises ParseError (or MissingColumnError) naming the source and what was wrong.
parse_sagemaker_csv = RegionalReader(OFFER_CODE, PARSER_VERSION, query_rows, _batch_fields)
