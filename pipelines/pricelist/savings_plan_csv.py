"""One region's Savings Plans rate file (CSV variant of the AWSComputeSavingsPlan offer) read in DuckDB.

The Savings Plans region index (`/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json`) names
one rate file per region. Each row is one plan (Compute or EC2 Instance; 1 or 3 years; No, Partial or All Upfront)
priced for one discounted usage: `DiscountedRate` is the plan's USD rate per hour of that usage. Kept: EC2 usage in
shared tenancy (`...BoxUsage:<type>`), Linux (`RunInstances`), hourly, in USD, of the allowlisted families. The
file is unquoted, with the same five metadata lines as the EC2 offer (OfferCode AmazonComputeSavingsPlan); real
shape: jtdelia/ec2-priceit@ae128cc:examples/5-ap-east-2-savingsplan-pricing.csv. It names no accelerator figures,
so every rate is pending until the price list's attributes of its type price it (pipelines.pricelist.spot).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import NamedTuple

import duckdb
from pydantic import ValidationError

from pipelines.errors import ParseError, RecordInvalid
from pipelines.pricelist.offer_csv import rows_by_region, select_list
from pipelines.pricelist.records import PendingQuote, PriceListKind, PurchaseOption
from pipelines.pricelist.regional_csv import RegionalReader
from pipelines.pricelist.spot import keep_once

PARSER_VERSION = "aws_savings_plan_csv/1.0"
OFFER_CODE = "AmazonComputeSavingsPlan"
PLAN_KINDS = {
    "ComputeSavingsPlans": PriceListKind.COMPUTE_SAVINGS_PLAN,
    "EC2InstanceSavingsPlans": PriceListKind.EC2_INSTANCE_SAVINGS_PLAN,
}
COLUMNS = {
    "sku": "sku",
    "rate_code": "ratecode",
    "unit": "unit",
    "rate": "discountedrate",
    "currency": "currency",
    "service": "discountedservicecode",
    "usage_type": "discountedusagetype",
    "operation": "discountedoperation",
    "purchase_option": "purchaseoption",
    "lease": "leasecontractlength",
    "lease_unit": "leasecontractlengthunit",
    "location": "location",
    "product_family": "productfamily",
    "region_code": "discountedregioncode",
    "instance_type": "discountedinstancetype",
}
OPTIONAL = {"location", "instance_type"}
# EC2 in shared tenancy (BoxUsage, not Dedicated, Host or unused reservations), Linux with no licence
# (RunInstances with no platform code), hourly, in USD; Lambda and Fargate rates of Compute plans are not EC2.
FILTERS = """
    "service" = 'AmazonEC2' AND "unit" = 'Hrs' AND "currency" = 'USD' AND "operation" = 'RunInstances'
    AND "usage_type" LIKE '%BoxUsage:%'
"""


# The type from DiscountedInstanceType, else from the usage type (BoxUsage:<type>).
INSTANCE_TYPE = "coalesce(nullif(instance_type, ''), split_part(usage_type, ':', 2))"
RATE_FIELDS = (
    "sku, rate_code, rate, purchase_option, lease, lease_unit, location, product_family, region_code, instance_type"
)


class RateRow(NamedTuple):
    sku: str
    rate_code: str | None
    rate: str
    purchase_option: str
    lease: str
    lease_unit: str | None
    location: str | None
    product_family: str
    region_code: str
    instance_type: str


def query_rates(
    con: duckdb.DuckDBPyConnection, path: Path, header: list[str], families: Sequence[str], source_id: str
) -> tuple[list[RateRow], list[str]]:
    """The kept rates, and every region code any row names (one scan, grouped by region, as the offer reader)."""
    columns = select_list(header, source_id, COLUMNS, OPTIONAL)
    kept, regions = rows_by_region(con, path, columns, RATE_FIELDS, FILTERS, families, source_id, INSTANCE_TYPE)
    return [RateRow(**row) for row in kept], regions


def _quote(row: RateRow, source_id: str) -> PendingQuote:
    where = f"Savings Plan {row.sku} ({row.product_family}) for {row.instance_type}"
    kind = PLAN_KINDS.get(row.product_family)
    if kind is None:
        raise ParseError(source_id, f"{where}: unknown plan family {row.product_family!r}")
    if (row.lease_unit or "year").lower() not in ("year", "years") or row.lease not in ("1", "3"):
        raise ParseError(source_id, f"{where}: term {row.lease!r} {row.lease_unit!r} is not 1 or 3 years")
    try:
        rate = Decimal(row.rate)
    except InvalidOperation:
        raise ParseError(source_id, f"{where}: rate {row.rate!r} is not an amount") from None
    try:
        return PendingQuote(
            region_code=row.region_code,
            instance_type=row.instance_type,
            hourly_usd=rate,
            price_kind=kind,
            lease_years=int(row.lease),
            purchase_option=PurchaseOption(row.purchase_option),
            location=row.location or None,
            sku=row.sku,
            rate_code=row.rate_code,
        )
    except (ValidationError, ValueError) as exc:
        raise RecordInvalid(source_id, f"{where}: {exc}") from exc


def _once(rows: list[RateRow], source_id: str) -> list[PendingQuote]:
    """One rate per type and plan: the same rate printed twice is kept once; two different ones are refused."""
    quotes: dict[tuple[object, ...], PendingQuote] = {}
    for row in rows:
        quote = _quote(row, source_id)
        name = f"{quote.price_kind.value} {quote.lease_years}y {quote.purchase_option} {quote.instance_type}"
        keep_once(quotes, quote, source_id, name)
    return list(quotes.values())


# Read one region's rate file (a path, plain or .gz, or a body) into a batch of pending Savings Plans rates.
parse_savings_plan_csv = RegionalReader(
    OFFER_CODE, PARSER_VERSION, query_rates, lambda rows, source_id: {"pending": _once(rows, source_id)}
)
