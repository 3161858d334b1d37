"""Every test can fail: a test function that checks nothing passes whatever the code does, so it is refused here.

A test checks something when its body holds an `assert`, a `pytest.raises(..., match=...)` or
`pytest.warns(..., match=...)`, or a call to an asserting helper: one named `assert_*`, `check_*` or `expect_*`,
or a function of the same module or of a helper module under tests/ (one level deep) whose own body does one of
those. `pytest.raises(Exception)` without `match=` is refused too: it passes on any error, a typo's included.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import TESTS

# The folders pyproject.toml puts on the path: their modules are the helpers a test may import by name.
HELPER_DIRS = (TESTS / "support", TESTS / "reliability")
ASSERTING_PREFIXES = ("assert_", "check_", "expect_")
EXPECTATIONS = {"raises", "warns"}
BASE_EXCEPTIONS = {"Exception", "BaseException"}
NOTHING_CHECKED = "no assert, no pytest.raises/warns with match=, no asserting helper"

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Offender:
    path: str
    line: int
    name: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.name}: {self.why}"


def is_expectation(call: ast.Call) -> bool:
    """`pytest.raises(...)` or `pytest.warns(...)`."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in EXPECTATIONS
        and isinstance(func.value, ast.Name)
        and func.value.id == "pytest"
    )


def has_match(call: ast.Call) -> bool:
    return any(keyword.arg == "match" for keyword in call.keywords)


def called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def body_nodes(function: Function) -> Iterator[ast.AST]:
    """Every node of the function's body (its decorators and defaults run no check of the test)."""
    for statement in function.body:
        yield from ast.walk(statement)


def checks_directly(function: Function) -> bool:
    """An assert, an expectation with `match=`, or a call to a function named as asserting, anywhere in the body."""
    for sub in body_nodes(function):
        if isinstance(sub, ast.Assert) and not (isinstance(sub.test, ast.Constant) and sub.test.value):
            return True  # `assert True` could never fail
        if isinstance(sub, ast.Call):
            if is_expectation(sub) and has_match(sub):
                return True
            name = called_name(sub)
            if name is not None and name.startswith(ASSERTING_PREFIXES):
                return True
    return False


def functions_of(body: list[ast.stmt]) -> dict[str, Function]:
    return {node.name: node for node in body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def helper_modules() -> dict[str, ast.Module]:
    """The helper modules under tests/ by the name a test imports them with (tests.support.landed; test files,
    conftest and package files excluded)."""
    found: dict[str, ast.Module] = {}
    for folder in HELPER_DIRS:
        for path in folder.glob("*.py"):
            if not path.name.startswith("test_") and path.name not in ("conftest.py", "__init__.py"):
                name = ".".join(path.with_suffix("").relative_to(TESTS.parent).parts)
                found[name] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return found


def imported_helpers(tree: ast.Module, helpers: dict[str, ast.Module]) -> tuple[dict[str, Function], dict[str, str]]:
    """Functions imported by name from a helper module, and the helper modules imported whole (by the name bound)."""
    functions: dict[str, Function] = {}
    whole: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in helpers and node.level == 0:
            defined = functions_of(helpers[node.module].body)
            for alias in node.names:
                if alias.name in defined:
                    functions[alias.asname or alias.name] = defined[alias.name]
        elif isinstance(node, ast.Import):
            whole.update({alias.asname or alias.name: alias.name for alias in node.names if alias.name in helpers})
    return functions, whole


def collected_tests(tree: ast.Module) -> list[tuple[Function, ast.ClassDef | None]]:
    """The functions pytest collects: `test_*` at module level and in `Test*` classes."""
    found: list[tuple[Function, ast.ClassDef | None]] = [
        (node, None) for node in functions_of(tree.body).values() if node.name.startswith("test_")
    ]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [(fn, node) for fn in functions_of(node.body).values() if fn.name.startswith("test_")]
    return sorted(found, key=lambda pair: pair[0].lineno)


def calls_a_checking_helper(
    test: Function,
    owner: ast.ClassDef | None,
    local: dict[str, Function],
    whole: dict[str, str],
    helpers: dict[str, ast.Module],
) -> bool:
    """One level of helpers: a local or imported function, a method of the test's class, or `module.function`."""
    methods = functions_of(owner.body) if owner is not None else {}
    for call in (sub for sub in body_nodes(test) if isinstance(sub, ast.Call)):
        target: Function | None = None
        if isinstance(call.func, ast.Name):
            target = local.get(call.func.id)
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            receiver = call.func.value.id
            if receiver == "self":
                target = methods.get(call.func.attr)
            elif receiver in whole:
                target = functions_of(helpers[whole[receiver]].body).get(call.func.attr)
        if target is not None and target is not test and checks_directly(target):
            return True
    return False


def is_test_module(path: str) -> bool:
    name = Path(path).name
    return name.startswith("test_") or name.endswith("_test.py")


def unchecking_tests(source: str, path: str, helpers: dict[str, ast.Module]) -> list[Offender]:
    if not is_test_module(path):
        return []  # pytest collects no test from a helper module
    tree = ast.parse(source, filename=path)
    imported, whole = imported_helpers(tree, helpers)
    local = {**imported, **functions_of(tree.body)}
    return [
        Offender(path, test.lineno, test.name, NOTHING_CHECKED)
        for test, owner in collected_tests(tree)
        if not checks_directly(test) and not calls_a_checking_helper(test, owner, local, whole, helpers)
    ]


def expected_types(call: ast.Call) -> set[str]:
    given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "expected_exception"), None)
    named = given.elts if isinstance(given, ast.Tuple) else [given]
    return {node.id for node in named if isinstance(node, ast.Name)}


def bare_base_expectations(source: str, path: str, helpers: dict[str, ast.Module] | None = None) -> list[Offender]:
    """`pytest.raises(Exception)` and the like without `match=`, anywhere in the file: any error would meet them.
    (`helpers` is unused: the signature is `unchecking_tests`'s, so one walk over the suite serves both rules.)"""
    found: list[Offender] = []

    def visit(node: ast.AST, within: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Call) and is_expectation(child) and not has_match(child):
                named = sorted(expected_types(child) & BASE_EXCEPTIONS)
                if named:
                    why = f"pytest.{called_name(child)}({', '.join(named)}) without match="
                    found.append(Offender(path, child.lineno, within, why))
            visit(child, within)

    visit(ast.parse(source, filename=path), "<module>")
    return found


def suite_files() -> list[Path]:
    """Every Python file under tests/: test modules, for the first rule; helpers too, for the second."""
    return sorted(TESTS.rglob("*.py"))


def offenders_in_the_suite(find: Callable[[str, str, dict[str, ast.Module]], list[Offender]]) -> list[str]:
    helpers = helper_modules()
    found: list[str] = []
    for path in suite_files():
        found += map(str, find(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)), helpers))
    return found


def test_every_test_in_the_suite_checks_something_that_could_fail() -> None:
    offenders = offenders_in_the_suite(unchecking_tests)
    assert not offenders, "tests that check nothing:\n" + "\n".join(offenders)


def test_no_test_expects_a_bare_exception_without_a_message() -> None:
    offenders = offenders_in_the_suite(bare_base_expectations)
    assert not offenders, "expectations any error would meet:\n" + "\n".join(offenders)


# -- the rules themselves can fail -------------------------------------------------------------------------------

SHARED = {"shared": ast.parse("def verify(found):\n    assert found\n\ndef build():\n    return 1\n")}


CHECKING = {
    "assert": "def test_a():\n    assert f() == 1\n",
    "raises with match": "def test_a():\n    with pytest.raises(ValueError, match='bad'):\n        f()\n",
    "warns with match": "def test_a():\n    with pytest.warns(UserWarning, match='old'):\n        f()\n",
    "assert_ helper": "def test_a():\n    assert_landed(db)\n",
    "check_ method": "def test_a():\n    m.check_rows(db)\n",
    "expect_ helper": "def test_a():\n    expect_exit(run(), 4)\n",
    "an asserting local helper": "def helper():\n    assert g()\n\ndef test_a():\n    helper()\n",
    "an asserting imported helper": "from shared import verify\n\ndef test_a():\n    verify(1)\n",
    "an asserting helper module's function": "import shared\n\ndef test_a():\n    shared.verify(1)\n",
    "a Test class's asserting method": "class TestA:\n    def see(self):\n        assert g()\n\n    def test_a(self):\n"
    "        self.see()\n",
    "a method of a class pytest does not collect": "class Helper:\n    def test_a(self):\n        f()\n",
    "no test at all": "def build():\n    f()\n",
}
CHECKING_NOTHING = {
    "a bare call": "def test_a():\n    f()\n",
    "assert True": "def test_a():\n    assert True\n",
    "raises without match": "def test_a():\n    with pytest.raises(ValueError):\n        f()\n",
    "a local helper that returns": "def helper():\n    return g()\n\ndef test_a():\n    helper()\n",
    "two levels of helpers": "def inner():\n    assert g()\n\ndef outer():\n    inner()\n\n"
    "def test_a():\n    outer()\n",
    "an imported helper that returns": "from shared import build\n\ndef test_a():\n    build()\n",
    "a method of a Test class": "class TestA:\n    def test_a(self):\n        f()\n",
    "parametrised": "@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    f(x)\n",
    "async": "async def test_a():\n    await f()\n",
}


@pytest.mark.parametrize("source", CHECKING.values(), ids=CHECKING.keys())
def test_the_rule_passes_a_test_that_checks_something(source: str) -> None:
    assert unchecking_tests(source, "tests/test_sample.py", SHARED) == []


@pytest.mark.parametrize("source", CHECKING_NOTHING.values(), ids=CHECKING_NOTHING.keys())
def test_the_rule_names_a_test_that_checks_nothing(source: str) -> None:
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "def test_a" in text)
    found = [str(o) for o in unchecking_tests(source, "tests/test_sample.py", SHARED)]
    assert found == [f"tests/test_sample.py:{line} test_a: {NOTHING_CHECKED}"]


def test_a_helper_module_holds_no_tests_to_check() -> None:
    assert unchecking_tests("def test_a():\n    f()\n", "tests/support/landed.py", SHARED) == []


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ("pytest.raises(Exception)", "pytest.raises(Exception) without match="),
        ("pytest.raises(BaseException)", "pytest.raises(BaseException) without match="),
        ("pytest.raises((ValueError, Exception))", "pytest.raises(Exception) without match="),
        ("pytest.raises(expected_exception=Exception)", "pytest.raises(Exception) without match="),
        ("pytest.warns(Exception)", "pytest.warns(Exception) without match="),
        ("pytest.raises(Exception, match='disk full')", None),
        ("pytest.raises(ValueError)", None),  # too loose for the first rule, but not an any-error expectation
    ],
)
def test_a_bare_base_exception_is_refused_without_a_message(call: str, why: str | None) -> None:
    source = f"def test_a():\n    f()\n\n    def nested():\n        with {call}:\n            f()\n"
    found = [str(o) for o in bare_base_expectations(source, "tests/test_sample.py")]
    assert found == ([f"tests/test_sample.py:5 nested: {why}"] if why else [])
