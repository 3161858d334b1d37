"""The change feed end to end: a price changed in a served sample reaches price_changes, `ratecard changes`,
`ratecard history` and exactly one webhook POST; the webhook URL never reaches logs, tables or Dagster."""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_HALF_UP, Decimal, localcontext

import dagster as dg
import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from assets.change_feed import change_notifications
from pipelines.cli.app import app
from pipelines.orchestration.resources import SourcesResource, WarehouseResource
from pipelines.sources.file import load_sources, sample_path
from tests.support.backends import BACKENDS, warehouse_at
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import PAGES
from tests.support.sourcefiles import write_sources_file
from warehouse.publish import snapshot_path

SECRET = "T0KEN-s3cret-9f2c"
HOOK_PATH = f"/hooks/{SECRET}"
ENV = "RATECARD_TEST_WEBHOOK"
runner = CliRunner()


@pytest.fixture
def trn1_site():
    [trn1] = [s for s in load_sources() if s.id == "aws_trn1"]
    body = sample_path(trn1).read_text()
    with LocalServer() as server:
        server.set(f"/{trn1.sample}", Reply(body=body.encode()))
        yield server, trn1, body


@pytest.fixture
def receiver(monkeypatch):
    with LocalServer() as server:
        server.set(HOOK_PATH, Reply(status=200, body=b"ok", content_type="text/plain"))
        monkeypatch.setenv(ENV, server.url(HOOK_PATH))
        yield server


@pytest.fixture
def setup(tmp_path, trn1_site, receiver):
    site, trn1, body = trn1_site
    sources_file = write_sources_file(tmp_path / "sources.toml", [trn1], site.base_url)
    with sources_file.open("a") as f:
        f.write(f'\n[notify]\nwebhook_url_env = "{ENV}"\nmin_change_pct = 5\n')
    return site, trn1, body, sources_file, tmp_path / "wh" / "prices.duckdb"


def refresh(sources_file, db):
    result = runner.invoke(app, ["refresh", "--sources", str(sources_file), "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result.output


def posts(receiver):
    return [json.loads(body) for path, body in receiver.posted if path == HOOK_PATH]


def assert_secret_nowhere(db, outputs, caplog):
    assert all(SECRET not in text for text in outputs)
    assert all(SECRET not in record.getMessage() for record in caplog.records)
    logs = list((db.parent / "logs").glob("*.log"))
    assert logs and all(SECRET not in p.read_text() for p in logs)
    with duckdb.connect(str(db), read_only=True) as con:
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
            assert SECRET not in str(con.execute(f"FROM {table}").fetchall()), table


def test_a_price_change_reaches_the_view_the_cli_and_one_post(setup, receiver, caplog):
    caplog.set_level(logging.DEBUG)
    site, trn1, body, sources_file, db = setup
    outputs = [refresh(sources_file, db)]
    assert posts(receiver) == []  # a first landing is not a change

    site.set(f"/{trn1.sample}", Reply(body=body.replace("<td>$1.34</td>", "<td>$1.50</td>").encode()))
    outputs.append(refresh(sources_file, db))
    [message] = posts(receiver)
    [change] = message["changes"]
    assert (change["change"], change["offering"], change["price_kind"]) == ("price", "trn1.2xlarge", "on_demand")
    assert change["change_pct"] == "11.94" and "trn1.2xlarge" in message["text"]

    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("""SELECT offering, old_usd_per_accelerator_hour, new_usd_per_accelerator_hour, change_pct
                              FROM price_changes WHERE change = 'price'""").fetchall()
    assert [(r[0], str(r[1].normalize()), str(r[2].normalize()), str(r[3])) for r in rows] == [
        ("trn1.2xlarge", "1.34", "1.5", "11.94")
    ]

    shown = runner.invoke(app, ["changes", "--db", str(db), "--since", "1d", "--min-change", "5%"])
    assert shown.exit_code == 0 and "trn1.2xlarge" in shown.output and "+11.94%" in shown.output
    hidden = runner.invoke(app, ["changes", "--db", str(db), "--min-change", "12%"])
    assert "trn1.2xlarge" not in hidden.output

    outputs.append(refresh(sources_file, db))  # unchanged: nothing new to say
    assert len(posts(receiver)) == 1
    assert_secret_nowhere(db, [*outputs, shown.output], caplog)


def test_history_prints_the_timeline_with_a_sparkline(setup):
    site, trn1, body, sources_file, db = setup
    refresh(sources_file, db)
    site.set(f"/{trn1.sample}", Reply(body=body.replace("<td>$1.34</td>", "<td>$1.50</td>").encode()))
    refresh(sources_file, db)
    shown = runner.invoke(app, ["history", "trn1.2xlarge", "--kind", "on_demand", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "1.3400" in shown.output and "1.5000" in shown.output and "▁█" in shown.output
    assert "trn1.32xlarge" not in shown.output
    missing = runner.invoke(app, ["history", "h900", "--db", str(db)])
    assert missing.exit_code == 1 and "no price history" in missing.output

    with duckdb.connect(str(snapshot_path(db))) as con:  # as a snapshot published by an earlier release
        con.execute("DROP VIEW price_changes")
    older = runner.invoke(app, ["changes", "--db", str(db)])
    assert older.exit_code == 1 and "predates this view" in older.output


def test_a_failing_webhook_is_retried_once_logged_and_never_fails_the_refresh(setup, receiver, caplog):
    caplog.set_level(logging.DEBUG)
    site, trn1, body, sources_file, db = setup
    outputs = [refresh(sources_file, db)]
    receiver.set(
        HOOK_PATH, Reply(status=500), Reply(status=503), Reply(status=500), Reply(status=502), Reply(status=200)
    )
    site.set(f"/{trn1.sample}", Reply(body=body.replace("<td>$1.34</td>", "<td>$1.10</td>").encode()))
    outputs.append(refresh(sources_file, db))  # exit code 0 asserted inside
    assert len(posts(receiver)) == 2  # one attempt and one retry
    log_text = "\n".join(p.read_text() for p in (db.parent / "logs").glob("*.log"))
    assert "webhook POST failed (HTTP 500); retrying once" in log_text
    assert "webhook POST failed (HTTP 503); giving up until the next publish" in log_text
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(
            "SELECT outcome, attempts, changes_sent FROM notify_log ORDER BY notified_at"
        ).fetchall() == [
            ("nothing_over_threshold", 0, 0),
            ("failed", 2, 1),
        ]

    # The changes a failed run could not deliver go with the next publish, even an unchanged one.
    resources = {
        "warehouse": WarehouseResource(db_path=str(db)),
        "sources": SourcesResource(sources_file=str(sources_file)),
    }
    failed = dg.materialize([change_notifications], resources=resources)  # 500 then 502: the run still succeeds
    assert failed.success and len(posts(receiver)) == 4
    metadata = failed.asset_materializations_for_node("change_notifications")[0].metadata
    assert (metadata["outcome"].value, metadata["attempts"].value) == ("failed", 2)
    result = dg.materialize([change_notifications], resources=resources)
    assert len(posts(receiver)) == 5 and posts(receiver)[-1]["changes"][0]["change_pct"] == "-17.91"
    metadata = result.asset_materializations_for_node("change_notifications")[0].metadata
    assert metadata["outcome"].value == "posted" and metadata["changes_sent"].value == 1
    for run in (failed, result):
        assert SECRET not in str(run.asset_materializations_for_node("change_notifications")[0].metadata)
        assert SECRET not in str(list(run.all_events))
    assert ENV in str(metadata)
    assert_secret_nowhere(db, outputs, caplog)


def test_stock_flips_additions_removals_and_shape_changes(tmp_path, caplog):
    [hyperstack] = [s for s in load_sources() if s.id == "gpu_hyperstack"]
    page = (PAGES / "hyperstack_table.html").read_text()  # the page's <table> shape, with a stock link per row
    h100 = page[page.index("NVIDIA H100 SXM") :]
    l40 = page[page.index("<tr><td>NVIDIA L40<") : page.index("<tr><td>NVIDIA RTX A6000")]
    l4 = l40.replace("NVIDIA L40", "NVIDIA L4").replace("$ 1.00", "$ 0.40")
    moved = page.replace(h100, h100.replace("Deploy now", "Sold out", 1), 1).replace(l40, l4)
    moved = moved.replace("$ 3.50 per Hour", "$ 3.00 per Hour")
    reshaped = moved.replace("Max RAM (GB) per GPU", "Max RAM per GPU (GB)")
    db = tmp_path / "prices.duckdb"
    with LocalServer() as site:
        sources_file = write_sources_file(tmp_path / "sources.toml", [hyperstack], site.base_url)
        for body in (page, moved, reshaped):
            site.set(f"/{hyperstack.sample}", Reply(body=body.encode()))
            refresh(sources_file, db)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("""SELECT change, offering, change_pct, old_value, new_value, fetch_id FROM price_changes
                              ORDER BY change, offering""").fetchall()
        fetches = [
            r[0]
            for r in con.execute(
                "SELECT fetch_id FROM fetch_log WHERE source_id = 'gpu_hyperstack' ORDER BY 1"
            ).fetchall()
        ]
    by_change = {(r[0], r[1]): r for r in rows}
    assert set(by_change) == {
        ("added", "NVIDIA L4"),
        ("price", "NVIDIA H200 SXM"),
        ("removed", "NVIDIA L40"),
        ("shape", None),
        ("stock", "NVIDIA H100 SXM"),
    }
    assert str(by_change["price", "NVIDIA H200 SXM"][2]) == "-14.29"
    assert by_change["stock", "NVIDIA H100 SXM"][2:5] == (None, "in_stock", "sold_out")  # no price move, no %
    # Each change points at the fetch that brought it: the second for the moves, the third for the shape.
    assert len(fetches) == 3
    assert {r[5] for k, r in by_change.items() if k[0] != "shape"} == {fetches[1]}
    assert by_change["shape", None][5] == fetches[2]
    shown = runner.invoke(app, ["changes", "--db", str(db)])
    assert all(word in shown.output for word in ("added", "removed", "sold_out", "shape", "-14.29%"))
    assert "0.00%" not in shown.output


PRICES = st.decimals(min_value=Decimal("1e-18"), max_value=Decimal(100_000), places=18)


def test_the_percentage_is_exact_decimal_rounded_half_away_from_zero(tmp_path):
    from warehouse.db import connect

    @settings(max_examples=200, deadline=None)
    @given(PRICES, PRICES)
    @example(Decimal(8), Decimal("8.0004"))  # exactly 0.005 %: half away from zero gives 0.01
    def exact(old: Decimal, new: Decimal) -> None:
        with localcontext() as ctx:
            ctx.prec = 60  # exact for 18-decimal prices up to 10^5
            expected = ((new - old) * 100 / old).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        found = con.execute(
            "SELECT percent_change(CAST($old AS DECIMAL(38, 18)), CAST($new AS DECIMAL(38, 18)))",
            {"old": str(old), "new": str(new)},
        ).fetchone()
        assert found == (expected,), (old, new)

    with connect(tmp_path / "prices.duckdb") as con:
        exact()


def test_a_threshold_is_compared_as_decimal():
    from pipelines.orchestration.notify import over_threshold

    move = {"change": "price", "change_pct": Decimal("-5.00")}
    assert over_threshold(move, Decimal(5)) and not over_threshold(move, Decimal("5.001"))
    assert over_threshold({"change": "stock", "change_pct": None}, Decimal(50))


def test_a_newly_configured_webhook_is_not_flooded_with_old_history(setup, receiver, monkeypatch):
    from pipelines.orchestration.notify import notify_changes
    from pipelines.sources.file import NotifySettings

    site, trn1, body, sources_file, db = setup
    monkeypatch.delenv(ENV)  # no webhook yet: changes land, nothing is sent or marked
    refresh(sources_file, db)
    site.set(f"/{trn1.sample}", Reply(body=body.replace("<td>$1.34</td>", "<td>$1.50</td>").encode()))
    refresh(sources_file, db)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE fetch_log SET fetched_at = fetched_at - INTERVAL 3 DAY")
    monkeypatch.setenv(ENV, receiver.url(HOOK_PATH))
    result = notify_changes(db, NotifySettings(webhook_url_env=ENV))
    assert (result.outcome, result.changes_sent, posts(receiver)) == ("nothing_over_threshold", 0, [])


def test_a_notification_that_cannot_even_start_reports_and_returns(tmp_path, monkeypatch):
    from pipelines.orchestration.notify import notify_changes
    from pipelines.sources.file import NotifySettings

    monkeypatch.setenv(ENV, f"http://127.0.0.1:9/hooks/{SECRET}")
    result = notify_changes(tmp_path, NotifySettings(webhook_url_env=ENV))  # a directory, not a warehouse
    assert result.outcome == "failed" and result.messages[0].startswith("change notification failed: Warehouse")
    assert SECRET not in str(result.messages)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_notifications_at_once_post_each_change_once(backend, trn1_site, receiver, tmp_path, monkeypatch):
    """The second notifier reads the feed while the first is still posting (no notify_log row yet, and a lake takes
    no refresh lock): it finds the change claimed and posts nothing."""
    from pipelines.orchestration.notify import notify_changes
    from pipelines.sources.file import NotifySettings

    site, trn1, body = trn1_site
    sources_file = write_sources_file(tmp_path / "sources.toml", [trn1], site.base_url)  # no [notify]: none yet
    with warehouse_at(backend, tmp_path, monkeypatch) as db:
        refresh(sources_file, db)
        site.set(f"/{trn1.sample}", Reply(body=body.replace("<td>$1.34</td>", "<td>$1.50</td>").encode()))
        refresh(sources_file, db)
        receiver.set(HOOK_PATH, Reply(body=b"ok", content_type="text/plain", delay_s=2), Reply(body=b"ok"))
        settings = NotifySettings(webhook_url_env=ENV)
        with ThreadPoolExecutor(max_workers=1) as pool:
            first = pool.submit(notify_changes, db, settings)
            deadline = time.monotonic() + 60
            while receiver.hits(HOOK_PATH) == 0 and time.monotonic() < deadline:
                time.sleep(0.02)
            second = notify_changes(db, settings)  # the first's POST is still unanswered
            done = first.result(timeout=60)
        again = notify_changes(db, settings)
    assert (done.outcome, done.changes_sent, second.changes_sent, again.changes_sent) == ("posted", 1, 0, 0)
    [message] = posts(receiver)
    assert [c["offering"] for c in message["changes"]] == ["trn1.2xlarge"]
