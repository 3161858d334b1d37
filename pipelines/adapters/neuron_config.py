"""AWS Neuron instance and UltraServer pages (inf1-arch, inf2-arch, trn1-arch, trn2-arch, trn3-arch).

One ConfigSpec per instance size or UltraServer: chips, total memory and compute as printed (a size per row,
or transposed; see pipelines/specs/configs.py). The page's chip comes from the sources file (`chip`), the
doc version from the URL or the page. Since SDK 2.21 the trn1-arch table is malformed and vanishes from the
rendered HTML: that page is refused, naming the cause, and its last good version stays current.
"""

from __future__ import annotations

from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs.configs import configs_of
from pipelines.specs.sphinx import doc_version
from schemas.specs import SpecBatch

PARSER_VERSION = "neuron_config/1.0"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    soup = soup_of(body, charset)
    configs, labels = configs_of(soup, source.options["chip"], doc_version(soup, str(source.url)), source.id)
    return SpecBatch(
        source_id=source.id, parser_version=PARSER_VERSION, configs=configs, shape=shape_fingerprint([labels])
    )
