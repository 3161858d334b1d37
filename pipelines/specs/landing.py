"""The accelerator specification tables (kind `spec`), versioned like AWS specs: chips, configurations, compute
figures of both, the Neuron SDK release, launch dates and vendor claims."""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from pipelines.specs.records import Compute, SpecBatch
from warehouse.landing import Snapshot
from warehouse.sql_files import SchemaPart
from warehouse.versioning import VersionedTable, rehash

FIGURE = pa.decimal128(18, 6)

CHIPS = VersionedTable(
    name="accelerator_chip_history",
    key_columns=("chip",),
    attribute_fields=(
        pa.field("chip", pa.string()),
        pa.field("neuron_cores", pa.int32()),
        pa.field("neuron_core_version", pa.string()),
        pa.field("memory_printed", pa.string()),
        pa.field("memory_value", FIGURE),
        pa.field("memory_unit", pa.string()),
        pa.field("memory_gib", FIGURE),
        pa.field("bandwidth_printed", pa.string()),
        pa.field("bandwidth_value", FIGURE),
        pa.field("bandwidth_unit", pa.string()),
        pa.field("bandwidth_gb_s", FIGURE),
        pa.field("doc_version", pa.string()),
        pa.field("vendor", pa.string()),
    ),
)

CONFIGS = VersionedTable(
    name="accelerator_config_history",
    key_columns=("configuration",),
    attribute_fields=(
        pa.field("configuration", pa.string()),
        pa.field("chip", pa.string()),
        pa.field("chips", pa.int32()),
        pa.field("memory_printed", pa.string()),
        pa.field("memory_value", FIGURE),
        pa.field("memory_unit", pa.string()),
        pa.field("memory_gib", FIGURE),
        pa.field("doc_version", pa.string()),
        pa.field("bandwidth_printed", pa.string()),
        pa.field("bandwidth_value", FIGURE),
        pa.field("bandwidth_unit", pa.string()),
        pa.field("bandwidth_gb_s", FIGURE),
    ),
)

COMPUTE = VersionedTable(
    name="accelerator_compute_history",
    key_columns=("subject_kind", "subject", "number_format", "sparse"),
    attribute_fields=(
        pa.field("subject_kind", pa.string()),
        pa.field("subject", pa.string()),
        pa.field("chip", pa.string()),
        pa.field("number_format", pa.string()),
        pa.field("label_printed", pa.string()),
        pa.field("value", FIGURE),
        pa.field("unit", pa.string()),
        pa.field("sparse", pa.bool_()),
        pa.field("tera", FIGURE),
        pa.field("doc_version", pa.string()),
    ),
)

RELEASES = VersionedTable(
    name="neuron_sdk_release_history",
    key_columns=("product",),
    attribute_fields=(
        pa.field("product", pa.string()),
        pa.field("version", pa.string()),
        pa.field("release_date", pa.date32()),
        pa.field("date_printed", pa.string()),
        pa.field("other_dates", pa.string()),
    ),
)

LAUNCHES = VersionedTable(
    name="accelerator_launch_history",
    key_columns=("family",),
    attribute_fields=(
        pa.field("family", pa.string()),
        pa.field("chip", pa.string()),
        pa.field("launch_date", pa.date32()),
        pa.field("status", pa.string()),
        pa.field("launch_source_url", pa.string()),
        pa.field("note", pa.string()),
    ),
)

CLAIMS = VersionedTable(
    name="vendor_claim_history",
    key_columns=("claim_text",),  # within one source, which reads one page
    attribute_fields=(
        pa.field("claim_text", pa.string()),
        pa.field("page_title", pa.string()),
        pa.field("page_date", pa.date32()),
        pa.field("is_claim", pa.bool_()),
    ),
    # Where the page was read is provenance, not the claim: a page served from another address (offline, a
    # mirror) must not make the same sentence a new version.
    carried_fields=(pa.field("page_url", pa.string()),),
)

# The curated NVIDIA reference: one row per GPU and figure, each with its own source URL and date.
GPU_FIGURES = VersionedTable(
    name="gpu_reference_figure_history",
    key_columns=("gpu", "figure_key"),
    attribute_fields=(
        pa.field("gpu", pa.string()),
        pa.field("gpu_model", pa.string()),
        pa.field("gpu_variant", pa.string()),
        pa.field("aws_accelerator", pa.string()),
        pa.field("aws_memory_gb", FIGURE),
        pa.field("figure_key", pa.string()),
        pa.field("figure", pa.string()),
        pa.field("number_format", pa.string()),
        pa.field("sparse", pa.bool_()),
        pa.field("printed", pa.string()),
        pa.field("value", FIGURE),
        pa.field("unit", pa.string()),
        pa.field("normalised", FIGURE),
        pa.field("normalised_unit", pa.string()),
        pa.field("figure_source_url", pa.string()),
        pa.field("figure_source_date", pa.date32()),
        pa.field("note", pa.string()),
    ),
)

SPEC_TABLES = tuple(t.name for t in (CHIPS, CONFIGS, COMPUTE, RELEASES, LAUNCHES, CLAIMS, GPU_FIGURES))


# Columns a file or lake made before Google's TPUs landed holds NOT NULL: a TPU has no NeuronCores.
NEURON_COLUMNS_NOT_NULL = """
SELECT column_name FROM information_schema.columns
WHERE table_catalog = current_database() AND table_name = 'accelerator_chip_history'
  AND column_name IN ('neuron_cores', 'neuron_core_version') AND is_nullable = 'NO'
ORDER BY column_name
"""
DROP_NOT_NULL = {
    "neuron_cores": "ALTER TABLE accelerator_chip_history ALTER COLUMN neuron_cores DROP NOT NULL",
    "neuron_core_version": "ALTER TABLE accelerator_chip_history ALTER COLUMN neuron_core_version DROP NOT NULL",
}


def upgrade_spec_history(con: duckdb.DuckDBPyConnection, _part: SchemaPart) -> None:
    """After the schema files ran: the NeuronCore columns of older chip tables admit a chip without them (looked up
    first: a lake refuses to drop a NOT NULL a column does not have); chips and configurations landed before their
    vendor or memory bandwidth was read get their attribute hashes in the current definition, so their next refresh
    finds them unchanged or opens versions that carry the new figure."""
    for (column,) in con.execute(NEURON_COLUMNS_NOT_NULL).fetchall():
        con.execute(DROP_NOT_NULL[column])
    rehash(con, CHIPS)
    rehash(con, CONFIGS)


def _gpu_figure_rows(batch: SpecBatch) -> list[dict[str, Any]]:
    rows = []
    for gpu in batch.gpus:
        about = gpu.model_dump(mode="python", exclude={"figures"})
        for f in gpu.figures:
            figure = f.model_dump(mode="python", exclude={"source_url", "source_date"})
            extra = {"figure_key": f.key, "figure_source_url": f.source_url, "figure_source_date": f.source_date}
            rows.append(about | figure | extra)
    return rows


def _compute_rows(
    kind: str, subject: str, chip: str, version: str | None, items: list[Compute]
) -> list[dict[str, Any]]:
    return [
        {
            **item.model_dump(mode="python"),
            "subject_kind": kind,
            "subject": subject,
            "chip": chip,
            "doc_version": version,
        }
        for item in items
    ]


def spec_snapshots(batch: SpecBatch) -> list[Snapshot]:
    compute = [r for c in batch.chips for r in _compute_rows("chip", c.chip, c.chip, c.doc_version, c.compute)]
    compute += [
        r
        for c in batch.configs
        for r in _compute_rows("configuration", c.configuration, c.chip, c.doc_version, c.compute)
    ]
    releases = [{**r.model_dump(mode="python"), "other_dates": "; ".join(r.other_dates)} for r in batch.releases]
    launches = [
        {**launch.model_dump(mode="python", exclude={"source_url"}), "launch_source_url": launch.source_url}
        for launch in batch.launches
    ]
    return [
        Snapshot(CHIPS, [c.model_dump(mode="python", exclude={"compute"}) for c in batch.chips]),
        Snapshot(CONFIGS, [c.model_dump(mode="python", exclude={"compute"}) for c in batch.configs]),
        Snapshot(COMPUTE, compute),
        Snapshot(RELEASES, releases),
        Snapshot(LAUNCHES, launches),
        Snapshot(CLAIMS, [c.model_dump(mode="python") for c in batch.claims]),
        Snapshot(GPU_FIGURES, _gpu_figure_rows(batch)),
    ]


# Specifications carry no price, so only the row-count and shape rules apply to them: to the records
# SpecBatch.row_count counts (compute figures ride on their chip or configuration).
CURRENT_ROWS = "SELECT " + " + ".join(
    f"(SELECT count(*) FROM {table.name} WHERE source_id = $source_id AND valid_to IS NULL)"
    for table in (CHIPS, CONFIGS, RELEASES, LAUNCHES, CLAIMS)
)
