"""The Dagster wiring below the Definitions: resources, jobs and schedules, the change-feed webhook."""
