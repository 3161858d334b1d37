"""Status statements found by their words in a documentation page's text units (a bullet, a paragraph, a heading,
a table cell), never by position or styling.

Three ways the Neuron docs state a status, each a pattern:
- a name tagged with its status: "PyTorch NeuronX (torch-neuronx) (supported): ...", "vLLM Neuron (Beta)";
- a scoped tag: "vLLM Neuron (Beta — Trn2/Trn3 only)";
- a sentence: "JAX NeuronX is currently in beta.";
and an exclusion that dates itself: "(This library is not included in Neuron 2.32.0 and later versions.)", which
applies to the name tagged in the same unit. A dated announcement (about-neuron/announcements/) says what changes
from which release, for which work and families:
- "Neuron no longer supports TensorFlow for Inferentia2 (Inf2) starting with Neuron 2.29" (end of support);
- "Torch/XLA support for Inference on Inf2 and Trn1 instances is now in maintenance mode starting with Neuron 2.31"
  (the SDK policy's Maintenance phase: still supported, critical fixes only);
- "Neuron SDK release 2.28 (PyTorch 2.9) will be the last release to include the NeuronX Distributed Training (NxDT)
  library" (not included after 2.28);
- and of some versions of a package: "torch-neuron 1.9 and 1.10 versions will enter maintenance mode" (versions.py).
What a page says of one package (for one work) in several places is one statement: its most restrictive status
(STATUS_ORDER), every word printed, the instance families named, each sentence quoted.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache
from pathlib import Path

from pipelines.neuron_gate.records import STATUS_ORDER, GateStatus, SupportStatement
from pipelines.neuron_gate.versions import without_versions
from pipelines.reading.values import full_release

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
# An announced name: up to four words, never one of the words around it; "X and Y are ..." names two. A name's
# word never ends in a full stop, which ends its sentence.
_WORD = r"(?!(?:and|for|on|is|are|support|now|in|starting|with|from|will)\b)[A-Za-z](?:[\w.+/\-]*[\w+/\-])?"
_ANNOUNCED = rf"{_WORD}(?: {_WORD}){{0,3}}(?: and {_WORD}(?: {_WORD}){{0,3}})*"
_NO_LONGER = re.compile(rf"no longer supports (?P<names>{_ANNOUNCED})(?P<scope>[^.;]*)", re.IGNORECASE)
_NO_LONGER_PASSIVE = re.compile(
    rf"(?P<names>{_ANNOUNCED})(?P<before> for (?:training|inference)(?: workloads)?)?"
    rf" (?:(?:is|are) no longer|will no longer be|will not be) supported(?P<scope>[^.;]*)",
    re.IGNORECASE,
)
# "Neuron SDK release 2.28 (PyTorch 2.9) will be the last release to include the NeuronX Distributed Training (NxDT)
# library": not included (or, "to support", end of support) after that release. An abbreviation in parentheses is
# the same name's short form, never a package.
_LAST_RELEASE = re.compile(
    r"(?:Neuron )?(?:SDK )?release (?P<last>\d+\.\d+(?:\.\d+)?)(?: \([^)]*\))? will be the last (?:release )?"
    rf"to (?P<verb>include|support) (?:support for )?(?P<names>{_ANNOUNCED})(?: \([A-Za-z][\w\-]*\))?(?P<scope>)",
    re.IGNORECASE,
)
_ENTERS = r"(?:(?:is|are) (?:now )?(?:in|entering)|enters|will enter) maintenance mode"
_MAINTENANCE = re.compile(
    rf"(?P<names>{_ANNOUNCED})(?: support)?(?P<scope>(?: (?:for|on) [^.;]*?)?) {_ENTERS}", re.IGNORECASE
)
# "Neuron support for MxNet (mxnet-neuron) is entering maintenance mode": the SDK's support for a package.
_SUPPORT_FOR = re.compile(
    rf"Neuron support for (?P<names>{_ANNOUNCED})(?: \((?P<package>[a-z][\w.\-]*)\))?(?P<scope>) {_ENTERS}",
    re.IGNORECASE,
)
_STARTING = re.compile(
    r"starting (?:with|in|from) (?:the )?(?:AWS )?(?:Neuron )?(?:SDK )?(?:release )?(?P<release>\d+\.\d+(?:\.\d+)?)",
    re.IGNORECASE,
)
_PRINTED = re.compile(
    r"no longer (?:be )?support(?:s|ed)|not be supported|maintenance mode|the last (?:release )?to (?:include|support)",
    re.IGNORECASE,
)
_WORK = re.compile(r"\b(training|inference)\b", re.IGNORECASE)
_INSTANCE = re.compile(r"\b(trn|inf)(\d+)(n?)\b", re.IGNORECASE)
# Families named as the only ones: "Trn2/Trn3 only", "Inf1 only", "Trn1 and Trn2 only".
_ONLY = re.compile(r"\b(?:trn|inf)\d+n?(?:\s*(?:/|,|&|and|or)\s*(?:trn|inf)\d+n?)*\s+only\b", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:the use of|the|a|an|option \d+|and|or)\s+)+", re.IGNORECASE)
# A status word the docs use that is one of ours under another name.
_SYNONYMS: dict[str, GateStatus] = {"deprecated": "archived"}
_NAMES_FILE = Path(__file__).resolve().parent / "package_names.toml"


@cache
def known_names() -> dict[str, tuple[str, str | None]]:
    """Known names (lower case) -> (the name as printed, the manifest's package name or None)."""
    with _NAMES_FILE.open("rb") as handle:
        return {k.lower(): (k, v or None) for k, v in tomllib.load(handle)["frameworks"].items()}


def _manifest_name(framework: str) -> str | None:
    """The manifest's package for a name the Neuron support pattern gives without one ("Neuron support for MxNet")."""
    return known_names().get(framework.lower(), ("", None))[1]


def framework_named(printed: str) -> str:
    """The longest known name the printed words contain, else the words as printed."""
    words = f" {printed.lower()} "
    known = [name for key, (name, _) in known_names().items() if f" {key} " in words]
    return max(known, key=len) if known else printed


@dataclass(frozen=True)
class _Said:
    """One status one unit gives one name: the words scoping it, and what an announcement adds."""

    framework: str
    package: str
    status: str
    scope: str
    work: str | None = None
    from_release: str | None = None
    maintenance: bool = False
    printed: str = ""
    versions: str | None = None  # the versions of the package it speaks of, as printed; None: the package
    last_release: str | None = None  # the words as printed, where they are not the status itself ("no longer supports")


@dataclass
class _Found:
    framework: str
    package: str
    work: str | None = None
    maintenance: bool = False
    statuses: list[str] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)
    instances: set[str] = field(default_factory=set)
    only: bool = False  # some statement of it limits it to the families it names
    from_release: str | None = None
    versions: str | None = None
    last_release: str | None = None
    quotes: list[str] = field(default_factory=list)


def instances_named(text: str) -> set[str]:
    return {f"{m[1].lower()}{m[2]}{m[3].lower()}" for m in _INSTANCE.finditer(text)}


def _name(printed: str) -> str:
    return _LEADING.sub("", printed).strip()


def statements_in(
    units: Iterable[str], doc_release: str | None, announced_on: date | None = None
) -> tuple[list[SupportStatement], list[str]]:
    """The statements the units make, one per package and work, and warnings for what could not be tied to a
    package."""
    found: dict[tuple[str, str | None, str | None], _Found] = {}
    warnings: list[str] = []
    for unit in units:
        named = _statuses_in(unit) + _announced_in(unit)
        excluded = _NOT_INCLUDED.search(unit)
        if excluded and not named:
            warnings.append(f"{excluded[0]!r} names no package in its sentence: not read ({unit[:120]!r})")
        for said in named:
            key = (said.package.lower(), said.work, said.versions)
            entry = found.setdefault(key, _Found(said.framework, said.package, said.work, versions=said.versions))
            entry.statuses.append(said.status)
            entry.printed.append(said.printed or said.status)
            entry.instances |= instances_named(said.scope)
            entry.only |= _ONLY.search(said.scope) is not None
            entry.maintenance |= said.maintenance
            if said.from_release:
                entry.from_release = said.from_release
            if said.last_release:
                entry.last_release = said.last_release
            if excluded:
                entry.statuses.append("not included")
                entry.printed.append("not included")
                entry.from_release = excluded["release"]
            if unit not in entry.quotes:
                entry.quotes.append(unit)
    return [_statement(entry, doc_release, announced_on) for entry in found.values()], warnings


def _statuses_in(unit: str) -> list[_Said]:
    """Each status the unit gives a name, with the words scoping it."""
    out: list[_Said] = []
    taken: list[tuple[int, int]] = []
    for pattern in (_SCOPED, _TAGGED, _SENTENCE):
        for m in pattern.finditer(unit):
            if any(start <= m.start() < end for start, end in taken):
                continue  # a scoped tag is also a tag: read once
            taken.append(m.span())
            framework = framework_named(_name(m["name"]))
            package = (m.groupdict().get("package") or framework).strip()
            out.append(_Said(framework, package, m["status"].lower(), m.groupdict().get("scope") or unit))
    return out


def _announced_in(unit: str) -> list[_Said]:
    """What an announcement's sentence changes: an end of support or a maintenance mode, for each name it gives (and
    the versions of it, where it names some), from the release it starts with, for the work and families it scopes."""
    starting = _STARTING.search(unit)
    release = full_release(starting["release"]) if starting else None
    scoped = without_versions(unit)
    out: list[_Said] = []
    taken: list[tuple[int, int]] = []
    for pattern, status, maintenance in (
        (_SUPPORT_FOR, "supported", True),
        (_LAST_RELEASE, "not included", False),
        (_NO_LONGER, "end of support", False),
        (_NO_LONGER_PASSIVE, "end of support", False),
        (_MAINTENANCE, "supported", True),
    ):
        for m in pattern.finditer(scoped.text):
            if any(start < m.end() and m.start() < end for start, end in taken):
                continue  # the SDK's support for a package, read once, under the package's name
            taken.append(m.span())
            scope = (m.groupdict().get("before") or "") + m["scope"]
            works = {w.lower() for w in _WORK.findall(scope)}
            work = works.pop() if len(works) == 1 else None
            printed = _PRINTED.search(m[0])
            last = m.groupdict().get("last")
            said_status = "end of support" if last and m["verb"].lower() == "support" else status
            at = m.start("names")
            for name in m["names"].split(" and "):
                versions = scoped.versions_of(at + len(name))
                at += len(name) + len(" and ")
                framework = framework_named(_name(name))
                # "Neuron support for X" names a package the manifest lists; elsewhere the name as printed is the key.
                named = m.groupdict().get("package") or (_manifest_name(framework) if pattern is _SUPPORT_FOR else None)
                package = (named or framework).strip()
                said = _Said(framework, package, said_status, scope, work, None if last else release, maintenance)
                out.append(
                    replace(
                        said,
                        printed=printed[0].lower() if printed else status,
                        versions=versions,
                        last_release=full_release(last) if last else None,
                    )
                )
    return out


def _statement(entry: _Found, doc_release: str | None, announced_on: date | None) -> SupportStatement:
    words = list(dict.fromkeys(_SYNONYMS.get(s, s) for s in entry.statuses))
    status = max(words, key=STATUS_ORDER.index)
    names = known_names()
    manifest = (names.get(entry.package.lower()) or names.get(entry.framework.lower()) or ("", None))[1]
    return SupportStatement(
        package=entry.package,
        framework=entry.framework,
        manifest_package=manifest,
        status=status,  # type: ignore[arg-type]
        printed_statuses=list(dict.fromkeys(entry.printed)),
        instances=sorted(entry.instances) or None,
        instances_only=entry.only and bool(entry.instances),
        from_release=entry.from_release,
        last_release=entry.last_release,
        versions=entry.versions,
        doc_release=doc_release,
        work=entry.work,  # type: ignore[arg-type]
        in_maintenance=entry.maintenance,
        announced_on=announced_on,
        quoted=" … ".join(entry.quotes),
    )
