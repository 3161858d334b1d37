"""Scenario "price-list landing": AWS price-list regions through the pricelist kind's gate and landing.

Each region is one PriceListBatch the size an accelerator allowlist leaves of a real regional offer file:
N_TYPES instance types x (1 on-demand + 12 reserved offers: 1 or 3 years x 3 purchase options x 2 classes).
Measured in one run, on a fresh warehouse file:
- GE: one region validated alone (validate_pricelist) vs all regions stacked in one run
  (validate_pricelist_many), as the refresh path validates them;
- landing: every region's first landing (one transaction each), the same regions again (nothing changes:
  nothing is written), and one region with every on-demand price changed (closes and opens N_TYPES rows).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from bench.report import Result, fmt_ratio, measure, progress, ratio
from pipelines.pricelist.landing import pricelist_snapshots
from pipelines.pricelist.records import (
    CountBasis,
    OfferingClass,
    PriceListBatch,
    PriceListKind,
    PriceListPrice,
    PurchaseOption,
)
from pipelines.pricelist.suite import validate_pricelist, validate_pricelist_many
from schemas.regions import aws_regions
from warehouse.db import connect
from warehouse.landing import FetchRecord, land_batch

SCENARIO = "price-list landing"
T0 = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Sizes:
    regions: int = 30
    n_types: int = 60
    reps: int = 3


def _price(region: str, n: int, usd: Decimal, **terms: object) -> PriceListPrice:
    return PriceListPrice(
        region_code=region,
        instance_type=f"p5.{n}xlarge",
        hourly_usd=usd,
        accelerator="H100",
        accelerator_count=8,
        accelerator_count_basis=CountBasis.CATALOG,
        offer_version="20260901000000",
        **terms,  # type: ignore[arg-type]
    )


def region_batch(region: str, n_types: int, bump: Decimal = Decimal(0)) -> PriceListBatch:
    prices = []
    for n in range(n_types):
        prices.append(_price(region, n, Decimal(40 + n) + bump, price_kind=PriceListKind.ON_DEMAND))
        for years in (1, 3):
            for option in PurchaseOption:
                hourly = Decimal(0) if option is PurchaseOption.ALL_UPFRONT else Decimal(20 + n)
                upfront = None if option is PurchaseOption.NO_UPFRONT else Decimal(100_000 * years)
                for offering in OfferingClass:
                    terms = {"lease_years": years, "purchase_option": option, "offering_class": offering}
                    prices.append(
                        _price(region, n, hourly, price_kind=PriceListKind.RESERVED, upfront_usd=upfront, **terms)
                    )
    return PriceListBatch(
        source_id="aws_pricelist", parser_version="bench/1", region_code=region, publication_date=T0, prices=prices
    )


def _fetch(region: str, day: int) -> FetchRecord:
    url = f"http://127.0.0.1/offers/{region}/index.csv"
    return FetchRecord("aws_pricelist", url, T0 + timedelta(days=day), sha256=f"{day:064x}")


def run(sizes: Sizes = Sizes()) -> list[Result]:
    codes = [r.region_code for r in aws_regions()][: sizes.regions]
    batches = {code: region_batch(code, sizes.n_types) for code in codes}
    rows = len(batches[codes[0]].prices)
    progress(f"price list: {len(codes)} regions x {rows} prices")
    alone = measure(lambda _: validate_pricelist(batches[codes[0]]), reps=sizes.reps)
    stacked = measure(lambda _: validate_pricelist_many(batches), reps=sizes.reps)
    results = [
        Result(SCENARIO, f"GE one region alone, {rows} prices", alone, rows=rows),
        Result(SCENARIO, f"GE {len(codes)} regions stacked, one run", stacked, rows=rows * len(codes)),
        Result(
            SCENARIO,
            f"RATIO {len(codes)} x alone ÷ stacked",
            value=fmt_ratio(ratio(alone.median * len(codes), stacked.median)),
            note="from the two medians above",
        ),
    ]
    with tempfile.TemporaryDirectory() as folder, connect(Path(folder) / "pricelist.duckdb") as con:
        seen: dict[str, int] = {}

        def land_all(day: int) -> None:
            for code in codes:
                result = land_batch(con, _fetch(code, day), "bench/1", pricelist_snapshots(batches[code]))
                seen["inserted"] = seen.get("inserted", 0) + result.inserted

        first = measure(lambda _: land_all(0), reps=1, warmup=0)
        first_inserted, seen["inserted"] = seen["inserted"], 0
        again = measure(lambda _: land_all(1), reps=sizes.reps)
        changed = region_batch(codes[0], sizes.n_types, Decimal("0.01"))
        one = land_batch(con, _fetch(codes[0], 9), "bench/1", pricelist_snapshots(changed))
        ((history,),) = con.execute("SELECT count(*) FROM aws_pricelist_price_history").fetchall()
    results += [
        Result(
            SCENARIO,
            f"first landing, {len(codes)} regions",
            first,
            rows=rows * len(codes),
            note=f"+{first_inserted:,} rows (prices and offer rows), one transaction a region",
        ),
        Result(
            SCENARIO,
            f"unchanged landing, {len(codes)} regions",
            again,
            rows=rows * len(codes),
            note=f"+{seen['inserted']} rows",
        ),
        Result(
            SCENARIO,
            "one region, every on-demand price changed",
            value=f"+{one.inserted} / -{one.closed}",
            note=f"history {history:,} rows",
        ),
    ]
    return results
