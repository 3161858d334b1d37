"""The units offers are priced in: light enough for the CLI to import at start-up (no DuckDB, no Arrow)."""

from __future__ import annotations

from enum import StrEnum

HOURS_PER_MONTH = 730  # the month cloud price lists bill by: 8,760 hours a year / 12


class Per(StrEnum):
    """The unit offers are priced and sorted in."""

    accel_hour = "accel-hour"
    instance_hour = "instance-hour"
    month = "month"
