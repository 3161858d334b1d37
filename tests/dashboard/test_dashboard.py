"""The dashboard as a user opens it: after refreshes on the samples (one price changed in between, so history has
two versions), `ratecard dashboard` writes the site, and Debian's chromium loads it from file:// and through
`ratecard serve`. Figures in the DOM must equal the warehouse's, each chart must draw one line per series, and
nothing may log a console error or request anything beyond file:// and 127.0.0.1."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import dagster as dg
import duckdb
import pytest
from typer.testing import CliRunner

from assets.dashboard import dashboard_site
from pipelines.dashboard import deployment_page
from pipelines.dashboard.build import build_dashboard
from pipelines.fetch.offline import shown_source
from pipelines.orchestration.resources import WarehouseResource
from tests.dashboard.reading import DECISION_PAGES, PAGES, cells, headers, picked, series_drawn, shown
from tests.support.browser import load, recorded_page
from tests.support.localserver import free_port
from tests.support.paths import ROOT

# The warehouse its fixtures land (conftest.py) is shared: every dashboard test in one xdist worker, landed once.
pytestmark = pytest.mark.xdist_group("dashboard")
runner = CliRunner()
ARTIFACTS = ROOT / "var" / "artifacts"


def test_every_page_loads_from_file_offline_with_the_warehouse_figures(site, snapshot, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with recorded_page(browser, "file://") as (page, recorder):
        for name in PAGES:
            load(page, (site / f"{name}.html").as_uri())
            if name == "index":
                page.screenshot(path=str(ARTIFACTS / "dashboard-index.png"))
        assert recorder.urls and all(u.startswith("file://") for u in recorder.urls)
        assert recorder.outside == [] and recorder.errors == []
    assert (ARTIFACTS / "dashboard-index.png").stat().st_size > 10_000


def test_offers_table_equals_the_view_and_keeps_price_kind_and_provenance(site, snapshot, browser):
    expected = snapshot.execute(
        """SELECT offering, price_kind, CAST(CAST(usd_per_accelerator_hour AS DECIMAL(38, 4)) AS VARCHAR), source_url
           FROM accelerator_offers"""
    ).fetchall()
    with recorded_page(browser, "file://") as (page, _):
        load(page, (site / "index.html").as_uri() + "#kind=all")
        header, rows = shown(page, "offers")
    at = {name: header.index(name) for name in ("offering", "price_kind", "usd_per_accel_hour", "source_url")}
    shown_rows = sorted(tuple(row[i] for i in at.values()) for row in rows)
    # The offline refresh's URLs (127.0.0.1, a port gone after the run) are shown as the samples they served.
    assert shown_rows == sorted((*row[:3], shown_source(row[3])) for row in expected) and shown_rows
    assert all(url.endswith(" (sample)") and url.startswith("pipelines/samples/") for *_, url in shown_rows)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", row[header.index("fetched_at")]) for row in rows)
    # Reserved rows of one type and region differ by their terms, which the table shows (purchase option, class).
    key = [header.index(name) for name in ("offering", "price_kind", "terms", "region", "source_url")]
    reserved = [tuple(row[i] for i in key) for row in rows if row[at["price_kind"]].startswith("reserved")]
    assert reserved and len(set(reserved)) == len(reserved)
    assert all(r[2] for r in reserved if "/pricelist/" in r[4])  # a product page prints no terms; the price list does
    # Savings Plans: each plan, term and payment option of trn1.32xlarge in us-east-1 is a row of its own.
    plans = {
        (r[1], r[2])
        for r in (tuple(row[i] for i in key) for row in rows)
        if r[0] == "trn1.32xlarge" and "savings_plan" in r[1] and r[3] == "US East (N. Virginia)"
    }
    assert len(plans) == 12 and any(kind == "compute_savings_plan_3y" and "all upfront" in t for kind, t in plans)
    # The product page's row (the price-list regions keep AWS's own $21.50 beside it)
    trn1 = [r for r in shown_rows if r[0] == "trn1.32xlarge" and r[1] == "on_demand" and "/trn1.html" in r[3]]
    assert trn1 == [("trn1.32xlarge", "on_demand", "1.2500", trn1[0][3])]  # $20.00 / 16, the changed price


def test_front_page_leads_with_the_two_headline_tables(site, snapshot, browser, tmp_path):
    """At 1280x800 both headline tables are on the first screen; the H100 row names the cheapest provider."""
    aws = snapshot.execute(
        "SELECT count(*) FROM aws_instance_prices WHERE price_kind IN ('on_demand', 'capacity_block') "
        "AND source_family <> 'price_list'"
    ).fetchone()
    with recorded_page(browser, "file://", width=1280, height=800) as (page, recorder):
        load(page, (site / "index.html").as_uri())
        boxes = {t: page.locator(f"#{t}").bounding_box() for t in ("headline-aws", "headline-gpu")}
        page.screenshot(path=str(tmp_path / "front.png"))
        gpu = picked(page, "headline-gpu", "GPU", "USD per GPU-hour", "provider")
        kinds = [kind for (kind,) in picked(page, "headline-aws", "price kind")]
        assert recorder.errors == []
    assert all(box and box["y"] >= 0 and box["y"] + box["height"] <= 800 for box in boxes.values()), boxes
    assert (tmp_path / "front.png").stat().st_size > 10_000
    assert ("H100", "2.5000", "Hyperstack") in gpu
    assert aws is not None and len(kinds) == aws[0] and {"on_demand", "capacity_block"} == set(kinds)
    assert kinds == sorted(kinds, key=lambda kind: kind == "capacity_block")  # on-demand first, then the blocks


def test_offers_filters_leave_the_view_s_rows_and_the_address_restores_them(site, snapshot, browser):
    def rows_of(where: str, hours: int) -> list[tuple[str, ...]]:
        return sorted(
            snapshot.execute(
                f"""SELECT offering, price_kind, coalesce(region, 'not stated'),
                          CAST(CAST(usd_per_accelerator_hour * {hours} AS DECIMAL(38, 4)) AS VARCHAR)
                   FROM accelerator_offers WHERE {where}"""
            ).fetchall()
        )

    def rows_shown(page, unit: str) -> list[tuple[str, ...]]:
        return sorted(picked_shown(page, "offering", "price_kind", "region", f"usd_per_accel_{unit}"))

    with recorded_page(browser, "file://") as (page, recorder):
        load(page, (site / "index.html").as_uri())
        assert rows_shown(page, "hour") == rows_of("price_kind_family = 'on_demand'", 1)  # on-demand by default
        page.select_option("#filters select[name=accelerator]", "Trainium")
        page.select_option("#filters select[name=kind]", "all")
        page.select_option("#filters select[name=unit]", "day")
        trainium = rows_of("accelerator_model = 'Trainium'", 24)
        assert rows_shown(page, "day") == trainium and len({r[1] for r in trainium}) > 3
        page.select_option("#filters select[name=kind]", "capacity_block")
        blocks = rows_of("accelerator_model = 'Trainium' AND price_kind_family = 'capacity_block'", 24)
        assert rows_shown(page, "day") == blocks and blocks
        shared = page.url
        assert "accelerator=Trainium" in shared and "unit=day" in shared
        load(page, (site / "index.html").as_uri())  # the default view first, so the restore is a change
        page.goto(shared)
        page.reload()
        assert rows_shown(page, "day") == blocks
        assert page.locator("#filters select[name=kind]").input_value() == "capacity_block"
        page.goto((site / "index.html").as_uri() + "#kind=all&provider=Hyperstack&unit=month")
        page.reload()
        assert rows_shown(page, "month") == rows_of("provider = 'Hyperstack'", 730)
        # The other hyperscalers' offers are there too, each kind apart: Google's DWS Calendar prices among them.
        page.goto((site / "index.html").as_uri() + "#kind=all&provider=Google%20Cloud&unit=hour")
        page.reload()
        google = rows_of("provider = 'Google Cloud'", 1)
        assert rows_shown(page, "hour") == google and "dws_calendar" in {row[1] for row in google}
        # Google's TPUs are accelerators of their own, priced per chip-hour, Flex-start apart from on demand.
        page.goto((site / "index.html").as_uri() + "#kind=all&accelerator=TPU%20v6e&unit=hour")
        page.reload()
        tpu = rows_of("accelerator_model = 'TPU v6e'", 1)
        assert rows_shown(page, "hour") == tpu
        assert {"on_demand", "dws_flex_start", "committed_use_3y"} <= {row[1] for row in tpu}
        assert recorder.errors == []


def picked_shown(page, *names: str) -> list[tuple[str, ...]]:
    """The named columns of the offers table's rows a reader sees."""
    header, rows = shown(page, "offers")
    return [tuple(row[header.index(n)] for n in names) for row in rows]


def test_cheapest_gpus_and_source_status_equal_the_warehouse(site, snapshot, browser):
    cheapest = snapshot.execute(
        "SELECT gpu_model, CAST(usd_per_gpu_hour_4dp AS VARCHAR), provider, CAST(providers_in_stock AS VARCHAR), "
        "'on_demand', source_url FROM gpu_cheapest ORDER BY gpu_model"
    ).fetchall()
    freshness = snapshot.execute(
        "SELECT source_id, last_outcome, coalesce(last_error, '') FROM source_freshness ORDER BY source_id"
    ).fetchall()
    quarantined = snapshot.execute("SELECT source_id, stage, array_to_string(reasons, '; ') FROM quarantine").fetchall()
    with recorded_page(browser, "file://") as (page, _):
        load(page, (site / "gpus.html").as_uri())
        shown = picked(page, "cheapest", "gpu_model", "usd_per_gpu_hour", "provider", "providers_in_stock")
        assert shown == [tuple(r[:4]) for r in cheapest]
        assert picked(page, "cheapest", "price_kind", "source_url") == [(r[4], shown_source(r[5])) for r in cheapest]
        load(page, (site / "sources.html").as_uri())
        assert picked(page, "freshness", "source_id", "last_outcome", "last_error") == freshness
        assert ("aws_inf1", "quarantined") in [r[:2] for r in freshness]
        assert picked(page, "quarantine", "source_id", "stage", "reasons") == quarantined
        assert len(quarantined) == 1 and quarantined[0][2]  # the reason is there
        load(page, (site / "regions.html").as_uri())
        by_region = snapshot.execute("SELECT count(*) FROM aws_prices_by_region").fetchone()
        assert by_region is not None
        if by_region[0]:
            assert len(cells(page, "by-region")) == by_region[0]
        else:  # the samples' default sources are product pages: no regional rows
            assert page.locator("#regions-empty").count() == 1
        load(page, (site / "dictionary.html").as_uri())
        comment = page.locator("#dict-gpu_cheapest > p").text_content()
    stored = snapshot.execute("SELECT comment FROM duckdb_views() WHERE view_name = 'gpu_cheapest'").fetchone()
    assert stored is not None and comment == stored[0]


def test_each_history_chart_draws_one_line_per_series(site, snapshot, browser):
    expected = dict(
        snapshot.execute(
            """SELECT instance_type, count(DISTINCT (price_kind, region)) FROM aws_instance_price_history GROUP BY 1
               UNION ALL  -- the price list: on-demand and spot, one line per region
               SELECT instance_type || ' (price list)', count(DISTINCT (price_kind, region_code))
               FROM aws_pricelist_price_history WHERE price_kind IN ('on_demand', 'spot') GROUP BY 1
               UNION ALL
               SELECT coalesce(gpu_model, 'unrecognised: ' || gpu_name),
                      count(DISTINCT (provider, listing, price_kind, region))
               FROM gpu_listing_history GROUP BY 1"""
        ).fetchall()
    )
    with recorded_page(browser, "file://") as (page, recorder):
        assert load(page, (site / "history.html").as_uri()) == len(expected)
        assert series_drawn(page) == expected
        # The changed price: two versions, each drawn from its start to its end (the change, then the newest fetch).
        points = page.evaluate(
            """() => {
              const fig = Array.from(document.querySelectorAll('figure.chart'))
                .find(f => f.dataset.title === 'trn1.32xlarge');
              return JSON.parse(fig.querySelector('script').textContent).data.values
                .filter(p => p.series.startsWith('on_demand')).map(p => p.usd);
            }"""
        )
        # The refreshes ran minutes apart: every chart holds one day of prices, and says so.
        marked = page.eval_on_selector_all(
            "figure.chart", "figs => figs.map(f => [f.dataset.oneDay, f.querySelector('.one-day') !== null])"
        )
        one_day_note = page.locator("#one-day-note").count()
        # The time axes show dates, never the seconds of one refresh.
        ticks = page.eval_on_selector_all(
            "figure.chart .role-axis[aria-label^='X-axis'] .role-axis-label text",
            "texts => texts.map(t => t.textContent)",
        )
        assert ticks and all(re.fullmatch(r"\d{4}-\d\d-\d\d", tick) for tick in ticks), ticks[:5]
        trn1_regions = expected["trn1.32xlarge (price list)"]
        load(page, (site / "index.html").as_uri())  # the front page shows the liveliest AWS history
        assert series_drawn(page) == {"trn1.32xlarge": expected["trn1.32xlarge"]}
        assert recorder.errors == []
    assert points == ["1.3438", "1.3438", "1.2500", "1.2500"]
    assert trn1_regions >= 3  # on-demand in us-east-1 and us-east-2, and spot
    within_a_day = snapshot.execute("SELECT max(fetched_at) - min(fetched_at) < INTERVAL 1 DAY FROM fetch_log")
    assert within_a_day.fetchone() == (True,)
    assert marked == [["yes", True]] * len(expected) and one_day_note == 1


def test_offers_sort_as_numbers_with_ties_in_the_query_s_order(site, snapshot, browser):
    most = snapshot.execute(
        "SELECT CAST(CAST(max(usd_per_accelerator_hour) AS DECIMAL(38, 4)) AS VARCHAR), "
        "CAST(CAST(max(accelerators_per_offering) AS INTEGER) AS VARCHAR) FROM accelerator_offers"
    ).fetchone()
    with recorded_page(browser, "file://") as (page, _):
        load(page, (site / "index.html").as_uri() + "#kind=all")
        column = headers(page, "offers")
        price = column.index("usd_per_accel_hour")
        page.locator("#offers thead th").nth(price).click()  # ascending ...
        ascending = [row[price] for row in shown(page, "offers")[1]]
        page.locator("#offers thead th").nth(price).click()  # ... then descending
        assert most is not None and shown(page, "offers")[1][0][price] == most[0]
        accels = column.index("accels")  # as text, "8" would come before "16"
        page.locator("#offers thead th").nth(accels).click()
        page.locator("#offers thead th").nth(accels).click()
        assert shown(page, "offers")[1][0][accels] == most[1] and int(most[1]) >= 10
        provider = column.index("provider")  # a tie keeps the query's order: by price within a provider
        page.locator("#offers thead th").nth(provider).click()
        by_provider = shown(page, "offers")[1]
    assert ascending == sorted(ascending, key=Decimal) and ascending[0] != ascending[-1]
    aws = [Decimal(row[price]) for row in by_provider if row[provider] == "AWS"]
    assert aws == sorted(aws) and len(aws) > 10


def test_regions_page_shows_every_row_at_its_printed_precision_in_a_stable_order(site, snapshot, browser):
    """Prices on screen at 1,400 px, never `0E-10` or 18 places: the 4-place figures half up, the hourly and upfront
    parts as printed; cheapest region first within a type and its terms; on-demand by default, every row a filter
    away."""
    view = snapshot.execute(
        """SELECT instance_type, price_kind, region_code, CAST(usd_per_accelerator_hour_4dp AS VARCHAR),
                  hourly_usd, upfront_usd
           FROM aws_prices_by_region
           ORDER BY instance_type, price_kind, lease_years NULLS FIRST, purchase_option NULLS FIRST,
                    offering_class NULLS FIRST, usd_per_instance_hour, region_code"""
    ).fetchall()
    with recorded_page(browser, "file://", width=1400) as (page, recorder):
        load(page, (site / "regions.html").as_uri())
        default = len(shown(page, "by-region")[1])
        page.select_option("#filters select[name=kind]", "all")
        header, rows = shown(page, "by-region")
        right = page.eval_on_selector_all(
            "#by-region thead th",
            "ths => Object.fromEntries(ths.map(th => [th.textContent.trim(), th.getBoundingClientRect().right]))",
        )
        assert recorder.errors == []
    at = {name: header.index(name) for name in ("instance_type", "price_kind", "region_code", "usd_per_accel_hour")}
    assert [tuple(row[i] for i in at.values()) for row in rows] == [row[:4] for row in view] and len(rows) > 100
    on_demand = [row for row in view if row[1] == "on_demand"]
    assert default == len(on_demand) < len(view)
    # Each part exactly as printed (the storage scale's zeros gone, never fewer than cents), empty when there is none.
    hourly, upfront = header.index("hourly_usd"), header.index("upfront_usd")
    assert [Decimal(row[hourly]) for row in rows] == [row[4] for row in view]
    assert [Decimal(row[upfront]) if row[upfront] else None for row in rows] == [row[5] for row in view]
    assert any(row[4] == 0 for row in view)  # an all-upfront term's zero hourly part: once shown as 0E-10
    cells_shown = [cell for row in rows for cell in row]
    # No exponent and no storage scale: AWS prints at most 8 places (the price list's 10 carry trailing zeros).
    assert not [c for c in cells_shown if "E-" in c or re.fullmatch(r"\d+\.\d{9,}", c)]
    derived = [header.index(name) for name in ("usd_per_accel_hour", "usd_per_instance_hour")]
    assert all(re.fullmatch(r"\d+\.\d{4}", row[i]) for row in rows for i in derived)
    prices = ("usd_per_accel_hour", "usd_per_instance_hour", "hourly_usd", "upfront_usd")
    assert all(right[name] <= 1400 for name in prices), right


def test_regions_page_says_when_a_snapshot_predates_the_view(warehouse, tmp_path):
    snapshot = tmp_path / "prices.snapshot.duckdb"
    shutil.copyfile(warehouse.with_name("before-pilots.snapshot.duckdb"), snapshot)
    with duckdb.connect(str(snapshot)) as con:
        con.execute("DROP VIEW aws_prices_by_region")
    build_dashboard(snapshot, tmp_path / "site")
    assert 'id="no-regions"' in (tmp_path / "site" / "regions.html").read_text()


# Start serve as docker and systemd start a service, SIGTERM at its default action, then exec the CLI (same pid). An
# ignored signal is inherited through exec, and in CI this test's process was once found with SIGTERM ignored (the
# serve child's SigIgn 0x81005007: HUP, INT, QUIT, PIPE, TERM, XFSZ), which serve rightly kept.
DEFAULT_SIGTERM_THEN_CLI = (
    "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'ratecard', *sys.argv[1:]])"
)


def test_served_on_127_0_0_1_with_the_same_figures(site, snapshot, browser):
    port = free_port()
    serve = [sys.executable, "-c", DEFAULT_SIGTERM_THEN_CLI, "serve", "--dir", str(site), "--port", str(port)]
    server = subprocess.Popen(serve, stdout=subprocess.PIPE, text=True)
    try:
        assert f"on http://127.0.0.1:{port}/" in (server.stdout.readline() if server.stdout else "")
        base = f"http://127.0.0.1:{port}/"
        with recorded_page(browser, base) as (page, recorder):
            assert load(page, base + "index.html") == 1
            page.select_option("#filters select[name=kind]", "all")
            assert (
                len(shown(page, "offers")[1])
                == snapshot.execute("SELECT count(*) FROM accelerator_offers").fetchone()[0]
            )
            assert load(page, base + "history.html") > 1
            assert recorder.urls and recorder.outside == [] and recorder.errors == []
    finally:
        stop_server(server)


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM must end `ratecard serve` at once (as `docker stop` or systemd send it); if it does not, fail with
    what the kernel says of the process (state, signal masks) rather than a bare timeout, and kill it."""
    server.terminate()
    try:
        assert server.wait(timeout=10) == 128 + signal.SIGTERM  # quietly, as documented
    except subprocess.TimeoutExpired:
        status = Path(f"/proc/{server.pid}/status").read_text().splitlines()
        server.kill()
        server.wait(timeout=10)
        keep = ("State", "Threads", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
        pytest.fail(f"serve ignored SIGTERM for 10 s: {[line for line in status if line.startswith(keep)]}")


def test_the_dagster_asset_regenerates_the_site_beside_the_warehouse(warehouse):
    result = dg.materialize([dashboard_site], resources={"warehouse": WarehouseResource(db_path=str(warehouse))})
    assert result.success
    written = warehouse.parent / "dashboard"
    assert sorted(p.name for p in written.glob("*.html")) == sorted(f"{n}.html" for n in PAGES + DECISION_PAGES)
    materialisation = result.asset_materializations_for_node("dashboard_site")[0]
    assert materialisation.metadata["pages"].value == len(PAGES) + len(DECISION_PAGES)
    assert time.time() - written.joinpath("index.html").stat().st_mtime < 3600


def test_deployment_page_charts_each_break_even_for_its_own_accelerator(site, snapshot, browser):
    expected = snapshot.execute(
        """SELECT workload, coalesce(provider || ' ', '') || offering, accelerator_model, billing,
                  CAST(CAST(monthly_usd AS DECIMAL(38, 2)) AS VARCHAR)
           FROM deployment_costs
           ORDER BY workload, rank NULLS LAST, monthly_usd, provider NULLS FIRST, offering, billing, price_kind"""
    ).fetchall()
    # One chart per break-even row, titled with its figure, drawing that workload's options on that accelerator.
    charted = dict(
        snapshot.execute(
            """SELECT b.workload || ' · ' || b.accelerator_model || ': break-even at '
                      || CAST(CAST(b.break_even_utilisation * 100 AS DECIMAL(38, 2)) AS VARCHAR) || ' %',
                      count(*)
               FROM deployment_break_even AS b
               JOIN deployment_costs AS d USING (workload, accelerator_model)
               WHERE d.comparable GROUP BY ALL"""
        ).fetchall()
    )
    with recorded_page(browser, "file://") as (page, recorder):
        assert load(page, (site / "deployment.html").as_uri()) == len(charted) == 2
        shown_rows = picked(page, "deployment", "workload", "offering", "accelerator", "billing", "monthly_usd")
        assert shown_rows == [tuple(map(str, row)) for row in expected]
        assert series_drawn(page) == charted
        crossing = picked(page, "break-even", "workload", "accelerator_model", "break_even_utilisation")
        assert ("chat-8b", "H100", "0.498883") in crossing
        assert "chat-8b · H100: break-even at 49.89 %" in charted
        # The filters pick rows and lines alike: Inferentia2 has no serverless option, so no chart is left.
        page.select_option("#filters select[name=accelerator]", "Inferentia2")
        page.wait_for_function("document.querySelector('form.filters').dataset.applied === 'yes'")
        inf2 = shown(page, "deployment")[1]
        charts_left = page.eval_on_selector_all("figure.chart", "figs => figs.filter(f => !f.hidden).length")
        assert "accelerator=Inferentia2" in page.url
        assert recorder.errors == [] and recorder.outside == []
    assert inf2 and all(row[3] == "Inferentia2" for row in inf2) and charts_left == 0


def test_the_cost_curves_bill_the_profile_s_own_month_and_cross_at_the_break_even(snapshot):
    """At full use the accelerator's reference always-on option (cheapest per unit of work) costs what
    deployment_costs bills one instance of it: every hour of the profile's days_per_month, not a 730-hour month. The
    cheapest serverless line meets it at the break-even utilisation."""
    options = snapshot.execute(
        """SELECT workload, accelerator_model, coalesce(provider || ' ', '') || offering || ' (always_on)',
                  usd_per_billed_hour, units_per_hour, days_per_month
           FROM deployment_costs WHERE billing = 'always_on' AND comparable ORDER BY ALL"""
    ).fetchall()
    break_even = {
        (w, a): b
        for w, a, b in snapshot.execute(
            "SELECT workload, accelerator_model, break_even_utilisation FROM deployment_break_even"
        ).fetchall()
    }
    # Per break-even row, the always-on option cheapest per unit of work (Decimal division, never float).
    cheapest: dict[tuple[str, str], tuple] = {}
    for workload, accelerator, series, price, units, days in options:
        if (workload, accelerator) in break_even:
            best = cheapest.get((workload, accelerator))
            if best is None or price / units < best[1] / best[2]:
                cheapest[(workload, accelerator)] = (series, price, units, days)
    reference = [
        (w, a, series, (days * 24 * price).quantize(Decimal("0.01"), ROUND_HALF_UP), price)
        for (w, a), (series, price, _, days) in cheapest.items()
    ]
    curves = snapshot.execute(deployment_page.DEPLOYMENT_CURVES).fetchall()
    at_full_use = {(chart.split(" · ")[0], series): usd for chart, series, pct, usd, *_ in curves if pct == "100"}
    assert len(reference) == 2
    for workload, accelerator, series, billed, price in reference:
        assert isinstance(price, Decimal), price
        assert at_full_use[(workload, series)] == billed, (workload, series)
        assert billed != 0
        # The reference's flat line and the cheapest serverless line cross between the steps around the figure.
        serverless = {
            Decimal(pct): usd
            for chart, series_name, pct, usd, *_ in curves
            if chart.startswith(f"{workload} · {accelerator}:") and series_name.endswith("(serverless)")
        }
        below = Decimal(5) * int(break_even[(workload, accelerator)] * 20)
        cheapest_below = min(usd for pct, usd in serverless.items() if pct == below)
        cheapest_above = min(usd for pct, usd in serverless.items() if pct == below + 5)
        assert cheapest_below <= billed <= cheapest_above, (workload, below, cheapest_below, billed, cheapest_above)


def test_an_offline_url_is_shown_as_the_sample_it_served_and_a_real_one_as_it_is():
    assert shown_source("http://127.0.0.1:46261/aws/trn1.html") == "pipelines/samples/aws/trn1.html (sample)"
    offer = "http://127.0.0.1:5/offers/v1.0/aws/AmazonEC2/20260928184207/us-east-1/index.csv"
    assert shown_source(offer) == "pipelines/samples/aws/pricelist/us-east-1.csv (sample)"
    real = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/20260928184207/us-east-1/index.csv"
    assert shown_source(real) == real and shown_source("") == ""


def test_every_fetched_figure_carries_its_content_hash_and_parser_version(snapshot):
    """Each `<p>source_url` with a `<p>fetched_at` is a fetch: beside them, the body's hash (`<p>content_sha256`;
    `sha256` in the spec views, as fetch_log names it) and the parser's version, set on every row. A price view
    gives the hash its price-view name."""
    columns: dict[str, list[str]] = {}
    for view, column in snapshot.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE table_name IN "
        "(SELECT view_name FROM duckdb_views() WHERE NOT internal) ORDER BY table_name, column_index"
    ).fetchall():
        columns.setdefault(view, []).append(column)
    checked = set()
    for view, names in columns.items():
        price_view = any("usd" in name for name in names)
        for prefix in [n.removesuffix("source_url") for n in names if n.endswith("source_url")]:
            if f"{prefix}fetched_at" not in names:
                continue  # a cited page (a spec's or a launch's), not a fetch of this row
            hashes = [f"{prefix}content_sha256"] if price_view else [f"{prefix}content_sha256", f"{prefix}sha256"]
            present = [name for name in hashes if name in names]
            assert present, f"{view}: no {hashes[0]}"
            digest, version = present[0], f"{prefix}parser_version"
            assert version in names, f"{view}: no {version}"
            url = f"{prefix}source_url"
            missing = f'"{url}" IS NOT NULL AND ("{digest}" IS NULL OR "{version}" IS NULL)'
            (bare,) = snapshot.execute(f'SELECT count(*) FROM "{view}" WHERE {missing}').fetchone()
            assert bare == 0, f"{view}: {bare} rows with {url} but no {digest} or {version}"
            checked.add(view)
    assert {"accelerator_hour_prices", "deployment_costs", "cost_per_work", "accelerator_value"} <= checked
    for view in ("accelerator_hour_prices", "deployment_costs", "cost_per_work", "accelerator_value"):
        assert snapshot.execute(f"SELECT count(*) FROM {view}").fetchone()[0] > 0, view  # rows were checked
