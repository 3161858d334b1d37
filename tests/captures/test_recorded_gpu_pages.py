"""Dated web-archive captures of five GPU clouds' pricing pages (Hyperstack, Lambda, CoreWeave, Nebius, Crusoe), read
through the adapters their sources in pipelines/sources.toml name. Each file in tests/recorded/gpu_pages/ is an
excerpt of a Wayback Machine capture that others committed as a test fixture, kept unchanged; its header comment
names the capture (provenance in tests/recorded/SOURCES.md).

Five are read, their figures asserted: Hyperstack's 2024 table and 2025 card grid, Nebius's 2026 `<div>` grid and
Crusoe's 2025 table and list, tables drawn with `<div>`s read as tables (pipelines/reading/grids.py). The other five
are refused: a per-instance ARIA grid the source declares per GPU, a grid of GPU component prices with no header
left, plain tables with no tab panels, tabs that are GPU counts. Each of those tests pins the exact
refusal: its type, the source it names and what it found missing, so a page is never read by guesswork and a change
to what the adapters accept shows up here. The comments say what each page prints, for whoever teaches an adapter
its shape.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import MissingColumnError, ParseError, TableNotFoundError
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

PAGES = RECORDED / "gpu_pages"
SOURCES = {s.id: s for s in load_sources()}
HTML = "text/html; charset=utf-8"

NO_TABLE = [
    # 2023-09-21 (/gpu-cloud-pricing): a Webflow <div> grid of a-la-carte GPU component prices (HGX H100 $4.76,
    # A100 80GB NVLINK $2.21 per GPU-hour), no node count: not the per-instance table the adapter reads.
    pytest.param(
        "coreweave_20230921194906.html", "gpu_coreweave", "columns meaning model, count, price", id="coreweave-2023"
    ),
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
    # 2024-11-15: an ARIA grid (div role=table/row/cell), found, but priced per instance with the GPU count in the GPU
    # cell (1 x H100 SXM $2.95, 8 x H100 SXM $23.60), which the source declares per GPU: its "On demand" column is not
    # the declared per-GPU-hour price, so nothing is read.
    pytest.param(
        "nebius_20241115043809.html",
        "gpu_nebius",
        ["price"],
        ["GPU", "vRAM, GB", "RAM, GB", "vCPUS", "On demand", "Reserve"],
        id="nebius-2024",
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
    # 2025-07-24: the on-demand card grid drawn with <div>s (GPU Model | ... | Pricing Per Hour), read as a table.
    pytest.param(
        "hyperstack_20250724001416.html",
        "gpu_hyperstack",
        10,
        {"NVIDIA H100 SXM": "2.40", "NVIDIA H100": "1.90", "NVIDIA A100 SXM": "1.60"},
        id="hyperstack-2025",
    ),
    # 2026-07-12: a <div> grid, Item | vCPUs | RAM, GB | Preemptible, GPU-hour | On-demand, GPU-hour; the NVL72
    # racks say "Contact us" (unpriced).
    pytest.param(
        "nebius_20260712235400.html",
        "gpu_nebius",
        7,
        {"NVIDIA HGX H100": "3.85", "NVIDIA HGX H200": "4.50", "NVIDIA HGX B200": "7.15"},
        id="nebius-2026",
    ),
    # 2025-12-15: a Webflow list under <div> headings GPU model | On-demand | Current spot ($3.90/GPU-hr); B200 and
    # GB200 say "Contact sales" (unpriced), the A100 item is cut off by the excerpt.
    pytest.param(
        "crusoe_20251215002446.html",
        "gpu_crusoe",
        2,
        {"NVIDIA H100 80GB HGX": "3.90", "NVIDIA H200 141GB HGX": "4.29"},
        id="crusoe-2025-12",
    ),
]


@pytest.mark.parametrize(("name", "source_id", "count", "prices"), READ)
def test_a_page_in_a_shape_the_adapter_knows_lands_its_figures(
    name: str, source_id: str, count: int, prices: dict[str, str]
) -> None:
    batch = read(name, source_id)
    offers = {o.listing: o for o in batch.offers if o.price_kind.value == "on_demand"}  # type: ignore[attr-defined]
    assert len(offers) == count
    for listing, usd in prices.items():
        offer = offers[listing]
        assert (offer.price_kind.value, offer.amount, offer.currency) == ("on_demand", Decimal(usd), "USD")


# The spot (preemptible) column beside the on-demand one, read as offers of their own: Nebius's "Preemptible,
# GPU-hour" and Crusoe's "Current spot". A cell with no price ("Contact sales") is no spot offer.
SPOT = [
    pytest.param(
        "nebius_20260712235400.html",
        "gpu_nebius",
        {"NVIDIA HGX H100": "2.15", "NVIDIA HGX H200": "2.45", "NVIDIA HGX B200": "3.95", "NVIDIA HGX B300": "4.30"},
        7,
        id="nebius-2026",
    ),
    pytest.param("crusoe_20251215002446.html", "gpu_crusoe", {"NVIDIA H100 80GB HGX": "1.60"}, 1, id="crusoe-2025-12"),
]


@pytest.mark.parametrize(("name", "source_id", "prices", "count"), SPOT)
def test_a_spot_column_lands_as_spot_offers_of_their_own(
    name: str, source_id: str, prices: dict[str, str], count: int
) -> None:
    spot = {o.listing: o for o in read(name, source_id).offers if o.price_kind.value == "spot"}  # type: ignore[attr-defined]
    assert len(spot) == count
    assert {listing: spot[listing].amount for listing in prices} == {k: Decimal(v) for k, v in prices.items()}
    assert {o.stock_status.value for o in spot.values()} == {"unknown"}


def test_every_recorded_page_has_a_case() -> None:
    cases = {str(p.values[0]) for p in [*NO_TABLE, *UNKNOWN_HEADERS, *READ]} | {"lambda_20260109103934.html"}
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


def test_lambdas_2026_page_names_no_price_kind_and_is_refused_saying_so() -> None:
    """lambda.ai/pricing on 2026-01-09: tab panels whose tabs are GPU counts (8x/4x/2x/1x), the plan column's header
    left blank (its cells say data-label="Plan"), NVIDIA H100 SXM $2.99 per GPU-hour; no tab or heading says whether
    the price is on-demand or reserved, so nothing is read as either."""
    with pytest.raises(ParseError) as err:
        read("lambda_20260109103934.html", "gpu_lambda")
    assert str(err.value) == "[gpu_lambda] parse: price tab '8x' is neither on-demand nor reserved"
