"""The README's offline Dagster recipe, run as written: `ratecard samples serve` in one process, and the refresh job
run from the command line (`dagster job execute -m pipelines.definitions -j refresh_prices`) in another, with
RATECARD_OFFLINE_BASE_URL pointed at the samples, a DAGSTER_HOME of its own and a new warehouse.

For speed the job reads a sources file of three of the bundled sources, chosen for what a plain static server cannot
answer: RunPod's API (POSTed to) and the price list's files (asked for at AWS's own paths), with a product page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import duckdb

from pipelines.sources.file import load_sources
from pipelines.sources.toml_writer import sources_toml
from tests.support.paths import ROOT

BIN = Path(sys.executable).parent
SOURCE_IDS = ("aws_trn1", "gpu_runpod", "aws_pricelist")
BASE_URL = re.compile(r"^RATECARD_OFFLINE_BASE_URL=(http://127\.0\.0\.1:\d+)$")


def base_url_of(server: subprocess.Popen[str]) -> str:
    """The URL `ratecard samples serve` prints once it listens."""
    assert server.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if match := BASE_URL.match(line.strip()):
            return match[1]
        assert line, f"samples serve ended (exit {server.poll()}) before printing its URL"
    raise AssertionError("samples serve printed no URL within 60 s")


def test_the_refresh_job_runs_from_the_command_line_against_ratecard_samples_serve(tmp_path, children):
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copyfile(ROOT / "dagster.yaml", home / "dagster.yaml")  # as `make dev` links it
    sources_file = tmp_path / "sources.toml"
    sources_file.write_text(sources_toml([s for s in load_sources() if s.id in SOURCE_IDS]))
    warehouse = tmp_path / "warehouse" / "prices.duckdb"

    server = subprocess.Popen(
        [str(BIN / "ratecard"), "samples", "serve", "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    children.append(server)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "RATECARD_OFFLINE_BASE_URL": base_url_of(server),
        "RATECARD_SOURCES": str(sources_file),
        "RATECARD_WAREHOUSE": str(warehouse),
    }
    job = subprocess.run(
        [str(BIN / "dagster"), "job", "execute", "-m", "pipelines.definitions", "-j", "refresh_prices"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    log = job.stdout + job.stderr
    assert job.returncode == 0 and "RUN_SUCCESS" in log, log[-3000:]
    assert "STEP_FAILURE" not in log, log[-3000:]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        outcomes = dict(con.execute("SELECT source_id, outcome FROM fetch_log").fetchall())
        runpod = con.execute("SELECT count(*) FROM gpu_listing_history WHERE source_id = 'gpu_runpod'").fetchone()
        regions = con.execute("SELECT count(DISTINCT region_code) FROM aws_pricelist_price_history").fetchone()
        trn1 = con.execute(
            "SELECT usd_per_instance_hour FROM aws_instance_price_history WHERE source_id = 'aws_trn1' "
            "AND instance_type = 'trn1.32xlarge' AND price_kind = 'on_demand' AND valid_to IS NULL"
        ).fetchone()
    assert {"aws_trn1", "gpu_runpod", "aws_pricelist_us_east_1"} <= {s for s, o in outcomes.items() if o == "landed"}
    assert runpod is not None and runpod[0] > 0  # RunPod's POST answered
    assert regions == (2,)  # us-east-1 and us-east-2 at AWS's paths (eu-south-2 prices no accelerator)
    assert trn1 == (Decimal("21.50"),)
