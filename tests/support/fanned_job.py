"""The price refresh job as a fanned-out Dagster run rebuilds it in each step's process: from the environment
(RATECARD_SOURCES, RATECARD_WAREHOUSE, RATECARD_DAGSTER_WORKERS), through pipelines.definitions."""

from __future__ import annotations

import dagster as dg


def refresh_job() -> dg.JobDefinition:
    from pipelines.definitions import build_definitions

    return build_definitions().resolve_job_def("refresh_prices")
