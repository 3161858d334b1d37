"""Meta test (gpuhunt style): a source added to sources.toml without a sample and a parser test, or an adapter
module nobody uses or that lacks its contract, fails CI here."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from pipelines.adapters import parser_for, parser_version
from pipelines.refresh.pricelist_units import sample_units
from pipelines.refresh.references import REFERENCE_FILES
from pipelines.sources.adapter_registry import adapter_names
from pipelines.sources.file import DEFAULT_SOURCES_FILE, load_sources, sample_path
from tests.support.paths import TESTS

ADAPTERS_DIR = Path(importlib.import_module("pipelines.adapters").__file__).resolve().parent
NOT_ADAPTERS = {"__init__.py"}  # parser_for and friends; the shared readers live in pipelines/reading/

SOURCES = load_sources()
ADAPTER_MODULES = sorted(p.stem for p in ADAPTERS_DIR.glob("*.py") if p.name not in NOT_ADAPTERS)


def test_sources_file_is_the_bundled_one_and_not_empty() -> None:
    assert DEFAULT_SOURCES_FILE.name == "sources.toml"
    raw_ids = re.findall(r'^id\s*=\s*"([^"]+)"', DEFAULT_SOURCES_FILE.read_text(), flags=re.MULTILINE)
    assert raw_ids == [s.id for s in SOURCES]
    assert len(SOURCES) >= 6


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.id)
def test_source_has_a_non_empty_sample(source) -> None:
    path = sample_path(source)
    assert path.is_file(), f"{source.id}: sample {path} missing"
    body = path.read_bytes()
    assert len(body) > 0, f"{source.id}: sample {path} is empty"
    assert b"ratecard sample" in body.lower(), f"{source.id}: sample {path} does not say it is a sample"


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.id)
def test_source_adapter_is_known(source) -> None:
    assert source.adapter in adapter_names()
    assert source.adapter in ADAPTER_MODULES
    assert callable(parser_for(source.adapter))
    assert parser_version(source.adapter)


ADAPTER_TESTS = {
    path.name: path.read_text(encoding="utf-8")
    for path in TESTS.rglob("test_*.py")
    if path.name not in {"test_meta.py", "test_end_to_end.py", "test_gpu_end_to_end.py"}
}


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.id)
def test_source_is_named_in_an_adapter_test(source) -> None:
    naming = [name for name, text in ADAPTER_TESTS.items() if f'"{source.id}"' in text]
    assert naming, f"no adapter test (tests/**/test_*.py) names source {source.id!r}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.id)
def test_sample_parses_to_a_batch_of_that_source(source) -> None:
    priced = 0
    for parsed_as in sample_units(source):  # a price-list region index: each region's offer file
        batch = parser_for(source.adapter)(sample_path(parsed_as).read_bytes(), parsed_as)
        assert batch.source_id == parsed_as.id
        kind = source.kind
        if kind == "aws":
            assert len(batch.specs) >= 1
            assert (len(batch.prices) >= 1) == source.expects_prices
        elif kind == "gpu":
            assert len(batch.offers) >= 1
        elif kind == "spec":
            assert batch.row_count >= 1
        elif kind == "fx":
            assert len(batch.rates) >= 1
        else:
            assert batch.region_code == parsed_as.options.get("region_code")
            priced += len(batch.prices) + len(batch.pending)  # spot quotes wait for the price list's types
    assert priced >= 1 or source.kind != "pricelist"


def test_adapter_modules_found() -> None:
    assert {"aws_capacity_blocks", "aws_product_page"} <= set(ADAPTER_MODULES)


@pytest.mark.parametrize("name", ADAPTER_MODULES)
def test_adapter_module_contract(name: str) -> None:
    module = importlib.import_module(f"pipelines.adapters.{name}")
    assert isinstance(getattr(module, "PARSER_VERSION", None), str)
    assert re.fullmatch(r"\S+/\S+", module.PARSER_VERSION), module.PARSER_VERSION
    assert callable(getattr(module, "parse", None))


@pytest.mark.parametrize("name", ADAPTER_MODULES)
def test_adapter_module_is_registered_and_used(name: str) -> None:
    assert name in adapter_names(), f"adapter module {name} is not registered in pipelines.adapters"
    users = [s.id for s in SOURCES if s.adapter == name]
    users += [sid for sid, (adapter, _) in REFERENCE_FILES.items() if adapter == name]  # in-repo reference files
    assert users, f"adapter module {name} is used by no source in sources.toml"


def test_every_registered_adapter_has_a_module() -> None:
    assert sorted(adapter_names()) == ADAPTER_MODULES


def test_the_tests_root_holds_only_the_conftest() -> None:
    """Tests live in rooms that mirror the code (tests/warehouse/, tests/refresh/, ...), helpers in tests/support/."""
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["__init__.py", "conftest.py"]
    rooms = [p for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py"))]
    assert len(rooms) >= 10
    assert all((room / "__init__.py").is_file() for room in rooms), "a room that is not a package"
