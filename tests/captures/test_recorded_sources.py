"""tests/recorded/SOURCES.md lists every recorded file with the SHA-256 of its bytes, its upstream commit and its
licence: a recording can be neither added without provenance nor edited silently."""

from __future__ import annotations

import hashlib
import re

import pytest

from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

SOURCES = RECORDED / "SOURCES.md"
# A table row: | `path` | what | repository | upstream path | `commit` | captured | licence | `sha256` |
ROW = re.compile(r"^\|\s*`(?P<file>[^`]+)`\s*\|(?P<rest>.*)\|\s*$")
SHA256 = re.compile(r"`([0-9a-f]{64})`\s*$")
COMMIT = re.compile(r"`([0-9a-f]{40})`")


def rows() -> dict[str, str]:
    listed: dict[str, str] = {}
    for line in SOURCES.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            assert match["file"] not in listed, f"{match['file']} is listed twice in SOURCES.md"
            listed[match["file"]] = match["rest"]
    return listed


def recorded_files() -> list[str]:
    return sorted(
        path.relative_to(RECORDED).as_posix() for path in RECORDED.rglob("*") if path.is_file() and path != SOURCES
    )


def test_sources_lists_exactly_the_files_under_tests_recorded() -> None:
    listed = rows()
    files = recorded_files()
    assert files, "no recordings found"
    assert sorted(set(files) - set(listed)) == [], "recorded file(s) without a row in SOURCES.md"
    assert sorted(set(listed) - set(files)) == [], "SOURCES.md row(s) naming no file"


@pytest.mark.parametrize("name", recorded_files())
def test_each_recording_matches_its_listed_sha256(name: str) -> None:
    rest = rows()[name]
    digest = SHA256.search(rest.rstrip().rstrip("|").rstrip())
    assert digest is not None, f"{name}: no SHA-256 in the row's last column"
    actual = hashlib.sha256((RECORDED / name).read_bytes()).hexdigest()
    assert actual == digest.group(1), f"{name} changed: its bytes hash to {actual}, SOURCES.md says {digest.group(1)}"


@pytest.mark.parametrize("name", recorded_files())
def test_each_recording_names_its_upstream_commit_and_licence(name: str) -> None:
    cells = [cell.strip() for cell in rows()[name].split("|")]
    assert len(cells) == 7, f"{name}: expected 8 columns, found {len(cells) + 1}"
    what, _repository, _path, commit, captured, licence, _digest = cells
    assert what and captured and licence, f"{name}: empty description, capture date or licence"
    assert COMMIT.search(commit), f"{name}: the commit column holds no 40-hex commit"


STATE = re.compile(r"^- \*\*(?P<state>[^(]+) \((?P<count>\d+)\):\*\*")


def test_every_declared_source_is_in_one_state_and_the_counts_are_right() -> None:
    text = SOURCES.read_text(encoding="utf-8")
    section = text.split("## Every declared source by state", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n(?=- \*\*)", section)
    states: dict[str, set[str]] = {}
    for item in items:
        match = STATE.match(item.strip())
        if match:
            named = set(re.findall(r"`([a-z][a-z0-9_]*)`", item))
            states[match["state"]] = named
            if match["state"] != "Refused for a named reason":
                assert len(named) == int(match["count"]), f"{match['state']}: {len(named)} named, {match['count']} said"
    assert set(states) == {"Real-tested", "Refused for a named reason", "No capture found"}
    assert len(states["Refused for a named reason"]) == 2
    declared = {s.id for s in load_sources()}
    everyone = [sid for named in states.values() for sid in named]
    assert sorted(everyone) == sorted(declared), "a source missing, repeated, or not declared"
    unrecorded = text.split("## Sources with no recording of their page", 1)[1]
    assert all(f"`{sid}`" in unrecorded for sid in states["No capture found"])
