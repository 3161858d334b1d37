"""`ratecard pilot add|import|plan`: pilot measurements and migration plans, validated, then landed append-only.

Nothing is written until every row passed pydantic, the Great Expectations suite and the offering check (which
reads the current prices); the landing is one transaction, then the snapshot is republished so `ratecard show`
and SQL clients see it.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from pipelines.cli.formats import FormatOption, OutputFormat, OutputOption, WideOption, check_output
from pipelines.cli.options import SnapshotReadOption, WriteOption, named_path
from pipelines.cli.pilot_costs import CostTable
from pipelines.cli.pilot_input import canonical, land_input, read_csv_file, say_repeated, validated
from pipelines.cli.pilot_training import register_training
from pipelines.cli.reporting import Mistake
from pipelines.pilots.errors import PilotInputError
from warehouse.files import DEFAULT_DB_PATH

pilot_app = typer.Typer(help="Pilot results (cost per completed work) and migration plans (payback).")
DbOption = WriteOption
WaitOption = Annotated[
    float, typer.Option("--wait", min=0, help="Seconds to wait for a refresh or a program holding it.")
]
ProviderOption = Annotated[
    str | None, typer.Option("--provider", help="GPU provider of a listing; leave out for an AWS instance type.")
]
RegionOption = Annotated[str | None, typer.Option("--region", help="Region as in the price view; omit when none.")]
KindOption = Annotated[str, typer.Option("--kind", help="Price kind: on_demand, spot, reserved_1y, ...")]
PurchaseOption = Annotated[
    str | None, typer.Option("--purchase-option", help="Reserved or Savings Plan terms: No Upfront, ...")
]
OfferingClassOption = Annotated[
    str | None, typer.Option("--offering-class", help="Reserved terms: standard or convertible.")
]


def register(app: typer.Typer, console: Console) -> None:
    app.add_typer(pilot_app, name="pilot")
    register_training(pilot_app, console)

    @pilot_app.command("add")
    def add(
        workload: Annotated[str, typer.Option("--workload", help="Workload name, as plans refer to it.")],
        offering: Annotated[str, typer.Option("--offering", help="AWS instance type, or the provider's listing.")],
        unit: Annotated[str, typer.Option("--unit", help="Work unit: tokens, steps or requests.")],
        units_per_hour: Annotated[str, typer.Option("--units-per-hour", help="Measured work units per hour.")],
        passed: Annotated[bool, typer.Option("--passed/--failed", help="Quality target met or not.")],
        measured_on: Annotated[str, typer.Option("--measured-on", help="Date measured, YYYY-MM-DD.")],
        kind: KindOption = "on_demand",
        provider: ProviderOption = None,
        region: RegionOption = None,
        purchase_option: PurchaseOption = None,
        offering_class: OfferingClassOption = None,
        note: Annotated[str | None, typer.Option("--note", help="Free text.")] = None,
        db: DbOption = DEFAULT_DB_PATH,
        wait: WaitOption = 30.0,
    ) -> None:
        """Record one pilot measurement for a workload on an offering."""
        from pipelines.pilots.landing import land_pilots, sha256_of
        from pipelines.pilots.records import pilot_from_fields

        fields = {
            "workload": workload,
            "provider": provider,
            "offering": offering,
            "region": region,
            "price_kind": kind,
            "purchase_option": purchase_option,
            "offering_class": offering_class,
            "work_unit": unit,
            "units_per_hour": units_per_hour,
            "quality_passed": passed,
            "measured_on": measured_on,
            "note": note,
        }
        origin = "ratecard pilot add"
        record = pilot_from_fields("options", fields, origin)
        validated(origin, [record])
        landed = land_input(db, wait, lambda con: land_pilots(con, origin, sha256_of(canonical(fields)), [record]))
        if not say_repeated(console, landed, "this pilot"):
            console.print(f"pilot landed (input {landed.input_id}): {record.workload} on {record.describe()}")

    @pilot_app.command("import")
    def import_file(
        file: Annotated[
            Path,
            typer.Argument(parser=named_path, help="CSV: workload,provider,offering,region,price_kind,work_unit,..."),
        ],
        db: DbOption = DEFAULT_DB_PATH,
        wait: WaitOption = 30.0,
    ) -> None:
        """Import pilot measurements from a CSV file; one bad row and nothing lands."""
        from pipelines.pilots.landing import land_pilots, sha256_of
        from pipelines.pilots.records import read_pilot_csv

        origin = str(file)
        content, text = read_csv_file(origin, file)
        records = read_pilot_csv(origin, text)
        validated(origin, records)
        landed = land_input(db, wait, lambda con: land_pilots(con, origin, sha256_of(content), records))
        if not say_repeated(console, landed, str(file)):
            console.print(f"{landed.rows} pilot results landed from {file} (input {landed.input_id})")

    @pilot_app.command("traffic")
    def traffic(
        workload: Annotated[str | None, typer.Option("--workload", help="Workload, as its pilots name it.")] = None,
        monthly_units: Annotated[str | None, typer.Option("--monthly-units", help="Work units per month.")] = None,
        active_hours: Annotated[
            str | None, typer.Option("--active-hours-per-day", help="Hours a day during which requests arrive.")
        ] = None,
        peak: Annotated[
            str | None, typer.Option("--peak-units-per-hour", help="Work units in the busiest hour.")
        ] = None,
        days: Annotated[str, typer.Option("--days-per-month", help="Days a month with traffic.")] = "30",
        cold_start: Annotated[
            str, typer.Option("--cold-start-seconds", help="A serverless worker's start-up (model load), seconds.")
        ] = "0",
        csv_file: Annotated[
            Path | None, typer.Option("--csv", parser=named_path, help="Profiles from a CSV instead of options.")
        ] = None,
        note: Annotated[str | None, typer.Option("--note", help="Free text.")] = None,
        db: DbOption = DEFAULT_DB_PATH,
        wait: WaitOption = 30.0,
    ) -> None:
        """Record a workload's traffic profile (or many, from --csv): monthly volume, active hours, peak."""
        from pipelines.pilots.landing import sha256_of
        from pipelines.pilots.traffic import land_traffic, read_traffic_csv, traffic_from_fields

        if csv_file is not None:
            origin = str(csv_file)
            content, text = read_csv_file(origin, csv_file)
            profiles = read_traffic_csv(origin, text)
        else:
            origin = "ratecard pilot traffic"
            fields = {
                "workload": workload,
                "monthly_units": monthly_units,
                "active_hours_per_day": active_hours,
                "peak_units_per_hour": peak,
                "days_per_month": days,
                "cold_start_seconds": cold_start,
                "note": note,
            }
            profiles = [traffic_from_fields("options", fields, origin)]
            content = canonical(fields)
        landed = land_input(db, wait, lambda con: land_traffic(con, origin, sha256_of(content), profiles))
        names = ", ".join(p.workload for p in profiles)
        if not say_repeated(console, landed, "this traffic input"):
            console.print(f"{landed.rows} traffic profile(s) landed (input {landed.input_id}): {names}")

    @pilot_app.command("costs")
    def costs(
        workload: Annotated[str, typer.Option("--workload", help="Workload, as its pilots and profile name it.")],
        fmt: FormatOption = OutputFormat.table,
        output: OutputOption = None,
        table: Annotated[
            CostTable | None, typer.Option("--table", help="The table csv or parquet writes (default: ranking).")
        ] = None,
        wide: WideOption = False,
        db: SnapshotReadOption = DEFAULT_DB_PATH,
        wait: WaitOption = 30.0,
    ) -> None:
        """Rank every priced candidate by a month of the workload's traffic, always-on against serverless."""
        from pipelines.cli.pilot_costs import print_costs, write_costs
        from pipelines.cli.show import reading
        from pipelines.pilots.costs import workload_costs, workload_names

        check_output(fmt, output, "costs.parquet")
        with reading(db, wait) as con:
            found = workload_costs(con, workload)
            known = [] if found["profile"].num_rows else workload_names(con)
        if not found["profile"].num_rows:
            raise _no_profile(workload, known, db)
        if fmt is not OutputFormat.table:
            write_costs(found, fmt, output, table)
        elif not print_costs(console, workload, found, wide=wide):
            raise typer.Exit(code=1)

    @pilot_app.command("plan")
    def plan(
        workload: Annotated[str, typer.Option("--workload", help="Workload, as its pilots name it.")],
        baseline: Annotated[str, typer.Option("--baseline", help="Baseline: AWS instance type or listing.")],
        one_time_cost: Annotated[str, typer.Option("--one-time-cost", help="One-time port cost, USD.")],
        monthly_maintenance: Annotated[str, typer.Option("--monthly-maintenance", help="USD per month.")],
        monthly_volume: Annotated[str, typer.Option("--monthly-volume", help="Work units per month.")],
        lifetime_months: Annotated[int, typer.Option("--lifetime-months", help="Workload's expected lifetime.")],
        kind: KindOption = "on_demand",
        provider: ProviderOption = None,
        region: RegionOption = None,
        purchase_option: PurchaseOption = None,
        offering_class: OfferingClassOption = None,
        note: Annotated[str | None, typer.Option("--note", help="Free text.")] = None,
        db: DbOption = DEFAULT_DB_PATH,
        wait: WaitOption = 30.0,
    ) -> None:
        """Record a workload's migration plan: port costs, baseline offering (with its terms on a reserved or Savings
        Plan kind), monthly volume, lifetime."""
        from pydantic import ValidationError

        from pipelines.pilots.landing import land_plan, sha256_of
        from pipelines.pilots.records import MigrationPlan, field_problems

        origin = "ratecard pilot plan"
        fields: dict[str, Any] = {
            "workload": workload,
            "baseline": {
                "provider": provider,
                "offering": baseline,
                "region": region,
                "price_kind": kind,
                "purchase_option": purchase_option,
                "offering_class": offering_class,
            },
            "one_time_cost_usd": _decimal_text(one_time_cost),
            "monthly_maintenance_usd": _decimal_text(monthly_maintenance),
            "monthly_volume": _decimal_text(monthly_volume),
            "lifetime_months": lifetime_months,
            "note": note,
        }
        try:
            record = MigrationPlan.model_validate(fields)
        except ValidationError as exc:
            raise PilotInputError(origin, field_problems("options", exc)) from None
        landed = land_input(db, wait, lambda con: land_plan(con, origin, sha256_of(canonical(fields)), record))
        if not say_repeated(console, landed, "this plan"):
            console.print(f"plan landed (input {landed.input_id}): {workload} against {record.baseline.describe()}")


def _no_profile(workload: str, known: list[str], db: Path) -> Mistake:
    """`pilot costs` for a workload with no traffic profile: say whether the name is known at all, and what is near."""
    from pipelines.cli.hints import nearest_names

    if workload in known:
        return Mistake(
            f"workload {workload!r} has no traffic profile in {db}",
            f"add one: ratecard pilot traffic --workload {workload} --monthly-units N --active-hours-per-day H "
            "--peak-units-per-hour P",
            code=1,
        )
    near = nearest_names(workload, known)
    if near:
        hint = f"did you mean {', '.join(near)}?"
    elif known:
        hint = f"the workloads here: {', '.join(known)}"
    else:
        hint = "land its pilots (ratecard pilot import) and traffic profile (ratecard pilot traffic) first"
    return Mistake(f"unknown workload {workload!r}: no pilot, plan or traffic profile in {db} names it", hint, code=1)


def _decimal_text(text: str) -> Decimal | str:
    """Thousands separators dropped; anything else is left for pydantic to refuse by name."""
    return text.replace(",", "").replace("_", "").strip()
