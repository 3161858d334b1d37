"""Full-size EC2 offer files for the bench: every accelerator family's sizes, then made-up general-purpose
families until the file reaches the size asked for (a real us-west-2 CSV is ~250 MB; the bench writes 420 MB).

`python -m bench.offer_full_size OUT.csv MEGABYTES [SEED]` writes one. Generated files are never committed.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

from bench.offer_files import OfferWriter, TypeSpec
from bench.offer_samples import ACCELERATOR_TYPES

# The other sizes of the accelerator families a real region carries: (family, USD per GPU-hour, gpus by size).
_SINGLE = {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1}
ACCELERATOR_FAMILIES = (
    ("g4dn", Decimal("0.526"), {**_SINGLE, "12xlarge": 4, "metal": 8}),
    ("g5", Decimal("1.006"), {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    ("g6", Decimal("0.805"), {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    ("g6e", Decimal("1.861"), {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    ("gr6", Decimal("1.539"), {"4xlarge": 1, "8xlarge": 1}),
    ("inf1", Decimal("0.228"), {"2xlarge": 1, "6xlarge": 4, "24xlarge": 16}),
    ("inf2", Decimal("0.76"), {"24xlarge": 6, "48xlarge": 12}),
    ("trn1n", Decimal("1.5"), {"32xlarge": 16}),
    ("p4de", Decimal("5.12"), {"24xlarge": 8}),
    ("p5en", Decimal("10.4"), {"48xlarge": 8}),
    ("p6-b200", Decimal("14.2"), {"48xlarge": 8}),
)


def synthetic_types(seed: int) -> Iterator[TypeSpec]:
    """An endless run of types: the accelerator families first, then made-up general-purpose families."""
    rng = random.Random(seed)
    yield from ACCELERATOR_TYPES
    named = {spec.instance_type for spec in ACCELERATOR_TYPES}
    for family, per_gpu, gpus_by_size in ACCELERATOR_FAMILIES:
        for size, gpus in gpus_by_size.items():
            if f"{family}.{size}" not in named:
                price = per_gpu * gpus + Decimal(rng.randint(0, 9_999)) / Decimal(10_000)
                yield TypeSpec(f"{family}.{size}", price, gpu=str(gpus), capacity_block=family.startswith("p"))
    sizes = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
    n = 0
    while True:
        n += 1
        for size in sizes:
            price = Decimal(rng.randint(50, 900_000)) / Decimal(10_000)
            yield TypeSpec(f"x{n}z.{size}", price)


def write_full_size(path: Path, megabytes: int, region: str = "us-west-2", seed: int = 7) -> int:
    """Write types until the file reaches `megabytes`; returns the number of bytes written."""
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = OfferWriter(out, region, seed)
        for spec in synthetic_types(seed):
            if writer.written >= megabytes * 10**6:
                break
            writer.add(spec)
        return writer.written


if __name__ == "__main__":
    size = write_full_size(Path(sys.argv[1]), int(sys.argv[2]), seed=int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    print(f"wrote {size:,} characters to {sys.argv[1]}")
