"""Where the project's files are, for tests in any folder of tests/: one place, so a test that moves keeps its paths."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
RECORDED = TESTS / "recorded"  # others' captures of the real services, bytes unchanged (SOURCES.md there)
PAGES = TESTS / "support" / "pages"  # test pages of ours in shapes the samples no longer have (each says what it is)
PILOT_SAMPLES = ROOT / "pipelines" / "samples" / "pilots"
