"""AWS Neuron's real announcements (tests/recorded/neuron_announcements/, provenance in SOURCES.md) through the real
refresh: each served on 127.0.0.1 at its raw-GitHub path as text/plain, landed as a dated status statement."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipelines.refresh.one_source import SourceOutcome
from tests.support.paths import RECORDED
from tests.support.raw_github import land_raw_files

LANDINGS = {
    "neuron_announce_pytorch_xla_training": "announce-no-support-pytorch-xla-training.rst",
    "neuron_announce_pytorch_xla_inference": "announce-maintenance-pytorch-xla-inference.rst",
    "neuron_announce_nxd_inference": "announce-maintenance-nxdi-nxd-core-inference.rst",
    "neuron_announce_tensorflow_inf2": "announce-no-longer-support-tensorflow-inf2.rst",
}


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, SourceOutcome]]:
    return land_raw_files(tmp_path_factory.mktemp("announcements"), RECORDED / "neuron_announcements", LANDINGS)


def test_each_announcement_lands_as_a_dated_statement_from_its_release(landed):
    db, outcomes = landed
    assert {sid: o.status for sid, o in outcomes.items()} == dict.fromkeys(LANDINGS, "landed")
    with duckdb.connect(str(db), read_only=True) as con:
        found = con.execute(
            """SELECT source_id, package, manifest_package, status, work, instances, in_maintenance, from_release,
                      announced_on
               FROM neuron_support ORDER BY source_id, package"""
        ).fetchall()
    assert found == [
        ("neuron_announce_nxd_inference", "NxD Core Inference APIs", None, "supported", None, None, True, "2.30.0",
         date(2026, 5, 20)),
        ("neuron_announce_nxd_inference", "NxD Inference", "neuronx_distributed_inference", "supported", None, None,
         True, "2.30.0", date(2026, 5, 20)),
        ("neuron_announce_pytorch_xla_inference", "Torch/XLA", "torch-neuronx", "supported", "inference",
         ["inf2", "trn1"], True, "2.31.0", date(2026, 6, 28)),
        ("neuron_announce_pytorch_xla_training", "PyTorch/XLA", "torch-neuronx", "end of support", "training", None,
         False, "2.30.0", date(2026, 5, 20)),
        ("neuron_announce_tensorflow_inf2", "TensorFlow", None, "end of support", None, ["inf2"], False, "2.29.0",
         date(2026, 3, 30)),
    ]  # fmt: skip


def test_each_statement_quotes_the_sentences_it_was_read_from(landed):
    db, _ = landed
    with duckdb.connect(str(db), read_only=True) as con:
        quoted = dict(con.execute("SELECT package, quoted FROM neuron_support").fetchall())
    assert quoted["PyTorch/XLA"].startswith(
        "Neuron no longer supports PyTorch/XLA for training starting with Neuron 2.30"
    )
    assert "PyTorch/XLA is no longer supported for training workloads on Trainium" in quoted["PyTorch/XLA"]
    assert "Inf2 and Trn1 instances is now in maintenance mode" in quoted["Torch/XLA"]
