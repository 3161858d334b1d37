"""The declared captures (pipelines/captures.toml) served on 127.0.0.1 from their recordings, at the paths their
real hosts serve them: what the backfill tests run `ratecard backfill captures` on."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pipelines.sources.captures import CaptureSet, load_captures
from pipelines.sources.toml_writer import captures_toml
from tests.support.localserver import LocalServer, Reply


def served_captures(
    server: LocalServer, recordings: dict[str, Path], into: Path, content_type: str = "text/plain; charset=utf-8"
) -> Path:
    """A captures file with the declared sets whose captures have recordings (capture id -> file), each capture's
    URL pointed at `server`, which answers its recording at the real URL's path."""
    sets = []
    for capture_set in load_captures():
        captures = []
        for capture in capture_set.captures:
            if capture.id not in recordings:
                continue
            path = urlsplit(str(capture.url)).path
            server.set(path, Reply(body=recordings[capture.id].read_bytes(), content_type=content_type))
            captures.append(capture.model_copy(update={"url": server.url(path)}))
        if captures:
            sets.append(CaptureSet.model_validate(capture_set.model_dump() | {"captures": captures}))
    file = into / "captures.toml"
    file.write_text(captures_toml(sets), encoding="utf-8")
    return file
