"""The columns of `ratecard show`'s tables: which the 100-column table keeps, how it prints each (fields as the
headline queries name them, in `pipelines/across_kinds/headline.py`)."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import Any

from pipelines.cli.fitted import Column, printed


def money(value: Decimal | None) -> str:
    """Dollars with the digits the figure has, never fewer than cents nor more than 4: 21.500000 -> 21.50."""
    if value is None:
        return ""
    places = -value.normalize().as_tuple().exponent  # type: ignore[operator]
    return printed(value, min(max(places, 2), 4))


def memory(row: dict[str, Any]) -> str:
    if row["accelerator_memory_value"] is None:
        return ""
    derived = " (derived)" if row["accelerator_memory_derived"] else ""
    return f"{printed(row['accelerator_memory_value'])} {row['accelerator_memory_unit']}{derived}"


def launch(row: dict[str, Any]) -> str:
    if not row["launch_date"]:
        return ""
    preview = " (preview)" if row["launch_status"] == "preview" else ""
    return f"{row['launch_family']} {row['launch_date']}{preview}"


def neuron_source(row: dict[str, Any]) -> str:
    if not row["doc_version"]:
        return str(row["source_url"])
    return f"{row['source_url'].rsplit('/', 1)[-1]} (Neuron docs v{row['doc_version']})"


def fp8(row: dict[str, Any]) -> str:
    """The 8-bit float figure with its format named beside it (FP8, cFP8), empty when not known."""
    figure = row["usd_per_dense_pflop_hour_fp8"]
    return "" if figure is None else f"{printed(figure, 4)} ({row['fp8_format']})"


PRICES = [
    Column("instance_type", "instance"),
    Column("accelerator", "accelerator"),
    Column("accels", "accels", places=0),
    Column("accelerator_memory_value", "accel memory (as printed)", narrow=False, cell=memory),
    Column("price_kind", "price kind"),
    Column("region", "region", keep=14),
    Column("usd_per_instance_hour", "USD/instance-h", short="USD/\ninstance-h", figure=True,
           cell=lambda r: money(r["usd_per_instance_hour"])),
    Column("usd_per_accelerator_hour_4dp", "USD/accel-h (4 dp)", short="USD/\naccel-h", places=4),
]  # fmt: skip
REGIONS = [
    Column("region", "region"),
    Column("types", "types", places=0),
    Column("on_demand", "on-demand", places=0),
    Column("reserved", "reserved", places=0),
    Column("savings_plans", "Savings Plans", short="Savings\nPlans", places=0),
    Column("spot", "spot", places=0),
    Column("cheapest_neuron", "cheapest trn/inf on-demand", short="cheapest\ntrn/inf"),
    Column("cheapest_neuron_usd_per_instance_hour", "USD/instance-h", short="USD/\ninst-h", figure=True,
           cell=lambda r: money(r["cheapest_neuron_usd_per_instance_hour"])),
]  # fmt: skip
GPUS = [
    Column("gpu_model", "GPU"),
    Column("usd_per_gpu_hour", "cheapest USD/GPU-h", short="cheapest\nUSD/GPU-h", figure=True,
           cell=lambda r: money(r["usd_per_gpu_hour"])),
    Column("provider", "provider"),
    Column("stock_status", "its stock"),
    Column("providers_offering", "providers (not sold out)", short="providers\n(not sold\nout)", places=0),
    Column("providers_in_stock", "of them stating stock", short="stating\nstock", places=0),
    Column("listing", "listing", keep=24),
    Column("original_amount", "as printed", narrow=False,
           cell=lambda r: f"{money(r['original_amount'])} {r['original_currency']} {r['original_unit']}"),
]  # fmt: skip
GENERATIONS = [
    Column("chip", "chip"),
    Column("launch_date", "launch", cell=launch),
    Column("memory_printed", "memory (as printed)", short="memory"),
    Column("bandwidth_printed", "bandwidth (as printed)", short="bandwidth"),
    Column("dense_formats", "dense compute per format"),
    Column("sparse_formats", "sparse (never used as dense)", narrow=False),
    Column("source_url", "source (Neuron docs release)", narrow=False, cell=neuron_source),
]
VERSUS = [
    Column("price_kind", "price kind", short="kind"),
    Column("accelerator", "accelerator"),
    Column("spec_source", "figures from"),
    Column("price_rows", "price rows", places=0, narrow=False),
    Column("usd_per_accelerator_hour", "USD/accel-h", short="USD/\naccel-h", places=4),
    Column("usd_per_gib_memory_hour", "USD/GiB-h", short="USD/\nGiB-h", places=4),
    Column("usd_per_dense_pflop_hour_bf16", "USD/dense BF16 PFLOP-h", short="USD/BF16\nPFLOP-h", places=4),
    Column("usd_per_dense_pflop_hour_fp8", "USD/dense 8-bit PFLOP-h (format)", short="USD/8-bit\nPFLOP-h",
           figure=True, cell=fp8),
]  # fmt: skip
SOURCES = [
    Column("source_id", "source"),
    Column("last_outcome", "last outcome", short="outcome"),
    Column("last_good_at", "last good"),
    Column("last_attempt_at", "last attempt", narrow=False),
    Column("last_error", "last error"),
]


class ShowTable(StrEnum):
    """The tables `show` prints, by the names its JSON keys them with and `--table` chooses."""

    aws_prices = "aws_prices"
    pricelist_regions = "pricelist_regions"
    pricelist_kinds = "pricelist_kinds"
    gpu_cheapest = "gpu_cheapest"
    generations = "generations"
    spec_crosscheck = "spec_crosscheck"
    accelerators_vs_nvidia = "accelerators_vs_nvidia"
    cost_per_work = "cost_per_work"
    migration_payback = "migration_payback"
    deployment_decisions = "deployment_decisions"
    sources = "sources"
