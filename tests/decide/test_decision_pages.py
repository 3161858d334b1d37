"""The dashboard's decision pages in Debian's chromium: an index of every workload's verdict, and one page per
workload with the verdict, its rule and each step's rows as `ratecard decide` gives them, offline."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipelines.dashboard.build import build_dashboard
from pipelines.decide.render import sections, text
from pipelines.decide.steps import gather, workloads
from pipelines.decide.verdict import decide
from tests.support.browser import chromium, load, recorded_page
from warehouse.publish import readable

pytestmark = pytest.mark.xdist_group("decide")


@pytest.fixture(scope="module")
def site(decided: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("decision-site")
    build_dashboard(readable(decided), out)
    return out


def rows_of(page, selector: str) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all(
        f"{selector} tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent.trim()))"
    )


def test_every_workload_has_a_page_with_its_verdict_and_each_step(decided, site):
    with duckdb.connect(str(readable(decided)), read_only=True) as con:
        expected = {w: gather(con, w) for w in workloads(con)}
    assert sorted(expected) == ["chat-8b", "pretrain-1b", "summarise-batch"]
    with chromium() as browser, recorded_page(browser, "file://") as (page, recorder):
        load(page, (site / "decisions.html").as_uri())
        listed = {row[0]: row for row in rows_of(page, "#decisions")}
        assert {w: listed[w][2] for w in listed} == {w: decide(s).verdict for w, s in expected.items()}
        for workload, steps in expected.items():
            verdict = decide(steps)
            page.click(f"#decisions a:text-is('{workload}')")
            page.wait_for_function("window.ratecardCharts !== undefined")
            assert page.locator("#verdict-text").text_content() == verdict.verdict
            assert page.locator("#verdict-rule").count() == (1 if verdict.rule else 0)
            ids = page.eval_on_selector_all("section.step", "sections => sections.map(s => s.id)")
            for (_, title, view, rows, columns), section in zip(sections(steps), ids, strict=True):
                heading = page.locator(f"#{section} h2").text_content()
                assert heading is not None and title in heading and view in heading
                shown = rows_of(page, f"#{section} table") if rows else []
                assert len(shown) == len(rows), (workload, title)
                if "offering" in columns:  # the offerings (named by provider), in the view's order
                    at = list(columns).index("offering")
                    assert [r[at] for r in shown] == [text(r["offering"]) for r in rows]
            page.go_back()
        assert recorder.outside == [] and recorder.errors == []


def test_the_training_bill_keeps_capacity_block_rates_in_their_own_column(site):
    page_html = (site / "decision-pretrain-1b.html").read_text()
    assert "Capacity Block USD/hour" in page_html and "<td>1716.5184</td>" in page_html
    assert "keep or rent the NVIDIA GPU deployment" in page_html and "<td>1610</td>" in page_html
