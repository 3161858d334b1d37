"""A scraper's JSON of the EC2 Capacity Blocks pricing page: the shape koyakimu/ec2-capacity-blocks-for-ml-pricing-json
commits (`data/pricing.json`), read as a capture of the page, never as a source of its own.

`{"metadata": {"last_updated": "...", "source_url": "https://aws.amazon.com/ec2/capacityblocks/pricing/"},
"instance_types": {"trn2.48xlarge": {"accelerator_type": "Trainium2", "accelerator_count": 16, "pricing":
[{"region": "US East (Ohio)", "region_code": "us-east-2", "hourly_rate_usd": 35.7608,
"accelerator_hourly_rate_usd": 2.235}]}}}`: per instance type, the page's rows, USD per instance-hour and the
accelerator rate as the page printed it. Numbers are read exactly as written (Decimal).

Found by meaning: the mapping of names whose entries carry a `pricing` list of hourly rates. An UltraServer
("u-p6e-gb200x72", no instance size) is not an instance type: reported in the warnings, not read. The file names
each type's accelerator and count, nothing more: its specification states no accelerator memory, vCPUs or host
memory (NULL, not stated).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pipelines.aws.records import InstancePrice, InstanceSpec, PriceKind, SourceBatch
from pipelines.errors import ParseError
from pipelines.reading.json_body import json_number, load_json
from pipelines.reading.tables import shape_fingerprint
from pipelines.sources.file import SourceSpec

PARSER_VERSION = "aws_capacity_blocks_json/1.0"

RATE = "hourly_rate_usd"
ACCELERATOR_RATE = "accelerator_hourly_rate_usd"


def parse(body: bytes, source: SourceSpec) -> SourceBatch:
    sid = source.id
    document = load_json(body, sid)
    types = _instance_types(document, sid)
    specs: list[InstanceSpec] = []
    prices: list[InstancePrice] = []
    warnings: list[str] = []
    for name, entry in types.items():
        if "." not in name:
            warnings.append(f"{name!r} is an UltraServer, not an instance type: not read")
            continue
        count = entry.get("accelerator_count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ParseError(sid, f"instance_types.{name}.accelerator_count is {count!r}, not a count")
        accelerator = entry.get("accelerator_type")
        if not isinstance(accelerator, str) or not accelerator.strip():
            raise ParseError(sid, f"instance_types.{name}.accelerator_type is {accelerator!r}, not a name")
        specs.append(InstanceSpec(instance_type=name, accelerator=accelerator.strip(), accelerator_count=count))
        for index, row in enumerate(entry["pricing"]):
            where = f"instance_types.{name}.pricing[{index}]"
            if not isinstance(row, dict):
                raise ParseError(sid, f"{where} is not an object")
            rate, printed = _rate(row.get(RATE)), _rate(row.get(ACCELERATOR_RATE))
            if rate is None or (printed is None and row.get(ACCELERATOR_RATE) is not None):
                # One bad row is refused alone, by name: the capture's other rows still land.
                warnings.append(
                    f"{where}: rate {row.get(RATE)!r} ({row.get(ACCELERATOR_RATE)!r}) is no price: not read"
                )
                continue
            prices.append(
                InstancePrice(
                    instance_type=name,
                    price_kind=PriceKind.CAPACITY_BLOCK,
                    usd_per_instance_hour=rate,
                    accelerator_count=count,
                    region=_region(row.get("region"), where, sid),
                    printed_usd_per_accelerator_hour=printed,
                )
            )
    if not prices:
        raise ParseError(sid, "instance_types names no instance type with a price")
    return SourceBatch(
        source_id=sid,
        parser_version=PARSER_VERSION,
        specs=specs,
        prices=prices,
        shape=shape_fingerprint(["capacity blocks json", "instance_types", "pricing", RATE, ACCELERATOR_RATE]),
        warnings=warnings,
    )


def _instance_types(document: Any, sid: str) -> dict[str, dict[str, Any]]:
    """The mapping whose entries carry a `pricing` list: `instance_types` in every version seen."""
    if not isinstance(document, dict):
        raise ParseError(sid, f"the capture is a JSON {type(document).__name__}, not an object")
    for value in document.values():
        if (
            isinstance(value, dict)
            and value
            and all(isinstance(entry, dict) and isinstance(entry.get("pricing"), list) for entry in value.values())
        ):
            return {str(name): entry for name, entry in value.items()}
    raise ParseError(sid, "no mapping of instance types with a 'pricing' list (instance_types) in the capture")


def _rate(value: Any) -> Decimal | None:
    """A positive JSON number, exactly as written; anything else is no price."""
    amount = json_number(value)
    return amount if amount is not None and amount > 0 else None


def _region(value: Any, where: str, sid: str) -> str | None:
    """The region as printed; none printed: not stated (NULL), never guessed from the code beside it."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParseError(sid, f"{where}.region is {value!r}, not a name")
    return value.strip() or None
