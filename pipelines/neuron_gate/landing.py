"""The Neuron gate's tables, versioned per source like the specifications: the manifest's packages by release, the
documentation's status statements by package, release dates, and the SDK policy's life-cycle phases."""

from __future__ import annotations

import pyarrow as pa

from pipelines.neuron_gate.records import GateBatch
from warehouse.landing import Snapshot
from warehouse.versioning import VersionedTable

NAMES = pa.list_(pa.string())

PACKAGES = VersionedTable(
    name="neuron_package_history",
    key_columns=("release", "package", "package_version"),
    attribute_fields=(
        pa.field("release", pa.string()),
        pa.field("package", pa.string()),
        pa.field("package_version", pa.string()),
        pa.field("instances", NAMES),
        pa.field("unread_instances", NAMES),
        pa.field("python_versions", NAMES),
    ),
)

STATEMENTS = VersionedTable(
    name="neuron_support_history",
    # Within one source, which reads one page: a package (or some versions of it), for one work or any.
    key_columns=("package", "work", "versions"),
    attribute_fields=(
        pa.field("package", pa.string()),
        pa.field("framework", pa.string()),
        pa.field("manifest_package", pa.string()),
        pa.field("status", pa.string()),
        pa.field("printed_statuses", NAMES),
        pa.field("instances", NAMES),
        pa.field("instances_only", pa.bool_()),
        pa.field("from_release", pa.string()),
        pa.field("last_release", pa.string()),
        pa.field("versions", pa.string()),
        pa.field("doc_release", pa.string()),
        pa.field("work", pa.string()),
        pa.field("in_maintenance", pa.bool_()),
        pa.field("announced_on", pa.date32()),
        pa.field("quoted", pa.string()),
    ),
)

RELEASE_DATES = VersionedTable(
    name="neuron_release_date_history",
    key_columns=("release",),
    attribute_fields=(
        pa.field("release", pa.string()),
        pa.field("release_date", pa.date32()),
        pa.field("date_printed", pa.string()),
    ),
)

PHASES = VersionedTable(
    name="neuron_lifecycle_history",
    key_columns=("phase",),
    attribute_fields=(
        pa.field("phase", pa.string()),
        pa.field("also_called", pa.string()),
        pa.field("printed", pa.string()),
        pa.field("meaning", pa.string()),
        pa.field("applies", pa.string()),
    ),
)

GATE_TABLES = tuple(t.name for t in (PACKAGES, STATEMENTS, RELEASE_DATES, PHASES))


def gate_snapshots(batch: GateBatch) -> list[Snapshot]:
    return [
        Snapshot(PACKAGES, [p.model_dump(mode="python") for p in batch.packages]),
        Snapshot(STATEMENTS, [s.model_dump(mode="python") for s in batch.statements]),
        Snapshot(RELEASE_DATES, [r.model_dump(mode="python") for r in batch.releases]),
        Snapshot(PHASES, [p.model_dump(mode="python") for p in batch.phases]),
    ]


# Only the row-count and shape rules apply: the gate carries no price.
CURRENT_ROWS = "SELECT " + " + ".join(
    f"(SELECT count(*) FROM {table.name} WHERE source_id = $source_id AND valid_to IS NULL)"
    for table in (PACKAGES, STATEMENTS, RELEASE_DATES, PHASES)
)
