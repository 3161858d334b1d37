"""ratecard's instance catalog and the accelerator figures of one price-list row.

The count comes from the catalog where it knows the type, else from the price list's `gpu` when that is a
whole number; a disagreement between the two is a warning naming both. Memory is for the whole instance (as in
`InstanceSpec`): the price list's `gpuMemory` as printed when it gives one, else the catalog's per-accelerator
figure times the count.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pipelines.reading.values import parse_memory
from schemas.pricelist import CountBasis, MemoryBasis

CATALOG_FILE = Path(__file__).resolve().parent / "catalog.toml"
NOT_GIVEN = {"", "na", "n/a"}


@dataclass(frozen=True)
class CatalogEntry:
    accelerator: str
    count: int
    memory_value: Decimal  # per accelerator, as printed
    memory_unit: str


def load_catalog(path: Path = CATALOG_FILE) -> dict[str, CatalogEntry]:
    types = tomllib.loads(path.read_text(encoding="utf-8"))["types"]
    catalog = {}
    for instance_type, entry in types.items():
        memory = parse_memory(entry["memory"])
        if memory is None:
            raise ValueError(f"{path}: {instance_type} has no memory figure")
        catalog[instance_type] = CatalogEntry(entry["accelerator"], int(entry["count"]), *memory)
    return catalog


def _given(text: str | None) -> str | None:
    return None if text is None or text.strip().lower() in NOT_GIVEN else text.strip()


def _whole_count(gpu: str | None) -> int | None:
    try:
        value = Decimal(gpu) if gpu is not None else None
    except InvalidOperation:
        return None
    return int(value) if value is not None and value >= 1 and value == value.to_integral_value() else None


def accelerator_fields(
    instance_type: str, gpu: str | None, gpu_memory: str | None, catalog: dict[str, CatalogEntry]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The PriceListPrice accelerator fields for one type, and warnings; None when no whole count is known."""
    warnings: list[str] = []
    gpu, gpu_memory = _given(gpu), _given(gpu_memory)
    entry = catalog.get(instance_type)
    if entry is not None:
        if gpu is not None and _whole_count(gpu) != entry.count:
            warnings.append(
                f"{instance_type}: the catalog says {entry.count} accelerators, the price list's gpu says {gpu}; "
                "the catalog's count is used"
            )
        fields: dict[str, Any] = {
            "accelerator": entry.accelerator,
            "accelerator_count": entry.count,
            "accelerator_count_basis": CountBasis.CATALOG,
        }
    elif (count := _whole_count(gpu)) is not None:
        fields = {"accelerator_count": count, "accelerator_count_basis": CountBasis.PRICE_LIST}
    else:
        why = f"its gpu attribute is {gpu!r}" if gpu is not None else "it has no gpu attribute"
        return None, [f"{instance_type}: not in the catalog and {why}, so no whole accelerator count: no row"]
    fields["price_list_gpu"] = gpu
    fields.update(_memory_fields(instance_type, gpu_memory, entry, fields["accelerator_count"], warnings))
    return fields, warnings


def _memory_fields(
    instance_type: str, printed: str | None, entry: CatalogEntry | None, count: int, warnings: list[str]
) -> dict[str, Any]:
    if printed is not None:
        try:
            memory = parse_memory(printed)
        except ValueError:
            memory = None
            warnings.append(f"{instance_type}: gpuMemory {printed!r} has no figure with a unit")
        if memory is not None:
            return {
                "accelerator_memory_printed": printed,
                "accelerator_memory_value": memory[0],
                "accelerator_memory_unit": memory[1],
                "accelerator_memory_basis": MemoryBasis.PRICE_LIST,
            }
    if entry is None:
        return {"accelerator_memory_printed": printed}
    return {
        "accelerator_memory_printed": printed,
        "accelerator_memory_value": entry.memory_value * count,
        "accelerator_memory_unit": entry.memory_unit,
        "accelerator_memory_basis": MemoryBasis.CATALOG,
    }
