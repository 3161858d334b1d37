"""The Capacity Blocks page in its table shape (tests/support/pages/capacity_blocks_table.html): one row per instance
type and region, a follow-on row for another region of the same
type (an empty or repeated instance cell, or a rowspan), and the rate read whatever the column order."""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag

from pipelines.aws.records import SourceBatch
from tests.support.aws_pages import (
    CB,
    EXPECTED,
    TABLE_PAGE,
    P,
    altered,
    cell,
    cells,
    col,
    dump,
    move_column,
    new_row,
    parse,
    price_rows,
    row_of,
    spec_rows,
)


def test_capacity_blocks_rate_first_and_gpu_memory_swapped_give_the_same_records() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        move_column(table, col(table, "Effective Instance Hourly Rate"), 0)
        move_column(table, col(table, "Accelerator Memory"), col(table, "GPU"))

    assert dump(parse(TABLE_PAGE, altered(TABLE_PAGE, edit))) == dump(parse(TABLE_PAGE))


def test_capacity_blocks_empty_rate_is_an_absent_price_but_the_spec_stays() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        cell(table, "p4d.24xlarge", "Effective Instance Hourly Rate").string = "N/A"

    batch = parse(TABLE_PAGE, altered(TABLE_PAGE, edit))
    assert "p4d.24xlarge" in spec_rows(batch)
    assert [p.instance_type for p in batch.prices] == ["p5.48xlarge", "trn1.32xlarge", "trn2.48xlarge"]


OREGON = ("trn2.48xlarge", CB, "US West (Oregon)")


def _trn2_prices(batch: SourceBatch) -> dict[tuple, tuple]:
    return {k: v for k, v in price_rows(batch).items() if k[0] == "trn2.48xlarge"}


def _assert_two_trn2_regions(batch: SourceBatch) -> None:
    assert [s.instance_type for s in batch.specs] == list(EXPECTED[TABLE_PAGE]["specs"])
    assert spec_rows(batch) == EXPECTED[TABLE_PAGE]["specs"]
    assert len(batch.prices) == 5
    assert _trn2_prices(batch) == {
        ("trn2.48xlarge", CB, "US East (Ohio)"): P("35.7608", "2.23505", "2.2351", "2.235"),
        OREGON: P("36.50", "2.28125", "2.2813", "2.281"),
    }


def test_follow_on_row_with_an_empty_instance_cell_is_another_region_of_the_same_type() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row_of(table, "trn2.48xlarge").insert_after(
            new_row(
                "<tr><td></td><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td></td><td></td><td></td><td></td><td></td><td></td></tr>"
            )
        )

    _assert_two_trn2_regions(parse(TABLE_PAGE, altered(TABLE_PAGE, edit)))


def test_follow_on_row_repeating_the_spec_cells() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row_of(table, "trn2.48xlarge").insert_after(
            new_row(
                "<tr><td>&nbsp;</td><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td>16 x AWS Trainium2</td><td>192</td><td>2048 GiB</td><td>1.5 TB</td><td>4 x 1.92</td>"
                "<td>3200 Gigabit</td></tr>"
            )
        )

    _assert_two_trn2_regions(parse(TABLE_PAGE, altered(TABLE_PAGE, edit)))


def test_rowspan_instance_cell_covers_both_region_rows() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row = row_of(table, "trn2.48xlarge")
        cells(row)[0]["rowspan"] = "2"
        row.insert_after(
            new_row(
                "<tr><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td>"
                "<td>16 x AWS Trainium2</td><td>192</td><td>2048 GiB</td><td>1.5 TB</td><td>4 x 1.92</td>"
                "<td>3200 Gigabit</td></tr>"
            )
        )

    _assert_two_trn2_regions(parse(TABLE_PAGE, altered(TABLE_PAGE, edit)))


def test_rowspan_on_every_spec_cell_covers_both_region_rows() -> None:
    def edit(soup: BeautifulSoup, table: Tag) -> None:
        row = row_of(table, "trn2.48xlarge")
        for index, c in enumerate(cells(row)):
            if index not in (1, 2, 3):  # region and the two rates differ per row
                c["rowspan"] = "2"
        row.insert_after(new_row("<tr><td>US West (Oregon)</td><td>$36.50 USD</td><td>$2.281 USD</td></tr>"))

    _assert_two_trn2_regions(parse(TABLE_PAGE, altered(TABLE_PAGE, edit)))
