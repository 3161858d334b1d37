"""The one error bad pilot input raises (light: the CLI imports it to map it to an exit code)."""

from __future__ import annotations


class PilotInputError(Exception):
    """A pilot or plan input that cannot land: names where (file and row, or the command) and what was wrong."""

    def __init__(self, origin: str, problems: list[str]) -> None:
        self.origin = origin
        self.problems = problems
        super().__init__(f"{origin}: nothing landed: " + "; ".join(problems))
