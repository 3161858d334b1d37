"""`python -m bench.engines OTHER_PYTHON [--small] [scenario ...]`, run from the checkout: the same DuckDB-bound
scenarios under this interpreter's DuckDB and under another's (a virtualenv with another duckdb release and the
project's other dependencies; the checkout is on its path as the working directory), one after the other in this
run, and each timing's ratio.

It shows whether a DuckDB pin costs speed: ratecard pins duckdb 1.5.5 (the DuckLake extension wheels exist for it
alone) where it ran 2.0.1 before. A ratio above 1 means this interpreter's engine is slower.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version

from bench import history, landing, pricelist_landing

SCENARIOS = {"landing": landing, "history": history, "pricelist_landing": pricelist_landing}
# `--small`: tiny sizes, for the smoke test that proves the comparison still runs (its figures mean nothing).
SMALL = {
    "landing": landing.Sizes(sources=2, n_types=2, rounds=10, reps=1),
    "history": history.Sizes(days=12, aws_types=2, gpu_listings=100, reps=1),
    "pricelist_landing": pricelist_landing.Sizes(regions=2, n_types=2, reps=1),
}
# Run in a child interpreter: one scenario's medians as JSON (name -> seconds), and that engine's version.
CHILD = """
import json, sys
from importlib.metadata import version
from bench.engines import medians
print(json.dumps({"duckdb": version("duckdb"), "medians": medians(sys.argv[1], sys.argv[2] == "small")}))
"""


def medians(scenario: str, small: bool = False) -> dict[str, float]:
    """Each timed row of the scenario: its median in seconds."""
    module = SCENARIOS[scenario]
    results = module.run(SMALL[scenario]) if small else module.run()  # type: ignore[attr-defined]
    return {f"{r.scenario}: {r.name}": r.timing.median for r in results if r.timing is not None}


def in_other(python: str, scenario: str, small: bool) -> tuple[str, dict[str, float]]:
    size = "small" if small else "full"
    done = subprocess.run([python, "-c", CHILD, scenario, size], capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["duckdb"], answer["medians"]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    small = "--small" in argv
    argv = [a for a in argv if a != "--small"]
    other, chosen = argv[0], argv[1:] or list(SCENARIOS)
    mine = version("duckdb")
    print(f"ratecard bench.engines — this interpreter: duckdb {mine}; other: {other}")
    for scenario in chosen:
        print(f"running {scenario} under both …", file=sys.stderr, flush=True)
        here = medians(scenario, small)
        theirs_version, theirs = in_other(other, scenario, small)
        print(f"\n{scenario}: duckdb {mine} vs duckdb {theirs_version} (medians; ratio = {mine} ÷ {theirs_version})")
        for name, seconds in here.items():
            if name in theirs:
                ratio = seconds / theirs[name]
                print(f"  {name:<70} {seconds:9.3f} s {theirs[name]:9.3f} s  {ratio:5.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
