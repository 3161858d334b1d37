"""`dagster-daemon run` and `dagster-webserver` as real subprocesses on one DAGSTER_HOME, for deployment tests.

services = DagsterServices(home, env, tmp_path / "logs")
with services:                       # stops both on the way out, whatever happened
    services.start()
    services.graphql("query { version }")
    services.restart()
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.support.localserver import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
WORKSPACE = DEPLOY / "workspace.yaml"
BIN = Path(sys.executable).parent
LOCATION = "ratecard"
REPOSITORY = "__repository__"  # the name Dagster gives the repository behind a Definitions object
START_TIMEOUT_S = 300  # a cold start imports Dagster and Great Expectations on a shared 2-core machine


def wait_until(check: Callable[[], Any], what: str, timeout_s: float = START_TIMEOUT_S, on_timeout: str = "") -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` (and the logs) after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(1)
    raise AssertionError(f"gave up waiting for {what} after {timeout_s:.0f} s\n{on_timeout}")


class DagsterServices:
    """The daemon and the webserver, each in its own process group so that stopping one stops its code servers."""

    def __init__(self, home: Path, env: dict[str, str], logs: Path) -> None:
        self.env = {**os.environ, **env, "DAGSTER_HOME": str(home)}
        self.logs = logs
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.starts = 0
        logs.mkdir(parents=True, exist_ok=True)

    def __enter__(self) -> DagsterServices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, name: str, *args: str) -> None:
        log = (self.logs / f"{name}-{self.starts}.log").open("wb")
        self.procs.append(
            subprocess.Popen(
                [str(BIN / name), *args],
                env=self.env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )

    def start(self, daemon: bool = True) -> None:
        """The webserver, with its code location loaded, and (unless `daemon` is false) the daemon."""
        self.starts += 1
        if daemon:
            self.start_daemon()
        self._spawn("dagster-webserver", "-h", "127.0.0.1", "-p", str(self.port), "-w", str(WORKSPACE))
        wait_until(self._location_loaded, "the webserver to load code location 'ratecard'", on_timeout=self.tail())

    def start_daemon(self) -> None:
        self._spawn("dagster-daemon", "run", "-w", str(WORKSPACE))

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.procs = []

    def restart(self) -> None:
        self.stop()
        self.start()

    def graphql(self, query: str, **variables: Any) -> dict[str, Any]:
        reply = httpx.post(f"{self.url}/graphql", json={"query": query, "variables": variables}, timeout=60)
        reply.raise_for_status()
        body = reply.json()
        assert "errors" not in body, body["errors"]
        return dict(body["data"])

    def _location_loaded(self) -> bool:
        for proc in self.procs:
            assert proc.poll() is None, f"{proc.args[0]} exited with {proc.returncode}\n{self.tail()}"
        try:
            data = self.graphql(
                "query { workspaceOrError { ... on Workspace { locationEntries { name loadStatus"
                " locationOrLoadError { __typename } } } } }"
            )
        except httpx.HTTPError:
            return False
        entries = data["workspaceOrError"]["locationEntries"]
        return any(
            e["name"] == LOCATION
            and e["loadStatus"] == "LOADED"
            and e["locationOrLoadError"]["__typename"] == "RepositoryLocation"
            for e in entries
        )

    def tail(self, lines: int = 40) -> str:
        """The last lines of every log of the latest start, for failure messages."""
        out = []
        for log in sorted(self.logs.glob(f"*-{self.starts}.log")):
            text = log.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {log.name}\n" + "\n".join(text))
        return "\n".join(out)
