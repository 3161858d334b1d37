"""The import graph points down the layers: no module imports itself back through others, and no room imports a
room above it (docs/ARCHITECTURE.md draws them). Read with grimp, which counts imports inside functions and under
TYPE_CHECKING too: a late import is still a dependency. And no module outgrows a reading: 300 lines for code, 500 for
a test file."""

from __future__ import annotations

from functools import cache

import grimp
import pytest

from pipelines.kinds import KIND_FOLDERS
from tests.support.paths import ROOT

PACKAGES = ("ratecard", "pipelines", "assets", "schemas", "warehouse")
# A kind's folder (pipelines/<kind>/) spans two rows: its records, suite, landing and readers sit where the code
# below them needs them, and its Kind object (`kind.py`), which reads the sources it prepares, sits in this room.
KIND_OBJECTS = "pipelines.*.kind"
# A kind's readers of its sources' pages (`pipelines/<kind>/readers/`) stand on the generic reading room, above it.
KIND_READERS = "pipelines.*.readers"
# A kind's own steps over the generic refresh (`pipelines/<kind>/steps/`: the price list's backfill of past
# versions), which the CLI and the Dagster jobs run.
KIND_STEPS = "pipelines.*.steps"
# Top to bottom. A room may import rooms below it; rooms that share a line are independent of each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("ratecard",),  # the Python API: imports the pipeline, which never imports it
    ("pipelines.cli", "pipelines.definitions"),
    ("assets",),
    ("pipelines.orchestration",),
    (KIND_STEPS,),
    ("pipelines.refresh",),
    ("pipelines.adapters",),
    ("pipelines.kinds",),  # the registry of kinds
    (KIND_OBJECTS,),
    ("pipelines.dashboard", "pipelines.agents"),  # the static site; the MCP server agents query
    # The verdict, which the CLI, the Dagster asset and the dashboard's pages show; the offers search, which the CLI
    # and the Python API share.
    ("pipelines.decide", "pipelines.offers"),
    ("pipelines.specs", "pipelines.pricelist", "pipelines.pilots", "pipelines.kind"),
    (KIND_READERS,),
    ("pipelines.reading",),
    ("pipelines.fetch",),
    ("pipelines.sources",),
    ("pipelines.gpu",),
    ("pipelines.aws", "pipelines.fx", "pipelines.across_kinds"),
    ("pipelines.errors", "pipelines.reference", "pipelines.clock"),
    ("warehouse",),
    ("schemas",),
)
# A kind folder not placed above (one newly registered in pipelines/kinds.py) sits beside the specification kind:
# above reading, fetch and the sources file, below the Kind objects. Placing it lower is a choice made in LAYERS.
KIND_FOLDER_NAMES = frozenset(f.__name__ for f in KIND_FOLDERS)
RANK = {room: rank for rank, rooms in enumerate(LAYERS) for room in rooms}
NEW_KIND_ROW = RANK["pipelines.specs"]
RANK |= {name: NEW_KIND_ROW for name in KIND_FOLDER_NAMES if name not in RANK}


@cache
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES)


def room_of(module: str) -> str:
    """A module's room: a kind's Kind object, readers or steps, else a subpackage (or top-level module) of
    pipelines/, else its top-level package."""
    parts = module.split(".")
    if parts[0] == "pipelines" and len(parts) == 3 and parts[2] == "kind":
        return KIND_OBJECTS
    if parts[0] == "pipelines" and len(parts) >= 3 and parts[2] == "readers":
        return KIND_READERS
    if len(parts) >= 3 and parts[2] == "steps" and ".".join(parts[:2]) in KIND_FOLDER_NAMES:
        return KIND_STEPS
    return ".".join(parts[:2]) if parts[0] == "pipelines" and len(parts) > 1 else parts[0]


def import_edges() -> list[tuple[str, str]]:
    g = graph()
    return sorted((m, d) for m in g.modules for d in g.find_modules_directly_imported_by(m))


def circles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan's algorithm, iterative)."""
    out: dict[str, list[str]] = {}
    for a, b in edges:
        out.setdefault(a, []).append(b)
        out.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(out):
        if root in index:
            continue
        work = [(root, iter(out[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(out[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle_and_passes_a_line():
    assert circles([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]
    assert circles([("a", "b"), ("b", "c"), ("a", "c")]) == []


def test_no_module_imports_itself_back():
    assert circles(import_edges()) == []


def test_no_room_imports_a_room_above_it_or_beside_it():
    rooms = {room_of(m) for m in graph().modules}
    unplaced = sorted(rooms - set(RANK) - {"pipelines"})
    assert unplaced == [], f"place these rooms in LAYERS: {unplaced}"
    wrong = [
        f"{module} -> {imported}"
        for module, imported in import_edges()
        if (a := room_of(module)) != (b := room_of(imported)) and "pipelines" not in (a, b) and RANK[a] >= RANK[b]
    ]
    assert wrong == []


@pytest.mark.parametrize("lower", ["warehouse", "schemas"])
def test_the_storage_layers_import_nothing_of_the_pipeline(lower):
    g = graph()
    upward = sorted(
        f"{m} -> {d}"
        for m in g.find_children(lower) | g.find_descendants(lower)
        for d in g.find_modules_directly_imported_by(m)
        if d.split(".")[0] in ("pipelines", "assets")
    )
    assert upward == []


# Rooms that serve every kind and name none: they reach a kind through its Kind object (pipelines.kinds.kind_named).
# Not listed: the sources file, whose `[fx]` table's default is the FX kind's, and the Dagster jobs, one of which
# runs the price list's backfill (a kind's `steps/`).
GENERIC_ROOMS = (
    "pipelines.refresh",
    "pipelines.fetch",
    "pipelines.reading",
    "pipelines.definitions",
    "assets",
    "warehouse",
    "schemas",
)


def test_the_generic_rooms_name_no_kind():
    named = sorted(
        f"{module} -> {imported}"
        for module, imported in import_edges()
        if module.startswith(GENERIC_ROOMS) and ".".join(imported.split(".")[:2]) in KIND_FOLDER_NAMES
    )
    assert named == []
    assert "pipelines.pricelist" in KIND_FOLDER_NAMES  # the names compared are the folders' module names


def test_pipelines_top_level_stays_a_handful_of_modules():
    top = sorted(m for m in graph().find_children("pipelines") if not graph().find_children(m))
    assert len(top) <= 12, top


MODULE_LINES = 300  # a module says one thing
TEST_FILE_LINES = 500  # a test file checks one module, source or path


def long_files(folders: tuple[str, ...], limit: int) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit and not any(part in ("node_modules", "__pycache__") for part in path.parts):
                found.append(f"{path.relative_to(ROOT)}: {lines} lines")
    return found


def test_no_module_is_longer_than_it_can_be_read():
    assert long_files(("pipelines", "assets", "schemas", "warehouse", "bench"), MODULE_LINES) == []
    assert long_files(("tests",), TEST_FILE_LINES) == []
