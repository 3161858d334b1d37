"""`ratecard` as a user runs it: refresh offline into a temp file, show, refuse unknown sources."""

from __future__ import annotations

import re

import duckdb
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.reporting import EXIT_CODES
from pipelines.sources.file import load_sources
from tests.support.paths import ROOT

runner = CliRunner()


def test_refresh_offline_then_show(tmp_path):
    db = tmp_path / "prices.duckdb"
    first = runner.invoke(app, ["refresh", "--offline", "--db", str(db)], terminal_width=200)
    assert first.exit_code == 0, first.output
    # Every source, and the in-repo references (launch dates, NVIDIA GPU figures) after a full refresh; the price
    # list lands as its three sample regions (aws_pricelist_<region>), two more than its one declared source, the
    # Savings Plans as their two (aws_savings_plans_<region>), one more, and SageMaker as its two, one more.
    landed = len(load_sources()) + 2 + 2 + 1 + 1
    assert f"{landed} landed, 0 unchanged, 0 failed; snapshot published to" in first.output
    assert "details: " in first.output and any((db.parent / "logs").glob("refresh-*.log"))

    second = runner.invoke(app, ["refresh", "--offline", "--db", str(db), "--source", "aws_trn1"], terminal_width=200)
    assert second.exit_code == 0, second.output
    assert "0 landed, 1 unchanged, 0 failed" in second.output

    shown = runner.invoke(app, ["show", "--db", str(db), "--wide"], terminal_width=250)
    assert shown.exit_code == 0, shown.output
    trn1_32 = next(line for line in shown.output.splitlines() if "trn1.32xlarge" in line and "on_demand" in line)
    assert "21.50" in trn1_32 and "1.3438" in trn1_32  # exact (1.34375) in --format json
    trn2 = next(line for line in shown.output.splitlines() if "trn2.48xlarge" in line)
    assert "capacity_block" in trn2 and "US East (Ohio)" in trn2 and "2.2351" in trn2
    assert "1.5 TB" in trn2
    # The accelerator generations table: chip, launch, memory and bandwidth as printed.
    trainium2 = next(line for line in shown.output.splitlines() if line.startswith("│ Trainium2 "))
    assert "Trn2 2024-12-03" in trainium2 and "96 GiB" in trainium2 and "2.9 TB/sec" in trainium2
    # AWS accelerators vs NVIDIA: Trainium2's Capacity Block per dense FP8 PFLOP-hour, the format named.
    assert "AWS accelerators vs NVIDIA" in shown.output
    versus = next(
        x for x in shown.output.splitlines() if "capacity_block" in x and "neuron_docs" in x and "Trainium2" in x
    )
    assert "(FP8)" in versus and "neuron_docs" in versus

    # The run recorded where each figure came from: the local sample server, not an AWS address.
    with duckdb.connect(str(db), read_only=True) as con:
        urls = con.execute("SELECT DISTINCT source_url FROM aws_instance_prices").fetchall()
    assert urls and all(u.startswith("http://127.0.0.1:") for (u,) in urls)


def test_unknown_source_is_refused(tmp_path):
    result = runner.invoke(app, ["refresh", "--offline", "--db", str(tmp_path / "x.duckdb"), "--source", "nope"])
    assert result.exit_code == 2
    assert "unknown source id" in result.output


def test_show_before_any_refresh_says_what_to_do(tmp_path):
    result = runner.invoke(app, ["show", "--db", str(tmp_path / "missing.duckdb")])
    assert result.exit_code == 1
    assert "ratecard refresh" in result.output


IMPORTED_HEAVY = """
import sys
from pipelines.cli.app import app
from pipelines.sources.file import load_sources
sys.argv = ["ratecard", *sys.argv[1:]]
try:
    app()
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"great_expectations", "dagster", "pandas"})
print("HEAVY:" + ",".join(heavy))
"""


def test_help_and_show_import_neither_great_expectations_nor_dagster(tmp_path):
    """They must start fast: the seconds those imports take belong to refresh only."""
    import subprocess
    import sys

    db = tmp_path / "prices.duckdb"
    assert runner.invoke(app, ["refresh", "--offline", "--db", str(db), "--source", "aws_trn1"]).exit_code == 0
    for args in (["--help"], ["show", "--db", str(db)]):
        done = subprocess.run(
            [sys.executable, "-c", IMPORTED_HEAVY, *args], capture_output=True, text=True, check=False, timeout=120
        )
        assert "HEAVY:\n" in done.stdout, (args, done.stdout[-300:], done.stderr[-300:])


def test_the_cli_page_lists_every_exit_code_the_cli_has():
    """docs/CLI.md's table of exit codes and `EXIT_CODES` (what `ratecard --help` prints) name the same codes."""
    page = (ROOT / "docs" / "CLI.md").read_text()
    table = page.split("Exit codes (also in `ratecard --help`):", 1)[1].split("\n## ", 1)[0]
    assert {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)} == set(EXIT_CODES)
