"""Google's TPU chips beside the Neuron chips, on both backends: a warehouse made before TPUs landed (its NeuronCore
columns NOT NULL, no vendor column) is brought up when it next opens, keeping its chips as AWS's, and then lands a
TPU page served over HTTP, with no NeuronCores, read back through the views."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.refresh.one_source import refresh_source
from pipelines.sources.file import SourceSpec
from tests.support.backends import BACKENDS, warehouse_at
from warehouse.db import connect

# The chip table as it stood before TPUs: every chip a Neuron chip.
OLDER_CHIPS = """
CREATE OR REPLACE TABLE accelerator_chip_history (
    source_id VARCHAR NOT NULL, chip VARCHAR NOT NULL, neuron_cores INTEGER NOT NULL,
    neuron_core_version VARCHAR NOT NULL, memory_printed VARCHAR NOT NULL, memory_value DECIMAL(18, 6) NOT NULL,
    memory_unit VARCHAR NOT NULL, memory_gib DECIMAL(18, 6) NOT NULL, bandwidth_printed VARCHAR NOT NULL,
    bandwidth_value DECIMAL(18, 6) NOT NULL, bandwidth_unit VARCHAR NOT NULL, bandwidth_gb_s DECIMAL(18, 6) NOT NULL,
    doc_version VARCHAR, attributes_hash VARCHAR NOT NULL, valid_from TIMESTAMPTZ NOT NULL, valid_to TIMESTAMPTZ,
    fetch_id BIGINT NOT NULL, source_url VARCHAR NOT NULL, fetched_at TIMESTAMPTZ NOT NULL, sha256 VARCHAR NOT NULL,
    parser_version VARCHAR NOT NULL
)"""
TRAINIUM2 = """
INSERT INTO accelerator_chip_history VALUES ('neuron_trainium2', 'Trainium2', 8, 'v3', '96 GiB', 96, 'GiB', 96,
    '2.9 TB/sec', 2.9, 'TB/s', 2900, '2.29.1', 'h', now(), NULL, 1, 'https://example.test/t2', now(), 'x', 'v/1')"""
NULLABLE = """SELECT column_name, is_nullable FROM information_schema.columns
WHERE table_catalog = current_database() AND table_name = 'accelerator_chip_history'
  AND column_name IN ('neuron_cores', 'neuron_core_version') ORDER BY 1"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_older_chip_table_takes_a_tpu_and_keeps_its_neuron_chips(backend, site, sources, tmp_path, monkeypatch):
    with warehouse_at(backend, tmp_path, monkeypatch) as warehouse:
        with connect(warehouse) as con:
            con.execute(OLDER_CHIPS)
            con.execute(TRAINIUM2)
            con.execute("DELETE FROM schema_version")  # as a warehouse made before TPUs
        v6e = next(s for s in sources if s.id == "tpu_v6e")
        served = SourceSpec.model_validate({**v6e.model_dump(), "url": site.url(f"/{v6e.sample}")})
        with Fetcher(FetchSettings(max_attempts=1)) as fetcher:
            outcome = refresh_source(served, fetcher=fetcher, db_path=warehouse, archive=Archive(tmp_path / "a"))
        assert outcome.status == "landed", outcome.error
        with connect(warehouse) as con:
            nullable = con.execute(NULLABLE).fetchall()
            chips = con.execute(
                """SELECT chip, vendor, neuron_cores, memory_printed, bandwidth_printed, bandwidth_gb_s
                   FROM accelerator_chips ORDER BY chip"""
            ).fetchall()
            compute = con.execute(
                "SELECT number_format, value, unit, sparse FROM accelerator_compute WHERE chip = 'TPU v6e' ORDER BY 1"
            ).fetchall()
    assert nullable == [("neuron_core_version", "YES"), ("neuron_cores", "YES")]
    assert chips == [
        ("TPU v6e", "Google", None, "32 GB", "1638 GBps", Decimal(1638)),
        ("Trainium2", "AWS", 8, "96 GiB", "2.9 TB/sec", Decimal(2900)),  # landed before: AWS's, as every chip then
    ]
    assert compute == [("BF16", Decimal(918), "TFLOPS", False), ("INT8", Decimal(1836), "TOPS", False)]
