"""`ratecard show`: the headline views as terminal tables fitted to 100 columns (`--wide`: every column), or as
JSON (one object keyed by table name), CSV or Parquet (one table, `--table`). Read-only: safe beside a refresh."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from rich.console import Console

from pipelines.across_kinds.headline import (
    AWS_ACCELERATORS_VS_NVIDIA,
    CROSSCHECK_WARNINGS,
    GENERATIONS,
    GPU_CHEAPEST,
    HEADLINE_PRICES,
    PRICELIST_KIND_COUNTS,
    PRICELIST_REGIONS,
)
from pipelines.cli import pilot_columns, show_columns
from pipelines.cli.fitted import Printer
from pipelines.cli.formats import OutputFormat, write_tables
from pipelines.cli.reporting import Mistake
from pipelines.cli.show_columns import ShowTable
from pipelines.pilots.show import COST_PER_WORK, DECISIONS, PAYBACK
from warehouse.db import connect
from warehouse.publish import readable
from warehouse.queries import SOURCE_FRESHNESS, arrow_table

QUERIES = {
    ShowTable.aws_prices: HEADLINE_PRICES,
    ShowTable.pricelist_regions: PRICELIST_REGIONS,
    ShowTable.pricelist_kinds: PRICELIST_KIND_COUNTS,
    ShowTable.gpu_cheapest: GPU_CHEAPEST,
    ShowTable.generations: GENERATIONS,
    ShowTable.spec_crosscheck: CROSSCHECK_WARNINGS,
    ShowTable.accelerators_vs_nvidia: AWS_ACCELERATORS_VS_NVIDIA,
    ShowTable.cost_per_work: COST_PER_WORK,
    ShowTable.migration_payback: PAYBACK,
    ShowTable.deployment_decisions: DECISIONS,
    ShowTable.sources: SOURCE_FRESHNESS,
}
TITLES = {
    ShowTable.aws_prices: "AWS accelerator prices, USD excluding tax. Instance prices as printed; per-accelerator "
    "figures derived (instance price / accelerators). Region 'not stated': the page names none.",
    ShowTable.pricelist_regions: "AWS price list by region (Linux, shared tenancy), USD excluding tax: price rows "
    "by kind (reserved and Savings Plans: every plan, term and payment option; spot: indicative) and the cheapest "
    "Trainium/Inferentia on-demand type",
    ShowTable.gpu_cheapest: "Cheapest NVIDIA rental per GPU-hour, USD excluding tax: on-demand listings not stated "
    "sold out, each with its stock as its page states it (most state none), the providers offering the model and "
    "those stating stock; non-USD prices converted at the latest ECB rate on or before the fetch date (one older "
    "than the sources file's max_rate_age_days is flagged: gpu_listings.fx_rate_stale)",
    ShowTable.generations: "Accelerator generations (AWS Neuron hardware docs; launch dates: "
    "pipelines/reference/launch_dates.json)",
    ShowTable.accelerators_vs_nvidia: "AWS accelerators vs NVIDIA, USD excluding tax: the lowest figure per price "
    "kind, accelerator and measure (view accelerator_value). Dense figures only; memory in GiB; Trainium and "
    "Inferentia from the Neuron docs, NVIDIA from pipelines/reference/nvidia_gpus.json. Empty: the figure is not "
    "known.",
    ShowTable.cost_per_work: "Cost per completed work, USD excluding tax, at each offering's current price (passed "
    "pilots only)",
    ShowTable.migration_payback: "Migration payback: one-time cost / (monthly saving against the baseline - "
    "maintenance)",
    ShowTable.deployment_decisions: "Cheapest deployment per workload for its traffic profile (deployment_costs: "
    "always-on billed days_per_month x 24 h per instance, serverless its busy time plus cold starts and idle "
    "tails), USD excluding tax",
    ShowTable.sources: "Sources",
}
COLUMNS = {
    ShowTable.aws_prices: show_columns.PRICES,
    ShowTable.pricelist_regions: show_columns.REGIONS,
    ShowTable.gpu_cheapest: show_columns.GPUS,
    ShowTable.generations: show_columns.GENERATIONS,
    ShowTable.accelerators_vs_nvidia: show_columns.VERSUS,
    ShowTable.cost_per_work: pilot_columns.COST_PER_WORK,
    ShowTable.migration_payback: pilot_columns.PAYBACK,
    ShowTable.deployment_decisions: pilot_columns.DECISIONS,
    ShowTable.sources: show_columns.SOURCES,
}
PILOT_TABLES = (ShowTable.cost_per_work, ShowTable.migration_payback, ShowTable.deployment_decisions)


def reading(db: Path, wait_s: float = 30.0) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
    """The published snapshot when there is one (never the working file a refresh may be writing), read-only."""
    return connect(readable(db), read_only=True, wait_s=wait_s)


def headline_tables(db: Path, wait_s: float, only: ShowTable | None = None) -> dict[ShowTable, pa.Table]:
    """Each table's rows as the views hold them (DECIMALs exact), in the order `show` prints them."""
    wanted = [only] if only else list(ShowTable)
    with reading(db, wait_s) as con:
        return {name: arrow_table(con, QUERIES[name]) for name in wanted}


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


def print_headline(
    console: Console, db: Path, *, wait_s: float = 30.0, wide: bool = False, only: ShowTable | None = None
) -> None:
    tables = {name: rows.to_pylist() for name, rows in headline_tables(db, wait_s, only).items()}
    show = Printer(console, wide=wide)
    pilots_landed = bool(tables.get(ShowTable.cost_per_work)) or only in PILOT_TABLES
    for name, rows in tables.items():
        if name is ShowTable.pricelist_kinds:
            if rows:
                show(where_the_other_rows_are(rows))
        elif name is ShowTable.spec_crosscheck:  # a configuration total that disagrees with chips x the chip's figure
            from pipelines.fetch.offline import samples_named  # an offline run's pages are gone: name its samples

            for row in rows:
                show(f"[yellow]spec cross-check:[/] {samples_named(row['warning'])}")
        elif name in PILOT_TABLES and not pilots_landed:
            continue  # no pilot has landed (ratecard pilot): an empty table would only be noise
        elif name is not ShowTable.deployment_decisions or rows:
            show.table(TITLES[name], rows, COLUMNS[name])


def write_headline(db: Path, fmt: OutputFormat, output: Path | None, only: ShowTable | None, wait_s: float) -> None:
    """JSON: one object keyed by table name (every table, or the one asked); CSV and Parquet: the --table asked."""
    if fmt is not OutputFormat.json and only is None:
        names = ", ".join(ShowTable)
        raise Mistake(f"--format {fmt.value} writes one table: name it with --table", f"one of {names}")
    tables = headline_tables(db, wait_s, only)
    write_tables({name.value: rows for name, rows in tables.items()}, fmt, output, only and only.value)
