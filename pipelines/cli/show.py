"""Render the headline views as terminal tables (read-only: safe beside a running refresh's readers)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import duckdb
from rich.console import Console
from rich.table import Table

from pipelines.across_kinds.headline import (
    CROSSCHECK_WARNINGS,
    GENERATIONS,
    GPU_CHEAPEST,
    HEADLINE_PRICES,
    PRICELIST_KIND_COUNTS,
    PRICELIST_REGIONS,
    TRAINIUM_VS_NVIDIA,
)
from pipelines.pilots.show import pilot_rows, print_pilots
from warehouse.db import connect
from warehouse.publish import readable
from warehouse.queries import SOURCE_FRESHNESS, rows_as_dicts

PRICE_HEADERS = {
    "instance_type": "instance",
    "accelerator": "accelerator",
    "accels": "accels",
    "accel_memory": "accel memory (as printed)",
    "price_kind": "price kind",
    "region": "region",
    "usd_per_instance_hour": "USD/instance-h",
    "usd_per_accelerator_hour": "USD/accel-h exact",
    "usd_per_accelerator_hour_4dp": "USD/accel-h 4dp",
}
MONEY_TRIMMED = {"usd_per_instance_hour", "usd_per_accelerator_hour"}
GPU_HEADERS = {
    "gpu_model": "GPU",
    "usd_per_gpu_hour": "cheapest USD/GPU-h",
    "provider": "provider",
    "stock_status": "its stock",
    "providers_offering": "providers (not sold out)",
    "providers_in_stock": "of them stating stock",
    "listing": "listing",
    "original_price": "as printed",
}
GENERATION_HEADERS = {
    "chip": "chip",
    "launch": "launch",
    "memory_printed": "memory (as printed)",
    "bandwidth_printed": "bandwidth (as printed)",
    "dense_formats": "dense compute per format",
    "sparse_formats": "sparse (never used as dense)",
    "source": "source (Neuron docs release)",
}
VALUE_HEADERS = {
    "price_kind": "price kind",
    "accelerator": "accelerator",
    "spec_source": "figures from",
    "price_rows": "price rows",
    "usd_per_accelerator_hour": "USD/accel-h",
    "usd_per_gib_memory_hour": "USD/GiB-h",
    "usd_per_dense_pflop_hour_bf16": "USD/dense BF16 PFLOP-h",
    "usd_per_dense_pflop_hour_fp8": "USD/dense 8-bit PFLOP-h (format)",
}
FOUR_DP = Decimal("0.0001")


REGION_HEADERS = {
    "region": "region",
    "types": "types",
    "on_demand": "on-demand",
    "reserved": "reserved",
    "savings_plans": "Savings Plans",
    "spot": "spot",
    "cheapest_neuron": "cheapest trn/inf on-demand",
    "cheapest_neuron_usd": "USD/instance-h",
}


def plain(value: Decimal) -> str:
    """A Decimal without its storage scale's trailing zeros: 1.500000 -> 1.5, 320.000000 -> 320."""
    return format(value.normalize(), "f")


def money(value: Decimal) -> str:
    """Dollars with the digits the figure has, never fewer than cents: 21.500000 -> 21.50, 1.34375 stays."""
    text = plain(value)
    whole, _, cents = text.partition(".")
    return f"{whole}.{cents.ljust(2, '0')}"


def headline_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        memory = ""
        if row["accelerator_memory_value"] is not None:
            memory = f"{plain(row['accelerator_memory_value'])} {row['accelerator_memory_unit']}"
            memory += " (derived)" if row["accelerator_memory_derived"] else ""
        shown = {key: row.get(key) for key in PRICE_HEADERS}
        shown["accel_memory"] = memory
        for key in MONEY_TRIMMED:
            shown[key] = money(row[key])
        out.append(shown)
    return out


def gpu_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **row,
            "usd_per_gpu_hour": money(row["usd_per_gpu_hour"]),
            "original_price": f"{money(row['original_amount'])} {row['original_currency']} {row['original_unit']}",
        }
        for row in rows
    ]


def region_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**row, "cheapest_neuron_usd": money(row["cheapest_neuron_usd"]) if row["cheapest_neuron_usd"] else None}
        for row in rows
    ]


def where_the_other_rows_are(counts: list[dict[str, Any]]) -> str:
    """One line naming the price-list rows listed only as counts above, and where each kind is to be read."""
    kinds = "; ".join(
        f"{row['price_kind']}: {row['price_rows']:,} rows, {row['types']} types in {row['regions']} region(s)"
        for row in counts
    )
    return (
        f"Not listed row by row ({kinds}): `ratecard history TYPE --kind KIND --region R`, or the view "
        "aws_prices_by_region, each row with its terms (lease_years, purchase_option, offering_class; "
        "a Savings Plan's kind names its plan: compute_savings_plan, ec2_instance_savings_plan)."
    )


def generation_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **row,
            "launch": f"{row['launch_family']} {row['launch_date']}"
            + (" (preview)" if row["launch_status"] == "preview" else "")
            if row["launch_date"]
            else "",
            "source": f"{row['source_url'].rsplit('/', 1)[-1]} (Neuron docs v{row['doc_version']})"
            if row["doc_version"]
            else row["source_url"],
        }
        for row in rows
    ]


def value_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Four decimals, half up; a figure not known stays empty; the 8-bit float format is named beside its figure."""

    def four(value: Decimal | None) -> str | None:
        return None if value is None else str(value.quantize(FOUR_DP, rounding=ROUND_HALF_UP))

    out = []
    for row in rows:
        shown = {key: four(row[key]) if key.startswith("usd") else row[key] for key in VALUE_HEADERS}
        if shown["usd_per_dense_pflop_hour_fp8"] is not None:
            shown["usd_per_dense_pflop_hour_fp8"] += f" ({row['fp8_format']})"
        out.append(shown)
    return out


def rows_table(title: str, rows: list[dict[str, Any]], headers: dict[str, str] | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    names = list(headers or (rows[0] if rows else {}))
    for name in names:
        sample = rows[0][name] if rows else None
        numeric = (isinstance(sample, (int, Decimal)) and not isinstance(sample, bool)) or name.startswith("usd")
        table.add_column((headers or {}).get(name, name), justify="right" if numeric else "left")
    for row in rows:
        table.add_row(*("" if row[n] is None else str(row[n]) for n in names))
    return table


def reading(db: Path, wait_s: float = 30.0) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
    """The published snapshot when there is one (never the working file a refresh may be writing), read-only."""
    return connect(readable(db), read_only=True, wait_s=wait_s)


def print_headline(console: Console, db: Path, *, wait_s: float = 30.0) -> None:
    with reading(db, wait_s) as con:
        prices = rows_as_dicts(con, HEADLINE_PRICES)
        freshness = rows_as_dicts(con, SOURCE_FRESHNESS)
        cheapest = rows_as_dicts(con, GPU_CHEAPEST)
        regions = rows_as_dicts(con, PRICELIST_REGIONS)
        kind_counts = rows_as_dicts(con, PRICELIST_KIND_COUNTS)
        generations = rows_as_dicts(con, GENERATIONS)
        warnings = [row["warning"] for row in rows_as_dicts(con, CROSSCHECK_WARNINGS)]
        value = rows_as_dicts(con, TRAINIUM_VS_NVIDIA)
        pilots = pilot_rows(con)
    console.print(
        rows_table(
            "AWS accelerator prices, USD excluding tax. Instance prices as printed; "
            "per-accelerator figures derived (instance price / accelerators). "
            "Region 'not stated': the page names none.",
            headline_rows(prices),
            PRICE_HEADERS,
        )
    )
    console.print(
        rows_table(
            "AWS price list by region (Linux, shared tenancy), USD excluding tax: price rows by kind (reserved and "
            "Savings Plans: every plan, term and payment option; spot: indicative) and the cheapest "
            "Trainium/Inferentia on-demand type",
            region_rows(regions),
            REGION_HEADERS,
        )
    )
    if kind_counts:
        console.print(where_the_other_rows_are(kind_counts))
    console.print(
        rows_table(
            "Cheapest NVIDIA rental per GPU-hour, USD excluding tax: on-demand listings in stock "
            "only; non-USD prices converted at the latest ECB rate on or before the fetch date (one older than "
            "the sources file's max_rate_age_days is flagged: gpu_listings.fx_rate_stale)",
            gpu_rows(cheapest),
            GPU_HEADERS,
        )
    )
    console.print(
        rows_table(
            "Accelerator generations (AWS Neuron hardware docs; launch dates: pipelines/reference/launch_dates.json)",
            generation_rows(generations),
            GENERATION_HEADERS,
        )
    )
    for warning in warnings:  # a configuration total that disagrees with chips x the chip page's figure
        console.print(f"[yellow]spec cross-check:[/] {warning}")
    console.print(
        rows_table(
            "Trainium vs NVIDIA, USD excluding tax: the lowest figure per price kind, accelerator and measure "
            "(view accelerator_value). Dense figures only; memory in GiB; Trainium from the Neuron docs, NVIDIA "
            "from pipelines/reference/nvidia_gpus.json. Empty: the figure is not known.",
            value_rows(value),
            VALUE_HEADERS,
        )
    )
    print_pilots(console, pilots)  # user pilots (ratecard pilot), when any have landed
    console.print(rows_table("Sources", freshness))
