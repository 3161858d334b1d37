"""One row of an answer refused while the rest lands: the adapters that read API items or price cells one by one
raise RowRefused with why, and the row is named in the batch's `refused` (the refresh reports it and exits 1)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from pipelines.errors import model_problems
from pipelines.gpu.records import GpuOffer


class RowRefused(Exception):
    """One row that cannot land, with why."""


def gpu_offer(**fields: Any) -> GpuOffer:
    """The row's offer; RowRefused naming every field the record refuses (`amount: Input should be greater than 0`)."""
    try:
        return GpuOffer(**fields)
    except ValidationError as exc:
        raise RowRefused(model_problems(exc)) from None


def first_refused(refused: list[str]) -> str:
    """The first refusal, to end a message saying nothing landed; empty when none was refused."""
    return f"; the first refused: {refused[0]}" if refused else ""
