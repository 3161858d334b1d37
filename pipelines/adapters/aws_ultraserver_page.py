"""AWS EC2 product pages that describe UltraServers (Trn3; Trn2's UltraServer table): configuration rows as
spec rows, with no prices, plus the page's vendor claims.

A page describing only UltraServers has no instance-size column: that is a configuration table, read by
meaning (configuration names, chip counts, memory with its unit), never a reason to refuse the page.
"""

from __future__ import annotations

from pipelines.reading.sphinx import title
from pipelines.reading.tables import shape_fingerprint, soup_of
from pipelines.sources.file import SourceSpec
from pipelines.specs.claims import claims_of
from pipelines.specs.configs import configs_of
from pipelines.specs.records import SpecBatch

PARSER_VERSION = "aws_ultraserver_page/1.0"


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> SpecBatch:
    soup = soup_of(body, charset)
    configs, labels = configs_of(soup, source.options["chip"], None, source.id)
    claims = claims_of(soup, str(source.url), title(soup) or None)
    return SpecBatch(
        source_id=source.id,
        parser_version=PARSER_VERSION,
        configs=configs,
        claims=claims,
        shape=shape_fingerprint([labels]),
    )
