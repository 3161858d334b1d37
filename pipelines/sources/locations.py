"""The bundled files' paths: light enough (no pydantic import) for the CLI to show its defaults at once."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # pipelines/
DEFAULT_SOURCES_FILE = PACKAGE_DIR / "sources.toml"
DEFAULT_CAPTURES_FILE = PACKAGE_DIR / "captures.toml"  # dated captures of the sources' pages made by others
SAMPLES_DIR = PACKAGE_DIR / "samples"
