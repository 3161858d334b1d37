"""Meta test (gpuhunt style): a source added to sources.toml without a sample and a parser test, or an adapter
module nobody uses or that lacks its contract, fails CI here."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from pipelines.adapters import parser_for, parser_version
from pipelines.refresh.references import REFERENCE_FILES
from pipelines.sources.adapter_registry import adapter_names
from pipelines.sources.captures import load_captures
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


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.id)
def test_source_has_its_own_test_file(source) -> None:
    """tests/sources/test_<source id>.py: the checks every source gets (tests/support/source_kit.py), and its own."""
    path = TESTS / "sources" / f"test_{source.id}.py"
    assert path.is_file(), f"no test file for source {source.id!r}: add {path.relative_to(TESTS.parent)}"
    assert f'source_id = "{source.id}"' in path.read_text(encoding="utf-8")


def test_every_source_test_file_names_a_declared_source() -> None:
    declared = {f"test_{s.id}.py" for s in SOURCES}
    assert sorted(p.name for p in (TESTS / "sources").glob("test_*.py") if p.name not in declared) == []


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
    users += [c.id for c in load_captures() if c.reader == name]  # the readers of others' captures
    assert users, f"adapter module {name} is used by no source in sources.toml and no capture set"


def test_every_registered_adapter_has_a_module() -> None:
    assert sorted(adapter_names()) == ADAPTER_MODULES


def test_the_tests_root_holds_only_the_conftest() -> None:
    """Tests live in rooms that mirror the code (tests/warehouse/, tests/refresh/, ...), helpers in tests/support/."""
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["__init__.py", "conftest.py"]
    rooms = [p for p in TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py"))]
    assert len(rooms) >= 10
    assert all((room / "__init__.py").is_file() for room in rooms), "a room that is not a package"
