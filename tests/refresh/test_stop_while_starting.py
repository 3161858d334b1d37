"""A stop (SIGTERM, Ctrl-C) that comes while the fetch workers are still being started, the first ones already
fetching, ends the fetch as any other stop does: RefreshStopped, and no worker takes more work."""

from __future__ import annotations

import threading

import pytest

from pipelines.refresh import threads
from pipelines.refresh.prefetch import fetch_all
from pipelines.refresh.threads import RefreshStopped, StopRequested


def test_a_stop_while_the_workers_start_is_a_refresh_stopped(monkeypatch, sources):
    started = []
    real_start = threading.Thread.start

    def start_then_stop(thread: threading.Thread) -> None:
        if started:  # the second worker: the signal arrives while it starts
            raise StopRequested(15)
        started.append(thread)
        real_start(thread)

    taken, answering = [], threading.Event()

    def slow_fetch(source, _fetcher):  # type: ignore[no-untyped-def]
        taken.append(source.id)
        answering.wait(timeout=5)  # the first fetch is still reading its answer when the stop comes

    monkeypatch.setattr(threads.threading.Thread, "start", start_then_stop)
    monkeypatch.setattr("pipelines.refresh.prefetch.fetch_source", slow_fetch)
    with pytest.raises(RefreshStopped) as caught:
        fetch_all(sources[:20], fetcher=None, max_sources=4)  # type: ignore[arg-type]
    answering.set()
    started[0].join(timeout=5)
    assert str(caught.value.cause) == "signal 15" and caught.value.outcomes == []
    assert taken == [sources[0].id]  # the one worker that started took no more work once the stop was seen
