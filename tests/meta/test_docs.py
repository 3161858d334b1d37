"""The README is a short guide, and the links in it and in docs/ lead somewhere."""

from __future__ import annotations

import ast
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

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
    path, such as `refresh/plan.py`) must still be the end of a file's path in the project."""
    files = project_files()
    named = set(NAMED_FILE.findall((ROOT / "docs" / "ARCHITECTURE.md").read_text()))
    missing = sorted(n for n in named if not any(f == n or f.endswith(f"/{n}") for f in files))
    assert len(named) > 50  # the page names the project's modules: the pattern still finds them
    assert not missing, f"docs/ARCHITECTURE.md names files that do not exist: {missing}"


TOP_FOLDERS = {p.name for p in ROOT.iterdir() if p.is_dir() and p.name not in SKIPPED_DIRS}
# `folder/.../name` or `folder/.../` starting at one of the project's own top folders
NAMED_PATH = re.compile(r"`((?:" + "|".join(sorted(map(re.escape, TOP_FOLDERS))) + r")/[\w./-]*)`")
# `module.name`, `package.module.name` or `module.Class.method`: a dotted name with no file extension
DOTTED = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)`")
NOT_NAMES = re.compile(r"\.(?:py|sql|toml|json|yaml|yml|lock|md|html|csv|txt|rst|duckdb|parquet|gz|png|js|css)$")


def module_names() -> dict[str, list[Path]]:
    """Every Python module of the project under each dotted tail of its path (`db`, `warehouse.db`)."""
    by_tail: dict[str, list[Path]] = {}
    for name in project_files():
        if name.endswith(".py"):
            parts = name[:-3].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for start in range(len(parts)):
                by_tail.setdefault(".".join(parts[start:]), []).append(ROOT / name)
    return by_tail


@functools.cache
def parsed(module: Path) -> ast.Module:
    return ast.parse(module.read_text())


def instance_attributes(cls: ast.ClassDef) -> set[str]:
    """The `self.name = ...` of a class's methods."""
    return {
        target.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }


def defines(module: Path, names: list[str]) -> bool:
    """Whether the module defines names[0] at its top level (and names[1] in it, when names[0] is a class)."""

    # A name imported under `if TYPE_CHECKING:` is the module's too (a package that loads it on first use).
    body: list[ast.stmt] = [n for top in parsed(module).body for n in (top.body if isinstance(top, ast.If) else [top])]
    attributes: set[str] = set()
    for depth, name in enumerate(names[:2]):
        found = None
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
                found = node
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found = node
            elif isinstance(node, ast.ImportFrom | ast.Import) and any(
                (alias.asname or alias.name).split(".")[0] == name for alias in node.names
            ):
                found = node
        if found is None:
            return depth == 1 and name in attributes
        if not isinstance(found, ast.ClassDef) or depth == 1:
            return True
        body, attributes = found.body, instance_attributes(found)
    return True


def class_homes(modules: dict[str, list[Path]]) -> dict[str, list[Path]]:
    """Each class of the project's modules, by name: the modules that define one so named."""

    homes: dict[str, list[Path]] = {}
    for module in {m for found in modules.values() for m in found}:
        for node in parsed(module).body:
            if isinstance(node, ast.ClassDef):
                homes.setdefault(node.name, []).append(module)
    return homes


def dotted_references(
    text: str, modules: dict[str, list[Path]], classes: dict[str, list[Path]]
) -> list[tuple[str, str | None]]:
    """(reference, what is wrong) for each `module.name` whose module is the project's own, and each
    `Class.member` whose class is."""
    found: list[tuple[str, str | None]] = []
    for token in set(DOTTED.findall(text)):
        if NOT_NAMES.search(token):
            continue
        parts = token.split(".")
        if parts[0] in sys.stdlib_module_names and parts[0] not in TOP_FOLDERS:
            continue  # `http.server`, `os.link`: the standard library's, even where a module of ours shares a name
        longest = next((n for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in modules), 0)
        if longest == 0 and parts[0] in classes:  # `Class.member`
            ok = any(defines(home, parts) for home in classes[parts[0]])
            found.append((token, None if ok else f"{parts[1]} is not a member of {parts[0]}"))
            continue
        if longest == 0:
            continue  # `duckdb.connect`, `dg.Definitions`: not a module of the project
        if longest == len(parts):
            found.append((token, None))
            continue
        homes = modules[".".join(parts[:longest])]
        ok = any(defines(home, parts[longest:]) for home in homes)
        found.append((token, None if ok else f"{parts[longest]} is not defined in {', '.join(map(str, homes))}"))
    return found


def path_exists(path: str, files: list[str], folders: set[str]) -> bool:
    """A file or folder of the project; `folder/module.name`, a name the module defines; or a path that a run
    makes, which git ignores (`var/prices.duckdb`)."""
    wanted = path.rstrip("/")
    if wanted in files or f"{wanted}/" in folders:
        return True
    module, _, name = wanted.rpartition(".")
    if f"{module}.py" in files and name.isidentifier():
        return defines(ROOT / f"{module}.py", [name])
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", wanted], cwd=ROOT, check=False)
    return ignored.returncode == 0


def test_every_path_and_module_name_the_readme_and_docs_name_exists():
    """A module that moved or a function renamed leaves a page naming it: every `folder/...` path that starts at
    one of the project's top folders, and every `module.name` whose module is the project's own, must exist."""
    files = project_files()
    folders = {f"{parent}/" for f in files for parent in Path(f).parents if parent != Path(".")}
    modules = module_names()
    classes = class_homes(modules)
    missing, checked = [], 0
    for page in PAGES:
        text = page.read_text()
        for path in set(NAMED_PATH.findall(text)):
            checked += 1
            if not path_exists(path, files, folders):
                missing.append(f"{page.name}: `{path}`")
        for token, wrong in dotted_references(text, modules, classes):
            checked += 1
            if wrong:
                missing.append(f"{page.name}: `{token}` ({wrong})")
    assert checked > 150  # the pages name the project's files and functions: the patterns still find them
    assert not missing, "\n".join(sorted(missing))
