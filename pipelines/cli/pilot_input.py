"""What every `ratecard pilot` command shares: landing an input under the refresh lock and republishing, validation,
and reading a CSV file as the user's input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from pipelines.cli.terminal import quiet_libraries
from pipelines.pilots.errors import PilotInputError
from warehouse.files import WarehouseMissing
from warehouse.target import exists

if TYPE_CHECKING:
    from pipelines.pilots.landing import InputLanded


def canonical(options: dict[str, Any]) -> bytes:
    return json.dumps(options, sort_keys=True, default=str).encode()


def land_input(db: Path, wait: float, land: Any) -> InputLanded:
    """Run `land(con)` under the refresh lock on the working file, then republish the snapshot."""
    from warehouse.db import connect
    from warehouse.lock import exclusive_refresh
    from warehouse.publish import publish_snapshot

    if not exists(db):
        raise WarehouseMissing(db, "does not exist yet")
    with exclusive_refresh(db, wait_s=wait):
        with connect(db, wait_s=wait) as con:
            landed: InputLanded = land(con)
        publish_snapshot(db)  # still under the lock: no refresh can be writing the file being copied
    return landed


def validated(origin: str, records: list[Any]) -> None:
    from pipelines.pilots.suite import validate_pilots

    quiet_libraries()
    report = validate_pilots(records)
    if not report.success:
        raise PilotInputError(origin, report.failures())


def say_repeated(console: Console, landed: InputLanded, what: str) -> bool:
    """Say so when the input was the same as one whose rows are all current (nothing landed)."""
    if landed.repeated:
        console.print(
            f"nothing landed: {what} is the same (SHA-256) as input {landed.input_id}, whose rows are all current"
        )
    return landed.repeated


def read_csv_file(origin: str, file: Path) -> tuple[bytes, str]:
    """The file's bytes (hashed for provenance) and its text; unreadable or not UTF-8 is the user's input error."""
    from pipelines.pilots.records import csv_text

    try:
        content = file.read_bytes()
    except OSError as exc:
        raise PilotInputError(origin, [f"cannot be read: {exc.strerror or exc}"]) from None
    return content, csv_text(origin, content)
