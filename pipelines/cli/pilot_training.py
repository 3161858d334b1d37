"""`ratecard pilot training FILE.csv`: training runs to a target quality, validated, then landed append-only; the
view training_costs prices each run that reached its target, every overhead billed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipelines.cli.options import WriteOption, named_path
from pipelines.cli.pilot_input import land_input, read_csv_file, say_repeated
from warehouse.files import DEFAULT_DB_PATH

TRAINING_HELP = (
    "CSV: workload,provider,offering,region,price_kind,purchase_option,offering_class,instances,wall_hours,"
    "compile_hours,warmup_hours,interrupted_hours,recovery_hours,quality_reached,target_metric,dataset,evaluation,"
    "stopping_criterion,framework_path,measured_on,note"
)


def register_training(pilot_app: typer.Typer, console: Console) -> None:
    @pilot_app.command("training")
    def training(
        file: Annotated[Path, typer.Argument(parser=named_path, help=TRAINING_HELP)],
        db: WriteOption = DEFAULT_DB_PATH,
        wait: Annotated[
            float, typer.Option("--wait", min=0, help="Seconds to wait for a refresh or a program holding it.")
        ] = 30.0,
    ) -> None:
        """Import training runs to a target quality from a CSV file; one bad row and nothing lands."""
        from pipelines.cli.show import reading
        from pipelines.pilots.landing import sha256_of
        from pipelines.pilots.show import TRAINING, training_table
        from pipelines.pilots.training import land_training, read_training_csv
        from warehouse.queries import rows_as_dicts

        origin = str(file)
        content, text = read_csv_file(origin, file)
        runs = read_training_csv(origin, text)
        landed = land_input(db, wait, lambda con: land_training(con, origin, sha256_of(content), runs))
        if not say_repeated(console, landed, str(file)):
            console.print(f"{landed.rows} training run(s) landed from {file} (input {landed.input_id})")
        with reading(db, wait) as con:
            priced = rows_as_dicts(con, TRAINING, {"workloads": sorted({run.workload for run in runs})})
        console.print(training_table(priced))
