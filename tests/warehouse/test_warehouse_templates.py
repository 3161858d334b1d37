"""A new warehouse file is a copy of the cached empty one: the same catalog as a file built from the schema files,
its own applied_at, and a damaged, foreign or unwritable cache never gives a wrong file."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from warehouse.db import FILE_CONFIG, connect
from warehouse.schema import schema_sha256
from warehouse.templates import CACHE_ENV, template_path

CATALOG = [
    "SELECT table_name, comment, sql FROM duckdb_tables() ORDER BY ALL",
    "SELECT view_name, comment, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL",
    """SELECT table_name, column_name, data_type, column_default, is_nullable, comment FROM duckdb_columns()
       WHERE NOT internal ORDER BY ALL""",
    "SELECT function_name, comment, macro_definition FROM duckdb_functions() WHERE NOT internal ORDER BY ALL",
    "SELECT sequence_name, start_value, increment_by FROM duckdb_sequences() ORDER BY ALL",
    "SELECT * EXCLUDE (applied_at) FROM schema_version",
    "SELECT * FROM catalog_comments ORDER BY ALL",
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


def forget_schema(path: Path) -> None:
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM schema_version")


def template() -> Path:
    return template_path(schema_sha256(), FILE_CONFIG)


def catalog(path: Path) -> list[list[tuple[object, ...]]]:
    with duckdb.connect(str(path), read_only=True) as con:
        return [con.execute(query).fetchall() for query in CATALOG]


def applied_at(path: Path) -> object:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT applied_at FROM schema_version").fetchone()


def new_file(path: Path) -> Path:
    with connect(path):
        pass
    return path


def test_a_file_from_the_template_has_the_catalog_of_one_built_from_the_schema(cache, tmp_path):
    built = new_file(tmp_path / "built.duckdb")
    assert template().is_file(), "the first new file is kept as the template"
    copied = new_file(tmp_path / "copied.duckdb")
    assert catalog(copied) == catalog(built)
    assert catalog(copied)[0], "the catalog holds tables"
    assert applied_at(copied) != applied_at(built), "each file records when its own schema was put in place"
    assert not list(tmp_path.glob(".*.new-*")), "nothing is left beside the files"


def test_a_file_from_the_template_lands_and_reads_like_any_other(cache, tmp_path):
    new_file(tmp_path / "first.duckdb")
    with connect(new_file(tmp_path / "second.duckdb")) as con:
        con.execute("INSERT INTO schema_version VALUES ('extra', current_timestamp)")
        assert con.execute("SELECT count(*) FROM schema_version").fetchone() == (2,)
        assert con.execute("SELECT count(*) FROM aws_instance_prices").fetchone() == (0,)
    with connect(tmp_path / "first.duckdb") as con:
        assert con.execute("SELECT count(*) FROM schema_version").fetchone() == (1,), "the copies share no state"


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:4096]), id="truncated"),
        pytest.param(lambda path: path.write_bytes(b"not a database"), id="not_duckdb"),
        pytest.param(
            lambda path: duckdb.connect(str(path)).execute("DELETE FROM schema_version").close(), id="other_schema"
        ),
    ],
)
def test_a_damaged_or_foreign_template_is_rebuilt_not_copied(cache, tmp_path, damage):
    built = new_file(tmp_path / "built.duckdb")
    damage(template())
    copied = new_file(tmp_path / "copied.duckdb")
    assert catalog(copied) == catalog(built)
    assert catalog(template()) == catalog(built), "the template was replaced by a whole one"


def test_an_unwritable_cache_still_gives_a_whole_file(tmp_path, monkeypatch):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv(CACHE_ENV, str(blocked))
    made = new_file(tmp_path / "made.duckdb")
    with duckdb.connect(str(made), read_only=True) as con:
        assert con.execute("SELECT sql_sha256 FROM schema_version").fetchone() == (schema_sha256(),)
    assert blocked.read_text().startswith("a file"), "the cache path was left alone"


def test_the_template_is_named_for_the_duckdb_version_and_settings(cache):
    assert f"v{duckdb.__version__}" in template().parts
    assert template() != template_path(schema_sha256(), {**FILE_CONFIG, "storage_compatibility_version": "v1.0.0"})
    assert template() != template_path("0" * 64, FILE_CONFIG)
    assert template().is_relative_to(Path(os.environ[CACHE_ENV]))
