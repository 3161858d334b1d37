"""Tables drawn with `<div>`s, found by structure: the four recorded real shapes (a head/body div pair, card grids,
a Webflow list under heading divs, an ARIA grid) each give their header row and the H100 row with the prices the
page prints; small made-up pages pin each rule (head/body pair, heading run, ARIA, prose, unequal rows, layout)."""

from __future__ import annotations

from bs4 import BeautifulSoup

from pipelines.reading.grids import Grid, div_grids
from pipelines.reading.tables import Column, header_table, soup_of
from tests.support.paths import RECORDED

PAGES = RECORDED / "gpu_pages"


def grids_of(name: str) -> list[Grid]:
    return div_grids(soup_of((PAGES / name).read_bytes()))


def headed(grids: list[Grid], header: list[str]) -> Grid:
    """The one grid with this header row."""
    matches = [grid for grid in grids if grid[0] == header]
    assert len(matches) == 1, [grid[0] for grid in grids]
    return matches[0]


def page(body: str) -> BeautifulSoup:
    return soup_of(f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>".encode())


# -- the recorded pages ------------------------------------------------------------------------------------------


def test_nebius_2026_head_container_beside_body_container() -> None:
    grid = headed(
        grids_of("nebius_20260712235400.html"),
        ["Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour"],
    )
    assert ["NVIDIA HGX H100", "16", "200", "$2.15", "$3.85"] in grid[1:]
    assert ["NVIDIA HGX H200", "16", "200", "$2.45", "$4.50"] in grid[1:]
    assert ["NVIDIA GB300 NVL72", "112", "800", "––", "Contact us"] in grid[1:]
    assert len(grid) == 10  # the header and nine instance rows


def test_nebius_2026_grid_reads_by_header_meaning_like_a_table() -> None:
    grid = headed(
        grids_of("nebius_20260712235400.html"),
        ["Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour"],
    )
    columns = [Column("gpu", (r"^item$",)), Column("on_demand", (r"^on-demand",)), Column("spot", (r"^preemptible",))]
    table = header_table(grid[0], grid[1:], columns)
    assert table is not None
    h100 = next(row for row in table.rows("gpu") if row.label == "NVIDIA HGX H100")
    assert (h100.get("on_demand"), h100.get("spot")) == ("$3.85", "$2.15")


def test_hyperstack_2025_card_grids_each_under_their_own_header_row() -> None:
    grids = grids_of("hyperstack_20250724001416.html")
    on_demand = headed(
        grids, ["GPU Model", "VRAM (GB)", "Max pCPUs per GPU", "Max RAM (GB) per GPU", "Pricing Per Hour"]
    )
    assert ["NVIDIA H100 SXM", "80", "24", "240", "$2.40"] in on_demand[1:]
    assert ["NVIDIA H100 NVLink", "80", "31", "180", "$1.95"] in on_demand[1:]
    assert ["NVIDIA H100", "80", "28", "180", "$1.90"] in on_demand[1:]
    reservation = headed(grids, ["GPU Model", "Starting from", "Reserve"])
    assert ["NVIDIA H100 SXM", "$2.04", "Reserve here"] in reservation[1:]
    spot = headed(grids, ["GPU Model", "Spot VM"])
    assert spot[1] == ["NVIDIA A100", "$1.08"]
    # The sections' layout around the grids (heading beside grid, cells holding whole tables) is no candidate.
    assert len(grids) == 3


def test_crusoe_2025_list_items_under_a_run_of_heading_divs() -> None:
    grid = headed(grids_of("crusoe_20251215002446.html"), ["GPU model", "On-demand", "Current spot"])
    assert ["NVIDIA H100 80GB HGX", "$3.90/GPU-hr", "$1.60/GPU-hr"] in grid[1:]
    assert ["NVIDIA H200 141GB HGX", "$4.29/GPU-hr", "Contact sales"] in grid[1:]
    # The A100 item, cut off after its name, has one cell, not three: it is left out, never padded.
    assert [row[0] for row in grid[1:]] == [
        "NVIDIA GB200 186GB NVL72",
        "NVIDIA B200 180GB HGX",
        "NVIDIA H200 141GB HGX",
        "NVIDIA H100 80GB HGX",
    ]


def test_nebius_2024_aria_grid_reported_once() -> None:
    grid = headed(
        grids_of("nebius_20241115043809.html"), ["GPU", "vRAM, GB", "RAM, GB", "vCPUS", "On demand", "Reserve"]
    )
    assert ["1 × H100 SXM", "80", "200", "16", "$2.95", "$2.00"] in grid[1:]
    assert ["8 × H100 SXM", "640", "1600", "128", "$23.60", "$16.00"] in grid[1:]
    assert len(grid) == 6


def test_a_real_table_is_left_to_the_table_reader() -> None:
    assert grids_of("hyperstack_20240822101707.html") == []
    assert grids_of("crusoe_20250521220413.html") == []


# -- the rules, on small pages -----------------------------------------------------------------------------------


def test_head_and_body_containers_pair_by_cell_count() -> None:
    soup = page(
        "<div><div><div><div><p>GPU</p></div><div><p>Price</p></div></div></div>"
        "<div><div><div><p>H100</p></div><div><p>$2.00</p></div></div>"
        "<div><div><p>A100</p></div><div><p>$1.00</p></div></div></div></div>"
    )
    assert div_grids(soup) == [[["GPU", "Price"], ["H100", "$2.00"], ["A100", "$1.00"]]]


def test_header_row_as_the_previous_sibling_and_as_the_first_row() -> None:
    head = "<div><span>GPU</span><span>Price</span></div>"
    rows = "<div><span>H100</span><span>$2.00</span></div><div><span>A100</span><span>$1.00</span></div>"
    expected = [["GPU", "Price"], ["H100", "$2.00"], ["A100", "$1.00"]]
    assert div_grids(page(f"<section>{head}<div>{rows}</div></section>")) == [expected]
    assert div_grids(page(f"<section>{head}{rows}</section>")) == [expected]


def test_a_run_of_headings_before_a_list() -> None:
    soup = page(
        "<div><h4>GPU</h4><h4>On demand</h4><h4>Spot</h4>"
        "<ul><li><a><b>H100</b></a><span>$3.90</span><span>$1.60</span></li>"
        "<li><a><b>A100</b></a><span>$1.95</span><span>-</span></li></ul></div>"
    )
    assert div_grids(soup) == [[["GPU", "On demand", "Spot"], ["H100", "$3.90", "$1.60"], ["A100", "$1.95", "-"]]]


def test_aria_table_rows_and_cells_by_role() -> None:
    soup = page(
        '<div role="table"><div role="rowgroup"><div role="row">'
        '<span role="columnheader">GPU</span><span role="columnheader">On\n   demand</span></div></div>'
        '<div role="rowgroup"><div role="row"><span role="rowheader"> H100 </span><span role="cell">$2.95</span>'
        '</div><div role="row"><span role="cell">A100</span><span role="gridcell"><b>$1.</b><b>50</b></span></div>'
        '<div role="row"></div></div></div>'
    )
    assert div_grids(soup) == [[["GPU", "On demand"], ["H100", "$2.95"], ["A100", "$1. 50"]]]


def test_prose_gives_nothing() -> None:
    soup = page(
        "<article><h1>GPU pricing</h1><p>Our H100 costs <b>$2.00</b> an hour.</p><p>Call us.</p>"
        "<div><p>One paragraph.</p></div><div><p>Another.</p></div></article>"
    )
    assert div_grids(soup) == []


def test_rows_of_unequal_cell_counts_are_not_one_grid() -> None:
    soup = page(
        "<div><div><span>GPU</span><span>Price</span></div>"
        "<div><span>H100</span><span>80 GB</span><span>$2.00</span></div>"
        "<div><span>A100</span><span>40 GB</span><span>$1.00</span><span>spot</span></div></div>"
    )
    assert div_grids(soup) == []


def test_a_row_with_another_cell_count_is_left_out_and_empty_rows_skipped() -> None:
    row = "<div><span>{}</span><span>{}</span><span>{}</span></div>"
    soup = page(
        "<div>"
        + row.format("GPU", "VRAM", "Price")
        + row.format("H100", "80", "$2.00")
        + row.format("", "", "")
        + row.format("A100", "40", "$1.00")
        + "<div><span>L40S</span></div></div>"
    )
    assert div_grids(soup) == [[["GPU", "VRAM", "Price"], ["H100", "80", "$2.00"], ["A100", "40", "$1.00"]]]


def test_footnote_marks_dropped_and_the_page_left_unchanged() -> None:
    soup = page(
        "<div><div><span>GPU</span><span>Price<sup>1</sup></span></div>"
        "<div><span>H100</span><span>$2.00<!-- was $2.50 --></span></div></div>"
    )
    before = str(soup)
    assert div_grids(soup) == [[["GPU", "Price"], ["H100", "$2.00"]]]
    assert str(soup) == before


def test_layout_around_a_table_is_no_candidate() -> None:
    table = (
        "<div><div><span>GPU</span><span>Price</span></div>"
        "<div><div><span>H100</span><span>$2.00</span></div><div><span>A100</span><span>$1.00</span></div></div></div>"
    )
    soup = page(
        f"<main><section><h2>On demand</h2>{table}</section>"
        "<section><h2>Contact</h2><p>Talk to sales.</p></section></main>"
    )
    assert div_grids(soup) == [[["GPU", "Price"], ["H100", "$2.00"], ["A100", "$1.00"]]]
