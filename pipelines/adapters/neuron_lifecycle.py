"""AWS Neuron's software maintenance policy (about-neuron/sdk-policy): its life-cycle table, which says what each
phase the documentation's status words name means ("Developer Preview (Beta)": not supported, not for production;
"Maintenance": critical fixes only; "End of Support (EOS)": no updates at all).

The table is found by meaning: a table headed "Description" whose first column names at least two life-cycle phases.
From the RST source (its grid table) or the rendered page (its table); neither: refused with a typed error, a
rendered page through RenderedTableMissing naming its source text (`_sources/<page>.rst.txt`), as the status pages.
"""

from __future__ import annotations

import re

from pipelines.errors import ParseError, RenderedTableMissing
from pipelines.neuron_gate.records import GateBatch, LifecyclePhase
from pipelines.reading.sphinx import is_source_text, normalise, source_text_paths, table_rows
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs import rst_tables

PARSER_VERSION = "neuron_lifecycle/1.0"

_PHASE_WORDS = re.compile(
    r"\b(?:beta|preview|release candidate|general availability|stable|maintenance|end of support)\b"
)
_NAMED = re.compile(r"^(?P<phase>[^()]+?)\s*(?:\((?P<also>[^()]+)\))?$")


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GateBatch:
    if is_source_text(body):
        try:
            text = body.decode(charset or "utf-8")
            tables = [t.rows for t in rst_tables.tables(text)]
        except (UnicodeDecodeError, LookupError, rst_tables.MalformedTable) as exc:
            raise ParseError(source.id, f"RST source {source.url}: {exc}") from exc
    else:
        tables = [[[c.text for c in row] for row in table_rows(t)] for t in soup_of(body, charset)("table")]
    phases = next((found for rows in tables if (found := _phases(rows))), [])
    if not phases:
        message = 'no life-cycle table (headed "Description", its first column naming the phases)'
        if is_source_text(body):
            raise ParseError(source.id, f"RST source {source.url}: {message}")
        raise RenderedTableMissing(source.id, message, tuple(source_text_paths(str(source.url))))
    return GateBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        phases=phases,
        shape=shape_fingerprint(["life-cycle phases", *sorted(p.phase.lower() for p in phases)]),
    )


def _phases(rows: list[list[str]]) -> list[LifecyclePhase]:
    """The table's phases, if it is the life-cycle table: else none."""
    header = [normalise(cell).lower() for cell in rows[0]] if rows else []
    if len(header) < 2 or header[1] != "description":
        return []
    body = [[normalise(cell) for cell in row] for row in rows[1:] if row and normalise(row[0])]
    if sum(bool(_PHASE_WORDS.search(row[0].lower())) for row in body) < 2:
        return []
    phases = []
    for row in body:
        named = _NAMED.match(row[0])
        if named is None or len(row) < 2 or not row[1]:
            continue  # a row naming no phase, or saying nothing of it
        applies = row[2] if len(row) > 2 and row[2] else None
        phases.append(
            LifecyclePhase(
                phase=named["phase"], also_called=named["also"], printed=row[0], meaning=row[1], applies=applies
            )
        )
    return phases
