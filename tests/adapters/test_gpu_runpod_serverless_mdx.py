"""RunPod Serverless pricing read from its docs repository's Markdown source (tests/recorded/runpod_serverless_docs/,
provenance in SOURCES.md): the table and the billing terms of the page's own adapter, from the rendered Markdown; a
version whose table is an imported snippet is refused, naming what it did not find."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters.gpu_runpod_serverless_mdx import parse
from pipelines.errors import TableNotFoundError
from pipelines.gpu.records import GpuPriceKind
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

SOURCE = next(s for s in load_sources() if s.id == "gpu_runpod_serverless")
DOCS = RECORDED / "runpod_serverless_docs"


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.iterdir()))
def test_each_version_gives_its_pools_per_second_with_the_billing_terms(name):
    rows = parse((DOCS / name).read_bytes(), SOURCE)
    offers = {(o.listing, o.price_kind): o for o in rows.offers}
    assert len(offers) == 30  # 15 GPUs in 8 pools, flex and active each
    h100 = offers["serverless pool 80 GB (H100 PRO): H100 PRO", GpuPriceKind.SERVERLESS]
    assert (h100.amount, h100.period.value, h100.currency) == (Decimal("0.00116"), "second", "USD")
    assert h100.serverless is not None
    assert (h100.serverless.increment_seconds, h100.serverless.idle_timeout_seconds) == (1, 5)
    active = offers["serverless pool 80 GB (A100): A100", GpuPriceKind.SERVERLESS_ACTIVE]
    assert active.amount == Decimal("0.00060")


def test_a_version_that_imports_its_table_is_refused_by_name():
    body = b"---\ntitle: Pricing\n---\n\nimport GPUTable from '/snippets/serverless-gpu-pricing-table.mdx';\n\n"
    body += b"### Pricing table (per second)\n\n<GPUTable/>\n\nRunpod Serverless is charged by the second.\n"
    with pytest.raises(TableNotFoundError) as err:
        parse(body, SOURCE)
    assert err.value.source_id == "gpu_runpod_serverless"
