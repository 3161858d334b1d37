"""The fault matrix's harness: a small set of real sources served on 127.0.0.1, a temp warehouse, and one
function that runs a scenario end to end and checks every promise the issue makes.

A scenario: land a good version of every source; break one source's response on the server; refresh all
sources again through the real path (httpx -> archive -> parse -> validate -> land); then check that
- the broken source has the expected outcome and an error naming it and the cause,
- not one history row came from the bad response,
- the broken source's current version is exactly the previous one,
- every other source landed (or confirmed unchanged) and is intact,
- the fetch log and, for quarantines, the quarantine table tell the story.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from localserver import LocalServer, Reply
from pipelines.archive import Archive
from pipelines.fetch import Fetcher, FetchSettings
from pipelines.refresh import SourceOutcome, refresh_source
from pipelines.sources import SourceSpec, load_sources, sample_path

# FX first: the GPU source converts with the rates it lands. One AWS page, the Capacity Blocks page, one GPU
# HTML table, one GPU JSON API (POST), and the ECB XML.
MATRIX_SOURCES = ["fx_ecb", "aws_trn1", "aws_capacity_blocks", "gpu_hyperstack", "gpu_runpod"]
MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json", ".xml": "text/xml"}
HISTORY_TABLES = ("aws_instance_price_history", "aws_instance_spec_history", "gpu_listing_history", "fx_rates")

ROOT = Path(__file__).resolve().parents[2]
FAST = FetchSettings(connect_timeout_s=0.5, read_timeout_s=0.5, max_attempts=3, backoff_initial_s=0.01,
                     backoff_max_s=0.05, max_retry_after_s=5, max_bytes=512 * 1024)


def sample_reply(source: SourceSpec) -> Reply:
    path = sample_path(source)
    return Reply(body=path.read_bytes(), content_type=MEDIA_TYPES[path.suffix])


def sample_text(source: SourceSpec) -> str:
    return sample_path(source).read_text(encoding="utf-8")


class Matrix:
    """The served sources and a warehouse in a temp folder."""

    def __init__(self, server: LocalServer, tmp: Path, source_ids: list[str] | None = None):
        self.server = server
        self.db_path = tmp / "prices.duckdb"
        self.archive = Archive(tmp / "archive")
        self.sleeps: list[float] = []
        declared = {s.id: s for s in load_sources()}
        self.sources: list[SourceSpec] = []
        for source_id in source_ids or MATRIX_SOURCES:
            source = declared[source_id]
            self.sources.append(SourceSpec.model_validate({**source.model_dump(), "url": server.url(f"/{source.sample}")}))
            self.serve_sample(source_id)

    def source(self, source_id: str) -> SourceSpec:
        return next(s for s in self.sources if s.id == source_id)

    def path(self, source_id: str) -> str:
        return f"/{self.source(source_id).sample}"

    def serve_sample(self, source_id: str) -> None:
        self.server.set(self.path(source_id), sample_reply(self.source(source_id)))

    def serve(self, source_id: str, *replies: Reply) -> None:
        self.server.set(self.path(source_id), *replies)

    def refresh(self, settings: FetchSettings = FAST) -> dict[str, SourceOutcome]:
        outcomes = {}
        with Fetcher(settings, sleep=self.sleeps.append) as fetcher:
            for source in self.sources:
                outcomes[source.id] = refresh_source(source, fetcher=fetcher, db_path=self.db_path,
                                                     archive=self.archive)
        return outcomes

    # -- reading the warehouse (read-only, between refreshes) --
    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db_path), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def current(self, source_id: str) -> list[tuple]:
        """The source's current version: every open row of every table it lands in, in a stable order."""
        rows = []
        for table in HISTORY_TABLES:
            open_rows = "" if table == "fx_rates" else "AND valid_to IS NULL"
            rows += [(table, *r) for r in self.query(
                f"SELECT * FROM {table} WHERE fetch_id IN (SELECT fetch_id FROM fetch_log WHERE source_id = ?) "
                f"{open_rows} ORDER BY ALL", [source_id])]
        return rows

    def rows_from_fetch(self, fetch_id: int | None) -> int:
        if fetch_id is None:
            return 0
        return sum(self.query(f"SELECT count(*) FROM {t} WHERE fetch_id = ?", [fetch_id])[0][0]
                   for t in HISTORY_TABLES)

    def last_fetch(self, source_id: str) -> dict:
        cursor_rows = self.query("""SELECT fetch_id, outcome, status, error, sha256 FROM fetch_log
                                    WHERE source_id = ? ORDER BY fetch_id DESC LIMIT 1""", [source_id])
        fetch_id, outcome, status, error, sha256 = cursor_rows[0]
        return {"fetch_id": fetch_id, "outcome": outcome, "status": status, "error": error, "sha256": sha256}

    def quarantined(self, fetch_id: int) -> list[tuple]:
        return self.query("SELECT stage, reasons, octet_length(raw_body) FROM quarantine WHERE fetch_id = ?", [fetch_id])


def start(children: list, code: str, *args, env: dict | None = None, stdout=subprocess.PIPE) -> subprocess.Popen:
    """A child Python process running `code`; registered so the `children` fixture kills it at teardown."""
    child = subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, text=True,
                             env={**os.environ, **(env or {})}, stdout=stdout, stderr=subprocess.PIPE)
    children.append(child)
    return child


def wait_until(predicate, child: subprocess.Popen, what: str, timeout_s: float = 60, poll_s: float = 0.05) -> None:
    """Poll until `predicate()`, failing at once if the child died first, and never waiting past the timeout."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert child.poll() is None, f"child exited ({child.returncode}) before {what}: {child.stderr.read()}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(poll_s)


@dataclass
class Scenario:
    """What a scenario observed; the reliability report prints one line per scenario from these."""

    name: str
    expected: str
    observed: str = "not run"
    rows_wrongly_landed: int = 0
    last_good_lost: int = 0
    notes: list[str] = field(default_factory=list)


def run_fault(matrix: Matrix, scenario: Scenario, *, source_id: str, fault: Callable[[Matrix], None],
              expect_status: str, expect_in_error: tuple[str, ...] = ()) -> dict[str, SourceOutcome]:
    """Good version first, then the fault, then every promise checked (see the module docstring)."""
    first = matrix.refresh()
    assert all(o.ok for o in first.values()), {k: str(o.error) for k, o in first.items() if not o.ok}
    before = {s.id: matrix.current(s.id) for s in matrix.sources}

    fault(matrix)
    outcomes = matrix.refresh()

    bad = outcomes[source_id]
    scenario.observed = bad.status + (f": {bad.error}" if bad.error else "")
    scenario.rows_wrongly_landed = matrix.rows_from_fetch(bad.fetch_id) if expect_status not in (
        "landed", "unchanged") else 0
    scenario.last_good_lost = int(matrix.current(source_id) != before[source_id]) if expect_status not in (
        "landed",) else 0

    assert bad.status == expect_status, scenario.observed
    if expect_status not in ("landed", "unchanged"):
        assert bad.error is not None and f"[{source_id}]" in str(bad.error), scenario.observed
        for text in expect_in_error:
            assert text.lower() in str(bad.error).lower(), (text, scenario.observed)
        assert scenario.rows_wrongly_landed == 0
        assert scenario.last_good_lost == 0
        log = matrix.last_fetch(source_id)
        assert log["outcome"] == expect_status and f"[{source_id}]" in (log["error"] or ""), log
        if expect_status == "quarantined":
            assert matrix.quarantined(log["fetch_id"]), "quarantine row missing"
    for other in matrix.sources:
        if other.id == source_id:
            continue
        assert outcomes[other.id].status in ("landed", "unchanged"), (other.id, str(outcomes[other.id].error))
        assert matrix.current(other.id) == before[other.id], f"{other.id} changed"
    return outcomes
