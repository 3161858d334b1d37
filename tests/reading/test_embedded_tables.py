"""Tables carried as embedded JSON: both known shapes read into headers and rows by their headings, each cell's HTML
read as text, a row's missing first column taken from its group's label, and a table without headings reported."""

from __future__ import annotations

import json

from bs4 import BeautifulSoup

from pipelines.reading.embedded_tables import EmbeddedTable, embedded_tables


def page(*items: dict) -> BeautifulSoup:
    blocks = "".join(
        f'<script type="application/json">{json.dumps({"data": {"items": [{"fields": f}]}})}</script>' for f in items
    )
    return BeautifulSoup(f"<html><body><script>var x = 1;</script>{blocks}</body></html>", "lxml")


def columns(*headings: str) -> str:
    return json.dumps([{"Heading": h, "accessor": str(i)} for i, h in enumerate(headings, start=1)])


NEW = {
    "itemHeading": "Trn2 Pricing",
    "itemTableColumns": columns("Instance Type", "Region", "Effective Hourly Rate", "ACCELERATOR"),
    "itemTableRowGroups": json.dumps([{"id": "row1", "idProperty": "idProperty", "label": "trn2.48xlarge"}]),
    "itemTableData": json.dumps(
        [
            {"id": 0, "idProperty": "row1", "2": "<p>US East (Ohio)</p>\r\n", "3": "<p>$35.7608 ($2.235 USD)<br /></p>",
             "4": "<p>16 x Trainium2</p>"},
            {"id": 1, "idProperty": "row1", "2": "<p>US West (Oregon)</p>", "3": "<p>$36.00 ($2.25 USD)</p>"},
        ]
    ),
}  # fmt: skip


def test_the_new_shape_reads_by_heading_with_the_group_label_as_first_column():
    tables, unread = embedded_tables(page(NEW))
    assert unread == []
    assert tables == [
        EmbeddedTable(
            "Trn2 Pricing",
            ["Instance Type", "Region", "Effective Hourly Rate", "ACCELERATOR"],
            [
                ["trn2.48xlarge", "US East (Ohio)", "$35.7608 ($2.235 USD)", "16 x Trainium2"],
                ["trn2.48xlarge", "US West (Oregon)", "$36.00 ($2.25 USD)", ""],
            ],
        )
    ]


def test_the_older_shape_reads_its_columns_and_one_without_headings_is_reported():
    older = {
        "heading": "P5 Pricing",
        "table": {
            "columns": [{"Header": "Instance Type", "accessor": "1"}, {"Header": "Region", "accessor": "2"},
                        {"Header": "Effective Instance Hourly Rate", "accessor": "3"}],
            "rowDefinitions": [{"id": "row1", "label": "p5.48xlarge"}],
            "items": [{"idProperty": "row1", "2": "<p>US East (N. Virginia)</p>", "3": "<p>$31.464 USD</p>"}],
        },
    }  # fmt: skip
    headless = {"heading": "P4d Pricing", "table": {"rowDefinitions": [], "items": [{"2": "x", "3": "y"}]}}
    tables, unread = embedded_tables(page({"jsonData": json.dumps(older)}, {"jsonData": json.dumps(headless)}))
    assert tables == [
        EmbeddedTable(
            "P5 Pricing",
            ["Instance Type", "Region", "Effective Instance Hourly Rate"],
            [["p5.48xlarge", "US East (N. Virginia)", "$31.464 USD"]],
        )
    ]
    assert unread == ["embedded table 'P4d Pricing': its columns carry no headings, so none can be read by meaning"]


def test_blocks_that_are_not_json_or_hold_no_table_give_nothing():
    soup = BeautifulSoup(
        '<script type="application/json">{not json</script><script type="application/json">{"a": [1, {"b": 2}]}'
        "</script>",
        "lxml",
    )
    assert embedded_tables(soup) == ([], [])
