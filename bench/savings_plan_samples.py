"""The bundled Savings Plans samples (pipelines/samples/aws/savingsplan/): the region index and two rate files.

`python -m bench.savings_plan_samples` rewrites them. They are samples in the real shape (the unquoted CSV of
jtdelia/ec2-priceit@ae128cc:examples/5-ap-east-2-savingsplan-pricing.csv and the array-shaped region index of
examples/4-currentSavingsPlanIndexUrl-list.json), not recordings: the rates are made-up discounts of the on-demand
samples. Each kept rate comes with the decoys a reader must drop: Windows and RHEL operations, Dedicated and
Host tenancy, unused reservations, Lambda and Fargate usage of Compute plans, and a family outside the allowlist.
"""

from __future__ import annotations

import json
import random
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from bench.offer_files import DISCLAIMER, LOCATION, PREFIX, TypeSpec
from bench.offer_samples import MARK, REGIONS

SAMPLES = Path(__file__).resolve().parent.parent / "pipelines" / "samples" / "aws" / "savingsplan"
STAMP = "20260928170000"
PUBLISHED = "2026-09-28T17:00:00Z"
HEADER = (
    "SKU,RateCode,Unit,EffectiveDate,DiscountedRate,Currency,DiscountedSKU,DiscountedServiceCode,DiscountedUsageType,"
    "DiscountedOperation,PurchaseOption,LeaseContractLength,LeaseContractLengthUnit,ServiceCode,UsageType,Operation,"
    "Description,Instance Family,Location,Location Type,Granularity,Product Family,DiscountedRegionCode,"
    "DiscountedInstanceType"
)
# Share of the on-demand rate per (plan, years, purchase option): Compute plans discount less than EC2 Instance ones.
SHARE = {
    ("ComputeSavingsPlans", 1, "No Upfront"): "0.80",
    ("ComputeSavingsPlans", 1, "Partial Upfront"): "0.78",
    ("ComputeSavingsPlans", 1, "All Upfront"): "0.76",
    ("ComputeSavingsPlans", 3, "No Upfront"): "0.60",
    ("ComputeSavingsPlans", 3, "Partial Upfront"): "0.57",
    ("ComputeSavingsPlans", 3, "All Upfront"): "0.54",
    ("EC2InstanceSavingsPlans", 1, "No Upfront"): "0.70",
    ("EC2InstanceSavingsPlans", 1, "Partial Upfront"): "0.67",
    ("EC2InstanceSavingsPlans", 1, "All Upfront"): "0.65",
    ("EC2InstanceSavingsPlans", 3, "No Upfront"): "0.48",
    ("EC2InstanceSavingsPlans", 3, "Partial Upfront"): "0.45",
    ("EC2InstanceSavingsPlans", 3, "All Upfront"): "0.42",
}
# (usage type prefix, operation) of the decoys written beside each kept Linux BoxUsage rate.
DECOYS = (
    ("BoxUsage", "RunInstances:0002"),
    ("BoxUsage", "RunInstances:0010"),
    ("DedicatedUsage", "RunInstances"),
    ("UnusedBox", "RunInstances"),
)
OUTSIDE = TypeSpec("r7g.xlarge", Decimal("0.2142"), vcpu="4")  # a family outside the allowlist


def rate_text(value: Decimal) -> str:
    """As AWS prints a rate: at most 4 decimals, trailing zeros dropped ("2.254", "0.12")."""
    text = format(value.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


class RateWriter:
    def __init__(self, region: str, seed: int):
        self.region, self.rng = region, random.Random(seed)
        self.plan_skus = {key: self._code() for key in SHARE}
        self.lines = [
            "FormatVersion,v1.0",
            f"Disclaimer,{MARK}{DISCLAIMER}",
            f"Publication Date,{PUBLISHED}",
            f"Version,{STAMP}",
            "OfferCode,AmazonComputeSavingsPlan",
            HEADER,
        ]

    def _code(self) -> str:
        return "".join(self.rng.choice("ABCDEFGHJKMNPQRSTUVWXYZ23456789") for _ in range(16))

    def add(self, spec: TypeSpec) -> None:
        for (family, years, option), share in SHARE.items():
            rate = spec.price * Decimal(share)
            self._row(spec.instance_type, family, years, option, rate, "BoxUsage", "RunInstances")
            for usage, operation in DECOYS:
                self._row(spec.instance_type, family, years, option, rate * Decimal("1.3"), usage, operation)
            if family == "ComputeSavingsPlans" and years == 1 and option == "No Upfront":
                self._serverless(family, years, option)

    def _row(
        self,
        instance_type: str,
        family: str,
        years: int,
        option: str,
        rate: Decimal,
        usage: str,
        op: str,
        service: str = "AmazonEC2",
    ) -> None:
        plan_sku, discounted = self.plan_skus[(family, years, option)], self._code()
        short = option.replace(" ", "")
        family_name = instance_type.split(".", maxsplit=1)[0]
        if family == "ComputeSavingsPlans":
            plan_usage, description, plan_family = (
                f"ComputeSP:{years}yr{short}",
                f"{years} year {option} Compute Savings Plan",
                "",
            )
        else:
            plan_usage = f"{PREFIX[self.region]}EC2SP:{family_name}.{years}yr{short}"
            description = f"{years} year {option} {family_name} EC2 Instance Savings Plan in {self.region}"
            plan_family = family_name
        cells = [
            plan_sku,
            f"{plan_sku}.{discounted}",
            "Hrs",
            "2026-09-01T00:00:00Z",
            rate_text(rate),
            "USD",
            discounted,
            service,
            f"{PREFIX[self.region]}{usage}:{instance_type}",
            op,
            option,
            str(years),
            "year",
            "ComputeSavingsPlans",
            plan_usage,
            "",
            description,
            plan_family,
            LOCATION[self.region],
            "AWS Region",
            "hourly",
            family,
            self.region,
            instance_type,
        ]
        self.lines.append(",".join(cells))

    def _serverless(self, family: str, years: int, option: str) -> None:
        """Compute plans also discount Lambda and Fargate: no EC2 instance type, never kept."""
        plan_sku = self.plan_skus[(family, years, option)]
        for service, usage in (("AWSLambda", "Lambda-GB-Second"), ("AmazonECS", "Fargate-vCPU-Hours:perCPU")):
            discounted = self._code()
            self.lines.append(
                ",".join(
                    [
                        plan_sku,
                        f"{plan_sku}.{discounted}",
                        "Hrs",
                        "2026-09-01T00:00:00Z",
                        "0.0000133",
                        "USD",
                        discounted,
                        service,
                        f"{PREFIX[self.region]}{usage}",
                        "",
                        option,
                        str(years),
                        "year",
                        "ComputeSavingsPlans",
                        f"ComputeSP:{years}yr{option.replace(' ', '')}",
                        "",
                        f"{years} year {option} Compute Savings Plan",
                        "",
                        LOCATION[self.region],
                        "AWS Region",
                        "hourly",
                        family,
                        self.region,
                        "",
                    ]
                )
            )


def region_index() -> dict[str, object]:
    base = f"/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/{STAMP}"
    return {
        "disclaimer": MARK + "This pricing list is for informational purposes only.",
        "publicationDate": PUBLISHED,
        "regions": [
            {"regionCode": code, "versionUrl": f"{base}/{code}/index.json"} for code in ("us-east-2", "us-east-1")
        ],
    }


def write_samples(folder: Path = SAMPLES) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "region_index.json").write_text(json.dumps(region_index(), indent=2) + "\n", encoding="utf-8")
    for seed, region in enumerate(("us-east-1", "us-east-2"), start=21):
        writer = RateWriter(region, seed)
        for spec in REGIONS[region]:
            if spec.gpu and spec.price > 0 and spec.gpu != "0.125":  # the accelerator types sold on demand
                writer.add(spec)
        writer.add(OUTSIDE)
        (folder / f"{region}.csv").write_text("\n".join(writer.lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_samples()
