"""One landed warehouse and its site for every dashboard test (their modules share the "dashboard" xdist group, so
one worker lands it once): every sample landed, one price changed in between (history has two versions), a page
quarantined, then the example pilots and traffic profiles."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.sources.file import load_sources, sample_path
from tests.dashboard.reading import DECISION_PAGES, PAGES
from tests.support.browser import chromium
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import PILOT_SAMPLES
from tests.support.sourcefiles import serve_samples, write_sources_file

runner = CliRunner()


def refresh(*args: str, exit_code: int = 0) -> None:
    result = runner.invoke(app, ["refresh", *args], terminal_width=200)
    assert result.exit_code == exit_code, result.output


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory) -> Path:
    """Every sample landed, then trn1.32xlarge's on-demand price moved from $21.50 to $20.00 and landed again."""
    tmp = tmp_path_factory.mktemp("dashboard")
    db = tmp / "prices.duckdb"
    sources = load_sources()
    with LocalServer() as server:
        serve_samples(server, sources)  # each sample, and the price list's regional offer files
        sources_file = write_sources_file(tmp / "sources.toml", sources, server.base_url)
        refresh("--sources", str(sources_file), "--db", str(db))
        trn1 = sample_path(next(s for s in sources if s.id == "aws_trn1")).read_bytes()
        server.set("/aws/trn1.html", Reply(body=trn1.replace(b"<td>$21.50</td>", b"<td>$20.00</td>")))
        refresh("--sources", str(sources_file), "--db", str(db), "--source", "aws_trn1")
        # A page with no price table: quarantined with its reason, Inf1's previous version stays current.
        server.set("/aws/inf1.html", Reply(body=b"<html><body><h1>Inf1</h1><p>Under maintenance</p></body></html>"))
        refresh("--sources", str(sources_file), "--db", str(db), "--source", "aws_inf1", exit_code=1)
    # The snapshot as it stands before any pilot, for the test that edits a copy: DuckDB 1.5.5 checkpointing a
    # copy of a snapshot (storage v1.1.0) that holds two pilot inputs breaks its pilot_inputs index (also at
    # 8baf85a, before pilot conditions and traffic); readers never write the snapshot, so only that test needs a
    # copy without them.
    shutil.copyfile(db.with_name("prices.snapshot.duckdb"), db.with_name("before-pilots.snapshot.duckdb"))
    # The example's pilots and traffic profiles, for the deployment page.
    pilots = (
        ["import", str(PILOT_SAMPLES / "example.csv")],
        ["traffic", "--csv", str(PILOT_SAMPLES / "traffic_example.csv")],
    )
    for args in pilots:
        result = runner.invoke(app, ["pilot", *args, "--db", str(db)], terminal_width=200)
        assert result.exit_code == 0, result.output
    return db


@pytest.fixture(scope="session")
def site(warehouse) -> Path:
    out = warehouse.parent / "site"
    result = runner.invoke(app, ["dashboard", "--db", str(warehouse), "--out", str(out)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"wrote {len(PAGES) + len(DECISION_PAGES)} pages to {out}" in result.output
    return out


@pytest.fixture(scope="session")
def snapshot(warehouse):
    with duckdb.connect(str(warehouse.with_name("prices.snapshot.duckdb")), read_only=True) as con:
        yield con


@pytest.fixture(scope="module")
def browser():
    """Playwright's sync API runs an asyncio loop in the main thread while it is open: closed with each module, so a
    later test in the same worker (an in-process `anyio.run`) never finds a loop running."""
    with chromium() as b:
        yield b
