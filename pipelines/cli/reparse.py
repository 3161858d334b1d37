"""`ratecard reparse`'s work: each source rebuilt in a transaction of its own, then the snapshot and a details log.

A source whose rebuild was rolled back (fetches that landed before are refused by today's parser, and it would
lose current rows) is named with the first refused fetch and why; the other sources' rebuilds stand, and the
command exits 1, as a refresh does when a source fails.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from pipelines.cli.refresh_report import RefreshReport, write_log
from pipelines.cli.stopping import stops_cleanly
from pipelines.errors import ReparseRolledBack
from pipelines.fetch.archive import Archive
from pipelines.refresh.one_source import SourceOutcome
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import SourceSpec

FORCE_HINT = (
    "hint: if the parser now refuses those pages on purpose, `ratecard reparse --force` accepts the loss of their "
    "rows; else fix the parser and reparse again"
)


def reparse_all(units: list[SourceSpec], db: Path, archive: Archive, console: Console, *, force: bool) -> int:
    """Rebuild each unit, publish the snapshot when any was rebuilt, write the details log; the exit code."""
    from warehouse.publish import publish_snapshot

    rebuilt: list[SourceOutcome] = []  # each source's rebuild is one transaction: committed, or not at all
    with stops_cleanly("reparse", db, console, lambda: rebuilt):
        for spec in units:
            try:
                result = reparse_source(spec, db_path=db, archive=archive, accept_shrink=force)
            except ReparseRolledBack as exc:
                rebuilt.append(SourceOutcome(spec.id, "rolled_back", str(spec.url), error=exc))
                console.print(f"[red]{escape(str(exc))}[/]", soft_wrap=True)
                continue
            status = "landed" if result.landed else "unchanged"
            rebuilt.append(SourceOutcome(spec.id, status, str(spec.url), inserted=result.landed))
            console.print(
                f"{spec.id}: {result.fetches} fetches replayed: {result.landed} landed, "
                f"{result.unchanged} unchanged, {result.quarantined} quarantined"
            )
        report = RefreshReport(rebuilt, {})
        if len(report.failed) < len(rebuilt) or not rebuilt:
            report.published = publish_snapshot(db)
            console.print(f"published {report.published}")
        else:
            console.print("[red]nothing rebuilt: snapshot not published[/]")
    report.log_path = write_log(report, db, "reparse")
    if report.failed:
        console.print(f"[dim]{FORCE_HINT}[/]", soft_wrap=True)
    console.print(f"details: {report.log_path}")
    return 1 if report.failed else 0
