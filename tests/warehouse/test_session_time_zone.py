"""ratecard's own sessions work in UTC on either backend, whatever the machine's zone: a TIMESTAMPTZ read back is a
datetime in UTC, on a connection and on a cursor for another thread. Checked in a process whose zone is New York
(DuckDB takes its default TimeZone from the process's zone when it loads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = """
import json, sys
from datetime import UTC, datetime
import pipelines  # declares the kinds' tables
from warehouse.db import connect, cursor

at = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
with connect(sys.argv[1]) as con:
    con.execute(
        "INSERT INTO fetch_log (fetch_id, source_id, url, fetched_at, outcome) "
        "VALUES (1, 'aws_test', 'http://127.0.0.1/', $at, 'landed')",
        {"at": at},
    )
    other = cursor(con)
    seen = []
    for session in (con, other):
        ((zone,),) = session.execute("SELECT current_setting('TimeZone')").fetchall()
        ((read,),) = session.execute("SELECT fetched_at FROM fetch_log WHERE fetch_id = 1").fetchall()
        seen.append({"zone": zone, "same_instant": read == at, "offset_s": read.utcoffset().total_seconds()})
    other.close()
print(json.dumps(seen))
"""


def test_sessions_read_timestamps_back_in_utc_on_a_machine_in_another_zone(backend_db_path):
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            "import duckdb; print(duckdb.sql(\"SELECT current_setting('TimeZone')\").fetchone()[0])",
        ],
        env={**os.environ, "TZ": "America/New_York"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert plain.stdout.strip() == "America/New_York"  # the zone a plain session would use there
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(backend_db_path)],
        check=False,  # its stderr is the assertion message
        env={**os.environ, "TZ": "America/New_York"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    sessions = json.loads(done.stdout.strip().splitlines()[-1])
    assert sessions == [{"zone": "UTC", "same_instant": True, "offset_s": 0.0}] * 2
