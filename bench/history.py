"""Scenario 2 — the cost of a type-2 refresh against a large history, versus appending every snapshot.

History (generated column-wise in Arrow, landed once with INSERT ... SELECT): SOURCES sources x KEYS keys
each; fetch round 0 opens every key, then each of ROUNDS later rounds re-prices CHANGES_PER_ROUND random
keys (closing the previous version at that fetch's time). Rows are stored in fetch order, as a real
history accrues. 200k + 80 x 10k = 1,000,000 rows, 200k of them open.

Only the target source's open rows carry the real attributes_hash (computed by
warehouse.versioning.attributes_hash from their Decimal values): that is all a refresh of that source
compares against. Every other row gets a unique placeholder hash of the same length.

Refreshes of the target source (10k keys), each in one committed transaction, are timed:
  * type-2, changed snapshot:   land_snapshot with 1% re-priced and 0.5% removed keys;
  * type-2, unchanged snapshot: land_snapshot of exactly the open rows (must add nothing);
  * naive append:               INSERT ... SELECT of the whole snapshot, changed or not.
After every timed run the refresh is undone (outside the timed span) and the file checkpointed, so all
runs start from the same 1,000,000 rows.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bench import data
from bench.report import Result, fmt_ratio, fmt_seconds, measure, progress, ratio
from warehouse.db import connect, transaction
from warehouse.landing import PRICES
from warehouse.versioning import Lineage, attributes_hash, land_snapshot, snapshot_table

SCENARIO = "2 type-2 refresh"
SOURCES = 20
N_TYPES = 100  # x 100 keys per type = 10,000 keys per source = the snapshot size
ROUNDS = 80
CHANGES_PER_ROUND = 10_000
CHANGED_SHARE = 0.01
REMOVED_SHARE = 0.005
REPS = 5
TARGET = 0
BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
PARSER_VERSION = "aws_product_page/1.0"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def source_id(s: int) -> str:
    return f"bench_src{s:02d}"


def fetched_at(round_: int, s: int) -> datetime:
    return BASE_TIME + timedelta(days=round_, minutes=s)


def fetch_id(round_: int, s: int) -> int:
    return round_ * SOURCES + s + 1


def source_url(s: int) -> str:
    return f"https://aws.amazon.com/ec2/instance-types/bench{s:02d}/"


def _timestamps(us: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    return pa.array(us, pa.timestamp("us", tz="UTC"), mask=null)


def build_history(rng: np.random.Generator) -> tuple[pa.Table, list[dict]]:
    """The 1M-row history, and the target source's open rows as dicts (what its next snapshot starts from)."""
    keys_per_source = N_TYPES * data.KEYS_PER_TYPE
    n_keys = SOURCES * keys_per_source
    # Events in storage order: round by round, within a round by (source, key).
    ev_key = np.concatenate(
        [np.arange(n_keys, dtype=np.int64)]
        + [np.sort(rng.choice(n_keys, CHANGES_PER_ROUND, replace=False)) for _ in range(ROUNDS)]
    )
    ev_round = np.concatenate(
        [np.zeros(n_keys, dtype=np.int64)]
        + [np.full(CHANGES_PER_ROUND, r, dtype=np.int64) for r in range(1, ROUNDS + 1)]
    )
    n = len(ev_key)
    # The next version of the same key closes this one.
    order = np.lexsort((ev_round, ev_key))
    next_round = np.full(n, -1, dtype=np.int64)
    same_key_next = ev_key[order[1:]] == ev_key[order[:-1]]
    next_round[order[:-1][same_key_next]] = ev_round[order[1:]][same_key_next]
    is_open = next_round < 0

    src = ev_key // keys_per_source
    local = ev_key % keys_per_source
    type_idx, kind_idx, region_idx = data.key_indices(N_TYPES)
    attrs = data.price_attributes(
        type_idx[local],
        kind_idx[local],
        region_idx[local],
        data.random_price_micro(rng, n),
        data.instance_type_names(N_TYPES),
    )

    day_us, minute_us = 86_400_000_000, 60_000_000
    base_us = (BASE_TIME - EPOCH) // timedelta(microseconds=1)
    from_us = base_us + ev_round * day_us + src * minute_us
    to_us = base_us + np.where(is_open, 0, next_round) * day_us + src * minute_us
    fid = ev_round * SOURCES + src + 1
    n_fetches = (ROUNDS + 1) * SOURCES

    target_open = is_open & (src == TARGET)
    # Placeholder hashes (unique, 64 chars); the target's open rows get the real one below.
    hashes = pc.utf8_lpad(pc.cast(pa.array(np.arange(n)), pa.string()), width=64, padding="f")
    attr_table = pa.table(attrs, schema=data.ATTRIBUTE_SCHEMA)
    open_rows = attr_table.filter(pa.array(target_open)).to_pylist()
    real = pa.array([attributes_hash(r, PRICES.attribute_columns) for r in open_rows], pa.string())
    hashes = pc.replace_with_mask(hashes, pa.array(target_open), real)

    columns = {
        "source_id": pa.array([source_id(s) for s in range(SOURCES)]).take(pa.array(src)),
        **attrs,
        "attributes_hash": hashes,
        "valid_from": _timestamps(from_us),
        "valid_to": _timestamps(to_us, null=is_open),
        "fetch_id": pa.array(fid),
        "source_url": pa.array([source_url(s) for s in range(SOURCES)]).take(pa.array(src)),
        "fetched_at": _timestamps(from_us),
        "sha256": pa.array([f"{i:064x}" for i in range(1, n_fetches + 1)]).take(pa.array(fid - 1)),
        "parser_version": pa.array([PARSER_VERSION]).take(pa.array(np.zeros(n, dtype=np.int64))),
    }
    return pa.table(columns), open_rows


def changed_rows(rng: np.random.Generator, rows: list[dict]) -> tuple[list[dict], int, int]:
    n = len(rows)
    n_changed, n_removed = round(n * CHANGED_SHARE), round(n * REMOVED_SHARE)
    picked = rng.choice(n, n_changed + n_removed, replace=False)
    changed, removed = set(picked[:n_changed].tolist()), set(picked[n_changed:].tolist())
    out = []
    for i, row in enumerate(rows):
        if i in removed:
            continue
        if i in changed:  # exact Decimal step of 1–100 cents
            step = Decimal("0.01") * int(rng.integers(1, 101))
            out.append(data.reprice(row, row["usd_per_instance_hour"] + step))
        else:
            out.append(row)
    return out, n_changed, n_removed


def run() -> list[Result]:
    rng = np.random.default_rng(2)
    progress(f"{SCENARIO}: generating the history in Arrow")
    t0 = time.perf_counter()
    history, open_rows = build_history(rng)
    t_generate = time.perf_counter() - t0
    data.check_against_records(open_rows)
    n_history = history.num_rows

    refresh_round = ROUNDS + 1
    observed_at = fetched_at(refresh_round, TARGET)
    new_fetch = fetch_id(refresh_round, TARGET)
    lineage = Lineage(new_fetch, source_url(TARGET), observed_at, "e" * 64, PARSER_VERSION)
    target = source_id(TARGET)
    unchanged_snap = snapshot_table(PRICES, open_rows, target, lineage)
    rows2, n_changed, n_removed = changed_rows(rng, open_rows)
    changed_snap = snapshot_table(PRICES, rows2, target, lineage)

    with (
        tempfile.TemporaryDirectory(prefix="ratecard-bench-history-") as tmp,
        connect(Path(tmp) / "history.duckdb") as con,
    ):
        progress(f"{SCENARIO}: loading {n_history:,} history rows into DuckDB")
        t0 = time.perf_counter()
        con.register("_history", history)
        with transaction(con):
            con.execute(f"INSERT INTO {PRICES.name} BY NAME SELECT * FROM _history")
        con.unregister("_history")
        con.execute("CHECKPOINT")
        t_load = time.perf_counter() - t0
        del history

        def count() -> tuple[int, int]:
            # fetchall, not fetchone: DuckDB 2.0 refuses register() while a SELECT result is unfinished
            (row,) = con.execute(f"SELECT count(*), count(*) FILTER (valid_to IS NULL) FROM {PRICES.name}").fetchall()
            return row

        baseline = count()
        target_open = con.execute(
            f"SELECT count(*) FROM {PRICES.name} WHERE source_id = ? AND valid_to IS NULL", [target]
        ).fetchall()[0][0]
        assert baseline[0] == n_history and target_open == len(open_rows), (baseline, target_open)
        added: dict[str, int] = {}
        counts_seen: dict[str, tuple[int, int]] = {}

        def type2(snap, label):
            def fn(_):
                with transaction(con):
                    return land_snapshot(con, PRICES, snap, target, observed_at)

            def undo(_state, counts):
                counts_seen[label] = (counts.inserted, counts.closed)
                added[label] = count()[0] - baseline[0]
                with transaction(con):
                    con.execute(f"DELETE FROM {PRICES.name} WHERE source_id = ? AND fetch_id = ?", [target, new_fetch])
                    con.execute(
                        f"UPDATE {PRICES.name} SET valid_to = NULL WHERE source_id = ? AND valid_to = ?",
                        [target, observed_at],
                    )
                con.execute("CHECKPOINT")
                assert count() == baseline

            return fn, undo

        def naive(snap, label):
            def fn(_):
                con.register("_append", snap)
                try:
                    with transaction(con):
                        con.execute(f"INSERT INTO {PRICES.name} BY NAME SELECT * FROM _append")
                finally:
                    con.unregister("_append")

            def undo(_state, _out):
                added[label] = count()[0] - baseline[0]
                with transaction(con):
                    con.execute(f"DELETE FROM {PRICES.name} WHERE fetch_id = ?", [new_fetch])
                con.execute("CHECKPOINT")
                assert count() == baseline

            return fn, undo

        timings = {}
        for label, (fn, undo) in {
            "type2_changed": type2(changed_snap, "type2_changed"),
            "type2_unchanged": type2(unchanged_snap, "type2_unchanged"),
            "naive_changed": naive(changed_snap, "naive_changed"),
            "naive_unchanged": naive(unchanged_snap, "naive_unchanged"),
        }.items():
            progress(f"{SCENARIO}: {label} x {REPS + 1}")
            timings[label] = measure(fn, reps=REPS, teardown=undo)

    assert counts_seen["type2_changed"] == (n_changed, n_changed + n_removed), counts_seen
    assert counts_seen["type2_unchanged"] == (0, 0), counts_seen
    n_snap, n_snap2 = unchanged_snap.num_rows, changed_snap.num_rows
    t2c, t2u = timings["type2_changed"], timings["type2_unchanged"]
    nvc, nvu = timings["naive_changed"], timings["naive_unchanged"]
    history_note = (
        f"{SOURCES} sources x {(ROUNDS + 1)} fetches, {baseline[1]:,} open; "
        f"generated {fmt_seconds(t_generate)}, loaded {fmt_seconds(t_load)} (1 run each)"
    )
    return [
        Result(SCENARIO, "history rows (setup)", value=f"{n_history:,}", note=history_note),
        Result(
            SCENARIO,
            f"type-2 land_snapshot, changed ({n_snap2:,} rows)",
            t2c,
            note=f"{n_changed} re-priced, {n_removed} removed -> +{added['type2_changed']} rows, "
            f"{n_changed + n_removed} closed",
        ),
        Result(
            SCENARIO,
            f"type-2 land_snapshot, unchanged ({n_snap:,})",
            t2u,
            note=f"-> +{added['type2_unchanged']} rows, 0 closed",
        ),
        Result(
            SCENARIO,
            f"naive append, changed ({n_snap2:,} rows)",
            nvc,
            note=f"-> +{added['naive_changed']:,} rows, nothing closed",
        ),
        Result(SCENARIO, f"naive append, unchanged ({n_snap:,})", nvu, note=f"-> +{added['naive_unchanged']:,} rows"),
        Result(
            SCENARIO,
            "RATIO type-2 ÷ naive, changed",
            value=fmt_ratio(ratio(t2c.median, nvc.median)),
            note="time per refresh (type-2 is the slower one)",
        ),
        Result(
            SCENARIO,
            "RATIO type-2 ÷ naive, unchanged",
            value=fmt_ratio(ratio(t2u.median, nvu.median)),
            note="time per refresh",
        ),
        Result(
            SCENARIO,
            "rows added per unchanged refresh",
            value=f"{added['type2_unchanged']} vs {added['naive_unchanged']:,}",
            note=f"type-2 vs naive, measured; 365 daily = {365 * added['type2_unchanged']:,} vs "
            f"{365 * added['naive_unchanged']:,} rows (arithmetic)",
        ),
    ]
