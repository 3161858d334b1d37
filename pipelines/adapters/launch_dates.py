"""The curated launch-date reference (pipelines/reference/launch_dates.json): one LaunchDate per instance
family or UltraServer, each with the AWS announcement it was taken from.

It is an in-repo file, not a download: its provenance is the repository path and its content hash.
"""

from __future__ import annotations

import json

from pipelines.errors import ParseError
from pipelines.reading.tables import shape_fingerprint
from pipelines.sources.file import SourceSpec
from pipelines.specs.records import LaunchDate, SpecBatch

PARSER_VERSION = "launch_dates/1.0"


def parse(body: bytes, source: SourceSpec) -> SpecBatch:
    try:
        document = json.loads(body)
        entries = document["launches"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ParseError(source.id, f"not a launch-date reference file ({type(exc).__name__}: {exc})") from exc
    launches = [LaunchDate.model_validate(entry) for entry in entries]
    return SpecBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        launches=launches,
        shape=shape_fingerprint(sorted({key for entry in entries for key in entry})),
    )
