"""RunPod and Vast.ai answers recorded from the live APIs by others (tests/recorded/gpu/, provenance in
SOURCES.md), read through the real adapters. Both recorders stripped the envelope the API sends; the
`*.enveloped.json` copies put the unchanged bytes back inside it, and the bare recordings must be refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.gpu.records import GpuBatch, GpuOffer
from pipelines.sources.file import load_sources
from tests.support.paths import RECORDED

D = Decimal
GPU = RECORDED / "gpu"
SOURCES = {s.id: s for s in load_sources()}
RUNPOD, VAST = SOURCES["gpu_runpod"], SOURCES["gpu_vastai"]
RUNPOD_FILE = "runpod_gpu_types_2025-06-21"


def runpod_batch() -> GpuBatch:
    return parser_for("gpu_runpod_graphql")((GPU / f"{RUNPOD_FILE}.enveloped.json").read_bytes(), RUNPOD)


def by_listing(batch: GpuBatch) -> dict[tuple[str, str], GpuOffer]:
    return {(o.listing, o.price_kind.value): o for o in batch.offers}


def test_the_enveloped_file_is_the_recording_inside_the_graphql_envelope() -> None:
    bare = (GPU / f"{RUNPOD_FILE}.json").read_bytes()
    assert (GPU / f"{RUNPOD_FILE}.enveloped.json").read_bytes() == b'{"data":{"gpuTypes":' + bare + b"}}"


@pytest.mark.parametrize(
    ("listing", "kind", "amount", "gpu_name", "memory"),
    [
        ("H100 SXM (secure)", "on_demand", "2.99", "NVIDIA H100 80GB HBM3", "80"),
        ("H100 SXM (community)", "community", "2.69", "NVIDIA H100 80GB HBM3", "80"),
        ("H100 SXM (secure)", "spot", "1.75", "NVIDIA H100 80GB HBM3", "80"),
        ("H200 SXM (secure)", "on_demand", "3.99", "NVIDIA H200", "141"),
        ("RTX 4090 (community)", "community", "0.34", "NVIDIA GeForce RTX 4090", "24"),
        ("A100 PCIe (secure)", "on_demand", "1.64", "NVIDIA A100 80GB PCIe", "80"),
        ("MI300X (secure)", "on_demand", "2.49", "AMD Instinct MI300X OAM", "192"),
        ("B200 (secure)", "on_demand", "6.39", "NVIDIA B200", "180"),
    ],
)
def test_recorded_runpod_prices_land_per_gpu_hour(
    listing: str, kind: str, amount: str, gpu_name: str, memory: str
) -> None:
    offer = by_listing(runpod_batch())[(listing, kind)]
    assert offer.amount == D(amount)
    assert (offer.currency, offer.price_per.value, offer.period.value, offer.gpu_count) == ("USD", "gpu", "hour", 1)
    assert offer.gpu_name == gpu_name
    assert offer.gpu_memory_gb_printed == D(memory)


def test_recorded_runpod_quirks_are_read_as_the_adapter_promises() -> None:
    batch = runpod_batch()
    found = by_listing(batch)
    # communityPrice 0.5 on a type with communityCloud false is a placeholder: no community listing.
    assert ("MI300X (community)", "community") not in found
    assert ("B200 (community)", "community") not in found
    # securePrice 0 means no secure cloud: the community price alone.
    assert ("RTX 3070 (secure)", "on_demand") not in found
    assert found[("RTX 3070 (community)", "community")].amount == D("0.13")
    # H200's spot prices are null: no spot listing.
    assert ("H200 SXM (secure)", "spot") not in found
    # The type the API calls "unknown", every price 0, is said unpriced, not dropped silently.
    assert batch.unpriced == ["unknown"]
    assert len(batch.offers) == 74
    # The recorded query asked for no lowestPrice: stock is unknown everywhere.
    assert {o.stock_status.value for o in batch.offers} == {"unknown"}


def test_the_bare_runpod_recording_is_refused_for_lacking_the_envelope() -> None:
    with pytest.raises(ParseError, match="response is a JSON list, not an object"):
        parser_for("gpu_runpod_graphql")((GPU / f"{RUNPOD_FILE}.json").read_bytes(), RUNPOD)


@pytest.mark.parametrize("stem", ["vastai_search_offers_2025-01", "vastai_search_offers_2024-11"])
def test_the_enveloped_vast_files_are_the_recordings_inside_the_offers_envelope(stem: str) -> None:
    bare = (GPU / f"{stem}.json").read_bytes()
    assert (GPU / f"{stem}.enveloped.json").read_bytes() == b'{"offers":' + bare + b"}"


def test_recorded_vast_offers_2025_fold_into_the_one_rentable_offer() -> None:
    """Four RTX 4090 offers on one machine (1, 2, 4, 6 GPUs); only the 1-GPU one is rentable."""
    batch = parser_for("gpu_vastai")((GPU / "vastai_search_offers_2025-01.enveloped.json").read_bytes(), VAST)
    [offer] = batch.offers
    assert (offer.listing, offer.gpu_name, offer.gpu_count, offer.offer_count) == ("RTX 4090", "RTX 4090", 1, 1)
    assert offer.amount == D("0.401389")  # dph_total 0.40138888888888885, to the micro-dollar
    assert offer.stock_status.value == "in_stock"
    assert (offer.price_per.value, offer.currency) == ("instance", "USD")
    assert offer.gpu_memory_gb_printed == D(24564) / D(1024)  # gpu_ram 24564 MB
    assert offer.gpu_memory_unit == "GiB"


def test_recorded_vast_offers_2024_pick_the_lowest_price_per_gpu() -> None:
    """2 GPUs at 2.6680555555555556 (1.33402... each) beat 1 GPU at 1.3347222222222221."""
    batch = parser_for("gpu_vastai")((GPU / "vastai_search_offers_2024-11.enveloped.json").read_bytes(), VAST)
    [offer] = batch.offers
    assert (offer.listing, offer.gpu_count, offer.offer_count) == ("RTX 3090", 2, 2)
    assert offer.amount == D("2.668056")
    assert offer.gpu_memory_gb_printed == D(24)


@pytest.mark.parametrize("stem", ["vastai_search_offers_2025-01", "vastai_search_offers_2024-11"])
def test_the_bare_vast_recordings_are_refused_for_lacking_the_envelope(stem: str) -> None:
    with pytest.raises(ParseError, match="response has no list at key offers"):
        parser_for("gpu_vastai")((GPU / f"{stem}.json").read_bytes(), VAST)
