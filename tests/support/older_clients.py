"""Older DuckDB clients as users have them: the pinned 1.5 CLI, and a 1.x Python engine in its own virtualenv.

A client engine is not the project's own (.venv pins the pipeline's DuckDB), so each gets a virtualenv of its own under
the user's cache directory, installed by uv from its hashed lock in tests/clients/ (`make lock` writes them). It
is built in a temporary folder and renamed into place, so an interrupted install never leaves a half-made one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

CLIENTS = Path(__file__).resolve().parents[1] / "clients"
# Each Python engine tested and its lock: 1.5.5, the 1.x users have today; 1.1.3, the oldest the README promises.
PYTHON_ENGINES = {"1.5.5": CLIENTS / "duckdb15.lock", "1.1.3": CLIENTS / "duckdb11.lock"}
CLI_VERSION = "v1.5.6"
BIN = Path(sys.executable).parent
# Runs inside the 1.x virtualenv: prints the engine's version and the query's rows as JSON.
QUERY_SCRIPT = (
    "import duckdb, json, sys\n"
    # No progress bar: on a loaded machine a query past its wait time would print one into the JSON on stdout.
    "con = duckdb.connect(sys.argv[1], read_only=True)\n"
    "con.execute('SET enable_progress_bar = false')\n"
    "rows = con.execute(sys.argv[2]).fetchall()\n"
    "print(json.dumps({'version': duckdb.__version__, 'rows': rows}))\n"
)


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ratecard" / "clients"


def python_engine(version: str) -> Path:
    """The python of that engine's virtualenv, created on first use; a new lock file gives a new virtualenv."""
    lock = PYTHON_ENGINES[version]
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()[:12]
    venv = cache_dir() / f"duckdb-{version}-{digest}"
    python = venv / "bin" / "python"
    if python.exists():
        return python
    staging = venv.with_name(f"{venv.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    uv = str(BIN / "uv")
    run([uv, "venv", "--quiet", "--python", sys.executable, str(staging)])
    staging_python = str(staging / "bin" / "python")
    run([uv, "pip", "install", "--quiet", "--python", staging_python, "--require-hashes", "-r", str(lock)])
    try:
        staging.rename(venv)
    except OSError:  # another test process made it first
        shutil.rmtree(staging, ignore_errors=True)
    # uv writes the venv's own path into its scripts; `python` itself is a link and works after the rename.
    return python


def run(args: list[str]) -> str:
    done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"{args[0]} exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def query_python_engine(python: Path, db: Path, query: str) -> tuple[str, list[list[object]]]:
    """(engine version, rows) of `query` run read-only on `db` by the 1.x engine."""
    answer = json.loads(run([str(python), "-c", QUERY_SCRIPT, str(db), query]))
    return answer["version"], answer["rows"]


def cli_read_write_session(db: Path, query: str) -> list[dict[str, object]]:
    """The rows of `query` run by the DuckDB CLI on `db` opened read-write (the CLI's default), then CHECKPOINT."""
    out = run([str(cli()), "-json", str(db), "-c", query, "-c", "CHECKPOINT"]).strip()
    rows, _ = json.JSONDecoder().raw_decode(out)  # the query's rows; CHECKPOINT's own (empty) answer follows
    return list(rows)


def cli() -> Path:
    path = BIN / "duckdb"
    assert path.exists(), f"{path} missing: the duckdb-cli test dependency is not installed (make .venv)"
    return path


def cli_version() -> str:
    return run([str(cli()), "--version"]).split()[0]


def query_cli(db: Path, query: str) -> list[dict[str, object]]:
    """The rows of `query` run by the DuckDB CLI on `db`, opened read-only, as its JSON output gives them."""
    out = run([str(cli()), "-readonly", "-json", str(db), "-c", query]).strip()
    return json.loads(out) if out else []
