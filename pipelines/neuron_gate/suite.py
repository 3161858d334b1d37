"""The Neuron gate's expectation suite: every record of a batch as one row (which record, its business key, the
status word, a release, an instance family list), checked for what pydantic cannot see across records: keys unique
within a batch, status words from the documentation's vocabulary, releases and instance families well formed."""

from __future__ import annotations

from typing import Any

from pipelines.neuron_gate.records import INSTANCE_FAMILY, RELEASE, STATUS_ORDER, GateBatch
from schemas.gx_stacked import RowSuite, StackedSuite

SUITE = "neuron_gate"
COLUMNS = ["record", "business_key", "status", "release", "instance", "quoted"]


def gate_rows(batch: GateBatch) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(record: str, key: str, release: str | None, instances: list[str] | None, **more: Any) -> None:
        # One row per instance family named (a list cannot go through a regex check), one with none when unstated.
        named: list[str | None] = [*instances] if instances else [None]
        empty = {"status": None, "quoted": None}
        rows.extend(
            {"record": record, "business_key": f"{record}|{key}|{i}", "release": release, "instance": i} | empty | more
            for i in named
        )

    for p in batch.packages:
        add("package", f"{p.release}|{p.package}|{p.package_version}", p.release, p.instances)
    for s in batch.statements:
        key = f"{s.package.lower()}|{s.work or 'any work'}"  # one thing for training, another for inference
        add("statement", key, s.from_release, s.instances, status=s.status, quoted=s.quoted)
    for phase in batch.phases:
        add("lifecycle_phase", phase.phase.lower(), None, None, quoted=phase.meaning)
    for r in batch.releases:
        add("release_date", r.release, r.release, None)
    return rows


def _row_count(gxe: Any) -> Any:
    return gxe.ExpectTableRowCountToBeBetween(min_value=1)


def _columns(gxe: Any) -> list[Any]:
    return [
        gxe.ExpectColumnValuesToNotBeNull(column="record"),
        gxe.ExpectColumnValuesToBeUnique(column="business_key"),
        gxe.ExpectColumnValuesToBeInSet(column="status", value_set=list(STATUS_ORDER)),
        gxe.ExpectColumnValuesToMatchRegex(column="release", regex=RELEASE),
        gxe.ExpectColumnValuesToMatchRegex(column="instance", regex=INSTANCE_FAMILY),
        # A statement is only as good as its quote: one without its words is refused.
        gxe.ExpectColumnValueLengthsToBeBetween(column="quoted", min_value=8),
    ]


SUITE_ROWS = RowSuite(StackedSuite(SUITE, COLUMNS, scoped=["business_key"]), gate_rows, _row_count, _columns)
validate_gate = SUITE_ROWS.validate
validate_gate_many = SUITE_ROWS.validate_many
