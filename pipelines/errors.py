"""Typed errors. Each names the source it came from, so a failure message says where and what."""

from __future__ import annotations

import traceback
from typing import Literal

# Why a fetch failed, in a word a caller can compare across sources ("dns" everywhere: no network?).
FetchCause = Literal[
    "dns",  # the host name does not resolve
    "refused",  # nothing listens on the host's port
    "connect",  # any other failure to connect (TLS, unreachable): retried
    "timeout",  # connect or read timeout: retried
    "host-down",  # not tried: the host timed out too often in a row this run (fetch/limits.py)
    "deadline",  # not tried, or cut off: the refresh's deadline passed
    "broken",  # connection reset or closed mid-answer: retried
    "http-429",
    "http-5xx",
    "http-4xx",  # any other 4xx
    "http-other",  # any other status outside 2xx that is not a redirect
    "redirect",  # too many, or to a host not allowed
    "body",  # over the size cap, or an encoding we cannot read
    "paging",  # a page of a paged answer is not one (cut off, not JSON, a link that loops or goes on too long)
    "request",  # the request itself cannot be made: bad URL, host not allowed, protocol
    "not-configured",  # not tried: the source's credential is not set in the environment (headers_from_env)
]


class SourceError(Exception):
    """Base: something about one source went wrong. `stage` says where: fetch, parse, validate, land."""

    stage = "source"

    def __init__(self, source_id: str, message: str):
        self.source_id = source_id
        self.message = message
        super().__init__(f"[{source_id}] {self.stage}: {message}")


class FetchError(SourceError):
    stage = "fetch"

    def __init__(
        self,
        source_id: str,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        cause: FetchCause | None = None,
    ) -> None:
        self.status = status
        self.retryable = retryable
        self.cause = cause  # None where no cause is known
        super().__init__(source_id, message)


class ParseError(SourceError):
    stage = "parse"


class TableNotFoundError(ParseError):
    def __init__(self, source_id: str, wanted: str):
        super().__init__(source_id, f"no table found with {wanted}")


class MissingColumnError(ParseError):
    def __init__(self, source_id: str, missing: list[str], headers: list[str]):
        self.missing = missing
        self.headers = headers
        super().__init__(
            source_id,
            f"required column(s) {', '.join(missing)} missing; the closest table has headers {headers}",
        )


class RenderedTableMissing(ParseError):
    """A rendered page lacks the table its figures live in (Sphinx drops a malformed list-table from the HTML).
    `source_texts` names where the page's source text may be read instead, most likely first; empty when the
    page has none (then this is a plain refusal)."""

    def __init__(self, source_id: str, message: str, source_texts: tuple[str, ...] = ()):
        self.source_texts = source_texts
        super().__init__(source_id, message)


class CellError(ParseError):
    def __init__(self, source_id: str, row_label: str, column: str, detail: str):
        self.column = column
        super().__init__(source_id, f"row {row_label!r}, column {column!r}: {detail}")


def model_problems(exc: object) -> str:
    """A pydantic ValidationError's problems in one line: `amount: Input should be greater than 0; ...`."""
    errors = exc.errors() if hasattr(exc, "errors") else []
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors) or str(exc)


class RecordInvalid(ParseError):
    """A row parsed into a record that its model refuses (pydantic): lands nowhere, like a failed batch."""

    stage = "validate"

    def __init__(self, source_id: str, exc: object):
        errors = exc.errors() if hasattr(exc, "errors") else []
        self.failures = [
            f"[{source_id}] record invalid at {'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}"
            f" (input {e.get('input')!r})"
            for e in errors
        ] or [f"[{source_id}] record invalid: {exc}"]
        super().__init__(source_id, "; ".join(self.failures))


class ParserBug(ParseError):
    """An unexpected exception while parsing or checking a page: a bug in ratecard, not the page's fault. The page
    is quarantined all the same; the exception is this error's cause, and its traceback goes to the details log."""

    def __init__(self, source_id: str, exc: BaseException, during: str = "parser"):
        super().__init__(source_id, f"{during} bug: {type(exc).__name__}: {exc}")
        self.__cause__ = exc  # as `raise ... from exc` chains it

    def traceback_lines(self) -> list[str]:
        cause = self.__cause__
        if cause is None:
            return []
        return "".join(traceback.format_exception(cause)).rstrip().splitlines()


def bug_behind(error: BaseException | None) -> ParserBug | None:
    """The parser bug an error stands for, itself or somewhere along its chain of causes."""
    while error is not None and not isinstance(error, ParserBug):
        error = error.__cause__
    return error


class ValidationFailed(SourceError):
    stage = "validate"

    def __init__(self, source_id: str, failures: list[str]):
        self.failures = failures
        super().__init__(source_id, "batch failed validation: " + "; ".join(failures))


class ReparseRolledBack(SourceError):
    """A reparse would have left the source fewer current rows because fetches that landed before are now
    refused: its rebuild was rolled back, so its rows stay as they were. Its cause is the first refused fetch's
    error."""

    stage = "reparse"

    def __init__(self, source_id: str, message: str, *, fetch_id: int, rows_before: int, rows_after: int):
        self.fetch_id = fetch_id
        self.rows_before = rows_before
        self.rows_after = rows_after
        super().__init__(source_id, message)


class SourcesFileError(Exception):
    """The sources file cannot be used. Names the file, the line (and column) and the field, then the problem."""

    def __init__(
        self, path: str, problem: str, *, line: int | None = None, column: int | None = None, field: str | None = None
    ) -> None:
        self.path = path
        self.problem = problem
        self.line = line
        self.column = column
        self.field = field
        where = ":".join([path, *(str(n) for n in (line, column) if n is not None)])
        super().__init__(f"{where}: {problem}")
