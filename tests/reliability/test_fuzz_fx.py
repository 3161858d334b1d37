"""Fuzzing the ECB reader with odd but well-formed documents: attributes missing, extra namespaces, huge or
strange rates and dates. Whatever it meets, it returns a batch or raises ParseError naming the source."""

from __future__ import annotations

import copy

import pytest
from hypothesis import strategies as st
from lxml import etree

from pipelines.sources.file import sample_path
from tests.reliability.fuzzing import SOURCES, run_fuzz, summary
from tests.reliability.promises import ERRORS_UNNAMED, PARSER_CRASHES

# --------------------------------------------------------------------------

XML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Cn"]), max_size=8)
RATES = st.one_of(
    st.sampled_from(
        [
            "1" + "0" * 400,
            "0." + "0" * 400 + "1",
            "1e5",
            "-1",
            "0",
            "1,5",
            " 1.2 ",
            "+1.2",
            "1.",
            ".5",
            "\u0661.\u0662",
            "NaN",
            "Infinity",
            "",
        ]
    ),
    st.decimals(min_value=0, allow_nan=False, allow_infinity=False, places=4).map(str),
    XML_TEXT,
)
DATES = st.one_of(
    st.sampled_from(["2026-02-30", "9999-12-31", "0000-01-01", "2026-9-1", "2026-09-28T00:00", "", " 2026-09-28 "]),
    st.dates().map(str),
    XML_TEXT,
)
CURRENCIES = st.one_of(st.sampled_from(["usd", "US", "USDX", "", "€", "XXX", " USD "]), XML_TEXT)
ECB_NS = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"


def _odd_edit(draw: st.DrawFn, root: etree._Element) -> etree._Element:
    """One odd but well-formed change to the ECB document."""
    rate_cubes = [c for c in root.iter(f"{ECB_NS}Cube") if "currency" in c.attrib]
    day_cubes = [c for c in root.iter(f"{ECB_NS}Cube") if "time" in c.attrib]
    cube = draw(st.sampled_from(rate_cubes)) if rate_cubes else None
    op = draw(
        st.sampled_from(
            [
                "drop_attr",
                "rate",
                "date",
                "currency",
                "namespace",
                "rehome",
                "duplicate",
                "nest",
                "extra_day",
                "drop_time",
            ]
        )
    )
    if op == "drop_attr" and cube is not None:
        cube.attrib.pop(draw(st.sampled_from(["currency", "rate"])), None)
    elif op in ("rate", "currency") and cube is not None:
        cube.set(op, draw(RATES if op == "rate" else CURRENCIES))
    elif op == "date" and day_cubes:
        draw(st.sampled_from(day_cubes)).set("time", draw(DATES))
    elif op == "drop_time" and day_cubes:
        draw(st.sampled_from(day_cubes)).attrib.pop("time", None)
    elif op == "namespace":  # the same document under other namespace URIs / extra declarations
        uri = draw(st.sampled_from(["urn:odd", "http://www.ecb.int/vocabulary/2099/eurofxref", ""]))
        text = etree.tostring(root).decode().replace("http://www.ecb.int/vocabulary/2002-08-01/eurofxref", uri)
        if "urn:x" not in text:
            text = text.replace("<gesmes:Envelope ", '<gesmes:Envelope xmlns:x="urn:x" xmlns:y="urn:y" ', 1)
        return etree.fromstring(text.encode())
    elif op == "rehome" and cube is not None:  # a rate Cube moved outside any dated Cube
        draw(st.sampled_from([root, root[0]])).append(cube)
    elif op == "duplicate" and cube is not None:
        twin = copy.deepcopy(cube)
        if draw(st.booleans()):
            twin.set("rate", draw(RATES))
        cube.addnext(twin)
    elif op == "nest" and cube is not None:
        etree.SubElement(cube, f"{ECB_NS}Cube", currency=draw(CURRENCIES), rate=draw(RATES))
    elif op == "extra_day" and day_cubes:
        day = copy.deepcopy(day_cubes[0])
        day.set("time", draw(DATES))
        day_cubes[0].addnext(day)
    return root


@st.composite
def odd_ecb_documents(draw: st.DrawFn, sample: bytes) -> bytes:
    root = etree.fromstring(sample)
    for _ in range(draw(st.integers(0, 3))):
        root = _odd_edit(draw, root)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


@pytest.mark.expect("only ParseError")
@pytest.mark.promises(PARSER_CRASHES, ERRORS_UNNAMED)
def test_fuzz_fx_odd_documents(scenario):
    source = SOURCES["fx_ecb"]
    seen = run_fuzz(source, odd_ecb_documents(sample_path(source).read_bytes()), scenario)
    scenario.observed = summary(seen)
    assert seen["parsed"] > 0 and sum(seen.values()) > seen["parsed"], seen  # both kinds were generated
