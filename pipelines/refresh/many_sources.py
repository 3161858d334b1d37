"""Many sources at once: the network work runs concurrently, the writing goes through one connection in turn.

Each source is fetched, archived, parsed and normalised in a worker thread, at most `max_sources` at a time
(and `per_host` requests per host, enforced by the Fetcher; fetching starts while the warehouse opens), parsing
one source at a time (pipelines.refresh.parse_turns: it is GIL-bound); one checker thread validates and drift-checks
them in landing order, many per GE run, each run waiting for the sources in line to parse. Only landing is
serial: the calling thread owns the one DuckDB writer and lands each source in its own short transaction, in a
stable order, FX sources first, then the sources file's order. GPU sources convert with the FX rates, so their
checks wait until every FX source has landed (or failed); their fetches do not wait.

A stop (SIGINT, SIGTERM: the caller raises in the calling thread) lands nothing more: the transaction in
progress rolls back, workers still fetching are abandoned (daemon threads: the process does not wait for them),
and the outcomes landed so far travel with the RefreshStopped exception.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path

import duckdb

from pipelines.adapters import parser_version
from pipelines.clock import utc_now
from pipelines.errors import FetchError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchResult
from pipelines.kinds import kind_named, read_by_others
from pipelines.refresh.checker import start_checker
from pipelines.refresh.checking import Checked, Prepared, check_prepared
from pipelines.refresh.fan_out import IndexFetch, fetch_index, lands_after_units, plan_units
from pipelines.refresh.one_source import (
    LastLandings,
    SourceOutcome,
    discard_body,
    fetch_source,
    land_checked,
    log_fetch_failure,
    prepare_fetched,
)
from pipelines.refresh.parse_turns import ParseTurns
from pipelines.refresh.plan import refresh_plan
from pipelines.refresh.prefetch import Fetched, fetch_or_take
from pipelines.refresh.source_text import read_or_source_text
from pipelines.refresh.state import WarehouseState
from pipelines.refresh.threads import (
    CursorsInUse,
    RefreshStopped,
    StopRequested,
    as_stop,
    result_of,
    start_workers,
)
from pipelines.sources.file import SourceSpec
from schemas.gx_warm_up import warm_up_in_background
from warehouse.db import connect, cursor
from warehouse.failpoints import failpoint

UNITS_AT_ONCE = 1  # an index source's units in flight at once (a price-list region holds its offer file until it lands)
PhaseCallback = Callable[[str, str], None]  # (source id, phase): fetching | checking | landing
DoneCallback = Callable[[SourceOutcome], None]


@dataclass
class Gathered:
    """What a worker hands the writer: a fetch failure, or a fetched body and the verdict on it."""

    source: SourceSpec
    started: datetime
    result: FetchResult | None = None
    prepared: Prepared | None = None  # parsed and prepared, waiting for validation (many at once, by the writer)
    checked: Checked | None = None  # the verdict
    error: FetchError | None = None


def landing_order(sources: list[SourceSpec]) -> list[SourceSpec]:
    """Kinds others read first (FX: GPU prices convert with it), then the sources file's order: stable."""
    return sorted(sources, key=lambda s: s.kind not in read_by_others())


STOP_WAIT_S = 30.0  # a stop waits this long at most for other threads to leave DuckDB (their queries interrupted)


class _Run:
    """One refresh of many sources: the shared state its workers and its writer need."""

    def __init__(
        self, fetcher: Fetcher, fetched: Fetched, archive: Archive, on_phase: PhaseCallback, landings: LastLandings
    ):
        self.fetcher = fetcher
        self.landings = landings  # each source's last landing, read once for all
        self.fetch = partial(fetch_or_take, fetcher, fetched)
        self.archive = archive
        self.on_phase = on_phase
        self.read_first_landed = threading.Event()  # the sources of kinds others read (FX) have landed
        self.stopping = threading.Event()
        self.cursors = CursorsInUse(self.stopping)
        self.parsing: ParseTurns[Gathered] = ParseTurns()

    def gather(self, source: SourceSpec, reader: Future[duckdb.DuckDBPyConnection]) -> Gathered:
        """Fetch, then (once the writer has opened the warehouse and handed over `reader`) parse and prepare."""
        started = utc_now()
        self.on_phase(source.id, "fetching")
        try:
            result = self.fetch(source)
        except FetchError as exc:
            return Gathered(source, started, error=exc)
        if kind_named(source.kind).reads_landed:
            self.read_first_landed.wait()  # e.g. the conversion needs today's rates in the warehouse
        try:
            con = reader.result()
        except CancelledError:  # stopped, or the warehouse could not be opened: nothing more to do
            return Gathered(source, started, result=result)
        if self.stopping.is_set():  # the cursor is left to the process: a stop may be ending it
            return Gathered(source, started, result=result)
        self.on_phase(source.id, "parsing")
        return self.parsing.parse(source.id, lambda: self.prepare(source, started, result, con))

    def prepare(
        self, source: SourceSpec, started: datetime, result: FetchResult, reader: duckdb.DuckDBPyConnection
    ) -> Gathered:
        if not self.cursors.take(reader):  # stopped while this source waited for its turn to parse
            return Gathered(source, started, result=result)
        try:
            state = WarehouseState(con=reader)  # a page that lost its table is read from its source text instead
            read = partial(prepare_fetched, archive=self.archive, state=state)
            result, done = read_or_source_text(source, result, read, partial(fetch_source, fetcher=self.fetcher))
        finally:
            self.cursors.close(reader)
        if isinstance(done, Checked):  # refused before validation (parse error, no FX rate, ...)
            return Gathered(source, started, result, checked=done)
        return Gathered(source, started, result, prepared=done)

    def parsed_since(self, gathered: Gathered) -> list[Gathered]:
        """The other sources prepared and not validated yet, once those in line to parse have parsed too."""
        later = self.parsing.batch(self.stopping)
        return [g for g in later if g is not gathered and g.checked is None and g.prepared is not None]

    def validate(self, reader: duckdb.DuckDBPyConnection, waiting: list[Gathered]) -> None:
        """Validate every prepared batch ready so far in one GE run per kind: GE's cost is per run, not per row."""
        for gathered in waiting:
            self.on_phase(gathered.source.id, "validating")
        items = [(g.source, g.prepared) for g in waiting if g.prepared is not None]
        as_landed = frozenset(g.source.id for g in waiting if g.result is not None and self.as_landed(reader, g))
        verdicts = check_prepared(items, WarehouseState(con=reader), as_landed)
        for gathered in waiting:
            gathered.checked = verdicts[gathered.source.id]

    def as_landed(self, con: duckdb.DuckDBPyConnection, gathered: Gathered) -> bool:
        """Whether the body is the one the source's current version was landed from, by the same parser."""
        source, result, prepared = gathered.source, gathered.result, gathered.prepared
        assert result is not None
        if prepared is None or prepared.read_landed:  # its rows depend on what else landed (GPU: the FX rates)
            return False
        return self.landings.same(con, source.id, result.sha256, parser_version(source.adapter))

    def land(self, con: duckdb.DuckDBPyConnection, gathered: Gathered) -> SourceOutcome:
        self.on_phase(gathered.source.id, "landing")
        if gathered.error is not None:
            return log_fetch_failure(con, gathered.source, gathered.error, gathered.started)
        assert gathered.result is not None and gathered.checked is not None  # not stopped: it was checked
        try:
            outcome = land_checked(con, gathered.source, gathered.result, gathered.checked, self.landings)
            failpoint("landed")  # stop tests signal here: committed, not yet reported to the caller
            return outcome
        finally:  # the body is done with: a price-list offer file streamed to disk (~250 MB) is removed
            discard_body(gathered.result)
            gathered.result = gathered.prepared = None


def refresh_all(
    sources: list[SourceSpec],
    *,
    db_path: Path | str,
    archive: Archive,
    fetcher: Fetcher,
    max_sources: int,
    on_phase: PhaseCallback = lambda _id, _phase: None,
    on_done: DoneCallback = lambda _outcome: None,
    fetched: Fetched | None = None,
) -> list[SourceOutcome]:
    """Refresh `sources`; returns their outcomes in landing order. Raises RefreshStopped if interrupted.

    `fetched` (from fetch_all) holds bodies or errors already fetched: those sources are not fetched again.

    An index source (the price list's region index) is replaced by its units (pipelines.refresh.fan_out): its index
    is fetched while the other sources refresh; then the units whose version moved are refreshed, one at a time,
    and the others are logged "unchanged" without a download."""
    warm_up_in_background()  # Great Expectations takes seconds to import: it loads while the sources fetch
    refresh = partial(refresh_sources, db_path=db_path, archive=archive, fetcher=fetcher, on_phase=on_phase)
    plan = refresh_plan(sources)
    if not plan.indexes:
        return refresh(plan.units, max_sources=max_sources, on_done=on_done, fetched=fetched)
    read: Future[list[IndexFetch]] = Future()
    indexes = plan.indexes
    threading.Thread(target=_fetch_indexes, args=(read, indexes, fetcher), name="ratecard-index", daemon=True).start()
    outcomes = refresh(plan.units, max_sources=max_sources, on_done=on_done, fetched=fetched)
    try:
        with connect(db_path) as con:
            planned = [plan_units(con, fetched, archive) for fetched in result_of(read)]
        for known in (outcome for _units, logged in planned for outcome in logged):
            outcomes.append(known)
            on_done(known)
        units = [unit for found, _logged in planned for unit in found]
        # One unit at a time: a price-list region holds its offer file (on disk) and its parsed rows until it lands.
        # The units others read first: a Savings Plans region prices its rates with the types the EC2 regions land.
        first = [unit for unit in units if not lands_after_units(unit)]
        outcomes += refresh(first, max_sources=UNITS_AT_ONCE, on_done=on_done)
        outcomes += refresh([u for u in units if u not in first], max_sources=UNITS_AT_ONCE, on_done=on_done)
        if plan.after_indexes:
            outcomes += refresh(plan.after_indexes, max_sources=max_sources, on_done=on_done, fetched=fetched)
        return outcomes
    except RefreshStopped as stop:
        raise RefreshStopped(outcomes + stop.outcomes, stop.cause) from stop
    except (KeyboardInterrupt, StopRequested) as exc:
        raise RefreshStopped(outcomes, exc) from exc


def _fetch_indexes(read: Future[list[IndexFetch]], indexes: list[SourceSpec], fetcher: Fetcher) -> None:
    try:
        read.set_result([fetch_index(source, fetcher) for source in indexes])
    except BaseException as exc:  # a bug: raised in the calling thread by result_of
        read.set_exception(exc)


def refresh_sources(
    sources: list[SourceSpec],
    *,
    db_path: Path | str,
    archive: Archive,
    fetcher: Fetcher,
    max_sources: int,
    on_phase: PhaseCallback = lambda _id, _phase: None,
    on_done: DoneCallback = lambda _outcome: None,
    fetched: Fetched | None = None,
) -> list[SourceOutcome]:
    """refresh_all for sources that are each one unit (no index source)."""
    ordered = landing_order(sources)
    run = _Run(fetcher, fetched or {}, archive, on_phase, LastLandings([s.id for s in ordered]))
    read_first_ids = {s.id for s in ordered if s.kind in read_by_others()}
    if not read_first_ids:
        run.read_first_landed.set()
    outcomes: list[SourceOutcome] = []
    # Fetching starts at once, before the warehouse is open: it needs none, and opening one can take a while (a
    # new or upgraded file gets its schema). Each worker gets its reader once the writer has the connection.
    # FX first in the queue, so a worker never waits on rates that no worker is fetching.
    readers: list[Future[duckdb.DuckDBPyConnection]] = [Future() for _ in ordered]
    work = list(zip(ordered, readers, strict=True))
    with contextlib.ExitStack() as stack:
        try:  # a stop may come while the workers start, the first ones already fetching
            futures = start_workers(lambda item: run.gather(*item), work, max_sources, run.stopping)
            con = stack.enter_context(connect(db_path))
            for reader in readers:
                reader.set_result(cursor(con))
            # Only parsing is left when every body came fetched: let it finish, so one GE run validates them all.
            checked, reader_closed = start_checker(
                run, cursor(con), futures, wait_for_all=bool(fetched) and not read_first_ids
            )
            for future in checked:
                outcome = run.land(con, result_of(future))
                outcomes.append(outcome)
                on_done(outcome)
                read_first_ids.discard(outcome.source_id)
                if not read_first_ids:
                    run.read_first_landed.set()
            reader_closed.wait()  # every verdict is in, so the checker is closing its reader now
        except BaseException as exc:  # before the connection closes: workers see the stop and check nothing
            run.stopping.set()
            run.read_first_landed.set()  # release the workers waiting for them
            for reader in readers:
                reader.cancel()  # those still waiting for the warehouse (its opening failed or was stopped)
            run.cursors.quit(STOP_WAIT_S)  # no thread may be inside DuckDB when the process exits
            if (stop := as_stop(exc)) is not None:
                raise RefreshStopped(outcomes, stop) from exc
            raise
    return outcomes
