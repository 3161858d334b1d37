"""The public views as downstream assets, with checks on what they publish, built from what each kind declares
(`Kind.views`): this module names no kind.

The views are plain SQL over the history tables (created with the schema), so they are current the moment a
source lands (`warehouse.db.connect` applies the schema, views included, only when the SQL files change). Each
asset counts its view's rows and records a preview for the Dagster UI; each check lists the rows it finds.
"""

from collections.abc import Sequence
from typing import Any

import dagster as dg

from assets.sources import WRITER_POOL, source_asset_key
from pipelines.kind import ViewAsset, ViewCheck
from pipelines.kinds import kind_named
from pipelines.orchestration.resources import WarehouseResource
from pipelines.sources.file import SourceSpec
from warehouse.db import connect
from warehouse.queries import one_row, rows_as_dicts

VIEWS_GROUP = "views"


def preview_markdown(rows: list[dict[str, Any]], limit: int = 30) -> str:
    if not rows:
        return "(no rows)"
    names = list(rows[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join("" if r[n] is None else str(r[n]) for n in names) + " |" for r in rows[:limit]]
    return "\n".join(lines)


def _figure(value: Any) -> dg.MetadataValue:
    return dg.MetadataValue.int(value) if isinstance(value, int) else dg.MetadataValue.text(str(value))


def _view_asset(view: ViewAsset, deps: list[dg.AssetKey]) -> dg.AssetsDefinition:
    @dg.asset(
        key=dg.AssetKey(view.key),
        group_name=VIEWS_GROUP,
        deps=deps,
        kinds={"duckdb"},
        pool=WRITER_POOL,
        description=view.description,
    )
    def _asset(warehouse: WarehouseResource) -> dg.MaterializeResult[None]:
        with connect(warehouse.db_path) as con:  # the views already exist: connect() applied the schema
            (count,) = one_row(con, view.count)
            preview = rows_as_dicts(con, view.preview)
        return dg.MaterializeResult(
            metadata={
                "row_count": dg.MetadataValue.int(count),
                view.preview_label: dg.MetadataValue.md(preview_markdown(preview)),
            }
        )

    return _asset


def view_check(view_key: str, check: ViewCheck) -> dg.AssetChecksDefinition:
    # Checks read the file, so they queue in the writers' pool too: DuckDB refuses a reader while a writer holds it.
    @dg.asset_check(asset=dg.AssetKey(view_key), name=check.name, pool=WRITER_POOL, description=check.description)
    def _check(warehouse: WarehouseResource) -> dg.AssetCheckResult:
        with connect(warehouse.db_path, read_only=True) as con:  # checks only look
            rows = rows_as_dicts(con, check.query)
            summary = rows_as_dicts(con, check.summary)[0] if check.summary else {}
        return dg.AssetCheckResult(
            passed=not rows,
            severity=dg.AssetCheckSeverity.WARN if check.warn_only else dg.AssetCheckSeverity.ERROR,
            metadata={
                **{name: _figure(value) for name, value in summary.items()},
                check.label: dg.MetadataValue.md(preview_markdown(rows)),
            },
        )

    return _check


def build_view_assets(
    sources: Sequence[SourceSpec],
) -> tuple[list[dg.AssetsDefinition], list[dg.AssetChecksDefinition]]:
    """Every view asset the sources' kinds declare, after those sources (or after the views it reads), and their
    checks."""
    assets, checks = [], []
    for name in dict.fromkeys(s.kind for s in sources):
        own = [source_asset_key(s.id) for s in sources if s.kind == name]
        for view in kind_named(name).views:
            assets.append(_view_asset(view, [dg.AssetKey(k) for k in view.after] if view.after else own))
            checks += [view_check(view.key, check) for check in view.checks]
    return assets, checks
