"""The accelerator figures of one instance type: from the price list's own attributes, corrected by the curated figures.

The price list's `GPU` attribute gives the accelerator count (a whole number) or the instance's share of one GPU
(a fraction, g6f), and `GPU Memory` the instance's accelerator memory as printed. The curated figures
(curated.toml) holds only what the data lacks or gets wrong, each entry with its reason: the accelerator model
per family (the price list names none), Neuron device counts (AWS's `GPU` is unreliable there) and GPU shares.
Where a curated figure and the price list disagree, the curated one is used and the disagreement is a warning
naming both. A type is unpriced (None) when it is an accelerator type without a usable count; the caller fails
its source with the types named, never dropping them quietly.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pipelines.pricelist.families import family_of
from pipelines.pricelist.records import CountBasis, MemoryBasis
from pipelines.reading.values import parse_memory

CURATED_FILE = Path(__file__).resolve().parent / "curated.toml"
NOT_GIVEN = {"", "na", "n/a"}


@dataclass(frozen=True)
class CuratedEntry:
    why: str
    count: int | None = None
    memory_value: Decimal | None = None  # per accelerator, as printed
    memory_unit: str | None = None
    share: Decimal | None = None  # a fractional GPU: the instance's share of one


@dataclass(frozen=True)
class CuratedFigures:
    families: dict[str, str] = field(default_factory=dict)  # family -> accelerator model
    types: dict[str, CuratedEntry] = field(default_factory=dict)

    def accelerator(self, instance_type: str) -> str | None:
        return self.families.get(family_of(instance_type))


def _entry(instance_type: str, entry: dict[str, Any], path: Path) -> CuratedEntry:
    if not entry.get("why"):
        raise ValueError(f"{path}: {instance_type} does not say why it is curated")
    memory = parse_memory(entry["memory"]) if "memory" in entry else None
    share = Decimal(entry["share"]) if "share" in entry else None
    if share is not None and not 0 < share < 1:
        raise ValueError(f"{path}: {instance_type} share {share} is not a fraction of one GPU")
    count = int(entry["count"]) if "count" in entry else None
    value, unit = memory or (None, None)
    return CuratedEntry(entry["why"], count, memory_value=value, memory_unit=unit, share=share)


def load_curated(path: Path = CURATED_FILE) -> CuratedFigures:
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    types = {name: _entry(name, entry, path) for name, entry in document.get("types", {}).items()}
    return CuratedFigures(dict(document.get("families", {})), types)


def given(text: str | None) -> str | None:
    """An attribute as printed, or None where the price list prints nothing ("", "NA")."""
    return None if text is None or text.strip().lower() in NOT_GIVEN else text.strip()


def _number(gpu: str | None) -> Decimal | None:
    try:
        value = Decimal(gpu) if gpu is not None else None
    except InvalidOperation:
        return None
    return value if value is not None and value.is_finite() else None


def _whole_count(gpu: str | None) -> int | None:
    value = _number(gpu)
    return int(value) if value is not None and value >= 1 and value == value.to_integral_value() else None


def _fraction(gpu: str | None) -> Decimal | None:
    value = _number(gpu)
    return value if value is not None and 0 < value < 1 else None


def accelerator_fields(
    instance_type: str, gpu: str | None, gpu_memory: str | None, curated: CuratedFigures
) -> tuple[dict[str, Any] | None, list[str]]:
    """The PriceListPrice accelerator fields for one type and warnings; None (with the reason as the only
    warning) when no count or share is known."""
    gpu, gpu_memory = given(gpu), given(gpu_memory)
    entry = curated.types.get(instance_type)
    warnings: list[str] = []
    divisor = _curated_divisor(instance_type, entry, gpu, warnings)
    if divisor is None:
        divisor = _data_divisor(gpu)
    if divisor is None:
        why = f"its GPU attribute is {gpu!r}" if gpu is not None else "the price list gives it no GPU attribute"
        return None, [f"{instance_type}: no accelerator count ({why}) and no curated entry"]
    fields: dict[str, Any] = {"accelerator": curated.accelerator(instance_type), "price_list_gpu": gpu, **divisor}
    fields.update(_memory_fields(instance_type, gpu_memory, entry, fields["accelerator_count"], warnings))
    return fields, warnings


def _curated_divisor(
    instance_type: str, entry: CuratedEntry | None, gpu: str | None, warnings: list[str]
) -> dict[str, Any] | None:
    if entry is None or (entry.count is None and entry.share is None):
        return None
    if entry.share is not None:
        if gpu is not None and _fraction(gpu) != entry.share:
            warnings.append(
                f"{instance_type}: the curated figures say a {entry.share} share of one GPU, the price list's GPU says "
                f"{gpu}; the curated share is used"
            )
        return {"accelerator_count": 1, "accelerator_share": entry.share, "accelerator_count_basis": CountBasis.CATALOG}
    if gpu is not None and _whole_count(gpu) != entry.count:
        warnings.append(
            f"{instance_type}: the curated figures say {entry.count} accelerators, the price list's GPU says {gpu}; "
            "the curated count is used"
        )
    return {"accelerator_count": entry.count, "accelerator_count_basis": CountBasis.CATALOG}


def _data_divisor(gpu: str | None) -> dict[str, Any] | None:
    if (count := _whole_count(gpu)) is not None:
        return {"accelerator_count": count, "accelerator_count_basis": CountBasis.PRICE_LIST}
    if (share := _fraction(gpu)) is not None:
        return {"accelerator_count": 1, "accelerator_share": share, "accelerator_count_basis": CountBasis.PRICE_LIST}
    return None


def _memory_fields(
    instance_type: str, printed: str | None, entry: CuratedEntry | None, count: int, warnings: list[str]
) -> dict[str, Any]:
    if printed is not None:
        try:
            memory = parse_memory(printed)
        except ValueError:
            memory = None
            warnings.append(f"{instance_type}: GPU Memory {printed!r} has no figure with a unit")
        if memory is not None:
            return {
                "accelerator_memory_printed": printed,
                "accelerator_memory_value": memory[0],
                "accelerator_memory_unit": memory[1],
                "accelerator_memory_basis": MemoryBasis.PRICE_LIST,
            }
    if entry is None or entry.memory_value is None:
        return {"accelerator_memory_printed": printed}
    return {
        "accelerator_memory_printed": printed,
        "accelerator_memory_value": entry.memory_value * count,
        "accelerator_memory_unit": entry.memory_unit,
        "accelerator_memory_basis": MemoryBasis.CATALOG,
    }


def is_accelerator_type(instance_type: str, gpu: str | None, curated: CuratedFigures) -> bool:
    """Whether a type has accelerators by the data or the curated figures: such a type must be priced or fail its
    source. m5.large (no GPU attribute, no family entry) is not one."""
    printed = _number(given(gpu))
    has_gpu = printed is not None and printed > 0
    return has_gpu or curated.accelerator(instance_type) is not None or instance_type in curated.types
