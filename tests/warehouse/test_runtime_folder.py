"""Everything a run makes goes in var/ by default, and a checkout whose warehouse sits at the earlier default keeps
using that one (and what is beside it) until its owner moves it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.paths import ROOT
from warehouse.files import RUNTIME_DIR, default_db_path


def test_a_new_checkout_keeps_its_warehouse_in_the_runtime_folder(tmp_path: Path) -> None:
    assert (
        default_db_path(tmp_path / "var", tmp_path / "warehouse" / "prices.duckdb")
        == tmp_path / "var" / "prices.duckdb"
    )
    assert RUNTIME_DIR == ROOT / "var"


def test_a_warehouse_at_the_earlier_default_stays_in_use_until_it_is_moved(tmp_path: Path) -> None:
    earlier = tmp_path / "warehouse" / "prices.duckdb"
    earlier.parent.mkdir()
    earlier.write_bytes(b"")
    assert default_db_path(tmp_path / "var", earlier) == earlier
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "prices.duckdb").write_bytes(b"")  # moved (or a new one made): the runtime folder wins
    assert default_db_path(tmp_path / "var", earlier) == tmp_path / "var" / "prices.duckdb"


def test_git_ignores_what_a_run_makes() -> None:
    for made in ("var/prices.duckdb", "var/archive/ab/abcd.zst", "var/dashboard/index.html", "var/dagster/runs.db"):
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", made], cwd=ROOT, check=False)
        assert ignored.returncode == 0, made
