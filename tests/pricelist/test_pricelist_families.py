"""The family allowlist as DuckDB sees it (one RE2 pattern written into the scan) agrees with the allowlist as
Python reads it (fnmatch on the family), and a quote in a pattern or a path cannot change the statement."""

from __future__ import annotations

import shutil

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.pricelist.families import DEFAULT_FAMILIES, allowed, family_regex
from pipelines.pricelist.offer_csv import parse_offer_csv
from tests.support.pricelist_files import sample
from warehouse.quoting import literal

FAMILY_CHARS = st.sampled_from(list("abgiprtn0123456-.*?'\\[]^$|()"))
TYPES = st.text(FAMILY_CHARS, min_size=0, max_size=14)
PATTERNS = st.lists(st.text(FAMILY_CHARS.filter(lambda c: c != "."), min_size=1, max_size=6), max_size=4)


def duckdb_allows(instance_type: str, families: list[str] | tuple[str, ...]) -> bool:
    pattern = literal(family_regex(families))
    (matched,) = duckdb.sql(f"SELECT regexp_matches({literal(instance_type)}, {pattern})").fetchone() or (None,)
    return bool(matched)


@settings(max_examples=300, deadline=None)
@given(TYPES, PATTERNS)
def test_duckdb_and_python_agree_on_any_allowlist(instance_type, families):
    assert duckdb_allows(instance_type, families) == allowed(instance_type, families)


def test_the_default_allowlist_on_real_types():
    kept = ["trn1.32xlarge", "trn2u.48xlarge", "inf1.xlarge", "p4de.24xlarge", "p6-b200.48xlarge", "g6f.large", "p5"]
    dropped = ["m5.large", "p3.2xlarge", "g5g.xlarge", "p5ex.48xlarge", "xtrn1.2xlarge", "", "g4ad.xlarge"]
    assert [duckdb_allows(t, DEFAULT_FAMILIES) for t in kept] == [True] * len(kept)
    assert [duckdb_allows(t, DEFAULT_FAMILIES) for t in dropped] == [False] * len(dropped)


def test_an_empty_allowlist_keeps_nothing():
    assert not duckdb_allows("trn1.32xlarge", []) and not duckdb_allows("", [])


def test_a_quote_in_a_family_or_the_path_is_data(tmp_path):
    odd = tmp_path / "it's here"
    odd.mkdir()
    path = shutil.copy(sample("us-east-1"), odd / "us-east-1.csv")
    batch = parse_offer_csv(path, "aws_pricelist", region_code="us-east-1", families=("trn*", "x'); DROP TABLE t; --"))
    assert {p.family for p in batch.prices} == {"trn1"}
