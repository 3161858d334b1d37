"""SQL quoting for the few values that must be written into a statement's text rather than bound as parameters
(paths in COPY and ATTACH, catalog names, a reader's filter constants that DuckDB can only push into a scan when
they are literals)."""

from __future__ import annotations


def ident(name: str) -> str:
    """A name as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A text as a SQL string literal: DuckDB's standard strings escape only the quote."""
    return "'" + text.replace("'", "''") + "'"
