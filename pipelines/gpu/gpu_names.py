"""The canonical accelerator table for rented accelerators: provider names -> model, variant and memory (in GB, as
the vendor prints it). NVIDIA's GPUs, and Google's TPUs (canonical names beginning "TPU", as Google's docs title
them).

Providers name one GPU many ways (`H100 SXM`, `NVIDIA H100 80GB HBM3`, `HGX H100`, `8x NVIDIA H100 SXM`).
Rules are tried in order, first match wins, on the upper-cased name with vendor words removed. A name no rule
knows gets model None: it is kept and reported, never dropped and never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class CanonicalGpu:
    model: str
    variant: str | None
    memory_gb: Decimal | None  # per GPU as NVIDIA prints it: decimal GB (80GB HBM3), not GiB


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    model: str
    memory_gb: int | None
    variants: tuple[tuple[str, str], ...] = ()  # (regex, variant) tried in order; else default_variant
    default_variant: str | None = None


def _rule(
    pattern: str,
    model: str,
    memory_gb: int | None,
    variants: tuple[tuple[str, str], ...] = (),
    default_variant: str | None = None,
) -> _Rule:
    return _Rule(re.compile(pattern), model, memory_gb, variants, default_variant)


_FORM = ((r"PCIE", "PCIe"), (r"\bNVL\b|NVL\d", "NVL"), (r"SXM|HBM3|HGX|NVLINK", "SXM"))

RULES: list[_Rule] = [
    _rule(r"\bGH200\b", "GH200", 96),
    _rule(r"\bGB200\b", "GB200", 186),
    _rule(r"(?<![A-Z])B200\b", "B200", 180, default_variant="SXM"),
    _rule(r"\bH200\b", "H200", 141, variants=((r"\bNVL\b", "NVL"),), default_variant="SXM"),
    _rule(r"\bH100\b.*\bNVL\b", "H100", 94, default_variant="NVL"),
    _rule(r"\bH100\b", "H100", 80, variants=((r"PCIE", "PCIe"),), default_variant="SXM"),
    _rule(r"\bA100\b.*\b80\s?GB\b|\b80\s?GB\b.*\bA100\b", "A100", 80, variants=_FORM[:1] + _FORM[2:]),
    _rule(r"\bA100\b.*\b40\s?GB\b", "A100", 40, variants=_FORM[:1] + _FORM[2:]),
    _rule(r"\bA100\b", "A100", None, variants=_FORM[:1] + _FORM[2:]),
    _rule(r"\bL40S\b", "L40S", 48),
    _rule(r"\bL40\b", "L40", 48),
    _rule(r"\bL4\b", "L4", 24),
    _rule(r"\bA10G\b", "A10G", 24),
    _rule(r"\bA10\b", "A10", 24),
    _rule(r"\bA40\b", "A40", 48),
    _rule(r"\bRTX\s?A6000\b", "RTX A6000", 48),
    _rule(r"\bRTX\s?6000\s?ADA\b", "RTX 6000 Ada", 48),
    # Blackwell's RTX PRO 6000 (workstation, Max-Q and server editions): 96 GB GDDR7 in every edition.
    _rule(r"\bRTX\s?PRO\s?6000\b", "RTX PRO 6000", 96),
    _rule(r"\bRTX\s?5090\b", "RTX 5090", 32),
    _rule(r"\bRTX\s?4090\b", "RTX 4090", 24),
    _rule(r"\bRTX\s?3090\b", "RTX 3090", 24),
    _rule(r"\bV100\b.*\b32\s?GB\b", "V100", 32),
    _rule(r"\bV100\b", "V100", 16),
    _rule(r"\bT4\b", "T4", 16),
    # Google's TPUs, by the names its docs title them (and the Billing Catalog's TpuV6e); HBM per chip as Google
    # prints it in GB.
    _rule(r"\bTPU\s?V5(E|\s?LITE(POD)?)\b", "TPU v5e", 16),
    _rule(r"\bTPU\s?V5P\b", "TPU v5p", 95),
    _rule(r"\bTPU\s?V6E\b|\bTRILLIUM\b", "TPU v6e", 32),
    _rule(r"\bTPU\s?7X\b|\bIRONWOOD\b", "TPU7x", 192),
]

_VENDOR_WORDS = re.compile(r"\b(NVIDIA|GEFORCE|TESLA)\b")
_COUNT_PREFIX = re.compile(r"^\s*\d+\s*(X|×|PCS)\s+")


def _normalised(name: str) -> str:
    upper = _COUNT_PREFIX.sub("", name.upper())
    return " ".join(_VENDOR_WORDS.sub(" ", upper).split())


def canonical(name: str) -> CanonicalGpu | None:
    """The canonical GPU for a provider's name, or None when no rule knows it."""
    text = _normalised(name)
    for rule in RULES:
        if rule.pattern.search(text):
            variant = next((v for pattern, v in rule.variants if re.search(pattern, text)), rule.default_variant)
            memory = Decimal(rule.memory_gb) if rule.memory_gb is not None else None
            return CanonicalGpu(rule.model, variant, memory)
    return None
