"""AWS Neuron's package manifest (`src/helperscripts/n2-manifest.json` in aws-neuron/aws-neuron-sdk): for every
Neuron SDK release, each package it ships, at which version, for which instance families and Python versions.

The manifest states what ships, never a status: torch-neuron is listed in 2.32.0 although the docs call it
archived, and that disagreement is reported beside both statements (view neuron_gate_disagreements). Releases are
the objects that carry a `neuron_version` and a `packages` list, wherever they sit; the manifest's own
`manifest_version` and `manifest_date` date its newest release. A package row without a name or version is refused
on its own, named; the rest of the manifest lands. A package listed twice at one version (for different instance
families) is one row for both. An instance entry that names no family ("inf.") is kept apart, as printed, and
named in a warning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from pipelines.errors import ParseError, model_problems
from pipelines.neuron_gate.records import INSTANCE_FAMILY, RELEASE, GateBatch, ManifestPackage, ReleaseDate
from pipelines.reading.tables import shape_fingerprint
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "neuron_manifest/1.0"


def parse(body: bytes, source: SourceSpec) -> GateBatch:
    try:
        document = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(source.id, f"not JSON: {exc}") from exc
    releases = list(_releases(document))
    if not releases:
        raise ParseError(
            source.id, "no release (an object with `neuron_version` and a `packages` list) in the manifest"
        )
    packages: dict[tuple[str, str, str], ManifestPackage] = {}
    refused: list[str] = []
    warnings: list[str] = []
    for release in releases:
        version = str(release["neuron_version"]).strip()
        if not re.fullmatch(RELEASE.strip("^$"), version):
            refused.append(f"release {version!r}: not a release number")
            continue
        for row in release["packages"]:
            package = _package(version, row, refused)
            if package is None:
                continue
            key = (package.release, package.package, package.package_version)
            packages[key] = _merged(packages[key], package) if key in packages else package
            if package.unread_instances:
                warnings.append(
                    f"{version} {package.package}: {package.unread_instances} name no instance family; kept apart"
                )
    return GateBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        packages=list(packages.values()),
        releases=_manifest_release(document, source),
        refused=refused,
        warnings=warnings,
        shape=shape_fingerprint(sorted({k for r in releases for p in r["packages"] if isinstance(p, dict) for k in p})),
    )


def _merged(first: ManifestPackage, again: ManifestPackage) -> ManifestPackage:
    """One package at one version listed twice in a release, for different instances (aws-neuronx-collectives in
    2.25.0: trn1, inf2, trn2, then inf1): one row for the union of both."""
    return first.model_copy(
        update={
            "instances": sorted({*first.instances, *again.instances}),
            "unread_instances": list(dict.fromkeys([*first.unread_instances, *again.unread_instances])),
            "python_versions": list(dict.fromkeys([*first.python_versions, *again.python_versions])),
        }
    )


def _releases(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if "neuron_version" in node and isinstance(node.get("packages"), list):
            yield node
            return
        for value in node.values():
            yield from _releases(value)
    elif isinstance(node, list):
        for item in node:
            yield from _releases(item)


def _package(release: str, row: Any, refused: list[str]) -> ManifestPackage | None:
    if not isinstance(row, dict):
        refused.append(f"{release}: a package entry that is not an object ({row!r:.60})")
        return None
    listed = [str(i).strip().lower() for i in row.get("supported_instances") or []]
    readable = sorted({i for i in listed if re.fullmatch(INSTANCE_FAMILY, i)})  # 2.27.0 lists one family twice
    try:
        return ManifestPackage(
            release=release,
            package=str(row.get("name") or ""),
            package_version=str(row.get("version") or ""),
            instances=readable,
            unread_instances=list(dict.fromkeys(i for i in listed if i not in readable)),
            python_versions=[str(v).strip() for v in row.get("supported_python_versions") or []],
        )
    except ValidationError as exc:
        problems = model_problems(exc)
        refused.append(f"{release} {row.get('name')!r}: {problems}")
        return None


def _manifest_release(document: Any, source: SourceSpec) -> list[ReleaseDate]:
    """The manifest's own release and date ("manifest_version": "2.32.0", "manifest_date": "08/17/2026")."""
    if not isinstance(document, dict) or not document.get("manifest_version") or not document.get("manifest_date"):
        return []
    printed = str(document["manifest_date"]).strip()
    try:
        day = datetime.strptime(printed, "%m/%d/%Y").replace(tzinfo=UTC).date()
    except ValueError as exc:
        raise ParseError(source.id, f"manifest_date {printed!r} is not a month/day/year date") from exc
    return [ReleaseDate(release=str(document["manifest_version"]).strip(), release_date=day, date_printed=printed)]
