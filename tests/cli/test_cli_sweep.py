"""Every command, with bad arguments: a user's mistake is an error with a documented exit code, never a bug.

The commands and their parameters are read from the CLI itself, so a new command or option is swept without
editing this file. Each parameter gets the bad values of its kind (paths that are files, directories, missing or
taken; numbers out of range or not numbers; names nobody declared), one at a time over a base invocation whose
other values are usable; a command that would run a long job when everything else is right (a refresh, a server)
gets a base value that stops it at its first check. Closed pipes run in subprocesses, where stdout can close.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import typing
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.reporting import EXIT_BUG, EXIT_CODES

RATECARD = Path(sys.executable).with_name("ratecard")
COMMAND = typer.main.get_command(app)
PATH_PARAMS = {"warehouse", "sources", "out", "site", "csv_file", "file", "sources_file", "db"}
# Usable values for required parameters, so a mutation of another one reaches the command's own checks.
USABLE = {
    "workload": "chat-8b",
    "offering": "trn1.32xlarge",
    "unit": "tokens",
    "units_per_hour": "1000",
    "passed": "yes",
    "measured_on": "2026-09-20",
    "baseline": "NVIDIA H100 SXM",
    "one_time_cost": "40000",
    "monthly_maintenance": "500",
    "monthly_volume": "2000000000",
    "lifetime_months": "12",
}
NUMBERS = ["-1", "abc", "1e999", "nan", "99999999999999999999"]
NAMES = ["nosuch", "", "99999999999d", "-5%", "ü.42xlarge"]


# Typer builds its commands on its own vendored click, so parameters are read by what they carry, not by class.
def leaf_commands(group: Any = COMMAND, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(group, "commands"):
        for name, sub in sorted(group.commands.items()):
            yield from leaf_commands(sub, (*path, name))
    else:
        yield path, group


def flag(param: Any) -> str | None:
    return param.opts[0] if param.opts[0].startswith("-") else None


def annotated(param: Any) -> set[type]:
    annotation = param.type_descriptor.annotation
    return set(typing.get_args(annotation) or [annotation])


def is_number(param: Any) -> bool:
    return bool(annotated(param) & {int, float, Decimal})


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> Iterator[dict[str, Path]]:
    """A usable warehouse (schema applied, snapshot published) and the bad paths a user types.

    The sweep runs from inside the same folder, so a command that writes into the current folder (`--out ""` once
    did) is caught by the "nothing left behind" check instead of littering the checkout.
    """
    from warehouse.db import connect
    from warehouse.publish import publish_snapshot

    root = tmp_path_factory.mktemp("sweep")
    db = root / "usable" / "prices.duckdb"
    with connect(db):
        pass
    publish_snapshot(db)
    damaged = root / "damaged.duckdb"
    damaged.write_bytes(db.read_bytes()[: db.stat().st_size // 2])  # cut short: DuckDB cannot read it whole
    junk = root / "junk.txt"
    junk.write_text("not a database, not TOML, not CSV\x00")
    (root / "a_dir").mkdir()
    sources = root / "stops.toml"
    sources.write_text("this is = = not TOML\n")  # stops a refresh, reparse or backfill at its first check
    here = Path.cwd()
    os.chdir(root)
    taken = socket.create_server(("127.0.0.1", 0))  # serve's base port: even given a site, it never serves
    try:
        yield {
            "db": db,
            "junk": junk,
            "damaged": damaged,
            "dir": root / "a_dir",
            "missing": root / "no" / "such" / "place",
            "stop": sources,
            "port": Path(str(taken.getsockname()[1])),
        }
    finally:
        taken.close()
        os.chdir(here)


def base_args(command: Any, places: dict[str, Path]) -> dict[str, list[str]]:
    """Each parameter's usable value (as argv), so one can be swapped for a bad one."""
    args: dict[str, list[str]] = {}
    for param in command.params:
        name, option = param.name or "", flag(param)
        if name in ("warehouse", "db"):
            value = [str(places["db"])]
        elif name in ("sources_file", "sources"):
            value = [str(places["stop"])]
        elif name == "site":
            value = [str(places["dir"])]  # no index.html: serve refuses before it listens
        elif name == "port":
            value = [str(places["port"])]  # taken: serve refuses, even where another case wrote a site
        elif param.required:
            value = [USABLE.get(name, "x")]
        else:
            continue
        args[name] = ([option] if option else []) + value
    return args


def bad_values(param: Any, places: dict[str, Path]) -> list[str]:
    if getattr(param, "is_flag", False):
        return []
    if Path in annotated(param) or (param.name or "") in PATH_PARAMS:
        return [str(places[key]) for key in ("junk", "damaged", "dir", "missing")] + [""]
    return NUMBERS if is_number(param) else NAMES


def sweep_cases(places: dict[str, Path]) -> Iterator[list[str]]:
    for path, command in leaf_commands():
        yield [*path, "--no-such-option"]
        base = base_args(command, places)
        for param in command.params:
            for value in bad_values(param, places):
                option = flag(param)
                swapped = {**base, param.name or "": ([option] if option else []) + [value]}
                yield [*path, *(arg for values in swapped.values() for arg in values)]


def test_the_sweep_reaches_every_command_and_parameter(places):
    """The sweep is not empty by accident: every command and every non-flag parameter gets bad values."""
    cases = list(sweep_cases(places))
    commands = {path for path, _ in leaf_commands()}
    assert {"refresh", "show", "export", "history", "serve"} <= {" ".join(p) for p in commands}
    assert len(cases) > 10 * len(commands), len(cases)


def test_no_bad_argument_is_reported_as_a_bug(places):
    runner = CliRunner()
    bugs = []
    for args in sweep_cases(places):
        # The folders are as they were for every case: a site one case wrote (`dashboard --out DIR`) is not the
        # next case's input.
        shutil.rmtree(places["dir"])
        places["dir"].mkdir()
        shutil.rmtree(places["missing"].parent.parent, ignore_errors=True)
        before = set(places["db"].parent.parent.rglob("*"))
        result = runner.invoke(app, args)
        output = result.output + (result.stderr if result.stderr_bytes is not None else "")
        if result.exit_code == EXIT_BUG or "bug" in output.lower() or "Traceback" in output:
            bugs.append((args, result.exit_code, output[-400:]))
            continue
        assert result.exit_code in EXIT_CODES, (args, result.exit_code, output[-400:])
        if result.exit_code not in (0, 1) or "error:" in output:  # refused: nothing new beside the inputs
            left = set(places["db"].parent.parent.rglob("*")) - before
            assert not left, (args, sorted(map(str, left)))
    assert not bugs, bugs


def test_each_user_error_is_one_line_with_a_hint(places, tmp_path):
    """The cases a new user met, each with its own exit code, one `error:` line and one `hint:` line on stderr."""
    runner = CliRunner()
    db = ["--db", str(places["db"])]
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>")
    cases = [
        (["serve", "--dir", str(site), "--port", str(taken.getsockname()[1])], 10, "Address already in use"),
        (["export", "--out", str(places["junk"]), *db], 7, "is a file"),
        (["history", "nosuch.42xlarge", *db], 1, "no price history for 'nosuch.42xlarge'"),
        (["samples", "serve", "--port", str(taken.getsockname()[1])], 10, "Address already in use"),
        (["pilot", "costs", "--workload", "nosuch", *db], 1, "unknown workload 'nosuch'"),
        (["show", "--db", str(places["damaged"])], 5, f"{places['damaged']}: damaged or cut short"),
    ]
    try:
        for args, code, named in cases:
            result = runner.invoke(app, args)
            errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
            assert result.exit_code == code, (args, result.output)
            assert len(errors) == 1 and named in errors[0], (args, result.stderr)
            assert re.search(r"^hint: \S", result.stderr, re.MULTILINE), (args, result.stderr)
            assert "error" not in result.stdout, (args, result.stdout)
    finally:
        taken.close()


def test_since_beyond_the_calendar_is_a_usage_error(places):
    result = CliRunner().invoke(app, ["changes", "--since", "99999999d", "--db", str(places["db"])])
    assert result.exit_code == 2, result.output
    assert "reaches back before the year 1" in result.output


@pytest.mark.parametrize(
    "command", [["show"], ["refresh", "--offline"], ["reparse"], ["pilot", "costs", "--workload", "w"]]
)
def test_a_negative_wait_is_a_usage_error(places, command):
    result = CliRunner().invoke(app, [*command, "--wait", "-5", "--db", str(places["db"])])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--wait'" in result.output


def test_a_refused_database_leaves_no_lock_file(tmp_path):
    foreign = tmp_path / "foreign.db"
    foreign.write_text("somebody else's file\n")
    result = CliRunner().invoke(app, ["refresh", "--offline", "--db", str(foreign), "--source", "aws_trn1"])
    assert result.exit_code == 5, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.db"]


def test_a_failed_export_leaves_no_folder(tmp_path):
    foreign = tmp_path / "foreign.db"
    foreign.write_text("somebody else's file\n")
    result = CliRunner().invoke(app, ["export", "--out", str(tmp_path / "new" / "export"), "--db", str(foreign)])
    assert result.exit_code == 5, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.db"]


def closed_stdout_run(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The real CLI with a stdout whose reader has gone (`| head` after its lines)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {**os.environ, "TQDM_DISABLE": "1", "GX_ANALYTICS_ENABLED": "False"}
        return subprocess.run(
            [str(RATECARD), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


def test_a_closed_pipe_is_never_a_bug(places):
    """Help of every command, and the commands that print tables, into a pipe nobody reads."""
    db = ["--db", str(places["db"])]
    runs = [[*path, "--help"] for path, _ in leaf_commands()] + [["--help"], ["show", *db], ["changes", *db]]
    for args in runs:
        done = closed_stdout_run(args)
        assert done.returncode in (1, 141), (args, done.returncode, done.stderr[-400:])
        assert "Traceback" not in done.stderr and "bug" not in done.stderr.lower(), (args, done.stderr[-400:])
    assert closed_stdout_run(["show", *db]).returncode == 141
