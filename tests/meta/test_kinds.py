"""Every kind is a folder the generic code can read: the registry names it once, its folder holds the conventional
parts, and every adapter's kind is one the registry knows."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.kinds import KIND_FOLDERS, UnknownKind, kind_named, read_by_others, source_kind_names
from pipelines.sources.adapter_registry import ADAPTERS
from warehouse.sql_files import PHASES, schema_parts

FOLDERS = {folder.__name__: Path(folder.__file__).parent for folder in KIND_FOLDERS}


def test_every_adapter_names_a_kind_the_registry_knows():
    assert sorted({info.kind for info in ADAPTERS.values()}) == sorted(source_kind_names())


@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_a_kind_folder_holds_its_sql_and_a_source_kind_holds_its_records_suite_landing_and_kind(name):
    folder = FOLDERS[name]
    assert any((folder / "sql" / f"{phase}.sql").is_file() for phase in PHASES)
    source_kind = next(f.SOURCE_KIND for f in KIND_FOLDERS if f.__name__ == name)
    if source_kind is not None:
        assert all((folder / f"{part}.py").is_file() for part in ("records", "suite", "landing", "kind"))
        assert kind_named(source_kind).name == source_kind


def test_the_warehouse_applies_the_house_then_every_kind_in_the_registrys_order():
    assert [part.name for part in schema_parts()] == ["house", *(f.SCHEMA.name for f in KIND_FOLDERS)]


def test_a_kind_others_read_lands_first_and_an_unknown_kind_is_named():
    assert read_by_others() == {"fx"}  # GPU prices convert with the ECB rates
    with pytest.raises(UnknownKind, match="'tpu'"):
        kind_named("tpu")
