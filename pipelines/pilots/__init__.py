"""Pilot measurements, migration plans and traffic profiles: user input priced by the warehouse's views."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warehouse.sql_files import SchemaPart


def _upgrade(con: Any, part: SchemaPart) -> None:
    """Rows landed before the current tables: see the landing's upgrade."""
    # Files made before training runs (or traffic profiles): pilot_inputs' CHECK refuses their input kind. The
    # newest kind is the test: a CHECK that admits it admits every kind before it.
    from warehouse.rebuild import rebuild_if_check_refuses

    rebuild_if_check_refuses(con, "pilot_inputs", "input_kind", "training", part)


SOURCE_KIND: str | None = None  # no source lands here: its folder holds tables and views only
SCHEMA = SchemaPart("pilots", Path(__file__).resolve().parent / "sql", _upgrade)
