"""`python -m bench.engines OTHER_PYTHON [scenario ...]`: the same DuckDB-bound scenarios under this
interpreter's DuckDB and under another's (a virtualenv with another duckdb release, the project installed in it
with `-e`), one after the other in this run, and each timing's ratio.

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
# Run in a child interpreter: one scenario's medians as JSON (name -> seconds), and that engine's version.
CHILD = """
import json, sys
from importlib.metadata import version
from bench.engines import medians
print(json.dumps({"duckdb": version("duckdb"), "medians": medians(sys.argv[1])}))
"""


def medians(scenario: str) -> dict[str, float]:
    """Each timed row of the scenario: its median in seconds."""
    return {f"{r.scenario}: {r.name}": r.timing.median for r in SCENARIOS[scenario].run() if r.timing is not None}


def in_other(python: str, scenario: str) -> tuple[str, dict[str, float]]:
    done = subprocess.run([python, "-c", CHILD, scenario], capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["duckdb"], answer["medians"]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    other, chosen = argv[0], argv[1:] or list(SCENARIOS)
    mine = version("duckdb")
    print(f"ratecard bench.engines — this interpreter: duckdb {mine}; other: {other}")
    for scenario in chosen:
        print(f"running {scenario} under both …", file=sys.stderr, flush=True)
        here = medians(scenario)
        theirs_version, theirs = in_other(other, scenario)
        print(f"\n{scenario}: duckdb {mine} vs duckdb {theirs_version} (medians; ratio = {mine} ÷ {theirs_version})")
        for name, seconds in here.items():
            if name in theirs:
                ratio = seconds / theirs[name]
                print(f"  {name:<70} {seconds:9.3f} s {theirs[name]:9.3f} s  {ratio:5.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
