"""AWS EC2 product pages (Trn1, Inf1, Inf2, Trn2, Trn3): the "Product details" table, one row per size.

Prices there are USD per whole instance-hour and the page names no region, so every price lands with
region NULL (not stated). Trn2/Trn3 pages print specs but no price: they yield specs and no price rows.
"""

from __future__ import annotations

from decimal import Decimal

from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.reading.tables import Column, HeaderTable, Row, locate, read_cell, row_key, soup_of
from pipelines.reading.values import parse_accelerators, parse_int, parse_memory_in, parse_usd, unit_in_header
from pipelines.sources.file import SourceSpec
from schemas.units import to_gib

PARSER_VERSION = "aws_product_page/1.0"

PRICE_COLUMNS = {
    "on_demand": PriceKind.ON_DEMAND,
    "reserved_1y": PriceKind.RESERVED_1Y,
    "reserved_3y": PriceKind.RESERVED_3Y,
}


def columns(source: SourceSpec) -> list[Column]:
    derived_memory = source.options.get("memory_per_accelerator_gib") is not None
    return [
        Column("instance_type", (r"^instance (size|type|name)",)),
        Column(
            "accelerator_memory",
            (r"accelerator memory", r"device memory", r"neuron memory"),
            required=not derived_memory,
        ),
        Column("accelerators", (r"chips", r"^accelerators?\b", r"^(trainium|inferentia)\d*$")),
        Column("vcpus", (r"vcpu",), required=False),
        Column("host_memory", (r"instance memory", r"host memory", r"^memory"), required=False),
        Column("on_demand", (r"on-?\s?demand",), required=source.expects_prices),
        Column("reserved_1y", (r"\b1-?\s?(year|yr)",), required=False),
        Column("reserved_3y", (r"\b3-?\s?(year|yr)",), required=False),
    ]


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SourceBatch:
    table = locate(soup_of(body, charset), columns(source), source.id)
    specs: list[InstanceSpec] = []
    prices: list[InstancePrice] = []
    for row in table.rows("instance_type"):
        spec = _spec(row, table, source)
        specs.append(spec)
        prices.extend(_prices(row, table, source, spec))
    return SourceBatch(
        source_id=source.id, parser_version=PARSER_VERSION, specs=specs, prices=prices, shape=table.fingerprint
    )


def _spec(row: Row, table: HeaderTable, source: SourceSpec) -> InstanceSpec:
    count, printed_name = read_cell(row, table, "accelerators", source.id, parse_accelerators)
    memory = None
    if "accelerator_memory" in table.columns:
        unit = unit_in_header(table.header_of("accelerator_memory"))
        memory = read_cell(row, table, "accelerator_memory", source.id, lambda t: parse_memory_in(t, unit))
    derived = memory is None and source.options.get("memory_per_accelerator_gib") is not None
    if derived:
        per_chip = Decimal(str(source.options["memory_per_accelerator_gib"]))
        memory = (per_chip * count, "GiB")
    host = None
    if "host_memory" in table.columns:
        unit = unit_in_header(table.header_of("host_memory")) or "GiB"
        host = read_cell(row, table, "host_memory", source.id, lambda t: parse_memory_in(t, unit))
    return InstanceSpec(
        instance_type=row_key(row, table, "instance_type", source.id),
        accelerator=printed_name or source.options["accelerator"],
        accelerator_count=count,
        accelerator_memory_value=memory[0] if memory else None,
        accelerator_memory_unit=memory[1] if memory else None,
        accelerator_memory_derived=derived,
        accelerator_memory_basis=source.options.get("memory_basis") if derived else None,
        vcpus=read_cell(row, table, "vcpus", source.id, parse_int) if "vcpus" in table.columns else None,
        host_memory_gib=to_gib(*host) if host else None,
    )


def _prices(row: Row, table: HeaderTable, source: SourceSpec, spec: InstanceSpec) -> list[InstancePrice]:
    prices = []
    for key, kind in PRICE_COLUMNS.items():
        if key not in table.columns:
            continue
        amount = read_cell(row, table, key, source.id, parse_usd)
        if amount is None:  # an empty cell is an absent price, never a zero
            continue
        prices.append(
            InstancePrice(
                instance_type=spec.instance_type,
                price_kind=kind,
                usd_per_instance_hour=amount,
                accelerator_count=spec.accelerator_count,
                region=None,
            )
        )
    return prices
