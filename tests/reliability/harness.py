"""The fault matrix's harness: a small set of real sources served on 127.0.0.1, a temp warehouse, and one
function that runs a scenario end to end and checks every promise the fault matrix makes.

A scenario: land a good version of every source (or start from a copy of a warehouse where that was done);
break one source's response on the server; refresh all sources again through the real path (httpx -> archive
-> parse -> validate -> land); then check that
- the broken source has the expected outcome and an error naming it and the cause,
- not one history row came from the bad response,
- the broken source's current version is exactly the previous one,
- every other source landed (or confirmed unchanged) and is intact,
- the fetch log and, for quarantines, the quarantine table tell the story.
What it counts on the way (rows wrongly landed, last-good versions lost, other sources disturbed, errors not
naming the source) is recorded with `scenario.measure` before it is asserted, so the report shows real counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome, refresh_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.reliability.promises import ERRORS_UNNAMED, LAST_GOOD_LOST, OTHERS_DISTURBED, ROWS_WRONGLY_LANDED, Scenario
from tests.support.localserver import LocalServer, Reply
from warehouse.db import connect

# FX first: the GPU source converts with the rates it lands. One AWS page, the Capacity Blocks page, one GPU
# HTML table, one GPU JSON API (POST), and the ECB XML.
MATRIX_SOURCES = ["fx_ecb", "aws_trn1", "aws_capacity_blocks", "gpu_hyperstack", "gpu_runpod"]
MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json", ".xml": "text/xml"}
HISTORY_TABLES = ("aws_instance_price_history", "aws_instance_spec_history", "gpu_listing_history", "fx_rates")

ROOT = Path(__file__).resolve().parents[2]
FAST = FetchSettings(
    connect_timeout_s=0.5,
    read_timeout_s=0.5,
    max_attempts=3,
    backoff_initial_s=0.01,
    backoff_max_s=0.05,
    max_retry_after_s=5,
    max_bytes=512 * 1024,
)


def sample_reply(source: SourceSpec) -> Reply:
    path = sample_path(source)
    return Reply(body=path.read_bytes(), content_type=MEDIA_TYPES[path.suffix])


def sample_text(source: SourceSpec) -> str:
    return sample_path(source).read_text(encoding="utf-8")


class Matrix:
    """The served sources and a warehouse in a temp folder."""

    def __init__(
        self,
        server: LocalServer,
        tmp: Path,
        source_ids: list[str] | None = None,
        db_path: Path | str | None = None,
        *,
        prelanded: bool = False,
    ):
        self.server = server
        self.db_path = db_path or tmp / "prices.duckdb"  # or a ducklake: location (tests/support/backends.py)
        self.archive = Archive(tmp / "archive")
        # The warehouse is a copy of one where the good version of every source was landed through this same path
        # (conftest's matrix_templates), so run_fault starts from it instead of landing it again.
        self.prelanded = prelanded
        self.sleeps: list[float] = []
        self._reader: duckdb.DuckDBPyConnection | None = None  # while reading(): the one open connection
        self._currents: dict[str, list[tuple]] | None = None  # while reading(): every source's current version
        self.concurrent = False  # refresh every source at once through refresh_all, as `ratecard refresh` does
        declared = {s.id: s for s in load_sources()}
        self.sources: list[SourceSpec] = []
        for source_id in source_ids or MATRIX_SOURCES:
            source = declared[source_id]
            self.sources.append(
                SourceSpec.model_validate({**source.model_dump(), "url": server.url(f"/{source.sample}")})
            )
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
        """One refresh of every source: one after another, or all at once (refresh_all) when `concurrent`."""
        with Fetcher(settings, sleep=self.sleeps.append) as fetcher:
            if self.concurrent:
                landed = refresh_all(
                    self.sources,
                    db_path=self.db_path,
                    archive=self.archive,
                    fetcher=fetcher,
                    max_sources=len(self.sources),
                )
                return {outcome.source_id: outcome for outcome in landed}
            return {
                source.id: refresh_source(source, fetcher=fetcher, db_path=self.db_path, archive=self.archive)
                for source in self.sources
            }

    # -- reading the warehouse (read-only, between refreshes) --
    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read-only connection for every query inside, and every source's current version read at once:
        a query per source and table (and a connection per query) cost more than the scenario's refresh."""
        with connect(self.db_path, read_only=True) as con:
            self._reader = con
            try:
                yield
            finally:
                self._reader, self._currents = None, None

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        if self._reader is not None:
            return self._reader.execute(sql, params or []).fetchall()
        with connect(self.db_path, read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def current(self, source_id: str) -> list[tuple]:
        """The source's current version: every open row of every table it lands in, in a stable order."""
        if self._reader is None:
            return self._current_versions(source_id).get(source_id, [])
        if self._currents is None:
            self._currents = self._current_versions(None)
        return self._currents.get(source_id, [])

    def _current_versions(self, source_id: str | None) -> dict[str, list[tuple]]:
        """Every source's current version (or one source's), by source."""
        versions: dict[str, list[tuple]] = {}
        for table in HISTORY_TABLES:
            conditions = [] if source_id is None else ["f.source_id = ?"]
            if table != "fx_rates":  # append-only: every row is current
                conditions.append("t.valid_to IS NULL")
            where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
            rows = self.query(
                f"SELECT f.source_id, t.* FROM {table} t JOIN fetch_log f ON f.fetch_id = t.fetch_id {where} "
                "ORDER BY ALL",
                [] if source_id is None else [source_id],
            )
            for found, *row in rows:
                versions.setdefault(found, []).append((table, *row))
        return versions

    def history(self, source_id: str) -> Counter[tuple]:
        """Every row the source ever landed, without valid_to: superseding a version closes its rows, keeps them."""
        rows: Counter[tuple] = Counter()
        for table in HISTORY_TABLES:
            columns = "*" if table == "fx_rates" else "* EXCLUDE (valid_to)"  # fx_rates is append-only
            rows.update(
                (table, *r)
                for r in self.query(
                    f"SELECT {columns} FROM {table} "
                    "WHERE fetch_id IN (SELECT fetch_id FROM fetch_log WHERE source_id = ?)",
                    [source_id],
                )
            )
        return rows

    def rows_from_fetch(self, fetch_id: int | None) -> int:
        if fetch_id is None:
            return 0
        return sum(self.query(f"SELECT count(*) FROM {t} WHERE fetch_id = ?", [fetch_id])[0][0] for t in HISTORY_TABLES)

    def last_fetch(self, source_id: str) -> dict:
        cursor_rows = self.query(
            """SELECT fetch_id, outcome, status, error, sha256 FROM fetch_log
                                    WHERE source_id = ? ORDER BY fetch_id DESC LIMIT 1""",
            [source_id],
        )
        fetch_id, outcome, status, error, sha256 = cursor_rows[0]
        return {"fetch_id": fetch_id, "outcome": outcome, "status": status, "error": error, "sha256": sha256}

    def quarantined(self, fetch_id: int) -> list[tuple]:
        return self.query(
            "SELECT stage, reasons, octet_length(raw_body) FROM quarantine WHERE fetch_id = ?", [fetch_id]
        )


def start(children: list, code: str, *args, env: dict | None = None, stdout=subprocess.PIPE) -> subprocess.Popen:
    """A child Python process running `code`; registered so the `children` fixture kills it at teardown."""
    child = subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=ROOT,
        text=True,
        env={**os.environ, **(env or {})},
        stdout=stdout,
        stderr=subprocess.PIPE,
    )
    children.append(child)
    return child


def wait_until(predicate, child: subprocess.Popen, what: str, timeout_s: float = 60, poll_s: float = 0.05) -> None:
    """Poll until `predicate()`, failing at once if the child died first, and never waiting past the timeout."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert child.poll() is None, f"child exited ({child.returncode}) before {what}: {child.stderr.read()}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(poll_s)


def rows_added(before: list[tuple], after: list[tuple]) -> int:
    """How many rows `after` holds that `before` did not (duplicates counted)."""
    return sum((Counter(after) - Counter(before)).values())


@dataclass(frozen=True)
class Expected:
    """What a fault scenario expects of its source's refresh: the outcome, words its error names, rows it lands."""

    source_id: str
    status: str
    in_error: tuple[str, ...]
    lands: int

    @property
    def refused(self) -> bool:
        return self.status not in ("landed", "unchanged")


@dataclass(frozen=True)
class Before:
    """Each source's current rows, and the faulted source's history, as the last good refresh left them."""

    current: dict[str, list[tuple]]
    history: Counter[tuple]


def measure_fault(
    matrix: Matrix, scenario: Scenario, outcomes: dict[str, SourceOutcome], expected: Expected, before: Before
) -> None:
    """Count what the fault refresh did against the promises of FAULT (and REFUSED_FAULT when it is refused)."""
    source_id = expected.source_id
    bad = outcomes[source_id]
    scenario.measure(ROWS_WRONGLY_LANDED, max(0, matrix.rows_from_fetch(bad.fetch_id) - expected.lands))
    if expected.status == "landed":  # a new version may supersede the last good one, never erase it from history
        scenario.measure(LAST_GOOD_LOST, int(bool(before.history - matrix.history(source_id))))
    else:  # refused or unchanged: the last good version is still exactly the current one
        scenario.measure(LAST_GOOD_LOST, int(matrix.current(source_id) != before.current[source_id]))
    scenario.measure(
        OTHERS_DISTURBED,
        sum(
            outcomes[s.id].status not in ("landed", "unchanged") or matrix.current(s.id) != before.current[s.id]
            for s in matrix.sources
            if s.id != source_id
        ),
    )
    if expected.refused:  # the fetch log's error and the raised one both name it
        logged = matrix.last_fetch(source_id)["error"] or ""
        scenario.measure(ERRORS_UNNAMED, sum(f"[{source_id}]" not in text for text in (str(bad.error or ""), logged)))


def run_fault(
    matrix: Matrix,
    scenario: Scenario,
    *,
    source_id: str,
    fault: Callable[[Matrix], None],
    expect_status: str,
    expect_in_error: tuple[str, ...] = (),
    lands: int = 0,
) -> dict[str, SourceOutcome]:
    """Good version first, then the fault, then every promise measured and checked (see the module docstring).

    `lands` is how many history rows the fault fetch should land, by the scenario's own reading of the page
    (0 unless it expects "landed"); every row the fetch landed beyond those was landed wrongly.
    """
    if not matrix.prelanded:
        first = matrix.refresh()
        assert all(o.ok for o in first.values()), {k: str(o.error) for k, o in first.items() if not o.ok}
    with matrix.reading():
        before = Before({s.id: matrix.current(s.id) for s in matrix.sources}, matrix.history(source_id))

    fault(matrix)
    outcomes = matrix.refresh()
    with matrix.reading():
        check_fault(matrix, scenario, outcomes, Expected(source_id, expect_status, expect_in_error, lands), before)
    return outcomes


def check_fault(
    matrix: Matrix, scenario: Scenario, outcomes: dict[str, SourceOutcome], expected: Expected, before: Before
) -> None:
    source_id = expected.source_id
    bad = outcomes[source_id]
    scenario.observed = bad.status + (f": {bad.error}" if bad.error else "")
    measure_fault(matrix, scenario, outcomes, expected, before)

    assert bad.status == expected.status, scenario.observed
    assert scenario.value(ROWS_WRONGLY_LANDED) == 0, f"{scenario.value(ROWS_WRONGLY_LANDED)} rows wrongly landed"
    assert scenario.value(LAST_GOOD_LOST) == 0, "the last good version was lost"
    if expected.refused:
        assert bad.error is not None and f"[{source_id}]" in str(bad.error), scenario.observed
        for text in expected.in_error:
            assert text.lower() in str(bad.error).lower(), (text, scenario.observed)
        log = matrix.last_fetch(source_id)
        assert log["outcome"] == expected.status and f"[{source_id}]" in (log["error"] or ""), log
        if expected.status == "quarantined":
            assert matrix.quarantined(log["fetch_id"]), "quarantine row missing"
    for other in matrix.sources:
        if other.id == source_id:
            continue
        assert outcomes[other.id].status in ("landed", "unchanged"), (other.id, str(outcomes[other.id].error))
        assert matrix.current(other.id) == before.current[other.id], f"{other.id} changed"
