"""EC2 Capacity Blocks pricing page: one row per instance type and region, USD per instance-hour.

A Capacity Block rate is its own price kind (`capacity_block`) and never stands in for on-demand. The live page
carries its tables as embedded JSON, one per family (pipelines.reading.embedded_tables): "Instance Type", "Region",
"Effective Hourly Rate" printed as "$35.7608 ($2.235 USD)" (the instance rate, then the accelerator rate) and
"Accelerator" ("16 x Trainium2"). Older copies print one HTML table with separate rate columns and the instance's
specs; the instance-type cell is empty on follow-on rows for further regions. Either way the columns are found by
their headings; a table without an instance-type column (the UltraServer table) prices no instance and is not read.
The page's accelerator rate is printed rounded to 3 decimals, so it is kept as printed beside the rate derived from
the instance rate.
"""

from __future__ import annotations

import re
from decimal import Decimal

from bs4 import BeautifulSoup

from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.errors import ParseError, TableNotFoundError
from pipelines.reading.embedded_tables import embedded_tables
from pipelines.reading.tables import (
    Column,
    HeaderTable,
    Row,
    header_table,
    locate,
    read_cell,
    row_key,
    soup_of,
)
from pipelines.reading.values import clean, parse_accelerators, parse_int, parse_memory, parse_usd
from pipelines.sources.file import SourceSpec
from schemas.units import to_gib

PARSER_VERSION = "aws_capacity_blocks/1.1"

COLUMNS = [
    Column("instance_type", (r"^instance type",), fill_down=True),
    Column("region", (r"^region",)),
    Column("instance_rate", (r"instance hourly", r"instance rate", r"^effective hourly rate")),
    Column("accelerator_rate", (r"accelerator hourly", r"accelerator rate"), required=False),
    Column("accelerator_memory", (r"accelerator memory", r"gpu memory"), required=False),
    Column("accelerators", (r"^gpus?$", r"^accelerators?$", r"^(gpu|accelerator) count")),
    Column("vcpus", (r"vcpu",), required=False),
    Column("host_memory", (r"^instance memory",), required=False),
]
# "$35.7608 ($2.235 USD)": the instance rate, then the accelerator rate in parentheses.
_BOTH_RATES = re.compile(r"^(?P<instance>[^()]+?)\s*\((?P<accelerator>[^()]+)\)$")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SourceBatch:
    soup = soup_of(body, charset)
    tables = _price_tables(soup, source)
    specs: dict[str, InstanceSpec] = {}
    prices: list[InstancePrice] = []
    for table in tables:
        for row in table.rows("instance_type"):
            instance_type = row_key(row, table, "instance_type", source.id)
            # Follow-on region rows of one type repeat its spec (or leave it blank): the first row describes it.
            spec = specs.get(instance_type) or _spec(row, table, source)
            specs[instance_type] = spec
            amount, printed = read_cell(row, table, "instance_rate", source.id, _rates)
            if amount is None:
                continue  # no rate printed for this region: absent, not zero
            if "accelerator_rate" in table.columns:
                printed = read_cell(row, table, "accelerator_rate", source.id, parse_usd)
            prices.append(
                InstancePrice(
                    instance_type=instance_type,
                    price_kind=PriceKind.CAPACITY_BLOCK,
                    usd_per_instance_hour=amount,
                    accelerator_count=spec.accelerator_count,
                    region=clean(row.get("region")) or None,
                    printed_usd_per_accelerator_hour=printed,
                )
            )
    return SourceBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        specs=list(specs.values()),
        prices=prices,
        shape=tables[0].fingerprint,
    )


def _price_tables(soup: BeautifulSoup, source: SourceSpec) -> list[HeaderTable]:
    """The embedded tables that price instances; else the page's HTML table (older copies)."""
    embedded, unread = embedded_tables(soup)
    tables = [t for t in (header_table(e.headers, e.rows, COLUMNS) for e in embedded) if t is not None]
    if tables:
        return tables
    try:
        return [locate(soup, COLUMNS, source.id)]
    except TableNotFoundError:
        if not embedded and not unread:
            raise
        seen = [f"{e.heading!r} ({', '.join(e.headers)})" for e in embedded] + unread
        raise ParseError(source.id, f"no embedded table prices instances by its headings: {'; '.join(seen)}") from None


def _rates(text: str | None) -> tuple[Decimal | None, Decimal | None]:
    """The instance rate, and the accelerator rate where the same cell prints it in parentheses."""
    both = _BOTH_RATES.match(text or "")
    if both is None:
        return parse_usd(text), None
    return parse_usd(both["instance"]), parse_usd(both["accelerator"])


def _spec(row: Row, table: HeaderTable, source: SourceSpec) -> InstanceSpec:
    count, name = read_cell(row, table, "accelerators", source.id, parse_accelerators)
    memory = None
    if "accelerator_memory" in table.columns:
        memory = read_cell(row, table, "accelerator_memory", source.id, parse_memory)
    host = None
    if "host_memory" in table.columns:
        host = read_cell(row, table, "host_memory", source.id, parse_memory)
    return InstanceSpec(
        instance_type=row_key(row, table, "instance_type", source.id),
        accelerator=name or source.options.get("accelerator", "unknown"),
        accelerator_count=count,
        accelerator_memory_value=memory[0] if memory else None,
        accelerator_memory_unit=memory[1] if memory else None,
        vcpus=read_cell(row, table, "vcpus", source.id, parse_int) if "vcpus" in table.columns else None,
        host_memory_gib=to_gib(*host) if host else None,
    )
