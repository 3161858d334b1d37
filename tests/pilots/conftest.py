"""One offline refresh for every pilot test of a worker (package scope), and a private copy per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.pilot_runs import (
    SOURCES,
    ratecard,
)


@pytest.fixture(scope="package")
def refreshed(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("refreshed") / "prices.duckdb"
    sources = [arg for sid in SOURCES for arg in ("--source", sid)]
    done = ratecard("refresh", "--offline", "--db", db, *sources)
    assert done.returncode == 0, done.stdout + done.stderr
    return db


@pytest.fixture
def db(refreshed, tmp_path) -> Path:
    """A private copy of the refreshed warehouse (no snapshot yet: the pilot command publishes one)."""
    copy = tmp_path / "prices.duckdb"
    shutil.copyfile(refreshed, copy)
    return copy
