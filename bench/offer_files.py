"""Seeded, streaming writer of EC2 offer files (CSV variant) in the real shape, for samples and the bench.

Rows are written one at a time (never a whole file in memory): 5 metadata lines, the header, then one row
per price dimension, non-empty fields quoted and empty ones bare, as AWS writes them. Every type gets the
decoys a parser must drop (other operating systems, Dedicated and Host tenancy, BYOL at the Linux price, SQL
pre-installed, capacity-reservation rows, Capacity Block OS-fee rows) beside the one Linux/Shared/Used row,
and reserved offers (1/3 years x No/Partial/All Upfront x standard/convertible).
`bench/offer_full_size.py` uses it for full-size files.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TextIO

from bench.offer_header import HEADER

PUBLICATION = "2026-09-28T18:42:07Z"
VERSION = "20260928184207"
DISCLAIMER = (
    "This pricing list is for informational purposes only. All prices are subject to the additional terms included in "
    "the pricing pages on http://aws.amazon.com. All Free Tier prices are also subject to the terms included at "
    "https://aws.amazon.com/free/"
)
ONDEMAND_TERM = "JRTCKXETXF"
HOURLY_RATE, UPFRONT_RATE = "6YS6EN2CT7", "2TG2D8R56U"
TEN_DP = Decimal("1e-10")
PREFIX = {"us-east-1": "", "us-east-2": "USE2-", "us-west-2": "USW2-", "eu-south-2": "EUS2-"}
LOCATION = {
    "us-east-1": "US East (N. Virginia)",
    "us-east-2": "US East (Ohio)",
    "us-west-2": "US West (Oregon)",
    "eu-south-2": "Europe (Spain)",
}


@dataclass(frozen=True)
class TypeSpec:
    instance_type: str
    price: Decimal  # Linux on-demand USD per hour (ignored when cb_only)
    gpu: str = ""  # the price list's `gpu` attribute as printed; "" for none
    gpu_memory: str = "NA"
    capacity_block: bool = False  # also sold as Capacity Blocks (OS-fee rows)
    cb_only: bool = False  # only Capacity Block rows exist
    vcpu: str = "8"
    extra: dict[str, str] = field(default_factory=dict)


# (operating system, tenancy, capacity status, licence, pre-installed software, price offset, reserved?)
VARIANTS = (
    ("Linux", "Shared", "Used", "No License required", "NA", "0", True),  # the one kept
    ("Linux", "Dedicated", "Used", "No License required", "NA", "0.10", True),
    ("Linux", "Host", "AllocatedHost", "No License required", "NA", "zero", False),
    ("Linux", "Host", "Used", "No License required", "NA", "0", False),
    ("Red Hat Enterprise Linux", "Shared", "Used", "No License required", "NA", "0.13", True),
    ("SUSE", "Shared", "Used", "No License required", "NA", "0.10", True),
    ("Windows", "Shared", "Used", "No License required", "NA", "0.92", True),
    ("Windows", "Shared", "Used", "Bring your own license", "NA", "0", True),  # BYOL at the Linux price
    ("Linux", "Shared", "Used", "No License required", "SQL Std", "2.40", True),
    ("Linux", "Shared", "AllocatedCapacityReservation", "No License required", "NA", "zero", False),
    ("Linux", "Shared", "UnusedCapacityReservation", "No License required", "NA", "0", False),
    ("Ubuntu Pro", "Shared", "Used", "No License required", "NA", "0.035", True),
)
# Reserved discounts per (years, class): (no upfront hourly, partial hourly, partial upfront share, all upfront share).
DISCOUNT = {
    (1, "standard"): ("0.70", "0.34", "0.33", "0.64"),
    (1, "convertible"): ("0.78", "0.38", "0.37", "0.73"),
    (3, "standard"): ("0.45", "0.22", "0.21", "0.41"),
    (3, "convertible"): ("0.55", "0.27", "0.26", "0.51"),
}


def _q(value: Decimal) -> str:
    return f"{value.quantize(TEN_DP, rounding=ROUND_HALF_UP):f}"


def _line(values: dict[str, str]) -> str:
    cells = (values.get(name, "") for name in HEADER)
    return ",".join('"' + v.replace('"', '""') + '"' if v else "" for v in cells) + "\n"


class OfferWriter:
    """Writes one region's file; `add` appends every row of one instance type."""

    def __init__(
        self,
        out: TextIO,
        region: str,
        seed: int = 7,
        version: str = VERSION,
        published: str = PUBLICATION,
        reserved_decoys: bool = True,
        disclaimer: str = DISCLAIMER,
    ):
        self.out, self.region, self.rng = out, region, random.Random(seed)
        # Small samples give reserved offers only to the kept variant and two decoys (Dedicated, BYOL).
        self.reserved_variants = {i for i, v in enumerate(VARIANTS) if v[-1]} if reserved_decoys else {0, 1, 7}
        self.term_codes = {key: self._code(10) for key in _term_keys()}
        self.written = 0
        meta = (
            ("FormatVersion", "v1.0"),
            ("Disclaimer", disclaimer),
            ("Publication Date", published),
            ("Version", version),
            ("OfferCode", "AmazonEC2"),
        )
        for key, value in meta:
            self._emit(f'"{key}","{value}"\n')
        self._emit(",".join(f'"{name}"' for name in HEADER) + "\n")

    def _emit(self, text: str) -> None:
        self.out.write(text)
        self.written += len(text)

    def _code(self, n: int) -> str:
        return "".join(self.rng.choice("ABCDEFGHJKMNPQRSTUVWXYZ23456789") for _ in range(n))

    def add(self, spec: TypeSpec) -> None:
        variants = [] if spec.cb_only else VARIANTS
        for i, (os_, tenancy, status, licence, sw, offset, _) in enumerate(variants):
            price = Decimal(0) if offset == "zero" else spec.price + Decimal(offset)
            product = self._product(spec, os_, tenancy, status, licence, sw, "OnDemand", "")
            for row in self._on_demand(product, price, os_):
                self._emit(_line(row))
            if i in self.reserved_variants:
                for row in self._reserved(product, price):
                    self._emit(_line(row))
        if spec.capacity_block or spec.cb_only:
            for os_, fee, op in (("Linux", "0", "RunInstances:CB"), ("Ubuntu Pro", "0.336", "RunInstances:0g00:CB")):
                product = self._product(spec, os_, "Shared", "Used", "No License required", "NA", "CapacityBlock", op)
                for row in self._on_demand(product, Decimal(fee), os_, capacity_block=True):
                    self._emit(_line(row))

    def _product(
        self, spec: TypeSpec, os_: str, tenancy: str, status: str, licence: str, sw: str, market: str, operation: str
    ) -> dict[str, str]:
        family = spec.instance_type.split(".")[0]
        return {
            "SKU": self._code(16),
            "Product Family": "Compute Instance",
            "serviceCode": "AmazonEC2",
            "Location": LOCATION.get(self.region, self.region),
            "Location Type": "AWS Region",
            "Instance Type": spec.instance_type,
            "Current Generation": "Yes",
            "Instance Family": "Machine Learning ASIC Instances"
            if family[:3] in ("trn", "inf")
            else ("GPU instance" if spec.gpu else "General purpose"),
            "vCPU": spec.vcpu,
            "Memory": "32 GiB",
            "Storage": "EBS only",
            "Network Performance": "Up to 25 Gigabit",
            "Processor Architecture": "64-bit",
            "Tenancy": tenancy,
            "Operating System": os_,
            "License Model": licence,
            "usageType": f"{PREFIX.get(self.region, 'XXX-')}{'HostBoxUsage' if tenancy == 'Host' else 'BoxUsage'}:"
            f"{spec.instance_type}",
            "operation": operation or ("RunInstances" if os_ == "Linux" else "RunInstances:0010"),
            "AvailabilityZone": "NA",
            "CapacityStatus": status,
            "ClassicNetworkingSupport": "false",
            "Enhanced Networking Supported": "Yes",
            "GPU": spec.gpu,
            "GPU Memory": spec.gpu_memory,
            "Intel AVX Available": "Yes",
            "MarketOption": market,
            "Normalization Size Factor": "64",
            "Physical Processor": "Intel Xeon Platinum 8375C",
            "Pre Installed S/W": sw,
            "Region Code": self.region,
            "serviceName": "Amazon Elastic Compute Cloud",
            "VPCNetworkingSupport": "true",
            **spec.extra,
        }

    def _dimension(self, product: dict[str, str], term: str, rate: str, **values: str) -> dict[str, str]:
        return {
            **product,
            "OfferTermCode": term,
            "RateCode": f"{product['SKU']}.{term}.{rate}",
            "EffectiveDate": "2026-09-01",
            "Currency": "USD",
            **values,
        }

    def _on_demand(
        self, product: dict[str, str], price: Decimal, os_: str, capacity_block: bool = False
    ) -> Iterator[dict[str, str]]:
        what = "per Capacity Block" if capacity_block else "per On Demand"
        yield self._dimension(
            product,
            ONDEMAND_TERM,
            HOURLY_RATE,
            TermType="OnDemand",
            Unit="Hrs",
            PricePerUnit=_q(price),
            PriceDescription=f"${price.normalize():f} {what} {os_} {product['Instance Type']} Instance Hour",
            StartingRange="0",
            EndingRange="Inf",
        )

    def _reserved(self, product: dict[str, str], price: Decimal) -> Iterator[dict[str, str]]:
        for (years, klass, option), term in self.term_codes.items():
            no_up, part_hr, part_up, all_up = (Decimal(x) for x in DISCOUNT[(years, klass)])
            hours = Decimal(years * 8760)
            hourly, upfront = {
                "No Upfront": (price * no_up, None),
                "Partial Upfront": (price * part_hr, (price * part_up * hours).to_integral_value()),
                "All Upfront": (Decimal(0), (price * all_up * hours).to_integral_value()),
            }[option]
            terms = {
                "TermType": "Reserved",
                "LeaseContractLength": f"{years}yr",
                "PurchaseOption": option,
                "OfferingClass": klass,
            }
            if upfront is not None:
                yield self._dimension(
                    product,
                    term,
                    UPFRONT_RATE,
                    Unit="Quantity",
                    PricePerUnit=str(upfront),
                    PriceDescription="Upfront Fee",
                    **terms,
                )
            yield self._dimension(
                product,
                term,
                HOURLY_RATE,
                Unit="Hrs",
                PricePerUnit=_q(hourly),
                PriceDescription=f"{product['Operating System']} ({product['Instance Type']}), "
                f"{option} reserved instance applied",
                StartingRange="0",
                EndingRange="Inf",
                **terms,
            )


def _term_keys() -> list[tuple[int, str, str]]:
    return [
        (y, c, o)
        for y in (1, 3)
        for c in ("standard", "convertible")
        for o in ("No Upfront", "Partial Upfront", "All Upfront")
    ]
