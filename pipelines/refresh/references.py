"""Curated reference files kept in the repository (launch dates), landed through the same check-and-land path
as any fetched source: parsed, validated (pydantic, Great Expectations, drift), versioned, or quarantined.

A reference file is not downloaded: its provenance is `repo:<path>` and the SHA-256 of its content, recorded
in fetch_log and on every row like a URL and body hash. No download address is made up for it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pipelines.clock import utc_now
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import FetchResult
from pipelines.refresh.one_source import SourceOutcome, check_fetched, land_checked
from pipelines.refresh.state import WarehouseState
from pipelines.sources.file import SourceSpec
from warehouse.db import connect

REPO_ROOT = Path(__file__).resolve().parents[2]
# source id -> (adapter, path in the repository)
REFERENCE_FILES = {
    "launch_dates": ("launch_dates", "pipelines/reference/launch_dates.json"),
    "nvidia_gpus": ("nvidia_reference", "pipelines/reference/nvidia_gpus.json"),
}


def reference_source(source_id: str) -> SourceSpec:
    """A SourceSpec for an in-repo file: built without URL validation, since `repo:<path>` is no HTTP URL."""
    adapter, path = REFERENCE_FILES[source_id]
    fields: dict[str, Any] = {"id": source_id, "adapter": adapter, "url": f"repo:{path}", "sample": path}
    return SourceSpec.model_construct(**fields, title=f"in-repo reference {path}")


def read_reference(source_id: str, root: Path = REPO_ROOT) -> FetchResult:
    _, path = REFERENCE_FILES[source_id]
    body = (root / path).read_bytes()
    return FetchResult(
        source_id=source_id,
        url=f"repo:{path}",
        final_url=f"repo:{path}",
        status=200,
        fetched_at=utc_now(),
        body=body,
        sha256=hashlib.sha256(body).hexdigest(),
        content_type="application/json",
        elapsed_ms=0,
        attempts=1,
    )


def land_reference(source_id: str, db_path: Path | str, archive: Archive, root: Path = REPO_ROOT) -> SourceOutcome:
    """Check and land one reference file; a bad one is quarantined and the last good version stays current."""
    source = reference_source(source_id)
    result = read_reference(source_id, root)
    checked = check_fetched(source, result, archive, WarehouseState(db_path))
    with connect(db_path) as con:
        return land_checked(con, source, result, checked)


def land_references(db_path: Path | str, archive: Archive) -> list[SourceOutcome]:
    return [land_reference(source_id, db_path, archive) for source_id in REFERENCE_FILES]
