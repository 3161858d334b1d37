"""RunPod GraphQL adapter (source "gpu_runpod"): the bundled sample yields exactly the expected offers, float noise
is rounded to the cent/sub-cent RunPod sets, placeholders never become prices, and malformed answers raise
ParseErrors naming the source."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.adapters import gpu_runpod_graphql as runpod
from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.reading.json_body import exact_json
from pipelines.sources.file import load_sources, sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows

D = Decimal
SOURCE_ID = "gpu_runpod"
SPEC = next(s for s in load_sources() if s.id == SOURCE_ID)  # as declared in pipelines/sources.toml
BODY = sample_path(SPEC).read_bytes()

OD, COM, SPOT = "on_demand", "community", "spot"
IN, OUT, UNK = "in_stock", "sold_out", "unknown"

EXPECTED = recorded_offer_rows("gpu_runpod")  # tests/sources/expected/gpu_runpod.jsonl


def document() -> dict:
    return json.loads(BODY, parse_float=Decimal)


def parse(doc) -> object:
    return parser_for("gpu_runpod_graphql")(exact_json(doc).encode(), SPEC)


def with_type(index: int, **fields) -> dict:
    doc = document()
    doc["data"]["gpuTypes"][index].update(fields)
    return doc


def selected_paths(query: str) -> set[str]:
    """Dotted paths of the fields a GraphQL query selects, arguments left out: {"gpuTypes", "gpuTypes.id", ...}."""
    tokens = re.findall(r"[A-Za-z_]\w*|[{}]", re.sub(r"\([^()]*\)", "", query))
    paths: set[str] = set()
    parents: list[str] = []
    field = ""  # the field a "{" opens a selection of ("" for the query's own braces)
    for token in tokens:
        if token == "{":
            parents.append(field)
        elif token == "}":
            parents.pop()
        else:
            paths.add(".".join([*filter(None, parents), token]))
        field = token if token not in "{}" else ""
    return paths


def graphql_path(key_path: str) -> str:
    """data.gpuTypes[].lowestPrice.stockStatus -> gpuTypes.lowestPrice.stockStatus (the query's field path)."""
    return key_path.removeprefix("data.").replace("[]", "")


def test_the_query_posted_selects_every_key_the_adapter_reads() -> None:
    assert (SPEC.method, SPEC.request_content_type) == ("POST", "application/json")
    query = json.loads(SPEC.request_body)["query"]
    wanted = {graphql_path(p) for p in runpod.KEY_PATHS}
    assert "gpuTypes.lowestPrice.stockStatus" in wanted and len(wanted) == len(runpod.KEY_PATHS)
    assert wanted <= selected_paths(query), wanted - selected_paths(query)


def test_a_query_missing_a_read_key_is_caught() -> None:
    query = json.loads(SPEC.request_body)["query"]
    assert "gpuTypes.lowestPrice.stockStatus" not in selected_paths(query.replace(" stockStatus", ""))
    assert "gpuTypes.securePrice" not in selected_paths(query.replace(" securePrice", ""))


def test_sample_yields_exact_offers() -> None:
    batch = parser_for("gpu_runpod_graphql")(BODY, SPEC)
    assert (batch.source_id, batch.provider, batch.parser_version) == ("gpu_runpod", "RunPod", "gpu_runpod_graphql/1.0")
    assert rows(batch) == EXPECTED
    for offer in batch.offers:
        assert (
            offer.gpu_count,
            offer.currency,
            offer.price_per.value,
            offer.period.value,
            offer.region,
            offer.offer_count,
        ) == (1, "USD", "gpu", "hour", None, 1)
    assert batch.unpriced == ["MI300X"]


def test_float_noise_rounds_to_the_published_price() -> None:
    amounts = {(o.listing, o.price_kind.value): o.amount for o in parser_for("gpu_runpod_graphql")(BODY, SPEC).offers}
    assert b"2.6899999999999995" in BODY and b"6.789999999999999" in BODY and b"0.49000000000000005" in BODY
    assert amounts[("H100 SXM (secure)", OD)].as_tuple() == D("2.6900").as_tuple()
    assert amounts[("B200 (secure)", OD)].as_tuple() == D("6.7900").as_tuple()
    assert amounts[("L4 (secure)", OD)].as_tuple() == D("0.4900").as_tuple()
    assert amounts[("H200 SXM (secure)", OD)] == D("3.59")


def test_placeholders_and_zero_prices_are_not_offers() -> None:
    kinds = {(o.gpu_name, o.price_kind.value) for o in parser_for("gpu_runpod_graphql")(BODY, SPEC).offers}
    assert ("NVIDIA H200", COM) not in kinds and ("NVIDIA B200", COM) not in kinds
    assert ("NVIDIA RTX PRO 6000 Blackwell Server Edition", OD) not in kinds
    assert ("NVIDIA B200", SPOT) not in kinds  # secureSpotPrice null


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("1.9679999999999997", "1.9680"),
        ("0.00025", "0.0003"),
        ("0.44999999999999996", "0.4500"),
        ("3", "3.0000"),
    ],
)
def test_rounding_is_half_up_to_four_places(printed, expected) -> None:
    batch = parse(with_type(0, securePrice=D(printed)))
    assert str(batch.offers[0].amount) == expected


def test_community_price_counts_when_community_cloud_is_true() -> None:
    batch = parse(with_type(1, communityCloud=True))  # H200: 0.5 is then a real price
    assert ("H200 SXM (community)", COM, D("0.5")) in [(o.listing, o.price_kind.value, o.amount) for o in batch.offers]


def test_secure_prices_need_secure_cloud() -> None:
    batch = parse(with_type(0, secureCloud=False))
    assert [o.price_kind.value for o in batch.offers if o.gpu_name == "NVIDIA H100 80GB HBM3"] == [COM]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("High", IN),
        ("Medium", IN),
        ("Low", IN),
        ("None", OUT),
        ("Unavailable", OUT),
        (None, UNK),
        ("", UNK),
    ],
)
def test_stock_status_applies_to_every_kind(status, expected) -> None:
    batch = parse(with_type(0, lowestPrice={"uninterruptablePrice": None, "stockStatus": status}))
    assert [o.stock_status.value for o in batch.offers[:3]] == [expected] * 3


def test_null_lowest_price_is_unknown_stock() -> None:
    assert {o.stock_status.value for o in parse(with_type(0, lowestPrice=None)).offers[:3]} == {UNK}


def test_reordered_keys_and_types_parse_the_same() -> None:
    doc = document()
    types = [dict(reversed(list(t.items()))) for t in reversed(doc["data"]["gpuTypes"])]
    shuffled = {"data": {"gpuTypes": types}}
    assert sorted(rows(parse(shuffled))) == sorted(EXPECTED)
    assert sorted(parse({"extensions": {"cost": 3}, **shuffled}).unpriced) == ["MI300X"]


def test_missing_lowest_price_is_unknown_stock() -> None:
    doc = document()
    del doc["data"]["gpuTypes"][0]["lowestPrice"]
    assert {o.stock_status.value for o in parse(doc).offers[:3]} == {UNK}


def renamed_everywhere(old: str, new: str) -> dict:
    doc = document()
    doc["data"]["gpuTypes"] = [{new if k == old else k: v for k, v in t.items()} for t in doc["data"]["gpuTypes"]]
    return doc


def test_shape_is_the_key_paths_read_not_their_order_or_unread_keys() -> None:
    shape = parser_for("gpu_runpod_graphql")(BODY, SPEC).shape
    assert shape and len(shape) == 16
    doc = document()
    types = [dict(reversed(list(t.items()))) for t in reversed(doc["data"]["gpuTypes"])]
    for t in types:
        t["maxGpuCount"] = 8  # a key the adapter does not read
    assert parse({"extensions": {"cost": 3}, "data": {"gpuTypes": types}}).shape == shape


def test_shape_changes_when_a_read_key_is_renamed() -> None:
    shape = parser_for("gpu_runpod_graphql")(BODY, SPEC).shape
    renamed = parse(renamed_everywhere("lowestPrice", "lowestPriceV2"))
    assert {o.stock_status.value for o in renamed.offers} == {UNK}  # still lands, stock unknown
    assert renamed.shape != shape


@pytest.mark.parametrize("key", runpod.REQUIRED)
def test_missing_key_names_source_and_key(key) -> None:
    doc = document()
    del doc["data"]["gpuTypes"][2][key]
    with pytest.raises(ParseError, match=rf"^\[gpu_runpod\] parse: .*lacks key\(s\) {key}$") as caught:
        parse(doc)
    assert caught.value.source_id == "gpu_runpod"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{not json",
        b"<html><body><table></table></body></html>",
        b"[]",
        b'{"data": null}',
        b'{"data": {"gpuTypes": []}}',
        b'{"data": {"gpuTypes": {}}}',
        b'{"data": {"gpuTypes": [1]}}',
        b'{"data": {"gpuTypes": [{"id": "x"}]}}',
        b'{"data": {"gpuTypes": [NaN]}}',
        b"\xff\xfe",
    ],
)
def test_malformed_answers_are_parse_errors(body) -> None:
    with pytest.raises(ParseError) as caught:
        parser_for("gpu_runpod_graphql")(body, SPEC)
    assert caught.value.source_id == "gpu_runpod"


def test_graphql_errors_name_the_first_message() -> None:
    body = b'{"errors": [{"message": "Cannot query field \\"foo\\" on type \\"GpuType\\"."}, {"message": "second"}]}'
    with pytest.raises(ParseError, match=r'gpu_runpod.*Cannot query field "foo"'):
        parser_for("gpu_runpod_graphql")(body, SPEC)


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("securePrice", "€2.69", "not a number"),
        ("securePrice", "$2.69", "not a number"),
        ("communityPrice", D("-0.39"), "negative"),
        ("securePrice", True, "not a number"),
        ("securePrice", D("0.00001"), "rounds to zero"),
        ("memoryInGb", "80 GB", "not a number"),
        ("secureCloud", "yes", "not true/false"),
        ("displayName", "", "not a name"),
        ("id", None, "not a name"),
        ("lowestPrice", {"stockStatus": "Plenty"}, "not a known stock status"),
        ("lowestPrice", {}, "stockStatus"),
    ],
)
def test_bad_values_are_parse_errors(key, value, match) -> None:
    with pytest.raises(ParseError, match=rf"gpu_runpod.*{match}"):
        parse(with_type(0, **{key: value}))


def test_duplicate_listing_is_refused() -> None:
    with pytest.raises(ParseError, match=r"gpu_runpod.*'L4 \(secure\)'.*twice"):
        parse(with_type(4, displayName="L4"))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.decimals(allow_nan=False, allow_infinity=False, places=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(0, 7),
    key=st.sampled_from((*runpod.REQUIRED, runpod.LOWEST, "uninterruptablePrice")),
    value=JSON_VALUES,
)
def test_any_value_in_any_field_parses_or_raises_parse_error(index, key, value) -> None:
    doc = document()
    target = doc["data"]["gpuTypes"][index]
    if key == "uninterruptablePrice":
        target = target["lowestPrice"]
    target[key] = value
    try:
        batch = parse(doc)
    except ParseError as error:
        assert error.source_id == "gpu_runpod"
    else:
        assert all(o.amount > 0 and o.amount == o.amount.quantize(D("0.0001")) for o in batch.offers)
