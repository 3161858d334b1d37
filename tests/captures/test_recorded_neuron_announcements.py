"""AWS Neuron's real announcements (tests/recorded/neuron_announcements/) and SDK maintenance policy
(tests/recorded/neuron_gate/sdk-policy.rst), provenance in SOURCES.md, through the real refresh: each served on
127.0.0.1 at its raw-GitHub path as text/plain; an announcement lands as a dated status statement, the policy as the
life-cycle phases that say what each status means."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipelines.refresh.one_source import SourceOutcome
from tests.support.paths import RECORDED
from tests.support.raw_github import land_raw_files

LANDINGS = {
    "neuron_announce_pytorch_xla_training": "neuron_announcements/announce-no-support-pytorch-xla-training.rst",
    "neuron_announce_pytorch_xla_inference": "neuron_announcements/announce-maintenance-pytorch-xla-inference.rst",
    "neuron_announce_nxd_inference": "neuron_announcements/announce-maintenance-nxdi-nxd-core-inference.rst",
    "neuron_announce_nxd_training": "neuron_announcements/announce-maintenance-nxdt-nxd-core-training.rst",
    "neuron_announce_tensorflow_inf2": "neuron_announcements/announce-no-longer-support-tensorflow-inf2.rst",
    "neuron_announce_transformers_neuronx": "neuron_announcements/announce-intent-maintenance-tnx.rst",
    "neuron_announce_mxnet": "neuron_announcements/announce-maintenance-mxnet.rst",
    "neuron_announce_vllm_v0": "neuron_announcements/announce-no-support-vllm-v0.rst",
    "neuron_announce_torch_neuron_versions_maintenance": "neuron_announcements/announce-eos-torch-neuron.rst",
    "neuron_announce_torch_neuron_versions_eos": "neuron_announcements/announce-no-support-torch-neuron-versions.rst",
    "neuron_announce_tensorflow_1x_maintenance": "neuron_announcements/announce-maintenance-tf.rst",
    "neuron_announce_tensorflow_1x_last": "neuron_announcements/announce-eos-tensorflow1-x.rst",
    "neuron_announce_tensorflow_1x_eos": "neuron_announcements/announce-no-support-tensorflow1-x.rst",
    "neuron_announce_nxdt_eos": "neuron_announcements/announce-eos-nxdt-nxd-core-training.rst",
    "neuron_sdk_policy": "neuron_gate/sdk-policy.rst",  # what the announcements' words mean
}


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, SourceOutcome]]:
    return land_raw_files(tmp_path_factory.mktemp("announcements"), RECORDED, LANDINGS)


def test_each_announcement_lands_as_a_dated_statement_from_its_release(landed):
    db, outcomes = landed
    assert {sid: o.status for sid, o in outcomes.items()} == dict.fromkeys(LANDINGS, "landed")
    with duckdb.connect(str(db), read_only=True) as con:
        found = con.execute(
            """SELECT source_id, package, manifest_package, status, work, instances, in_maintenance, from_release,
                      last_release, versions, announced_on
               FROM neuron_support ORDER BY source_id, package"""
        ).fetchall()
    assert found == [
        ("neuron_announce_mxnet", "mxnet-neuron", "mxnet-neuron", "supported", None, None, True, "2.19.0", None, None,
         date(2024, 6, 28)),
        ("neuron_announce_nxd_inference", "NxD Core Inference APIs", None, "supported", None, None, True, "2.30.0",
         None, None, date(2026, 5, 20)),
        ("neuron_announce_nxd_inference", "NxD Inference", "neuronx_distributed_inference", "supported", None, None,
         True, "2.30.0", None, None, date(2026, 5, 20)),
        ("neuron_announce_nxd_training", "NxD Core Training APIs", None, "supported", None, None, True, "2.30.0",
         None, None, date(2026, 5, 20)),
        ("neuron_announce_nxd_training", "NxDT", "neuronx_distributed_training", "supported", None, None, True,
         "2.30.0", None, None, date(2026, 5, 20)),
        # The last release to include it: out after 2.28, whichever release comes next.
        ("neuron_announce_nxdt_eos", "NeuronX Distributed Training", "neuronx_distributed_training", "not included",
         None, None, False, None, "2.28.0", None, date(2026, 2, 26)),
        ("neuron_announce_nxdt_eos", "NxD Core training APIs", None, "end of support", "training", None, False,
         "2.29.0", None, None, date(2026, 2, 26)),
        # AWS's own announcements date PyTorch/XLA training's end 2.29 here and 2.30 below: both land, each quoted.
        ("neuron_announce_nxdt_eos", "PyTorch/XLA", "torch-neuronx", "end of support", "training", None, False,
         "2.29.0", None, None, date(2026, 2, 26)),
        ("neuron_announce_pytorch_xla_inference", "Torch/XLA", "torch-neuronx", "supported", "inference",
         ["inf2", "trn1"], True, "2.31.0", None, None, date(2026, 6, 28)),
        ("neuron_announce_pytorch_xla_training", "PyTorch/XLA", "torch-neuronx", "end of support", "training", None,
         False, "2.30.0", None, None, date(2026, 5, 20)),
        # Some versions of a package: scoped to them, never the package's status.
        ("neuron_announce_tensorflow_1x_eos", "tensorflow-neuron", "tensorflow-neuron", "end of support", None, None,
         False, "2.20.0", None, "1.x", date(2024, 9, 16)),
        ("neuron_announce_tensorflow_1x_last", "tensorflow-neuron", "tensorflow-neuron", "end of support", None, None,
         False, None, "2.19.0", "1.x", date(2024, 6, 28)),
        ("neuron_announce_tensorflow_1x_maintenance", "tensorflow-neuron", "tensorflow-neuron", "supported", None,
         None, True, "2.18.0", None, "1.x", date(2024, 4, 1)),
        ("neuron_announce_tensorflow_inf2", "TensorFlow", None, "end of support", None, ["inf2"], False, "2.29.0",
         None, None, date(2026, 3, 30)),
        ("neuron_announce_torch_neuron_versions_eos", "torch-neuron", "torch-neuron", "end of support", None, None,
         False, "2.21.0", None, "1.9 and 1.10", date(2024, 12, 20)),
        ("neuron_announce_torch_neuron_versions_maintenance", "torch-neuron", "torch-neuron", "supported", None, None,
         True, "2.20.0", None, "1.9 and 1.10", date(2024, 9, 16)),
        ("neuron_announce_transformers_neuronx", "Transformers NeuronX", "transformers-neuronx", "supported", None,
         None, True, "2.24.0", None, None, date(2025, 5, 15)),
        ("neuron_announce_vllm_v0", "vLLM V0", None, "end of support", None, None, False, "2.28.0", None, None,
         date(2026, 2, 26)),
    ]  # fmt: skip


def test_each_statement_quotes_the_sentences_it_was_read_from(landed):
    db, _ = landed
    with duckdb.connect(str(db), read_only=True) as con:
        quoted = dict(
            con.execute(
                "SELECT package, quoted FROM neuron_support WHERE source_id <> 'neuron_announce_nxdt_eos'"
                " AND versions IS NULL"
            ).fetchall()
        )
    assert quoted["PyTorch/XLA"].startswith(
        "Neuron no longer supports PyTorch/XLA for training starting with Neuron 2.30"
    )
    assert "PyTorch/XLA is no longer supported for training workloads on Trainium" in quoted["PyTorch/XLA"]
    assert "Inf2 and Trn1 instances is now in maintenance mode" in quoted["Torch/XLA"]
    # The heading and the sentence of one announcement are one statement, quoting both.
    assert quoted["vLLM V0"].startswith("Neuron no longer supports vLLM V0 starting with Neuron 2.28")
    assert "vLLM V0 will no longer be supported" in quoted["vLLM V0"]
    assert "Neuron support for MxNet (mxnet-neuron) is entering maintenance mode" in quoted["mxnet-neuron"]


def test_the_policy_lands_its_five_phases_and_each_status_quotes_its_phase(landed):
    db, _ = landed
    with duckdb.connect(str(db), read_only=True) as con:
        phases = con.execute(
            "SELECT printed, phase, also_called, phase_key, applies FROM neuron_lifecycle ORDER BY printed"
        ).fetchall()
        support = dict(
            con.execute(
                "SELECT package, lifecycle_phase FROM neuron_support WHERE source_id <> 'neuron_announce_nxdt_eos'"
                " AND versions IS NULL"
            ).fetchall()
        )
        meaning = con.execute("SELECT meaning FROM neuron_lifecycle WHERE phase = 'Developer Preview'").fetchone()
    assert phases == [
        ("Developer Preview (Beta)", "Developer Preview", "Beta", "beta", None),
        ("End of Support (EOS)", "End of Support", "EOS", "end of support", None),
        ("General Availability (Stable)", "General Availability", "Stable", "stable", None),
        ("Maintenance", "Maintenance", None, "maintenance",
         "This phase does not apply to Dependency Software Components, Neuron DLCs, Neuron DLAMIs, Neuron Features "
         "and APIs"),
        ("Release Candidate (RC)", "Release Candidate", "RC", None,
         "This phase applies only to Neuron SDK and Neuron components"),
    ]  # fmt: skip
    assert meaning[0].startswith("In this phase, Neuron Software is not supported, should not be used in production")
    assert support == {
        "NxD Core Inference APIs": "Maintenance",
        "NxD Inference": "Maintenance",
        "NxD Core Training APIs": "Maintenance",
        "NxDT": "Maintenance",
        "Torch/XLA": "Maintenance",
        "PyTorch/XLA": "End of Support (EOS)",
        "TensorFlow": "End of Support (EOS)",
        "Transformers NeuronX": "Maintenance",
        "mxnet-neuron": "Maintenance",
        "vLLM V0": "End of Support (EOS)",
    }


def test_a_statement_about_some_versions_or_a_last_release_quotes_its_sentence(landed):
    db, _ = landed
    with duckdb.connect(str(db), read_only=True) as con:
        said = {
            (sid, package): (quoted, phase)
            for sid, package, quoted, phase in con.execute(
                "SELECT source_id, package, quoted, lifecycle_phase FROM neuron_support"
                " WHERE versions IS NOT NULL OR last_release IS NOT NULL"
            ).fetchall()
        }
    quoted, phase = said["neuron_announce_torch_neuron_versions_eos", "torch-neuron"]
    assert "Neuron no longer supports torch-neuron 1.9 and 1.10 versions" in quoted
    assert phase == "End of Support (EOS)"
    quoted, _ = said["neuron_announce_nxdt_eos", "NeuronX Distributed Training"]
    assert "2.28 (PyTorch 2.9) will be the last release to include the NeuronX Distributed Training (NxDT)" in quoted
    assert len(said) == 6  # five about some versions, and the NxDT library's last release
