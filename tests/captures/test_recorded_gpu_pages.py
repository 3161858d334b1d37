"""Dated web-archive captures of five GPU clouds' pricing pages (Hyperstack, Lambda, CoreWeave, Nebius, Crusoe), read
through the adapters their sources in pipelines/sources.toml name. Each file in tests/recorded/gpu_pages/ is an
excerpt of a Wayback Machine capture that others committed as a test fixture, kept unchanged; its header comment
names the capture (provenance in tests/recorded/SOURCES.md).

Two are read, their figures asserted: Hyperstack's 2024 table and Crusoe's May 2025 table, whose headers the
adapters know. The other eight are refused: each is another shape than the one the adapters read (a `<div>` grid,
an ARIA grid, a plain table with no tab panels, tabs that are GPU counts). Each of those tests pins the exact
refusal: its type, the source it names and what it found missing, so a page is never read by guesswork and a change
to what the adapters accept shows up here. The comments say what each page prints, for whoever teaches an adapter
its shape.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import MissingColumnError, TableNotFoundError
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

PAGES = RECORDED / "gpu_pages"
SOURCES = {s.id: s for s in load_sources()}
HTML = "text/html; charset=utf-8"

NO_TABLE = [
    # 2025-07-24: the on-demand prices sit in a <div> card grid, no <table> and no ARIA roles (H100 SXM $2.40,
    # H100 $1.90, A100 SXM $1.60, A100 $1.35 per hour; reservation and spot cards beside it).
    pytest.param(
        "hyperstack_20250724001416.html", "gpu_hyperstack", "columns meaning gpu, price", id="hyperstack-2025"
    ),
    # 2023-09-21 (/gpu-cloud-pricing): a Webflow <div> grid of a-la-carte GPU component prices (HGX H100 $4.76,
    # A100 80GB NVLINK $2.21 per GPU-hour), no node count: not the per-instance table the adapter reads.
    pytest.param(
        "coreweave_20230921194906.html", "gpu_coreweave", "columns meaning model, count, price", id="coreweave-2023"
    ),
    # 2024-11-15: an ARIA grid (div role=table/row/cell), GPU | ... | On demand | Reserve, priced per instance
    # (1 x H100 SXM $2.95, 8 x H100 SXM $23.60).
    pytest.param("nebius_20241115043809.html", "gpu_nebius", "columns meaning gpu, price", id="nebius-2024"),
    # 2026-07-12: a <div> grid with no roles, Item | ... | Preemptible, GPU-hour | On-demand, GPU-hour
    # (NVIDIA HGX H100 $2.15 / $3.85).
    pytest.param("nebius_20260712235400.html", "gpu_nebius", "columns meaning gpu, price", id="nebius-2026"),
    # 2025-12-15: a Webflow CMS list (role=list/listitem) under <div> headings GPU model | On-demand | Current spot
    # (NVIDIA H100 $3.90/GPU-hr, spot $1.60/GPU-hr).
    pytest.param("crusoe_20251215002446.html", "gpu_crusoe", "columns meaning gpu, price", id="crusoe-2025-12"),
    # 2023-09-09 (lambdalabs.com/service/gpu-cloud): plain tables, no tab panels; prices per instance-hour
    # (8x NVIDIA H100 SXM $20.72 / hr, 1x NVIDIA H100 PCIe $1.99 / hr, 1x NVIDIA A100 $1.10 / hr).
    pytest.param(
        "lambda_20230909194011.html",
        "gpu_lambda",
        "tab panels (role=tabpanel) holding a plan/price table",
        id="lambda-2023",
    ),
    # 2024-11-03: the excerpt starts inside the table's header row (only "PRICE/GPU/HR*" of it is left) and has
    # no tab panels; plans carry their kind ("On-demand 8x NVIDIA H100 SXM" $2.99 / GPU / hr).
    pytest.param(
        "lambda_20241103180910.html",
        "gpu_lambda",
        "tab panels (role=tabpanel) holding a plan/price table",
        id="lambda-2024",
    ),
]

UNKNOWN_HEADERS = [
    # 2026-01-09 (lambda.ai/pricing): tab panels, but the tabs are GPU counts (8x/4x/2x/1x), not price kinds,
    # the plan column's header is empty and plans have no count prefix (NVIDIA H100 SXM $2.99 per GPU-hour).
    pytest.param(
        "lambda_20260109103934.html",
        "gpu_lambda",
        ["plan"],
        ["", "VRAM/GPU", "vCPUs", "RAM", "STORAGE", "PRICE/GPU/HR"],
        id="lambda-2026",
    ),
]


def read(name: str, source_id: str) -> object:
    source = SOURCES[source_id]
    return parser_for(source.adapter)((PAGES / name).read_bytes(), source, HTML)


READ = [
    # 2024-08-22: the <table> the adapter reads, its on-demand column headed "Pricing Per Hour" beside "Reservation
    # Pricing"; USD per GPU-hour.
    pytest.param(
        "hyperstack_20240822101707.html",
        "gpu_hyperstack",
        9,
        {"NVIDIA H100 SXM 80GB": "3.75", "NVIDIA H100 PCIe 80GB": "3.44", "NVIDIA A100 PCIe 80GB": "2.20"},
        id="hyperstack-2024",
    ),
    # 2025-05-21: a <table> whose GPU column is headed "GPU Pricing"; on-demand per GPU-hour (the A40 row has no
    # on-demand price: unpriced).
    pytest.param(
        "crusoe_20250521220413.html",
        "gpu_crusoe",
        7,
        {"NVIDIA H100 80GB SXM": "3.90", "NVIDIA A100 80GB SXM": "1.95", "NVIDIA A100 40GB PCIe": "1.45"},
        id="crusoe-2025-05",
    ),
]


@pytest.mark.parametrize(("name", "source_id", "count", "prices"), READ)
def test_a_page_in_a_shape_the_adapter_knows_lands_its_figures(
    name: str, source_id: str, count: int, prices: dict[str, str]
) -> None:
    batch = read(name, source_id)
    offers = {o.listing: o for o in batch.offers}  # type: ignore[attr-defined]
    assert len(offers) == count
    for listing, usd in prices.items():
        offer = offers[listing]
        assert (offer.price_kind.value, offer.amount, offer.currency) == ("on_demand", Decimal(usd), "USD")


def test_every_recorded_page_has_a_case() -> None:
    cases = {str(p.values[0]) for p in [*NO_TABLE, *UNKNOWN_HEADERS, *READ]}
    assert {p.name for p in PAGES.iterdir()} == cases


@pytest.mark.parametrize(("name", "source_id", "wanted"), NO_TABLE)
def test_a_page_without_a_price_table_is_refused_by_name(name: str, source_id: str, wanted: str) -> None:
    with pytest.raises(TableNotFoundError) as err:
        read(name, source_id)
    assert err.value.source_id == source_id
    assert str(err.value) == f"[{source_id}] parse: no table found with {wanted}"


@pytest.mark.parametrize(("name", "source_id", "missing", "headers"), UNKNOWN_HEADERS)
def test_a_table_with_headers_the_source_does_not_know_is_refused_naming_the_column(
    name: str, source_id: str, missing: list[str], headers: list[str]
) -> None:
    with pytest.raises(MissingColumnError) as err:
        read(name, source_id)
    assert err.value.source_id == source_id
    assert (err.value.missing, err.value.headers) == (missing, headers)
    assert str(err.value).startswith(f"[{source_id}] parse: required column(s) {', '.join(missing)} missing")
