"""What the reading commands (`find`, `show`, `history`, `changes`, `pilot costs`) write besides a terminal table:
JSON with money as exact strings (the unit in each field's name, as the views name them), CSV with the exact
decimal text, or Parquet with the DECIMAL types kept; and the options that choose them."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from pipelines.cli.options import named_path
from pipelines.cli.reporting import Mistake
from pipelines.offers.plain import exact_rows

NARROW_WIDTH = 100  # a table fits a 100-column terminal unless --wide
WIDE_WIDTH = 1000  # --wide: as wide as the columns need (a terminal folds it, a pager or file keeps each row whole)


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    parquet = "parquet"


FormatOption = Annotated[OutputFormat, typer.Option("--format", help="table, json, csv or parquet.")]
OutputOption = Annotated[
    Path | None, typer.Option("--output", parser=named_path, help="Write json, csv or parquet to this file.")
]
WideOption = Annotated[bool, typer.Option("--wide", help="Every column in the table, names in full.")]


def check_output(fmt: OutputFormat, output: Path | None, example: str) -> None:
    """Refuse, before anything is read, an --output the format cannot use or a parquet with nowhere to go."""
    if output is not None and fmt is OutputFormat.table:
        raise Mistake("--output writes json, csv or parquet", "add --format json, csv or parquet")
    if fmt is OutputFormat.parquet and output is None:
        raise Mistake("--format parquet needs --output PATH", f"name the file to write, such as {example}")
    if output is not None and output.is_dir():
        raise Mistake(f"--output {output} is a folder", f"name a file to write, such as {example}")


def plain(value: Decimal) -> str:
    """A Decimal exactly, without its storage scale's trailing zeros: 1.500000 -> 1.5, 320.000000 -> 320."""
    return format(value.normalize(), "f")


def exact_text(value: Any) -> str:
    """A cell as text, exactly: a Decimal in fixed point with its trailing zeros trimmed (never fewer than cents)."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        whole, _, fraction = format(value.normalize(), "f").partition(".")
        return f"{whole}.{fraction.ljust(2, '0')}"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def plain_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with every Decimal as its exact fixed-point text and every time in ISO form; other values as they are."""
    return exact_rows(rows)


def json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def csv_text(rows: list[dict[str, Any]], names: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(plain_rows(rows))
    return buffer.getvalue()


def deliver(body: str, output: Path | None, said: str) -> None:
    """The body on stdout, or written to --output with one line on stderr saying what went there."""
    if output is None:
        typer.echo(body, nl=False)
        return
    output.write_text(body, encoding="utf-8")
    typer.echo(f"wrote {said} to {output}", err=True)


def write_rows(rows: Any, fmt: OutputFormat, output: Path | None, noun: str = "rows") -> None:
    """One table (a pyarrow Table, as DuckDB returns it with its DECIMAL types) as JSON, CSV or Parquet."""
    if fmt is OutputFormat.parquet:
        import pyarrow.parquet as pq

        assert output is not None  # check_output asked for it first
        pq.write_table(rows, output)
        typer.echo(f"wrote {rows.num_rows} {noun} to {output}", err=True)
        return
    listed = rows.to_pylist()
    body = json_text(plain_rows(listed)) if fmt is OutputFormat.json else csv_text(listed, rows.column_names)
    deliver(body, output, f"{rows.num_rows} {noun}")


def write_tables(tables: dict[str, Any], fmt: OutputFormat, output: Path | None, chosen: str | None) -> None:
    """Several tables: JSON as one object keyed by table name (all, or the one chosen); CSV and Parquet write the
    one chosen."""
    if fmt is not OutputFormat.json:
        assert chosen is not None  # the command asked for it first
        write_rows(tables[chosen], fmt, output, f"{chosen} rows")
        return
    kept = {name: rows for name, rows in tables.items() if chosen is None or name == chosen}
    body = json_text({name: plain_rows(rows.to_pylist()) for name, rows in kept.items()})
    deliver(body, output, f"{len(kept)} table(s)")
