"""`ratecard decide [--workload W] [--format text|json] [--out FILE.md]`: the guide's steps for a workload (every
workload when none is named), from the published snapshot, and the verdict with the rule that decided it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.options import SnapshotReadOption, named_path
from pipelines.cli.reporting import Mistake
from warehouse.files import DEFAULT_DB_PATH


def register(app: typer.Typer, console: Console) -> None:
    @app.command("decide")
    def decide(
        workload: Annotated[
            str | None, typer.Option("--workload", help="Workload, as its pilots name it (default: every one).")
        ] = None,
        output: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
        out: Annotated[
            Path | None, typer.Option("--out", parser=named_path, help="Also write the decision as Markdown here.")
        ] = None,
        db: SnapshotReadOption = DEFAULT_DB_PATH,
        wait: Annotated[float, typer.Option("--wait", min=0, help="Seconds to wait for the database.")] = 30.0,
    ) -> None:
        """Walk the guide for a workload: software gate, pilot, bill, payback, then the verdict and its rule."""
        from pipelines.cli.hints import nearest_names
        from pipelines.cli.show import reading
        from pipelines.decide.render import as_data, markdown, print_decision
        from pipelines.decide.steps import gather, workloads
        from pipelines.decide.verdict import decide as verdict_of

        if out is not None:
            _check_out(out)
        if output not in ("text", "json"):
            raise Mistake(f"--format {output!r} is neither text nor json", "use --format text or --format json")
        with reading(db, wait) as con:
            known = workloads(con)
            if workload is not None and workload not in known:
                near = nearest_names(workload, known)
                hint = f"did you mean {', '.join(near)}?" if near else f"the workloads here: {', '.join(known)}"
                raise Mistake(f"unknown workload {workload!r}: no pilot, run, plan or profile in {db}", hint, code=1)
            decided = [
                (steps, verdict_of(steps)) for steps in (gather(con, w) for w in ([workload] if workload else known))
            ]
        if out is not None:
            _write(out, "\n".join(markdown(steps, verdict) for steps, verdict in decided))
        if output == "json":
            import json

            data = [as_data(steps, verdict) for steps, verdict in decided]
            typer.echo(json.dumps(data[0] if workload else data, indent=2))
            return
        for steps, verdict in decided:
            print_decision(console, steps, verdict)
        if out is not None:
            console.print(f"written: {out}")


def _check_out(out: Path) -> None:
    """Before anything is read: `out` names a Markdown file, not a folder."""
    if out.is_dir():
        raise Mistake(f"--out {out} is a folder", "name a file to write, such as decision.md")
    if out.suffix.lower() != ".md":  # never written over a database or any other file by a slip
        raise Mistake(f"--out {out} is not a Markdown file name", "name a .md file, such as decision.md")


def _write(out: Path, text: str) -> None:
    """The Markdown written to `out`; an unwritable path is the user's to correct, named."""
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise Mistake(
            f"--out {out} cannot be written: {exc.strerror or exc}", "name a file in a writable folder"
        ) from None
