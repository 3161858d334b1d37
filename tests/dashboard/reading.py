"""What a reader of the dashboard sees: a table's cells and headers as shown, the lines each chart drew."""

from __future__ import annotations

from typing import Any

PAGES = ["index", "gpus", "value", "regions", "history", "deployment", "decisions", "sources", "dictionary"]
# The example pilots name two workloads, each with its decision page (tests/decide/ checks those pages).
DECISION_PAGES = ["decision-chat-8b", "decision-summarise-batch"]


def cells(page: Any, table_id: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        f"#{table_id} tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.textContent.trim()))"
    )


def headers(page: Any, table_id: str) -> list[str]:
    return page.eval_on_selector_all(f"#{table_id} thead th", "ths => ths.map(th => th.textContent.trim())")


def shown(page: Any, table_id: str) -> tuple[list[str], list[list[str]]]:
    """The headers and rows a reader sees: rows a filter hides and columns of another unit are left out."""
    return page.eval_on_selector(
        f"#{table_id}",
        """t => {
          const seen = cells => Array.from(cells).filter(c => c.offsetParent !== null).map(c => c.textContent.trim());
          const rows = Array.from(t.tBodies[0].rows).filter(r => !r.hidden);
          return [seen(t.tHead.rows[0].cells), rows.map(r => seen(r.cells))];
        }""",
    )


def picked(page: Any, table_id: str, *names: str) -> list[tuple[str, ...]]:
    """The named columns of a table's rows as shown, in display order."""
    header = headers(page, table_id)
    return [tuple(row[header.index(n)] for n in names) for row in cells(page, table_id)]


def series_drawn(page) -> dict[str, int]:
    """Per chart title, the lines Vega drew: one SVG path per series in the line mark."""
    return page.eval_on_selector_all(
        "figure.chart",
        "figs => Object.fromEntries(figs.map(f => [f.dataset.title, f.querySelectorAll('.mark-line path').length]))",
    )
