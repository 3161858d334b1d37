"""The curated NVIDIA GPU reference (pipelines/reference/nvidia_gpus.json): one GpuSpec per GPU model, each
figure with the URL and day it was read from. An in-repo file: its provenance is the repository path and its
content hash. A figure that fails validation refuses the whole file, naming the GPU."""

from __future__ import annotations

import json

from pydantic import ValidationError

from pipelines.errors import ParseError
from pipelines.reading.tables import shape_fingerprint
from pipelines.sources.file import SourceSpec
from pipelines.specs.nvidia_records import GpuSpec
from pipelines.specs.records import SpecBatch

PARSER_VERSION = "nvidia_reference/1.0"


def _gpu(entry: object, source_id: str) -> GpuSpec:
    try:
        return GpuSpec.model_validate(entry)
    except ValidationError as exc:
        name = entry.get("gpu") if isinstance(entry, dict) else None
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ParseError(source_id, f"GPU {name!r}: {where}: {first['msg']}") from None


def parse(body: bytes, source: SourceSpec) -> SpecBatch:
    try:
        entries = json.loads(body)["gpus"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ParseError(source.id, f"not an NVIDIA GPU reference file ({type(exc).__name__}: {exc})") from exc
    gpus = [_gpu(entry, source.id) for entry in entries]
    names = [gpu.gpu for gpu in gpus]
    doubled = sorted({name for name in names if names.count(name) > 1})
    if doubled:
        raise ParseError(source.id, f"GPU listed twice: {', '.join(doubled)}")
    keys = sorted({key for entry in entries for figure in entry["figures"] for key in figure})
    return SpecBatch(source_id=source.id, parser_version=PARSER_VERSION, gpus=gpus, shape=shape_fingerprint(keys))
