"""`ratecard doctor [--live]`: does each source's page still parse? Fetched once, checked as a refresh checks it, landed
nowhere that lasts.

With `--live` every source is fetched from its own URL (the day this runs with the internet); without it, from the
bundled samples served on 127.0.0.1. Each page goes through the refresh's own fetch, parse, prepare and validation
into a throwaway warehouse (so a GPU price converts with the rates fetched in the same run), which is deleted after:
the user's warehouse is never opened. An index source (the price list's region index) is read and its units
counted, but the files they name (about 250 MB a region) are not downloaded; a source whose prices read what those
units land (the spot feed) is not checked alone, and says so. Exit 0 when every page checked parses, 1 otherwise.
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.options import SourcesOption, selected_sources
from pipelines.sources.locations import DEFAULT_SOURCES_FILE

if TYPE_CHECKING:
    from pipelines.fetch.http import Fetcher
    from pipelines.refresh.one_source import SourceOutcome
    from pipelines.sources.file import SourcesFile, SourceSpec


@dataclass
class Finding:
    source_id: str
    verdict: str  # parses | refused | fetch failed | not configured | not checked alone
    rows: int = 0
    detail: str = ""  # the figures it would land, or why not


def register(app: typer.Typer, console: Console) -> None:
    @app.command("doctor")
    def doctor(
        live: Annotated[
            bool, typer.Option("--live", help="Fetch every source from its own URL (needs the internet).")
        ] = False,
        sources_file: SourcesOption = DEFAULT_SOURCES_FILE,
        source: Annotated[list[str] | None, typer.Option("--source", help="Only this source id (repeatable).")] = None,
    ) -> None:
        """Fetch each source once and say whether its page still parses, with the figures it would land. Lands
        nothing: the check runs in a throwaway warehouse. Without --live, the bundled samples are checked."""
        from pipelines.cli.terminal import quiet_libraries
        from pipelines.sources.file import load_sources_file

        quiet_libraries()
        declared = load_sources_file(sources_file)
        findings = check(declared, selected_sources(declared.sources, source), live=live)
        console.print(findings_table(findings, live))
        failed = [f.source_id for f in findings if f.verdict in ("refused", "fetch failed")]
        parses = sum(f.verdict == "parses" for f in findings)
        unset = [f.source_id for f in findings if f.verdict == "not configured"]
        alone = len(findings) - parses - len(failed) - len(unset)
        console.print(
            f"{parses} of {len(findings)} sources parse"
            + (f"; {len(failed)} failed: {', '.join(failed)}" if failed else "")
            + (f"; {len(unset)} not configured: {', '.join(unset)}" if unset else "")
            + (f"; {alone} not checked alone" if alone else "")
        )
        if failed:
            raise typer.Exit(code=1)


def check(declared: SourcesFile, selected: list[SourceSpec], *, live: bool) -> list[Finding]:
    """Each selected source's finding, in sources-file order."""
    from pipelines.fetch.archive import Archive
    from pipelines.fetch.http import Fetcher, FetchSettings
    from pipelines.fetch.offline import pointed_at, serve_directory
    from pipelines.refresh.fan_out import lands_after_units, reads_index
    from pipelines.refresh.many_sources import refresh_all

    settings = FetchSettings(per_host_limit=declared.concurrency.per_host, deadline_s=declared.fetch.deadline_s)
    with tempfile.TemporaryDirectory(prefix="ratecard-doctor-") as scratch, contextlib.ExitStack() as stack:
        sources = selected if live else pointed_at(selected, stack.enter_context(serve_directory()))
        fetcher = stack.enter_context(Fetcher(settings))
        db = Path(scratch) / "doctor.duckdb"
        pages = [s for s in sources if not reads_index(s) and not lands_after_units(s)]
        archive = Archive(Path(scratch) / "archive")
        landed = refresh_all(
            pages, db_path=db, archive=archive, fetcher=fetcher, max_sources=declared.concurrency.max_sources
        )
        outcomes = {o.source_id: o for o in landed}
        findings = {s.id: _page_finding(s, outcomes[s.id], db) for s in pages if s.id in outcomes}
        findings |= {s.id: _index_finding(s, fetcher) for s in sources if reads_index(s)}
    alone = "not checked alone: its prices read what the index sources' units land"
    return [findings.get(s.id) or Finding(s.id, "not checked alone", detail=alone) for s in selected]


def _page_finding(source: SourceSpec, outcome: SourceOutcome, db: Path) -> Finding:
    from pipelines.cli.formats import plain
    from pipelines.kinds import kind_named
    from pipelines.refresh.one_source import NOT_CONFIGURED
    from warehouse.binding import execute
    from warehouse.db import connect

    if outcome.status == "fetch_failed":
        return Finding(source.id, "fetch failed", detail=str(outcome.error))
    if outcome.status == NOT_CONFIGURED:  # its key's variable is not set: nothing was asked of its host
        return Finding(source.id, "not configured", detail=" ".join(outcome.warnings))
    if outcome.error is not None:
        return Finding(source.id, "refused", detail=str(outcome.error))
    # Its first prices as the drift rules read them: (item, price kind, region, USD price in the kind's unit).
    prices = kind_named(source.kind).history.current_prices
    figures: list[tuple[object, ...]] = []
    if prices is not None:
        with connect(db) as con:
            figures = sorted(execute(con, prices, {"source_id": source.id}).fetchall(), key=str)[:3]
    shown = "\n".join(
        f"{item} {kind} {region or '(region not stated)'} USD {plain(price) if isinstance(price, Decimal) else price}"
        for item, kind, region, price in figures
    )
    refused = f" ({outcome.refused} refused alone, named in the warnings)" if outcome.refused else ""
    return Finding(source.id, "parses", outcome.inserted, (shown or "rows other than prices") + refused)


def _index_finding(source: SourceSpec, fetcher: Fetcher) -> Finding:
    from pipelines.errors import ParseError
    from pipelines.refresh.fan_out import fan_out_of, fetch_index

    fetched = fetch_index(source, fetcher)
    if fetched.error is not None or fetched.result is None:
        return Finding(source.id, "fetch failed", detail=str(fetched.error))
    fan_out = fan_out_of(source)
    assert fan_out is not None  # an index source's kind reads it
    try:
        units = fan_out.units(fetched.result.body, source, fetched.result.final_url)
    except ParseError as exc:
        return Finding(source.id, "refused", detail=str(exc))
    return Finding(source.id, "parses", len(units), f"its index names {len(units)} units; their files are not fetched")


def findings_table(findings: list[Finding], live: bool) -> Table:
    table = Table(title=f"ratecard doctor ({'live pages' if live else 'bundled samples'})", title_justify="left")
    # Prices as the drift rules compare them: USD per instance-hour (AWS), per GPU-hour (GPU listings).
    for header in ("source", "verdict", "rows", "its first prices (USD per instance- or GPU-hour), or why not"):
        table.add_column(header)
    style = {"parses": "green", "refused": "red", "fetch failed": "red"}
    for f in findings:
        table.add_row(f.source_id, f"[{style.get(f.verdict, 'yellow')}]{f.verdict}[/]", str(f.rows), f.detail)
    return table
