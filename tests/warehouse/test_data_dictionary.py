"""docs/data-dictionary.md is generated from the warehouse's COMMENT ON text and kept current."""

from __future__ import annotations

from warehouse.db import connect
from warehouse.dictionary import DEFAULT_PATH, generate, render


def test_the_committed_dictionary_is_current():
    assert DEFAULT_PATH.read_text(encoding="utf-8") == generate(), (
        "docs/data-dictionary.md is out of date with the COMMENT ON text in warehouse/sql: run `make docs` "
        "and commit the result"
    )


def test_every_public_table_view_column_and_macro_is_described(tmp_path):
    with connect(tmp_path / "w.duckdb") as con:
        text = render(con)
        names = con.execute("""SELECT table_name FROM duckdb_tables()
                               UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal""").fetchall()
        columns = con.execute("SELECT table_name, column_name, comment FROM duckdb_columns() WHERE NOT internal")
        column_rows = columns.fetchall()
    assert {"price_changes", "gpu_listings", "notify_log"} <= {n for (n,) in names}
    for (name,) in names:
        assert f"\n## {name}\n" in text, name
    for _table, column, comment in column_rows:
        assert f"| `{column}` |" in text and comment.replace("|", "\\|") in text, column
    assert "## aws_instance_prices_as_of" in text and "`gpu_listings_as_of(ts)`" in text


def test_it_follows_the_comments_not_a_copy(tmp_path):
    """A changed comment changes the dictionary: what the test above compares is derived, not stored."""
    with connect(tmp_path / "w.duckdb") as con:
        con.execute("COMMENT ON COLUMN gpu_cheapest.provider IS 'a|b, changed'")
        text = render(con)
    assert "| `provider` | VARCHAR | a\\|b, changed |" in text
