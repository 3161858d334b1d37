"""DuckDB warehouse: DDL, versioned landing, quarantine and the public views."""
