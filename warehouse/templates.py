"""Empty warehouse files kept in the user's cache, so a new file is a copy rather than a schema applied again.

Applying every schema file to a new DuckDB file costs about 0.6 s of CPU (DuckDB binds each view and comment);
copying an empty file that already holds them costs a few milliseconds. A template is keyed by everything that
decides its bytes: the schema's hash (warehouse.schema.schema_sha256), the DuckDB version and the file's storage
settings. The copy is trusted only after it opens and reports that schema (warehouse.db.create_file), so a
damaged or foreign template costs one rebuild, never a wrong file.

The cache is `$RATECARD_CACHE_DIR`, else `$XDG_CACHE_HOME/ratecard`, else `~/.cache/ratecard`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import duckdb

CACHE_ENV = "RATECARD_CACHE_DIR"


def cache_dir() -> Path:
    """ratecard's cache folder: rebuildable files only (extensions loaded by path, empty warehouse templates)."""
    if explicit := os.environ.get(CACHE_ENV):
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ratecard"


def template_path(schema_sha256: str, file_config: Mapping[str, object]) -> Path:
    settings = hashlib.sha256(json.dumps(file_config, sort_keys=True).encode()).hexdigest()[:12]
    name = f"empty-{schema_sha256[:24]}-{settings}.duckdb"
    return cache_dir() / "warehouse-templates" / f"v{duckdb.__version__}" / name


def copy_template(template: Path, target: Path) -> bool:
    """Copy the template to `target` (which must not exist yet); False when there is none that can be copied (the
    caller then builds the file, and meets any fault of the target itself there, with its own error)."""
    try:
        shutil.copyfile(template, target)
    except OSError:
        with contextlib.suppress(OSError):
            target.unlink(missing_ok=True)
        return False
    return True


def keep_as_template(built: Path, template: Path) -> None:
    """Keep a closed, checkpointed new file as the template. Best effort: a cache that cannot be written (a
    read-only home, a full disk) only means the next new file applies the schema again."""
    staging = template.with_name(f".{template.name}.{os.getpid()}.tmp")
    try:
        template.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, staging)
        os.replace(staging, template)  # atomic: another process copying it sees the old file or the new
    except OSError:
        with contextlib.suppress(OSError):
            staging.unlink(missing_ok=True)


def forget_template(template: Path) -> None:
    """Drop a template that did not open as the schema it is named for."""
    template.unlink(missing_ok=True)
