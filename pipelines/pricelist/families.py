"""The instance-family allowlist: which families' prices are kept (default: every accelerator family)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

# Trainium, Inferentia and AWS's NVIDIA families. A pattern is fnmatch-style on the family (the part of the
# instance type before the dot): "p6-*" covers p6-b200 and p6-b300.
DEFAULT_FAMILIES: tuple[str, ...] = (
    "trn*",
    "inf*",
    "p4d",
    "p4de",
    "p5",
    "p5e",
    "p5en",
    "p6-*",
    "p6e-*",
    "g4dn",
    "g5",
    "g6",
    "g6e",
    "g6f",
    "gr6",
)


def family_of(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def allowed(instance_type: str, families: Sequence[str] = DEFAULT_FAMILIES) -> bool:
    family = family_of(instance_type)
    return any(fnmatchcase(family, pattern) for pattern in families)


def family_regex(families: Sequence[str]) -> str:
    """The allowlist as one RE2 pattern on the whole instance type: its family (up to the first dot, or the whole
    type) matches one pattern. `*` and `?` stay within the family; every other character is literal."""
    if not families:
        return "^$.^"  # matches nothing: an empty allowlist keeps no row
    wildcards = {"*": "[^.]*", "?": "[^.]"}
    alternatives = ["".join(wildcards.get(ch) or re.escape(ch) for ch in pattern) for pattern in families]
    return f"^(?:{'|'.join(alternatives)})(?:[.]|$)"
