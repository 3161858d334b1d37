"""Landing pilot results and migration plans: offerings checked against the current prices, then one append.

Everything is checked before the first INSERT, and the inserts share one transaction: a bad row lands nothing.
"""

from __future__ import annotations

import getpass
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb

from pipelines.pilots.errors import PilotInputError
from pipelines.pilots.records import CONDITION_COLUMNS, MigrationPlan, Offering, PilotResult
from warehouse.binding import execute

KNOWN_OFFERING = """
SELECT count(*) FROM offering_prices
WHERE offering_source = $source AND offering = $offering AND price_kind = $price_kind
  AND provider IS NOT DISTINCT FROM $provider AND region IS NOT DISTINCT FROM $region
  AND purchase_option IS NOT DISTINCT FROM $purchase_option AND offering_class IS NOT DISTINCT FROM $offering_class
"""
# The terms an offering of this kind is sold under, when the pilot named others (or none).
OFFERED_TERMS = """
SELECT DISTINCT purchase_option, offering_class FROM offering_prices
WHERE offering_source = $source AND offering = $offering AND price_kind = $price_kind
  AND provider IS NOT DISTINCT FROM $provider AND region IS NOT DISTINCT FROM $region
  AND (purchase_option IS NOT NULL OR offering_class IS NOT NULL)
ORDER BY ALL
"""
NEXT_INPUT_ID = "SELECT coalesce(max(input_id), 0) + 1 FROM pilot_inputs"
INSERT_INPUT = """
INSERT INTO pilot_inputs VALUES ($id, current_timestamp, $by, $origin, $sha, $kind, $rows)
"""
INSERT_PILOT = """
INSERT INTO pilot_result_history (input_id, row_number, workload, offering_source, provider, offering, region,
    price_kind, work_unit, units_per_hour, quality_passed, measured_on, note, latency_target_ms, p95_latency_ms,
    input_units, output_units, concurrency, billed_hours, busy_hours, accepted_outputs, purchase_option,
    offering_class, framework_path)
VALUES ($id, $row, $workload, $source, $provider, $offering, $region, $price_kind, $work_unit, $units_per_hour,
    $quality_passed, $measured_on, $note, $latency_target_ms, $p95_latency_ms, $input_units, $output_units,
    $concurrency, $billed_hours, $busy_hours, $accepted_outputs, $purchase_option, $offering_class, $framework_path)
"""
INSERT_PLAN = """
INSERT INTO migration_plan_history (input_id, workload, baseline_source, baseline_provider, baseline_offering,
    baseline_region, baseline_price_kind, one_time_cost_usd, monthly_maintenance_usd, monthly_volume, lifetime_months,
    note, baseline_purchase_option, baseline_offering_class)
VALUES ($id, $workload, $source, $provider, $offering, $region, $price_kind, $one_time, $maintenance, $volume,
    $lifetime, $note, $purchase_option, $offering_class)
"""


# Where each kind's current rows are: an input is current while every one of its rows is.
CURRENT_ROWS = {
    "pilot": "SELECT input_id FROM pilot_results",
    "traffic": "SELECT input_id FROM traffic_profiles",
    "training": "SELECT input_id FROM training_runs",
    "plan": "SELECT input_id FROM migration_plan_history "
    "QUALIFY row_number() OVER (PARTITION BY workload ORDER BY input_id DESC) = 1",
}
# Per kind, the newest input with this content all of whose rows are current: complete statements made here from
# the constants above, so no statement is put together where it runs.
SAME_INPUT_CURRENT = {
    kind: f"""
SELECT i.input_id FROM pilot_inputs AS i
WHERE i.content_sha256 = $sha AND i.input_kind = $kind
  AND i.row_count = (SELECT count(*) FROM ({current}) AS c WHERE c.input_id = i.input_id)
ORDER BY i.input_id DESC LIMIT 1
"""
    for kind, current in CURRENT_ROWS.items()
}


@dataclass(frozen=True)
class InputLanded:
    input_id: int
    rows: int
    repeated: bool = False  # the same content is already current (input_id names it): nothing was added


def already_current(con: duckdb.DuckDBPyConnection, sha: str, kind: str) -> InputLanded | None:
    """The earlier input of this kind with the same content (SHA-256), when all of its rows are still current: landing
    it again would add only duplicates. An input since superseded, even in part, lands again, so it can be restored."""
    found = con.execute(SAME_INPUT_CURRENT[kind], {"sha": sha, "kind": kind}).fetchone()
    return None if found is None else InputLanded(int(found[0]), 0, repeated=True)


def sha256_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


TERMS = ("purchase_option", "offering_class")


def offering_params(offering: Offering) -> dict[str, object]:
    return {
        "source": offering.source,
        "provider": offering.provider,
        "offering": offering.offering,
        "region": offering.region,
        "price_kind": offering.price_kind,
        "purchase_option": offering.purchase_option,
        "offering_class": offering.offering_class,
    }


def unknown_offerings(con: duckdb.DuckDBPyConnection, labelled: list[tuple[str, Offering]]) -> list[str]:
    """Problems for each offering not in offering_prices (the current AWS prices and GPU listings)."""
    problems = []
    for where, offering in labelled:
        params = offering_params(offering)
        (found,) = execute(con, KNOWN_OFFERING, params).fetchone() or (0,)
        if found:
            continue
        terms = execute(con, OFFERED_TERMS, {k: v for k, v in params.items() if k not in TERMS}).fetchall()
        if terms:
            sold = "; ".join(", ".join(t for t in term if t) for term in terms)
            problems.append(
                f"{where}: {offering.describe()} is sold under terms: name its purchase_option and offering_class "
                f"(one of: {sold})"
            )
        else:
            problems.append(
                f"{where}: unknown offering {offering.describe()}: not in the current prices "
                "(see the offering_prices view for the names, kinds and regions)"
            )
    return problems


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction: the input's provenance row and its rows land together or not at all."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def record_input(con: duckdb.DuckDBPyConnection, origin: str, sha: str, kind: str, rows: int) -> int:
    (input_id,) = con.execute(NEXT_INPUT_ID).fetchone() or (1,)
    execute(
        con,
        INSERT_INPUT,
        {"id": input_id, "by": getpass.getuser(), "origin": origin, "sha": sha, "kind": kind, "rows": rows},
    )
    return int(input_id)


def land_pilots(con: duckdb.DuckDBPyConnection, origin: str, sha: str, records: list[PilotResult]) -> InputLanded:
    problems = unknown_offerings(con, [(f"row {n}", r) for n, r in enumerate(records, start=1)])
    if problems:
        raise PilotInputError(origin, problems)
    if repeated := already_current(con, sha, "pilot"):
        return repeated
    with transaction(con):
        input_id = record_input(con, origin, sha, "pilot", len(records))
        for number, r in enumerate(records, start=1):
            params = {
                **offering_params(r),
                "id": input_id,
                "row": number,
                "workload": r.workload,
                "work_unit": r.work_unit,
                "units_per_hour": r.units_per_hour,
                "quality_passed": r.quality_passed,
                "measured_on": r.measured_on,
                "note": r.note,
                "framework_path": r.framework_path,
                **{name: getattr(r, name) for name in CONDITION_COLUMNS},
            }
            execute(con, INSERT_PILOT, params)
    return InputLanded(input_id, len(records))


def land_plan(con: duckdb.DuckDBPyConnection, origin: str, sha: str, plan: MigrationPlan) -> InputLanded:
    problems = unknown_offerings(con, [("baseline", plan.baseline)])
    if problems:
        raise PilotInputError(origin, problems)
    if repeated := already_current(con, sha, "plan"):
        return repeated
    with transaction(con):
        input_id = record_input(con, origin, sha, "plan", 1)
        # A reserved or Savings Plan baseline names its terms (unknown_offerings refused it otherwise): one price.
        baseline = offering_params(plan.baseline)
        params = {
            **baseline,
            "id": input_id,
            "workload": plan.workload,
            "one_time": plan.one_time_cost_usd,
            "maintenance": plan.monthly_maintenance_usd,
            "volume": plan.monthly_volume,
            "lifetime": plan.lifetime_months,
            "note": plan.note,
        }
        execute(con, INSERT_PLAN, params)
    return InputLanded(input_id, 1)
