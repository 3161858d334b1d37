"""Dagster: definitions, steps, services."""
