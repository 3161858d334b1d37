"""`python -m bench.engines OTHER_PYTHON [--other-dir DIR] [--rounds N] [--small] [scenario ...]`: the same
DuckDB-bound scenarios under this interpreter's DuckDB and under another's (a virtualenv with another duckdb release
and the project's other dependencies), each side in a fresh process, the sides alternating which goes first over N
rounds (default 2), all in this run; each timed row's best median per side, and their ratio.

The other interpreter runs this checkout's code, or with `--other-dir` another checkout's (e.g. `git archive` of
the release before a change): then the ratio is what a user sees on upgrading, engine and code together.

It shows whether a DuckDB pin costs speed: ratecard pins duckdb 1.5.5 (the DuckLake extension wheels exist for it
alone) where it ran 2.0.1 before. A ratio above 1 means this interpreter's engine is slower.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from bench import history, landing, offline_refresh, pricelist_landing

CHECKOUT = str(Path(__file__).resolve().parents[1])
SCENARIOS = {
    "landing": landing,
    "history": history,
    "pricelist_landing": pricelist_landing,
    "offline_refresh": offline_refresh,
}
# `--small`: tiny sizes, for the smoke test that proves the comparison still runs (its figures mean nothing).
SMALL = {
    "landing": landing.Sizes(sources=2, n_types=2, rounds=10, reps=1),
    "history": history.Sizes(days=12, aws_types=2, gpu_listings=100, reps=1),
    "pricelist_landing": pricelist_landing.Sizes(regions=2, n_types=2, reps=1),
    "offline_refresh": offline_refresh.Sizes(reps=1),
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


def in_child(python: str, scenario: str, small: bool, cwd: str | None = None) -> tuple[str, dict[str, float]]:
    """The scenario's medians from a fresh `python` (both sides run so, alike), and its duckdb version."""
    size = "small" if small else "full"
    command = [python, "-c", CHILD, scenario, size]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=cwd)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["duckdb"], answer["medians"]


Side = tuple[str, dict[str, float]]  # duckdb version, medians by timed row


def best_of_rounds(scenario: str, args: argparse.Namespace) -> tuple[Side, Side]:
    """Each side's lowest median per row over the rounds. The sides swap order every round, so neither always
    runs on a machine the other has just warmed (or heated)."""
    sides: list[list[Side]] = [[], []]
    for round_ in range(args.rounds):
        order = (0, 1) if round_ % 2 == 0 else (1, 0)
        for side in order:
            python, cwd = (sys.executable, CHECKOUT) if side == 0 else (args.other, args.other_dir or CHECKOUT)
            sides[side].append(in_child(python, scenario, args.small, cwd))
    return best(sides[0]), best(sides[1])


def best(runs: list[Side]) -> Side:
    names = runs[0][1]
    return runs[0][0], {name: min(run[1][name] for run in runs if name in run[1]) for name in names}


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.engines", description="The same scenarios under two DuckDB releases, and each ratio."
    )
    parser.add_argument("other", help="the other interpreter (a virtualenv's bin/python)")
    parser.add_argument("scenarios", nargs="*", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--other-dir", help="another checkout, whose code the other interpreter runs")
    parser.add_argument("--small", action="store_true", help="tiny sizes: proves the comparison runs")
    parser.add_argument("--rounds", type=int, default=2, help="runs per side, alternating which goes first")
    args = parser.parse_intermixed_args(argv)
    if os.sep in args.other:  # a path: made absolute, since the child runs in --other-dir or the checkout
        args.other = os.path.abspath(args.other)
    if unknown := set(args.scenarios) - set(SCENARIOS):
        parser.error(f"unknown scenario {', '.join(sorted(unknown))}; choose from {', '.join(SCENARIOS)}")
    return args


def main(argv: list[str]) -> int:
    args = arguments(argv)
    chosen = args.scenarios or list(SCENARIOS)
    mine = version("duckdb")
    code = f"code from {args.other_dir}" if args.other_dir else "this checkout's code"
    print(f"ratecard bench.engines — this interpreter: duckdb {mine}; other: {args.other}, {code}")
    for scenario in chosen:
        print(f"running {scenario} under both, {args.rounds} round(s) …", file=sys.stderr, flush=True)
        here, theirs = best_of_rounds(scenario, args)
        print(
            f"\n{scenario}: duckdb {mine} vs duckdb {theirs[0]} (best median of {args.rounds} round(s), the side "
            f"that goes first alternating; ratio = {mine} ÷ {theirs[0]})"
        )
        for name, seconds in here[1].items():
            if name in theirs[1]:
                ratio = seconds / theirs[1][name]
                print(f"  {name:<70} {seconds * 1e3:9.1f} ms {theirs[1][name] * 1e3:9.1f} ms  {ratio:5.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
