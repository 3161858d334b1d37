"""AWS Neuron instance and UltraServer pages (inf1-arch, inf2-arch, trn1-arch, trn2-arch, trn3-arch).

One ConfigSpec per instance size or UltraServer: chips, total memory, memory bandwidth and compute as printed
(a size per row, or transposed; see pipelines/specs/configs.py). The page's chip comes from the sources file
(`chip`), the doc version from the URL or the page. Since SDK 2.21 the trn1-arch list-table is malformed (a
header cell deleted, the row values kept) and vanishes from the rendered HTML: such a page is refused with
RenderedTableMissing naming its source text (`_sources/<page>.rst.txt`), which the refresh then fetches and
this adapter reads (pipelines/specs/rst_tables.py): a body that is RST source, not HTML, is read as one.
"""

from __future__ import annotations

from pipelines.errors import ParseError
from pipelines.reading.sphinx import doc_version, is_source_text, source_text_paths, url_version
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs import rst_tables
from pipelines.specs.configs import configs_from, configs_of, configurations_in
from pipelines.specs.records import ConfigSpec, SpecBatch

PARSER_VERSION = "neuron_config/1.1"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    if is_source_text(body):
        configs, labels, notes = _from_source_text(body, source, charset)
    else:
        soup = soup_of(body, charset)
        texts = tuple(source_text_paths(str(source.url)))
        version = doc_version(soup, str(source.url))
        configs, labels = configs_of(soup, source.options["chip"], version, source.id, texts)
        notes = []
    return SpecBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        configs=configs,
        shape=shape_fingerprint([labels]),
        warnings=notes,
    )


def _from_source_text(body: bytes, source: SourceSpec, charset: str | None) -> tuple[list[ConfigSpec], str, list[str]]:
    """The configuration tables of the page's RST source; a source whose tables cannot be read, or that has none
    naming a configuration, is refused naming what was wrong."""
    try:
        text = body.decode(charset or "utf-8")
    except (UnicodeDecodeError, LookupError) as exc:
        raise ParseError(source.id, f"RST source {source.url}: not readable text ({exc})") from exc
    try:
        found = rst_tables.tables(text)
    except rst_tables.MalformedTable as exc:
        raise ParseError(source.id, f"RST source {source.url}: {exc}") from exc
    tables = configurations_in(table.rows for table in found)
    if not tables:
        raise ParseError(source.id, f"RST source {source.url}: no table naming a configuration ({len(found)} tables)")
    configs, labels = configs_from(tables, source.options["chip"], url_version(str(source.url)), source.id)
    return configs, labels, [f"RST source {source.url}: {note}" for table in found for note in table.notes]
