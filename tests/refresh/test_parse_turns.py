"""pipelines.refresh.parse_turns: sources parse one at a time, and a batch waits for the sources in line to parse."""

from __future__ import annotations

import contextlib
import threading

from pipelines.refresh.parse_turns import ParseTurns


def test_sources_parse_one_at_a_time_and_each_result_joins_the_next_batch():
    turns: ParseTurns[str] = ParseTurns()
    busy, most = [0], [0]
    lock = threading.Lock()
    release = threading.Event()

    def work(key: str) -> str:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        release.wait(0.01)  # long enough that overlapping parses would be seen
        with lock:
            busy[0] -= 1
        return key

    keys = [f"s{n}" for n in range(8)]
    threads = [threading.Thread(target=turns.parse, args=(k, lambda k=k: work(k))) for k in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert most[0] == 1
    assert sorted(turns.batch(threading.Event())) == keys
    assert turns.batch(threading.Event()) == []  # each result is handed out once


def test_a_batch_waits_for_the_sources_in_line_to_parse():
    turns: ParseTurns[str] = ParseTurns()
    parsing, finish = threading.Event(), threading.Event()

    def slow() -> str:
        parsing.set()
        finish.wait(10)
        return "slow"

    parser = threading.Thread(target=turns.parse, args=("slow", slow))
    parser.start()
    assert parsing.wait(10)
    got: list[list[str]] = []
    checker = threading.Thread(target=lambda: got.append(turns.batch(threading.Event())))
    checker.start()
    checker.join(0.3)
    assert checker.is_alive() and got == []  # still waiting: "slow" was in line when the batch was asked for
    finish.set()
    checker.join(10)
    parser.join(10)
    assert got == [["slow"]]


def test_a_stop_ends_the_wait_and_a_failed_parse_leaves_the_line():
    turns: ParseTurns[str] = ParseTurns()
    parsing, finish = threading.Event(), threading.Event()

    def stuck() -> str:
        parsing.set()
        finish.wait(10)
        raise ValueError("a parser bug")

    def parse_stuck() -> None:
        with contextlib.suppress(ValueError):
            turns.parse("stuck", stuck)

    parser = threading.Thread(target=parse_stuck)
    parser.start()
    assert parsing.wait(10)
    stopping = threading.Event()
    stopping.set()
    assert turns.batch(stopping) == []  # a stop does not wait for the parse in progress
    finish.set()
    parser.join(10)
    assert turns.batch(threading.Event()) == []  # the failed parse left the line: nothing to wait for
