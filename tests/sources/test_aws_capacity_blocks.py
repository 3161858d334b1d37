"""Amazon EC2 Capacity Blocks for ML pricing: the checks every source gets, and the exact records
its sample yields (tests/support/aws_pages.py's EXPECTED)."""

import json

import pytest

from pipelines.aws.records import PriceKind
from pipelines.errors import ParseError
from tests.support.aws_pages import D, check_records, parse, price_of
from tests.support.source_kit import SourceChecks


class TestAwsCapacityBlocks(SourceChecks):
    source_id = "aws_capacity_blocks"

    def test_the_sample_yields_exactly_these_records(self) -> None:
        check_records(self.source_id)


def test_capacity_block_trn2() -> None:
    batch = parse("aws_capacity_blocks")
    price = price_of(batch, "trn2.48xlarge", PriceKind.CAPACITY_BLOCK, "US East (Ohio)")
    assert price.usd_per_instance_hour == D("35.7608")
    assert price.accelerator_count == 16
    assert price.usd_per_accelerator_hour == D("2.23505")
    assert str(price.usd_per_accelerator_hour_4dp) == "2.2351"
    assert str(price.printed_usd_per_accelerator_hour) == "2.235"
    assert price.region_stated is True


def test_capacity_blocks_page_yields_only_capacity_block_prices_with_regions() -> None:
    prices = parse("aws_capacity_blocks").prices
    assert len(prices) == 4
    assert {p.price_kind for p in prices} == {PriceKind.CAPACITY_BLOCK}
    assert all(p.region_stated and p.region for p in prices)


# The live page's shape (pipelines.reading.embedded_tables): one embedded JSON table per family, the two rates in one
# cell, the UltraServer table beside them. Written here in that shape; its figures are the sample's.
def embedded_page(*tables: tuple[str, list[str], list[tuple[str, str, str, str]]]) -> bytes:
    blocks = []
    for heading, headers, rows in tables:
        groups = {label: f"row{i}" for i, label in enumerate(dict.fromkeys(r[0] for r in rows))}
        data = [
            {
                "id": n,
                "idProperty": groups[r[0]],
                "2": f"<p>{r[1]}</p>",
                "3": f"<p>{r[2]}<br /></p>",
                "4": f"<p>{r[3]}</p>",
            }
            for n, r in enumerate(rows)
        ]
        fields = {
            "itemHeading": heading,
            "itemTableColumns": json.dumps([{"Heading": h, "accessor": str(i)} for i, h in enumerate(headers, 1)]),
            "itemTableRowGroups": json.dumps(
                [{"id": g, "idProperty": "idProperty", "label": k} for k, g in groups.items()]
            ),
            "itemTableData": json.dumps(data),
        }
        blocks.append(
            f'<script type="application/json">{json.dumps({"data": {"items": [{"fields": fields}]}})}</script>'
        )
    return f"<html><body><h1>Amazon EC2 Capacity Blocks for ML pricing</h1>{''.join(blocks)}</body></html>".encode()


INSTANCE_HEADERS = ["Instance Type", "Region", "Effective Hourly Rate", "ACCELERATOR"]
ULTRASERVERS = (
    "P6e Pricing",
    ["UltraServer Type", "Region", "Effective Hourly Rate", "ACCELERATOR"],
    [("u-p6e-gb200x72", "US East (Dallas) Local Zone", "$761.904 ($10.582 USD)", "72 x B200")],
)
TRN2 = (
    "Trn2 Pricing",
    INSTANCE_HEADERS,
    [
        ("trn2.48xlarge", "US East (Ohio)", "$35.7608 ($2.235 USD)", "16 x Trainium2"),
        ("trn2.48xlarge", "US West (Oregon)", "$35.7608 ($2.235 USD)", ""),
    ],
)
P5 = ("P5 Pricing", INSTANCE_HEADERS, [("p5.48xlarge", "US East (N. Virginia)", "$39.33 ($4.916 USD)", "8 x H100")])


def test_the_live_pages_embedded_tables_are_read_by_their_headings() -> None:
    batch = parse("aws_capacity_blocks", embedded_page(ULTRASERVERS, TRN2, P5))
    found = [(p.instance_type, p.region, p.usd_per_instance_hour, p.printed_usd_per_accelerator_hour,
              p.accelerator_count, p.price_kind) for p in batch.prices]  # fmt: skip
    assert found == [
        ("trn2.48xlarge", "US East (Ohio)", D("35.7608"), D("2.235"), 16, PriceKind.CAPACITY_BLOCK),
        ("trn2.48xlarge", "US West (Oregon)", D("35.7608"), D("2.235"), 16, PriceKind.CAPACITY_BLOCK),
        ("p5.48xlarge", "US East (N. Virginia)", D("39.33"), D("4.916"), 8, PriceKind.CAPACITY_BLOCK),
    ]  # the UltraServer table prices no instance: not read
    assert [(s.instance_type, s.accelerator, s.accelerator_count, s.accelerator_memory_value) for s in batch.specs] == [
        ("trn2.48xlarge", "Trainium2", 16, None),  # the table prints no memory: unknown, not guessed
        ("p5.48xlarge", "H100", 8, None),
    ]


def test_a_page_whose_embedded_tables_price_no_instance_is_refused_naming_them() -> None:
    with pytest.raises(ParseError, match=r"no embedded table prices instances.*'P6e Pricing' \(UltraServer Type"):
        parse("aws_capacity_blocks", embedded_page(ULTRASERVERS))
