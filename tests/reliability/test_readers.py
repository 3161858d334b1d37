"""Readers beside a refresh: SQL clients on the published snapshot never block a refresh and never see half of
one; a client left open on the working file makes the writer wait a bounded time, then say which file to use.
Readers are `python -c` children that only import duckdb; every wait is bounded and every child is killed in
the `children` fixture."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from pathlib import Path

import duckdb
import pytest

from pipelines.sources.file import load_sources
from tests.reliability.harness import Matrix, sample_text, start, wait_until
from tests.reliability.promises import LAST_GOOD_LOST, READER_SAW_A_MIX, ROWS_WRONGLY_LANDED
from tests.support.localserver import Reply
from warehouse.db import WarehouseBusy, connect
from warehouse.publish import publish_snapshot, snapshot_path


def start_reader(children: list, code: str, *args) -> subprocess.Popen:
    return start(children, code, *args, stdout=subprocess.DEVNULL)  # readers report through a file


ANSWER = "SELECT count(*), sum(usd_per_instance_hour)::VARCHAR FROM aws_instance_prices"
# Queries the snapshot until the stop file appears: `hold` keeps one connection for the whole run, `reconnect`
# opens a new one per query (what a dashboard refreshing its tiles does). One JSON line per answer.
READER = """
import json, os, sys, time, duckdb
path, stop, out, mode = sys.argv[1:5]
deadline = time.monotonic() + 120
with open(out, "w") as log:
    held = duckdb.connect(path, read_only=True) if mode == "hold" else None
    while not os.path.exists(stop) and time.monotonic() < deadline:
        try:
            if held is not None:
                row = held.execute(sys.argv[5]).fetchone()
            else:
                with duckdb.connect(path, read_only=True) as con:
                    row = con.execute(sys.argv[5]).fetchone()
            log.write(json.dumps(list(row)) + "\\n")
        except Exception as exc:
            log.write(json.dumps(["error", repr(exc)]) + "\\n")
        log.flush()
        time.sleep(0.01)
"""
# Holds the working file open read-only (a SQL client pointed at the wrong file) until the stop file appears.
HOLDER = """
import os, sys, time, duckdb
path, ready, stop = sys.argv[1:4]
con = duckdb.connect(path, read_only=True)
con.execute("SELECT count(*) FROM fetch_log").fetchall()
open(ready, "w").close()
deadline = time.monotonic() + 60
while not os.path.exists(stop) and time.monotonic() < deadline:
    time.sleep(0.02)
con.close()
"""


def answers(log: Path) -> list[list]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(line) for line in lines if line.endswith("]")]  # a line being written is skipped


def answer(path: Path) -> list:
    with duckdb.connect(str(path), read_only=True) as con:  # a new connection, closed at once
        return list(con.execute(ANSWER).fetchone())


def edited(m: Matrix, source_id: str, old: str, new: str) -> Reply:
    text = sample_text(m.source(source_id))
    assert old in text
    return Reply(body=text.replace(old, new).encode(), content_type="text/html; charset=utf-8")


# The Capacity Blocks page's P4 table: an embedded JSON block of its own, holding the p4d row.
_CAPACITY_BLOCKS = sample_text(next(s for s in load_sources() if s.id == "aws_capacity_blocks"))
P4D_ROW = next(b for b in re.findall(r"<script type=\"application/json\">.*?</script>", _CAPACITY_BLOCKS) if "p4d" in b)
# Version 1 changes both sources (two landing transactions: the working file is half-new in between);
# version 2 only trn1. The snapshot may show v0, v1 or v2, never trn1's v1 price without the p4d row gone.
CHANGES = [
    {"aws_trn1": ("<td>$1.34</td>", "<td>$1.40</td>"), "aws_capacity_blocks": (P4D_ROW, "")},
    {"aws_trn1": ("<td>$1.34</td>", "<td>$1.45</td>")},
]


@pytest.mark.expect("consistent")
@pytest.mark.promises(READER_SAW_A_MIX)
def test_snapshot_readers_never_block_or_see_a_mix(server, tmp_path, children, scenario):
    m = Matrix(server, tmp_path, ["aws_trn1", "aws_capacity_blocks"])
    assert all(o.status == "landed" for o in m.refresh().values())
    snapshot = publish_snapshot(m.db_path)
    assert snapshot == snapshot_path(m.db_path)
    versions = [answer(snapshot)]
    stop = tmp_path / "stop"
    logs = {mode: tmp_path / f"{mode}.jsonl" for mode in ("hold", "reconnect")}
    readers = {mode: start_reader(children, READER, snapshot, stop, log, mode, ANSWER) for mode, log in logs.items()}
    for mode, reader in readers.items():
        wait_until(lambda log=logs[mode]: answers(log), reader, f"the {mode} reader's first answer")

    timings = []
    try:
        for change in CHANGES:
            for source_id, (old, new) in change.items():
                m.serve(source_id, edited(m, source_id, old, new))
            began = time.monotonic()
            outcomes = m.refresh()
            refreshed = time.monotonic()
            assert publish_snapshot(m.db_path) == snapshot
            timings.append((refreshed - began, time.monotonic() - refreshed))
            assert all(outcomes[s].status == "landed" for s in change), {k: str(o.error) for k, o in outcomes.items()}
            versions.append(answer(snapshot))  # a new connection sees the new version at once...
            assert versions[-1] == answer(m.db_path)  # ...which is exactly what the working file holds
        wait_until(
            lambda: answers(logs["reconnect"])[-1:] == [versions[-1]],
            readers["reconnect"],
            "the reconnecting reader to see the last version",
        )
        assert all(r.poll() is None for r in readers.values()), "a reader died during the refreshes"
    finally:
        stop.touch()
        for reader in readers.values():
            reader.wait(timeout=30)

    seen = {mode: answers(log) for mode, log in logs.items()}
    errors = [a for found in seen.values() for a in found if a[0] == "error"]
    order = [versions.index(a) if a in versions else -1 for a in seen["reconnect"]]
    scenario.measure(
        READER_SAW_A_MIX, sum(a not in versions for found in seen.values() for a in found if a[0] != "error")
    )
    scenario.observed = (
        f"hold reader: {len(seen['hold'])} answers, "
        f"{'all v0' if all(a == versions[0] for a in seen['hold']) else 'CHANGED'}; reconnect "
        f"reader: versions {sorted(set(order))} in order; errors {len(errors)}; refresh+publish s "
        f"{[(round(a, 1), round(b, 1)) for a, b in timings]}; versions {versions}"
    )
    assert len({tuple(v) for v in versions}) == 3, versions
    assert errors == [], errors
    assert all(a == versions[0] for a in seen["hold"]), "the held connection's answer changed under it"
    assert -1 not in order, "a reader saw a version that was never published (a mix)"
    assert order == sorted(order), "a reader went back to an older version"
    assert all(refresh < 30 and publish < 10 for refresh, publish in timings), timings


@pytest.mark.expect("WarehouseBusy")
@pytest.mark.promises(LAST_GOOD_LOST, ROWS_WRONGLY_LANDED)
def test_client_on_working_file_delays_refresh_boundedly(server, tmp_path, children, scenario):
    m = Matrix(server, tmp_path, ["aws_trn1"])
    assert m.refresh()["aws_trn1"].status == "landed"
    last_good = m.history("aws_trn1")
    ready, stop = tmp_path / "ready", tmp_path / "stop"
    holder = start_reader(children, HOLDER, m.db_path, ready, stop)
    wait_until(ready.exists, holder, "the client to open the working file")

    began = time.monotonic()
    with pytest.raises(WarehouseBusy) as busy, connect(m.db_path, wait_s=1):
        pass
    waited = time.monotonic() - began
    message = str(busy.value)
    scenario.observed = f"WarehouseBusy after {waited:.1f} s: {message[:150]}"
    assert 1.0 <= waited < 3.5, waited
    assert snapshot_path(m.db_path).name in message and str(m.db_path) in message, message

    # A refresh started while the client is still open waits for it (bounded), then lands the change intact.
    m.serve("aws_trn1", edited(m, "aws_trn1", "<td>$1.34</td>", "<td>$1.40</td>"))
    result: dict = {}
    refresh = threading.Thread(target=lambda: result.update(m.refresh()), daemon=True)
    began = time.monotonic()
    refresh.start()
    try:
        time.sleep(1.5)
        assert refresh.is_alive() and not result, "the refresh wrote through a client's open file"
    finally:
        stop.touch()
        holder.wait(timeout=10)
    refresh.join(timeout=45)
    took = time.monotonic() - began
    assert not refresh.is_alive(), "the refresh hung after the client closed"
    outcome = result["aws_trn1"]
    scenario.observed += f"; refresh waited, then {outcome.status} after {took:.1f} s"
    # The waiting refresh lands one new price; the version it supersedes must stay in history, closed.
    scenario.measure(ROWS_WRONGLY_LANDED, max(0, m.rows_from_fetch(outcome.fetch_id) - 1))
    scenario.measure(LAST_GOOD_LOST, int(bool(last_good - m.history("aws_trn1"))))
    assert (outcome.status, outcome.inserted, outcome.closed) == ("landed", 1, 1), str(outcome.error)
    assert m.query("""SELECT usd_per_instance_hour::VARCHAR, valid_to IS NULL FROM aws_instance_price_history
                      WHERE instance_type = 'trn1.2xlarge' AND price_kind = 'on_demand' ORDER BY valid_from""") == [
        ("1.340000", False),
        ("1.400000", True),
    ]
