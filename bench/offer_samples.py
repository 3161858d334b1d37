"""The bundled price-list samples (pipelines/samples/aws/pricelist/): which types, at which prices, per region.

`python -m bench.offer_samples` rewrites them. They are samples in the real shape, not recordings: the
Neuron on-demand figures are the product-page samples' (trn1.32xlarge $21.50 in us-east-1, as trn1.html).
"""

from __future__ import annotations

import json
from decimal import Decimal as D
from pathlib import Path
from typing import Any

from bench.offer_files import DISCLAIMER, OfferWriter, TypeSpec

SAMPLES = Path(__file__).resolve().parent.parent / "pipelines" / "samples" / "aws" / "pricelist"
INDEX_STAMP = "20260928184207"
MARK = "ratecard SAMPLE in the real shape of AWS's price list, not a recording. "

ACCELERATOR_TYPES = (
    TypeSpec("trn1.2xlarge", D("1.34"), gpu="1", vcpu="8", capacity_block=True),
    TypeSpec("trn1.32xlarge", D("21.50"), gpu="16", gpu_memory="512 GB", vcpu="128", capacity_block=True),
    TypeSpec("inf1.xlarge", D("0.228"), gpu="1", vcpu="4"),
    TypeSpec("inf2.xlarge", D("0.76"), gpu="1", gpu_memory="32 GB", vcpu="4"),
    TypeSpec("inf2.8xlarge", D("1.97"), gpu="1", vcpu="32"),
    TypeSpec("p4d.24xlarge", D("21.9576"), gpu="8", gpu_memory="320 GB HBM2", vcpu="96", capacity_block=True),
    TypeSpec("p5.48xlarge", D("55.04"), gpu="8", gpu_memory="640 GB HBM3", vcpu="192", capacity_block=True),
    TypeSpec("p5e.48xlarge", D(0), gpu="8", gpu_memory="1128 GB HBM3", vcpu="192", cb_only=True),
    TypeSpec("g5.xlarge", D("1.006"), gpu="1", gpu_memory="24 GB", vcpu="4"),
    TypeSpec("g6.xlarge", D("0.8048"), gpu="1", gpu_memory="22 GB", vcpu="4"),
    TypeSpec("g6f.large", D("0.2012"), gpu="0.125", gpu_memory="3 GB", vcpu="2"),
    # Types the curated catalog never listed: their figures come from the price list's own attributes.
    TypeSpec("g4dn.xlarge", D("0.526"), gpu="1", gpu_memory="16 GB", vcpu="4"),
    TypeSpec("g4dn.12xlarge", D("3.912"), gpu="4", gpu_memory="64 GB", vcpu="48"),
    TypeSpec("g5.12xlarge", D("5.672"), gpu="4", gpu_memory="96 GB", vcpu="48"),
    TypeSpec("g6e.xlarge", D("1.861"), gpu="1", gpu_memory="48 GB", vcpu="4"),
    TypeSpec("gr6.4xlarge", D("1.5392"), gpu="1", gpu_memory="22 GB", vcpu="16"),
    # A Neuron type whose GPU attribute AWS prints as 0: the curated device count (6) is the divisor.
    TypeSpec("inf2.24xlarge", D("6.49"), gpu="0", gpu_memory="192 GB", vcpu="96"),
)
NO_ACCELERATOR = (TypeSpec("m5.large", D("0.096"), vcpu="2"), TypeSpec("c5.xlarge", D("0.17"), vcpu="4"))
REGIONS = {
    "us-east-1": [*ACCELERATOR_TYPES, *NO_ACCELERATOR],
    "us-east-2": [
        TypeSpec("trn1.32xlarge", D("21.50"), gpu="16", gpu_memory="512 GB", vcpu="128", capacity_block=True),
        TypeSpec("trn2.48xlarge", D(0), gpu="16", vcpu="192", cb_only=True),
        TypeSpec("inf2.xlarge", D("0.76"), gpu="1", gpu_memory="32 GB", vcpu="4"),
        TypeSpec("p5.48xlarge", D("55.04"), gpu="8", gpu_memory="640 GB HBM3", vcpu="192", capacity_block=True),
        *NO_ACCELERATOR,
    ],
    "eu-south-2": [TypeSpec("m5.large", D("0.107"), vcpu="2"), TypeSpec("c5.xlarge", D("0.19"), vcpu="4")],
}


# Past versions of the offer, for `ratecard backfill pricelist`: (version id, effective from, effective to,
# published, regions). The last is the current one, whose files are the samples above. Between them
# trn1.32xlarge's on-demand price falls (24.78 -> 21.50, unchanged across the first two versions), p5.48xlarge's
# falls in the second, g6e.xlarge appears in the second and eu-south-2 in the third.
TYPES = {spec.instance_type: spec for spec in ACCELERATOR_TYPES}
TRN1_BEFORE = TypeSpec("trn1.32xlarge", D("24.78"), gpu="16", gpu_memory="512 GB", vcpu="128")
P5_BEFORE = TypeSpec("p5.48xlarge", D("98.32"), gpu="8", gpu_memory="640 GB HBM3", vcpu="192")
FIRST = [TYPES["trn1.2xlarge"], TRN1_BEFORE, TYPES["inf2.xlarge"], P5_BEFORE, TYPES["g5.xlarge"]]
SECOND = [TYPES["trn1.2xlarge"], TRN1_BEFORE, TYPES["inf2.xlarge"], TYPES["p5.48xlarge"], TYPES["g5.xlarge"]]
OHIO_BEFORE = [TRN1_BEFORE, TYPES["inf2.xlarge"]]
PAST_VERSIONS = (
    (
        "20260605120000",
        "2026-06-01T00:00:00Z",
        "2026-08-01T00:00:00Z",
        "2026-06-05T12:00:00Z",
        {"us-east-1": [*FIRST, *NO_ACCELERATOR], "us-east-2": OHIO_BEFORE},
    ),
    (
        "20260803090000",
        "2026-08-01T00:00:00Z",
        "2026-09-01T00:00:00Z",
        "2026-08-03T09:00:00Z",
        {"us-east-1": [*SECOND, TYPES["g6e.xlarge"], *NO_ACCELERATOR], "us-east-2": OHIO_BEFORE},
    ),
)
CURRENT_VERSION = (INDEX_STAMP, "2026-09-01T00:00:00Z", "", "2026-09-28T18:42:07Z", REGIONS)


def region_index(
    stamp: str = INDEX_STAMP, published: str = "2026-09-28T18:42:07Z", regions: dict[str, Any] = REGIONS
) -> dict[str, object]:
    base = f"/offers/v1.0/aws/AmazonEC2/{stamp}"
    return {
        "formatVersion": "v1.0",
        "disclaimer": MARK + "This pricing list is for informational purposes only.",
        "publicationDate": published,
        "regions": {
            code: {"regionCode": code, "currentVersionUrl": f"{base}/{code}/index.json"} for code in sorted(regions)
        },
    }


def version_index() -> dict[str, object]:
    """The shape of /offers/v1.0/aws/AmazonEC2/index.json: keys in no date order, the current end date "" (as AWS)."""
    versions = {
        stamp: {
            "versionEffectiveBeginDate": begins,
            "versionEffectiveEndDate": ends,
            "offerVersionUrl": f"/offers/v1.0/aws/AmazonEC2/{stamp}/index.json",
        }
        for stamp, begins, ends, _, _ in (PAST_VERSIONS[1], CURRENT_VERSION, PAST_VERSIONS[0])
    }
    return {
        "formatVersion": "v1.0",
        "disclaimer": MARK + "This pricing list is for informational purposes only.",
        "publicationDate": CURRENT_VERSION[3],
        "offerCode": "AmazonEC2",
        "currentVersion": INDEX_STAMP,
        "versions": versions,
    }


def write_versions(folder: Path) -> None:
    """versions/index.json, each version's region_index.json, and the past versions' regional files (the current
    version's files are the samples themselves)."""
    root = folder / "versions"
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.json").write_text(json.dumps(version_index(), indent=2) + "\n", encoding="utf-8")
    for stamp, _, _, published, regions in (*PAST_VERSIONS, CURRENT_VERSION):
        (root / stamp).mkdir(exist_ok=True)
        index = region_index(stamp, published, regions)
        (root / stamp / "region_index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
        if stamp == INDEX_STAMP:
            continue
        for seed, (region, types) in enumerate(regions.items(), start=11):
            with open(root / stamp / f"{region}.csv", "w", encoding="utf-8", newline="") as out:
                writer = OfferWriter(
                    out,
                    region,
                    seed=seed,
                    version=stamp,
                    published=published,
                    reserved_decoys=False,
                    disclaimer=MARK + DISCLAIMER,
                )
                for spec in types:
                    writer.add(spec)


def write_samples(folder: Path = SAMPLES) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "region_index.json").write_text(json.dumps(region_index(), indent=2) + "\n", encoding="utf-8")
    for seed, (region, types) in enumerate(REGIONS.items(), start=1):
        with open(folder / f"{region}.csv", "w", encoding="utf-8", newline="") as out:
            writer = OfferWriter(out, region, seed=seed, reserved_decoys=False, disclaimer=MARK + DISCLAIMER)
            for spec in types:
                writer.add(spec)
    write_versions(folder)


if __name__ == "__main__":
    write_samples()
