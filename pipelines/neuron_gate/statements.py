"""Status statements found by their words in a documentation page's text units (a bullet, a paragraph, a heading,
a table cell), never by position or styling.

Three ways the Neuron docs state a status, each a pattern:
- a name tagged with its status: "PyTorch NeuronX (torch-neuronx) (supported): ...", "vLLM Neuron (Beta)";
- a scoped tag: "vLLM Neuron (Beta — Trn2/Trn3 only)";
- a sentence: "JAX NeuronX is currently in beta.";
and an exclusion that dates itself: "(This library is not included in Neuron 2.32.0 and later versions.)", which
applies to the name tagged in the same unit. What a page says of one package in several places is one statement:
its most restrictive status (STATUS_ORDER), every word printed, the instance families named, each sentence quoted.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pipelines.neuron_gate.records import STATUS_ORDER, GateStatus, SupportStatement

_WORDS = r"(?:recommended|supported|archived|beta|deprecated)"
_NAME = r"[A-Za-z][\w.+\-]*(?: [A-Za-z][\w.+\-]*){0,3}"
_TAGGED = re.compile(
    rf"(?P<name>{_NAME})\s*(?:\((?P<package>[a-z][\w.\-]*)\)\s*)?\((?P<status>{_WORDS})\)", re.IGNORECASE
)
_SCOPED = re.compile(rf"(?P<name>{_NAME})\s*\((?P<status>beta)\s*[—–-]+\s*(?P<scope>[^)]+)\)", re.IGNORECASE)
_SENTENCE = re.compile(rf"(?P<name>{_NAME}) is (?:currently |now )?in (?P<status>beta)\b", re.IGNORECASE)
_NOT_INCLUDED = re.compile(
    r"not (?:be )?included in (?:the )?(?:AWS )?(?:Neuron )?(?:SDK )?(?:version )?(?P<release>\d+\.\d+\.\d+)"
    r"(?: release)? and later",
    re.IGNORECASE,
)
_INSTANCE = re.compile(r"\b(trn|inf)(\d+)(n?)\b", re.IGNORECASE)
# Families named as the only ones: "Trn2/Trn3 only", "Inf1 only", "Trn1 and Trn2 only".
_ONLY = re.compile(r"\b(?:trn|inf)\d+n?(?:\s*(?:/|,|&|and|or)\s*(?:trn|inf)\d+n?)*\s+only\b", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:the|a|an|option \d+|and|or)\s+)+", re.IGNORECASE)
# A status word the docs use that is one of ours under another name.
_SYNONYMS: dict[str, GateStatus] = {"deprecated": "archived"}
_NAMES_FILE = Path(__file__).resolve().parent / "package_names.toml"


@cache
def known_names() -> dict[str, tuple[str, str | None]]:
    """Known names (lower case) -> (the name as printed, the manifest's package name or None)."""
    with _NAMES_FILE.open("rb") as handle:
        return {k.lower(): (k, v or None) for k, v in tomllib.load(handle)["frameworks"].items()}


def framework_named(printed: str) -> str:
    """The longest known name the printed words contain, else the words as printed."""
    words = f" {printed.lower()} "
    known = [name for key, (name, _) in known_names().items() if f" {key} " in words]
    return max(known, key=len) if known else printed


@dataclass
class _Found:
    framework: str
    package: str
    statuses: list[str] = field(default_factory=list)
    instances: set[str] = field(default_factory=set)
    only: bool = False  # some statement of it limits it to the families it names
    from_release: str | None = None
    quotes: list[str] = field(default_factory=list)


def instances_named(text: str) -> set[str]:
    return {f"{m[1].lower()}{m[2]}{m[3].lower()}" for m in _INSTANCE.finditer(text)}


def _name(printed: str) -> str:
    return _LEADING.sub("", printed).strip()


def statements_in(units: Iterable[str], doc_release: str | None) -> tuple[list[SupportStatement], list[str]]:
    """The statements the units make, one per package, and warnings for what could not be tied to a package."""
    found: dict[str, _Found] = {}
    warnings: list[str] = []
    for unit in units:
        named = _statuses_in(unit)
        excluded = _NOT_INCLUDED.search(unit)
        if excluded and not named:
            warnings.append(f"{excluded[0]!r} names no package in its sentence: not read ({unit[:120]!r})")
        for framework, package, status, scope in named:
            entry = found.setdefault(package.lower(), _Found(framework, package))
            entry.statuses.append(status)
            entry.instances |= instances_named(scope)
            entry.only |= _ONLY.search(scope) is not None
            if excluded:
                entry.statuses.append("not included")
                entry.from_release = excluded["release"]
            if unit not in entry.quotes:
                entry.quotes.append(unit)
    return [_statement(entry, doc_release) for entry in found.values()], warnings


def _statuses_in(unit: str) -> list[tuple[str, str, str, str]]:
    """(framework as printed, package, status word, the words scoping it) for each status the unit gives."""
    out: list[tuple[str, str, str, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern in (_SCOPED, _TAGGED, _SENTENCE):
        for m in pattern.finditer(unit):
            if any(start <= m.start() < end for start, end in taken):
                continue  # a scoped tag is also a tag: read once
            taken.append(m.span())
            framework = framework_named(_name(m["name"]))
            package = (m.groupdict().get("package") or framework).strip()
            scope = m.groupdict().get("scope") or unit
            out.append((framework, package, m["status"].lower(), scope))
    return out


def _statement(entry: _Found, doc_release: str | None) -> SupportStatement:
    words = list(dict.fromkeys(_SYNONYMS.get(s, s) for s in entry.statuses))
    status = max(words, key=STATUS_ORDER.index)
    names = known_names()
    manifest = (names.get(entry.package.lower()) or names.get(entry.framework.lower()) or ("", None))[1]
    return SupportStatement(
        package=entry.package,
        framework=entry.framework,
        manifest_package=manifest,
        status=status,  # type: ignore[arg-type]
        printed_statuses=list(dict.fromkeys(entry.statuses)),
        instances=sorted(entry.instances) or None,
        instances_only=entry.only and bool(entry.instances),
        from_release=entry.from_release,
        doc_release=doc_release,
        quoted=" … ".join(entry.quotes),
    )
