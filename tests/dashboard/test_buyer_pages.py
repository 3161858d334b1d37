"""The pages a buyer compares on: value per dense PFLOP and per GiB with Trainium, Inferentia and GPUs side by side,
and the history page's filters, which pick lines as the front page's pick rows; lines that lie on each other are
told apart and named."""

from __future__ import annotations

import pytest

from tests.dashboard.reading import picked, series_drawn, shown
from tests.support.browser import load, recorded_page

pytestmark = pytest.mark.xdist_group("dashboard")  # the warehouse conftest.py lands, once per worker


def applied(page) -> None:
    page.wait_for_function("document.querySelector('form.filters').dataset.applied === 'yes'")


def test_value_side_by_side_puts_trainium_inferentia_tpus_and_gpus_in_one_table(site, snapshot, browser):
    expected = snapshot.execute(
        """SELECT accelerator_spec,
                  CAST(CAST(min(usd_per_dense_pflop_hour_bf16) AS DECIMAL(38, 4)) AS VARCHAR),
                  CAST(CAST(min(usd_per_gib_memory_hour) AS DECIMAL(38, 4)) AS VARCHAR),
                  coalesce(min(fp8_format), ''),
                  CAST(CAST(min(usd_per_dense_pflop_hour_fp8) AS DECIMAL(38, 4)) AS VARCHAR)
           FROM accelerator_value
           WHERE price_kind = 'on_demand' AND accelerator_spec IS NOT NULL
           GROUP BY ALL
           ORDER BY min(usd_per_dense_pflop_hour_bf16) NULLS LAST, min(usd_per_dense_pflop_hour_fp8) NULLS LAST,
                    accelerator_spec"""
    ).fetchall()
    with recorded_page(browser, "file://") as (page, recorder):
        load(page, (site / "value.html").as_uri())
        side = picked(
            page,
            "value-side-by-side",
            "accelerator",
            "usd_per_dense_pflop_hour_bf16",
            "usd_per_gib_hour",
            "fp8_format",
            "usd_per_dense_pflop_hour_fp8",
        )
        vendors = {row[0] for row in picked(page, "value-side-by-side", "vendor")}
        assert recorder.errors == []
    assert side == [tuple(v or "" for v in row) for row in expected]
    assert {"Trainium", "Inferentia2", "TPU v6e", "H100 SXM"} <= {row[0] for row in side}
    assert vendors == {"AWS", "Google", "NVIDIA"}
    # A format the specs do not state stays empty, never 0; a stated one names its format.
    assert all((row[3] == "") == (row[4] == "") for row in side) and "0.0000" not in {row[4] for row in side}


def test_value_rows_filter_by_kind_and_accelerator_and_keep_every_view_row(site, snapshot, browser):
    def rows_of(where: str) -> list[tuple[str, ...]]:
        return sorted(
            snapshot.execute(
                f"""SELECT offering, price_kind, CAST(CAST(usd_per_accelerator_hour AS DECIMAL(38, 4)) AS VARCHAR),
                           coalesce(CAST(CAST(usd_per_dense_pflop_hour_bf16 AS DECIMAL(38, 4)) AS VARCHAR), '')
                    FROM accelerator_value WHERE {where}"""
            ).fetchall()
        )

    with recorded_page(browser, "file://") as (page, recorder):
        load(page, (site / "value.html").as_uri())
        names = ("offering", "price_kind", "usd_per_accel_hour", "usd_per_dense_pflop_hour_bf16")

        def rows_shown() -> list[tuple[str, ...]]:
            header, rows = shown(page, "value")
            return sorted(tuple(row[header.index(n)] for n in names) for row in rows)

        assert rows_shown() == rows_of("price_kind_family(price_kind) = 'on_demand'")
        page.select_option("#filters select[name=kind]", "all")
        page.select_option("#filters select[name=accelerator]", "Trainium")
        trainium = rows_of("accelerator_spec = 'Trainium'")
        assert rows_shown() == trainium and len({r[1] for r in trainium}) > 3
        assert "accelerator=Trainium" in page.url and recorder.errors == []


def test_history_filters_pick_lines_and_hide_charts_left_empty(site, snapshot, browser):
    blocks = dict(
        snapshot.execute(
            """SELECT instance_type, count(DISTINCT region) FROM aws_instance_price_history
               WHERE price_kind = 'capacity_block' GROUP BY 1"""
        ).fetchall()
    )
    hyperstack = snapshot.execute(
        "SELECT count(DISTINCT coalesce(gpu_model, gpu_name)) FROM gpu_listing_history WHERE provider = 'Hyperstack'"
    ).fetchone()
    with recorded_page(browser, "file://") as (page, recorder):
        charts = load(page, (site / "history.html").as_uri() + "#kind=capacity_block")
        applied(page)
        visible = page.eval_on_selector_all(
            "figure.chart", "figs => figs.filter(f => !f.hidden).map(f => f.dataset.title)"
        )
        drawn = series_drawn(page)
        page.select_option("#filters select[name=kind]", "all")
        page.select_option("#filters select[name=provider]", "Hyperstack")
        applied(page)
        by_provider = page.eval_on_selector_all("figure.chart", "figs => figs.filter(f => !f.hidden).length")
        count = page.locator("#filtered-count").text_content()
        assert recorder.errors == []
    # Capacity Blocks only: each chart left draws that kind's lines alone.
    assert sorted(visible) == sorted(blocks) and charts > len(blocks)
    assert {title: drawn[title] for title in visible} == blocks
    assert hyperstack is not None and by_provider == hyperstack[0] > 0
    assert count == f"{by_provider} of {charts} charts"


def test_lines_that_lie_on_each_other_are_named_and_dashed_apart(site, browser):
    """Series at the same prices all along draw one line: the caption names them, and only them; each series has
    its own dash and point shape."""
    with recorded_page(browser, "file://") as (page, recorder):
        load(page, (site / "history.html").as_uri())
        figures = page.eval_on_selector_all(
            "figure.chart",
            """figs => figs.map(f => ({
                 notes: Array.from(f.querySelectorAll('.coincide'), s => s.textContent.split(': ').slice(1).join(': ')),
                 points: JSON.parse(f.querySelector('script').textContent).data.values,
                 dashes: Array.from(f.querySelectorAll('.mark-line path'),
                                    p => p.getAttribute('stroke-dasharray') || '')
               }))""",
        )
        assert recorder.errors == []

    def drawn(points: list[dict], series: str) -> list[tuple[str, str]]:
        return [(p["point_at"], p["usd"]) for p in points if p["series"] == series]

    named = [(f, note.split(" = ")) for f in figures for note in f["notes"]]
    assert named
    for figure, same in named:
        lines = {tuple(drawn(figure["points"], series)) for series in same}
        assert len(same) > 1 and len(lines) == 1, same
        others = {p["series"] for p in figure["points"]} - set(same)
        assert all(tuple(drawn(figure["points"], other)) not in lines for other in others)
    # Vega's dash patterns: five, then they repeat (with the colours and point shapes still apart).
    several = [f["dashes"] for f in figures if 3 <= len(f["dashes"]) <= 5]
    assert several and all(len(set(dashes)) == len(dashes) for dashes in several)
