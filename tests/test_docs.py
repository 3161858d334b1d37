"""The README is a short guide, and the links in it and in docs/ lead somewhere."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_a_guide_not_a_log():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, len(lines)


def test_every_relative_link_in_the_readme_and_docs_names_a_file_that_exists():
    broken = [
        (page.name, target)
        for page in PAGES
        for target in LINK.findall(page.read_text())
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert not broken, broken


NAMED_FILE = re.compile(r"`([\w./-]+\.(?:py|sql|toml|json|yaml|lock|md|html|csv))`")
SKIPPED_DIRS = {".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".dagster"}


def project_files() -> list[str]:
    """Every file of the project, as a path from the repository's root."""
    files = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]  # never entered: caches change while CI's checks run
        files += [(Path(folder) / name).relative_to(ROOT).as_posix() for name in names]
    return files


def test_every_file_the_architecture_names_exists():
    """A module that moved or went away leaves ARCHITECTURE.md naming it: each `path.py` (or a shorter tail of a
    path, such as `refresh/kinds.py`) must still be the end of a file's path in the project."""
    files = project_files()
    named = set(NAMED_FILE.findall((ROOT / "docs" / "ARCHITECTURE.md").read_text()))
    missing = sorted(n for n in named if not any(f == n or f.endswith(f"/{n}") for f in files))
    assert len(named) > 50  # the page names the project's modules: the pattern still finds them
    assert not missing, f"docs/ARCHITECTURE.md names files that do not exist: {missing}"
