"""A parser that raises, on a copy of the session's landed warehouse (tests/support/dagster_landed.py): a refresh
quarantines the page as a bug with its traceback in the details log, and a reparse rolls the source back, keeping
its last good rows current, unless `--force` accepts the loss."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.adapters import aws_product_page
from pipelines.errors import ParserBug, ReparseRolledBack
from pipelines.fetch.archive import Archive
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import load_sources
from tests.orchestration.test_end_to_end import query
from tests.support.dagster_landed import BACKEND_PARAMS, DagsterLanding, landing_group
from tests.support.landed import copy_of
from warehouse.target import LAKE_DATA_ENV, local_dir

BROKEN = "the parser broke"
# `ratecard` with the product-page parser raising: a bug in the parser, not a fault of the page.
BROKEN_PARSER_CLI = f"""
import sys
from pipelines.adapters import aws_product_page

def parse(*args, **kwargs):
    raise RuntimeError({BROKEN!r})

aws_product_page.parse = parse
from pipelines.cli.app import app
sys.argv[0] = "ratecard"
app()
"""
TRN1_ON_DEMAND = """SELECT usd_per_instance_hour FROM aws_instance_price_history
                    WHERE source_id = 'aws_trn1' AND instance_type = 'trn1.2xlarge' AND price_kind = 'on_demand'
                      AND valid_to IS NULL"""
TRN1_QUARANTINE = "SELECT fetch_id, stage, reasons FROM quarantine WHERE source_id = 'aws_trn1' ORDER BY fetch_id"


@pytest.fixture
def copied(dagster_landings, tmp_path, monkeypatch, request) -> Iterator[tuple[Path | str, DagsterLanding]]:
    """A private copy of the landing on the backend asked for (the file's, unless parametrised)."""
    landed = dagster_landings.get(getattr(request, "param", "file"))
    if landed.lake_data:
        monkeypatch.setenv(LAKE_DATA_ENV, landed.lake_data)
    with copy_of(landed.db_path, tmp_path / "copy", monkeypatch) as location:
        yield location, landed


def broken_ratecard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BROKEN_PARSER_CLI, *args], capture_output=True, text=True, check=False, timeout=300
    )


def details_log(stdout: str) -> str:
    found = re.search(r"details: (\S+\.log)", stdout)
    assert found, stdout[-2000:]
    return Path(found[1]).read_text(encoding="utf-8")


@landing_group("file")
def test_a_parser_bug_is_quarantined_as_a_bug_with_its_traceback_in_the_details_log(copied):
    db, landed = copied
    done = broken_ratecard("refresh", "--sources", str(landed.sources_file), "--source", "aws_trn1", "--db", str(db))

    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    reason = f"[aws_trn1] parse: parser bug: RuntimeError: {BROKEN}"
    assert query(db, TRN1_QUARANTINE)[-1][1:] == ("parse", [reason])
    log = details_log(done.stdout)
    assert reason in log
    traceback = log[log.index("Traceback (most recent call last)") :]
    assert "in parse\n" in traceback and f"RuntimeError: {BROKEN}" in traceback, log
    assert query(db, TRN1_ON_DEMAND) == [(Decimal("1.34"),)]  # the last good version stays current


@pytest.mark.parametrize("copied", BACKEND_PARAMS, indirect=True)
def test_a_reparse_that_would_lose_landed_rows_rolls_the_source_back(copied, monkeypatch):
    db, landed = copied
    trn1 = next(s for s in load_sources(landed.sources_file) if s.id == "aws_trn1")
    archive = Archive(local_dir(db) / "archive")
    (first_fetch,) = query(db, "SELECT fetch_id FROM fetch_log WHERE source_id = 'aws_trn1'")[0]

    def raising_parse(*args, **kwargs):
        raise RuntimeError(BROKEN)

    monkeypatch.setattr(aws_product_page, "parse", raising_parse)
    with pytest.raises(ReparseRolledBack, match=r"\[aws_trn1\] reparse: rolled back: .* 0 current rows of \d+") as no:
        reparse_source(trn1, db_path=db, archive=archive)

    assert no.value.fetch_id == first_fetch and no.value.rows_before > 0
    assert f"fetch {first_fetch} of " in str(no.value) and f"parser bug: RuntimeError: {BROKEN}" in str(no.value)
    assert isinstance(no.value.__cause__, ParserBug) and isinstance(no.value.__cause__.__cause__, RuntimeError)
    # Rolled back whole: the rows, the fetch's outcome and the quarantine are as they were.
    assert query(db, TRN1_ON_DEMAND) == [(Decimal("1.34"),)]
    assert query(db, "SELECT outcome FROM fetch_log WHERE fetch_id = ?", [first_fetch]) == [("landed",)]
    assert query(db, TRN1_QUARANTINE) == []

    accepted = reparse_source(trn1, db_path=db, archive=archive, accept_shrink=True)
    assert (accepted.quarantined, accepted.rows_after) == (1, 0)
    assert query(db, TRN1_ON_DEMAND) == []
    assert query(db, TRN1_QUARANTINE) == [
        (first_fetch, "parse", [f"[aws_trn1] parse: parser bug: RuntimeError: {BROKEN}"])
    ]


@landing_group("file")
def test_reparse_exits_1_naming_the_refused_fetch_and_force_accepts_the_shrink(copied):
    db, landed = copied
    (first_fetch,) = query(db, "SELECT fetch_id FROM fetch_log WHERE source_id = 'aws_trn1'")[0]
    args = ["reparse", "--sources", str(landed.sources_file), "--db", str(db), "--source", "aws_trn1"]

    refused = broken_ratecard(*args, "--source", "fx_ecb")  # another parser: its rebuild stands

    out = " ".join(refused.stdout.split())  # the console wraps long lines
    assert refused.returncode == 1, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert "[aws_trn1] reparse: rolled back: today's parser would leave 0 current rows of" in out
    assert f"because fetch {first_fetch} of " in out and f"parser bug: RuntimeError: {BROKEN}" in out
    assert "fx_ecb: 1 fetches replayed: 1 landed" in out and "published" in out, out
    assert "reparse --force" in out and "Traceback" not in refused.stderr
    assert f"RuntimeError: {BROKEN}" in details_log(refused.stdout).split("Traceback (most recent call last)")[1]
    assert query(db, TRN1_ON_DEMAND) == [(Decimal("1.34"),)]

    forced = broken_ratecard(*args, "--force")
    assert forced.returncode == 0, forced.stdout[-2000:] + forced.stderr[-2000:]
    assert "aws_trn1: 1 fetches replayed: 0 landed, 0 unchanged, 1 quarantined" in forced.stdout
    assert query(db, TRN1_ON_DEMAND) == []
