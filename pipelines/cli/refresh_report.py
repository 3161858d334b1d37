"""What a refresh (or a reparse) reports: its outcomes and exit code, the summary table the terminal shows, and the
details log the terminal leaves out."""

from __future__ import annotations

import contextlib
import signal
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipelines.cli.faults import machine_fault
from pipelines.errors import bug_behind
from pipelines.kind import REFUSED_MARK
from pipelines.refresh.one_source import NOT_CONFIGURED, SourceOutcome
from warehouse.target import local_dir

STATUS_STYLE = {
    "landed": "green",
    "unchanged": "cyan",
    "quarantined": "red",
    "fetch_failed": "red",
    "rolled_back": "red",
    NOT_CONFIGURED: "yellow",
}
EXIT_FOR_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}  # 128 + the signal's number, as shells report it
NO_NETWORK_CAUSES = frozenset({"dns", "refused"})  # failures that mean "not reachable at all", not "busy"
DETAIL_WIDTH = 100


@dataclass
class RefreshReport:
    outcomes: list[SourceOutcome]
    seconds: dict[str, float]
    published: Path | str | None = None
    stopped_by: int | None = None  # the signal that stopped it
    log_path: Path | None = None
    failed: list[SourceOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # after the publish (change notification), for the log
    fault: Exception | None = None  # a fault of the machine (a full disk) that ended the run: reported after it

    def __post_init__(self) -> None:
        self.failed = [o for o in self.outcomes if not o.ok]

    @property
    def exit_code(self) -> int:
        if self.stopped_by is not None:
            return EXIT_FOR_SIGNAL.get(signal.Signals(self.stopped_by), 128 + self.stopped_by)
        return 1 if self.failed or self.refused or self.published is None else 0

    @property
    def refused(self) -> int:
        """Rows or tables refused one by one in sources that otherwise landed: a partial failure."""
        return sum(o.refused for o in self.outcomes)


def write_log(report: RefreshReport, db: Path, command: str = "refresh") -> Path | None:
    """Every detail the terminal leaves out: full errors, validation failures and warnings, per source. Beside the
    warehouse, else (its disk full or read-only) in the temporary folder; None, with a note, when neither takes it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = [f"ratecard {command} of {db} at {stamp}"]
    if report.fault is not None:
        lines.append(f"error: {report.fault}")
    for outcome in report.outcomes:
        lines.append(
            f"\n== {outcome.source_id}: {outcome.status} ({report.seconds.get(outcome.source_id, 0):.2f} s) "
            f"{outcome.url}  +{outcome.inserted} -{outcome.closed} ={outcome.unchanged}"
        )
        if outcome.error is not None:
            lines.append(f"error: {outcome.error}")
            lines += [f"  - {failure}" for failure in getattr(outcome.error, "failures", [])]
            bug = bug_behind(outcome.error)
            if bug is not None:
                lines += [f"  | {line}" for line in bug.traceback_lines()]
        lines += [f"warning: {warning}" for warning in outcome.warnings]
    lines += [f"\n{note}" for note in report.notes]
    name = f"{command.replace(' ', '-')}-{stamp}.log"
    for path in (local_dir(db) / "logs" / name, Path(tempfile.gettempdir()) / "ratecard-logs" / name):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return path
        except OSError as exc:
            fault = machine_fault(exc, path)
            if fault is None:
                raise
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)  # what a full disk took of it
            report.notes.append(f"details log not written there: {fault}")
    return None


def print_summary(report: RefreshReport, db: Path, console: Console, command: str = "refresh") -> None:
    table = Table(title=f"{command.capitalize()} of {db}", show_lines=False)
    for name in ("source", "outcome", "opened", "closed", "unchanged", "seconds", "detail"):
        table.add_column(name, justify="right" if name in ("opened", "closed", "unchanged", "seconds") else "left")
    for outcome in report.outcomes:
        style = STATUS_STYLE.get(outcome.status, "white")
        table.add_row(
            outcome.source_id,
            f"[{style}]{outcome.status}[/]",
            str(outcome.inserted),
            str(outcome.closed),
            str(outcome.unchanged),
            f"{report.seconds.get(outcome.source_id, 0):.2f}",
            escape(one_line(detail(outcome))),  # "[source]" is not markup
        )
    console.print(table)
    console.print(closing_line(report))
    if no_network(report.outcomes):
        console.print(
            "[red]no network? every source failed to resolve its host or was refused a connection.[/] "
            "`ratecard refresh --offline` refreshes from the bundled samples."
        )
    for note in report.notes:
        console.print(f"[dim]{escape(note)}[/]")
    if report.log_path is not None:
        console.print(f"details: {report.log_path}")


def closing_line(report: RefreshReport) -> str:
    landed = sum(o.status == "landed" for o in report.outcomes)
    unchanged = sum(o.status == "unchanged" for o in report.outcomes)
    counts = f"{landed} landed, {unchanged} unchanged, {len(report.failed)} failed"
    if left_out := sum(o.status == NOT_CONFIGURED for o in report.outcomes):
        counts += f", {left_out} not configured (left out)"
    if report.refused:
        counts += f", [red]{report.refused} row(s) or table(s) refused[/] (named in the details)"
    published = f"snapshot published to {report.published}" if report.published else "[red]snapshot not published[/]"
    if report.stopped_by is not None:
        name = signal.Signals(report.stopped_by).name
        return f"[red]stopped by {name}[/]: {counts} before the stop; nothing half-landed; {published}"
    return f"{counts}; {published}"


def detail(outcome: SourceOutcome) -> str:
    if outcome.error is not None:
        return str(outcome.error)
    if outcome.status == NOT_CONFIGURED:
        return outcome.warnings[0] if outcome.warnings else ""
    if outcome.refused:
        first = next((w for w in outcome.warnings if REFUSED_MARK in w), "")
        return f"{outcome.refused} refused, e.g. {first.split(REFUSED_MARK, 1)[-1].strip()}"
    return ""


def no_network(outcomes: list[SourceOutcome]) -> bool:
    """Every source failed before reaching its host: more likely the machine than the providers."""
    causes = [getattr(o.error, "cause", None) for o in outcomes if o.status != NOT_CONFIGURED]
    return bool(outcomes) and all(cause in NO_NETWORK_CAUSES for cause in causes)


def one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= DETAIL_WIDTH else flat[: DETAIL_WIDTH - 3] + "..."
