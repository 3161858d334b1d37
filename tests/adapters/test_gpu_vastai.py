"""Vast.ai adapter (source "gpu_vastai"): marketplace offers fold into one listing per printed GPU name, priced by
the offer with the lowest price per GPU, keeping the offer count; bad offers raise ParseErrors naming the offer."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.adapters import gpu_vastai as vast
from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.reading.json_body import exact_json
from pipelines.sources.file import SourceSpec, sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows

D = Decimal
SPEC = SourceSpec(
    id="gpu_vastai",
    adapter="gpu_vastai",
    url="https://console.vast.ai/api/v0/bundles/?q=%7B%22rentable%22%3A%7B%22eq%22%3Atrue%7D%7D",
    sample="gpu/vastai_offers.json",
    options={"provider": "Vast.ai"},
)
BODY = sample_path(SPEC).read_bytes()

EXPECTED = recorded_offer_rows("gpu_vastai")  # tests/sources/expected/gpu_vastai.jsonl


def offers() -> list[dict]:
    return json.loads(BODY, parse_float=Decimal)["offers"]


def parse(offer_list: list[dict]):
    return parser_for("gpu_vastai")(exact_json({"offers": offer_list}).encode(), SPEC)


def offer(offer_id: int, name: str, n: int, dph: str, rentable: bool = True) -> dict:
    return {
        "id": offer_id,
        "num_gpus": n,
        "gpu_name": name,
        "gpu_ram": 24576,
        "dph_total": D(dph),
        "rentable": rentable,
        "geolocation": "Norway",
    }


def test_sample_yields_exact_listings() -> None:
    batch = parser_for("gpu_vastai")(BODY, SPEC)
    assert (batch.source_id, batch.provider, batch.parser_version) == ("gpu_vastai", "Vast.ai", "gpu_vastai/1.0")
    assert rows(batch) == EXPECTED
    for o in batch.offers:
        assert o.listing == o.gpu_name
        assert (o.price_kind.value, o.currency, o.price_per.value, o.period.value, o.region) == (
            "on_demand",
            "USD",
            "instance",
            "hour",
            None,
        )
    assert batch.unpriced == []


def test_listing_price_is_the_cheapest_per_gpu_offer() -> None:
    per_gpu = {o.listing: o.amount / o.gpu_count for o in parser_for("gpu_vastai")(BODY, SPEC).offers}
    assert per_gpu["H100 SXM"] == D("2.64")  # 8 GPUs at 21.12 beat 1 at 2.71; the non-rentable 2.45/GPU is ignored
    assert per_gpu["RTX 4090"] == D("0.33")  # 4 at 1.32 beat 1 at 0.35 and 2 at 0.74


def test_reordered_offers_and_keys_parse_the_same() -> None:
    shuffled = [dict(reversed(list(o.items()))) for o in reversed(offers())]
    assert rows(parse(shuffled)) == EXPECTED
    assert rows(parser_for("gpu_vastai")(exact_json({"extra": [1], "offers": offers()}).encode(), SPEC)) == EXPECTED


def test_ties_go_to_the_lowest_id() -> None:
    batch = parse([offer(30, "L4", 2, "1.00"), offer(20, "L4", 1, "0.50"), offer(40, "L4", 4, "2.00")])
    first = batch.offers[0]
    assert (first.listing, first.gpu_count, first.amount) == ("L4", 1, D("0.50"))
    assert batch.offers[0].offer_count == 3


def test_all_non_rentable_is_one_sold_out_listing() -> None:
    batch = parse(
        [
            offer(1, "A40", 2, "0.90", False),
            offer(2, "A40", 1, "0.40", False),
            offer(3, "L4", 1, "0.55", False),
            offer(4, "L4", 1, "0.60"),
        ]
    )
    assert [(o.listing, o.gpu_count, o.amount, o.stock_status.value, o.offer_count) for o in batch.offers] == [
        ("A40", 1, D("0.40"), "sold_out", 2),
        ("L4", 1, D("0.60"), "in_stock", 1),
    ]


def test_null_or_absent_gpu_ram_leaves_memory_unknown() -> None:
    assert parse([{**offer(1, "L4", 1, "0.5"), "gpu_ram": None}]).offers[0].gpu_memory_gb_printed is None
    without = {k: v for k, v in offer(1, "L4", 1, "0.5").items() if k != "gpu_ram"}
    assert parse([without]).offers[0].gpu_memory_gb_printed is None


def test_shape_is_the_key_paths_read_not_their_order_or_unread_keys() -> None:
    shape = parser_for("gpu_vastai")(BODY, SPEC).shape
    assert shape and len(shape) == 16
    shuffled = [{**dict(reversed(list(o.items()))), "cuda_max_good": D("12.4")} for o in reversed(offers())]
    assert parser_for("gpu_vastai")(exact_json({"extra": [1], "offers": shuffled}).encode(), SPEC).shape == shape


def test_shape_changes_when_a_read_key_is_renamed() -> None:
    renamed = parse([{("gpu_ram_mb" if k == "gpu_ram" else k): v for k, v in o.items()} for o in offers()])
    assert [o.gpu_memory_gb_printed for o in renamed.offers] == [None] * len(EXPECTED)  # lands, memory unknown
    assert renamed.shape != parser_for("gpu_vastai")(BODY, SPEC).shape


@pytest.mark.parametrize("key", vast.REQUIRED)
def test_missing_key_names_source_offer_and_key(key) -> None:
    listed = offers()
    del listed[3][key]
    where = "offers\\[3\\]" if key == "id" else "offer 19310728"
    with pytest.raises(ParseError, match=rf"^\[gpu_vastai\] parse: {where}.*{key}") as caught:
        parse(listed)
    assert caught.value.source_id == "gpu_vastai"


@pytest.mark.parametrize("value", [D("-0.3227"), 0, D("0.0"), None, "€0.32", "$0.32", True, [1]])
def test_non_money_dph_total_names_the_offer(value) -> None:
    listed = offers()
    listed[10]["dph_total"] = value  # the RTX 3090 offer, id 7412093
    with pytest.raises(ParseError, match=r"^\[gpu_vastai\] parse: offer 7412093: dph_total .* is not a price"):
        parse(listed)


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("num_gpus", 0, "num_gpus"),
        ("num_gpus", D("1.5"), "num_gpus"),
        ("num_gpus", "1", "num_gpus"),
        ("rentable", "true", "rentable"),
        ("gpu_name", "", "gpu_name"),
        ("gpu_name", 3090, "gpu_name"),
        ("gpu_ram", D("-1"), "gpu_ram"),
        ("gpu_ram", "24 GB", "gpu_ram"),
        ("id", "abc", "not an integer offer id"),
    ],
)
def test_bad_fields_are_parse_errors(key, value, match) -> None:
    listed = offers()
    listed[0][key] = value
    with pytest.raises(ParseError, match=rf"gpu_vastai.*{match}"):
        parse(listed)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{not json",
        b"<html><body><table><tr><td>RTX 3090</td></tr></table></body></html>",
        b"[]",
        b'{"offers": null}',
        b'{"offers": []}',
        b'{"offers": {}}',
        b'{"offers": [7]}',
        b'{"offers": [Infinity]}',
        b'{"bundles": [{"id": 1}]}',
        b"\xff\xfe",
    ],
)
def test_malformed_answers_are_parse_errors(body) -> None:
    with pytest.raises(ParseError) as caught:
        parser_for("gpu_vastai")(body, SPEC)
    assert caught.value.source_id == "gpu_vastai"


NAMES = ("H100 SXM", "RTX 4090", "L4")
OFFERS = st.lists(
    st.tuples(st.sampled_from(NAMES), st.integers(1, 8), st.integers(1, 400_000), st.booleans()),
    min_size=1,
    max_size=12,
)


def build(specs) -> list[dict]:
    """Offers with unique ids; dph_total = per-GPU price (4 dp) x num_gpus, exactly."""
    return [
        offer(1000 + i, name, n, str(D(cents) / 10000 * n), rentable)
        for i, (name, n, cents, rentable) in enumerate(specs)
    ]


def summary(batch) -> dict:
    return {o.listing: (Fraction(o.amount) / o.gpu_count, o.stock_status.value, o.offer_count) for o in batch.offers}


@settings(max_examples=120, deadline=None)
@given(specs=OFFERS, data=st.data())
def test_per_gpu_price_ignores_offer_order_and_offer_splitting(specs, data) -> None:
    listed = build(specs)
    baseline = parse(listed)
    permuted = data.draw(st.permutations(listed))
    assert parse(permuted) == baseline  # the whole batch, not only the prices
    index = data.draw(st.integers(0, len(listed) - 1))
    _name, _n, cents, _rentable = specs[index]
    new_n = data.draw(st.integers(1, 8))
    split = [dict(o) for o in listed]
    split[index].update(num_gpus=new_n, dph_total=D(cents) / 10000 * new_n)
    assert summary(parse(split)) == summary(baseline)
    # The listing's per-GPU price is the minimum over the pool it draws from.
    for listing, (per_gpu, stock, count) in summary(baseline).items():
        pool = [s for s in specs if s[0] == listing and (s[3] or stock == "sold_out")]
        assert per_gpu == min(Fraction(s[2], 10000) for s in pool) and count == len(pool)


@settings(max_examples=100, deadline=None)
@given(
    index=st.integers(0, 13),
    key=st.sampled_from((*vast.REQUIRED, *vast.OPTIONAL, "geolocation")),
    value=st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=6)
    | st.decimals(allow_nan=False, allow_infinity=False, places=5)
    | st.lists(st.integers(), max_size=2),
)
def test_any_value_in_any_field_parses_or_raises_parse_error(index, key, value) -> None:
    listed = offers()
    listed[index][key] = value
    try:
        batch = parse(listed)
    except ParseError as error:
        assert error.source_id == "gpu_vastai"
    else:
        assert all(o.amount > 0 for o in batch.offers)


def test_float_noise_in_dph_total_is_kept_to_the_micro_dollar():
    body = json.dumps(
        {
            "offers": [
                {
                    "id": 1,
                    "gpu_name": "L4",
                    "num_gpus": 3,
                    "gpu_ram": 24576,
                    "dph_total": 0.5306666666666667,
                    "rentable": True,
                }
            ]
        }
    ).encode()
    (offer,) = parser_for("gpu_vastai")(body, SPEC).offers
    assert offer.amount == Decimal("0.530667")
