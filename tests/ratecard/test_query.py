"""`ratecard.query`, the Python API: the same offers as `ratecard find` for the same filters, read-only, and the
README's examples run as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal

import pyarrow as pa
import pytest
from typer.testing import CliRunner

import ratecard
from pipelines.cli.app import app
from tests.support.paths import ROOT
from warehouse.target import WAREHOUSE_ENV

runner = CliRunner()


def found(db, *args):
    result = runner.invoke(app, ["find", *args, "--format", "json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_query_returns_the_offers_find_lists(demo_warehouse):
    table = ratecard.query(gpu="H100", count=8, db=demo_warehouse)
    assert isinstance(table, pa.Table) and pa.types.is_decimal(table.schema.field("usd_per_accelerator_hour").type)
    listed = found(demo_warehouse, "--gpu", "H100", "--count", "8")
    assert len(listed) > 1
    assert [
        (r["provider"], r["offering"], r["price_kind"], r["usd_per_accelerator_hour"]) for r in table.to_pylist()
    ] == [(r["provider"], r["offering"], r["price_kind"], Decimal(r["usd_per_accelerator_hour"])) for r in listed]


def test_query_shares_finds_defaults_and_filters(demo_warehouse, monkeypatch):
    monkeypatch.setenv(WAREHOUSE_ENV, str(demo_warehouse))  # as the CLI, the environment names the warehouse
    frame = ratecard.query(accelerator="trn2", kind="all", as_="pandas")
    assert list(frame["price_kind"]) == ["capacity_block"] and list(frame["region_code"]) == ["us-east-2"]
    assert set(ratecard.query(gpu="H100").column("price_kind").to_pylist()) == {"on_demand"}  # on-demand by default
    month = ratecard.query(gpu="H100", per="month", max_price="2000")
    assert month.num_rows and max(month.column("usd_per_offering_month_730h").to_pylist()) <= 2000


def test_an_unknown_name_raises_naming_the_nearest(demo_warehouse):
    with pytest.raises(ratecard.UnknownName, match="nearest: H100"):
        ratecard.query(gpu="H1000", db=demo_warehouse)


def test_polars_is_asked_for_only_when_wanted(demo_warehouse):
    try:
        import polars  # noqa: F401 - optional, never a dependency
    except ImportError:
        with pytest.raises(ImportError, match="polars"):
            ratecard.query(gpu="H100", db=demo_warehouse, as_="polars")
    else:
        assert ratecard.query(gpu="H100", db=demo_warehouse, as_="polars").height > 0


def test_the_readmes_examples_run(demo_warehouse):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- run by tests/ratecard/test_query.py -->\n```python\n(.*?)```", readme, re.DOTALL)
    assert block is not None, "the README's Python examples are marked for this test"
    done = subprocess.run(
        [sys.executable, "-c", block.group(1)],
        env={"PATH": "/usr/bin:/bin", WAREHOUSE_ENV: str(demo_warehouse)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-800:]
    assert "Hyperstack" in done.stdout or "Lambda" in done.stdout or "LeaderGPU" in done.stdout
    assert "trn2.48xlarge" in done.stdout and "total_usd_per_month_730h" in done.stdout
