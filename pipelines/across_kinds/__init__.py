"""Views that set the kinds side by side: the change feed over every history table (and the webhook's log), and
every current price per accelerator-hour, GiB-hour and dense PFLOP-hour beside the NVIDIA reference."""

from __future__ import annotations

from pathlib import Path

from warehouse.sql_files import SchemaPart

SOURCE_KIND: str | None = None  # no source lands here: its folder holds tables and views only
SCHEMA = SchemaPart("across_kinds", Path(__file__).resolve().parent / "sql")
