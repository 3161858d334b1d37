"""The CLI tests' shared warehouse for the reading commands: the demo's, with history and pilots to read."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.support.landed import copy_file_warehouse
from tests.support.paths import PILOT_SAMPLES


@pytest.fixture(scope="session")
def worked(demo_warehouse, tmp_path_factory) -> Path:
    """A copy of the demo warehouse with AWS's past price lists backfilled (price changes to list) and the example
    pilots and traffic profiles imported (costs to rank)."""
    db = copy_file_warehouse(demo_warehouse, tmp_path_factory.mktemp("formats") / "warehouse")
    steps = [
        ["backfill", "pricelist", "--offline", "--region", "us-east-1"],
        ["pilot", "import", str(PILOT_SAMPLES / "example.csv")],
        ["pilot", "traffic", "--csv", str(PILOT_SAMPLES / "traffic_example.csv")],
    ]
    for args in steps:
        done = CliRunner().invoke(app, [*args, "--db", str(db)], terminal_width=200)
        assert done.exit_code == 0, done.output
    return db
