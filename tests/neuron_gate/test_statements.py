"""Status statements found by their words: each way the Neuron docs state a status, and what is never read as one."""

from __future__ import annotations

import pytest

from pipelines.neuron_gate.statements import statements_in


def by_package(units: list[str], release: str | None = None) -> dict[str, tuple]:
    statements, _ = statements_in(units, release)
    return {
        s.package: (s.status, s.printed_statuses, s.instances, s.from_release, s.manifest_package) for s in statements
    }


def test_a_tag_and_a_dated_exclusion_in_one_bullet_read_as_not_included_from_that_release():
    unit = (
        "PyTorch NeuronX (torch-neuronx) (supported): The XLA-based integration (Trn1, Trn2, Inf2, Trn1n). "
        "(This library is not included in Neuron 2.32.0 and later versions.)"
    )
    assert by_package([unit]) == {
        "torch-neuronx": (
            "not included",
            ["supported", "not included"],
            ["inf2", "trn1", "trn1n", "trn2"],
            "2.32.0",
            "torch-neuronx",
        )
    }


def test_a_scoped_tag_names_its_families_and_a_sentence_names_none():
    found = by_package(["Option 2: vLLM Neuron (Beta — Trn2/Trn3 only)", "JAX NeuronX is currently in beta."])
    assert found["vLLM Neuron"] == ("beta", ["beta"], ["trn2", "trn3"], None, "vllm-neuron")
    assert found["JAX NeuronX"] == ("beta", ["beta"], None, None, "jax_neuronx")


def test_what_a_page_says_of_one_package_in_several_places_is_one_statement_quoting_each():
    units = ["vLLM Neuron (Beta — Trn2/Trn3 only)", "Implementing Custom Models in vLLM Neuron (Beta)"]
    statements, _ = statements_in(units, "2.32.0")
    (only,) = statements
    assert (only.package, only.status, only.doc_release) == ("vLLM Neuron", "beta", "2.32.0")
    assert only.quoted == " … ".join(units)


def test_the_most_restrictive_status_wins_and_deprecated_reads_as_archived():
    found = by_package(["Foo Runtime (supported): fast.", "Foo Runtime (beta): still moving.", "Bar Kit (deprecated)"])
    assert found["Foo Runtime"][:2] == ("beta", ["supported", "beta"])
    assert found["Bar Kit"][:2] == ("archived", ["deprecated"])


def test_an_exclusion_naming_no_package_is_a_warning_not_a_statement():
    statements, warnings = statements_in(["This is not included in Neuron 2.33.0 and later."], None)
    assert statements == [] and len(warnings) == 1 and "names no package" in warnings[0]


def test_prose_without_status_words_states_nothing():
    units = [
        "Neuron Kernel Interface (NKI) lets you write kernels.",
        "This is the recommended starting point for new workloads.",
        "Supported Instances: Inf2, Trn1, Trn2, Trn3",
    ]
    assert by_package(units) == {}


def test_a_name_the_curated_list_does_not_know_is_kept_as_printed_with_no_manifest_package():
    assert by_package(["Neuron Magic (beta)"]) == {"Neuron Magic": ("beta", ["beta"], None, None, None)}


def test_families_said_to_be_the_only_ones_are_told_from_families_merely_named():
    units = [
        "Option 2: vLLM Neuron (Beta — Trn2/Trn3 only)",
        "PyTorch Neuron (torch-neuron) (archived): for Inf1 only.",
        "PyTorch NeuronX (torch-neuronx) (supported): The XLA-based integration (Trn1, Trn2, Inf2, Trn1n).",
        "JAX NeuronX is currently in beta.",
    ]
    statements, _ = statements_in(units, None)
    only = {s.package: (s.instances, s.instances_only) for s in statements}
    assert only == {
        "vLLM Neuron": (["trn2", "trn3"], True),
        "torch-neuron": (["inf1"], True),
        "torch-neuronx": (["inf2", "trn1", "trn1n", "trn2"], False),  # named, not limited to them
        "JAX NeuronX": (None, False),
    }


def announced(unit: str) -> list[tuple]:
    statements, _ = statements_in([unit], None)
    return [(s.package, s.status, s.work, s.instances, s.in_maintenance, s.from_release) for s in statements]


def test_an_announced_end_of_support_names_its_release_work_and_families():
    assert announced("Neuron no longer supports PyTorch/XLA for training starting with Neuron 2.30") == [
        ("PyTorch/XLA", "end of support", "training", None, False, "2.30.0")  # "2.30" is release 2.30.0
    ]
    assert announced("Starting with Neuron 2.29, Neuron no longer supports TensorFlow for Inferentia2 (Inf2).") == [
        ("TensorFlow", "end of support", None, ["inf2"], False, "2.29.0")
    ]


def test_a_maintenance_mode_stays_supported_and_x_and_y_are_two_statements():
    unit = "NxD Inference and NxD Core Inference APIs are now in maintenance mode starting with Neuron 2.30"
    assert announced(unit) == [
        ("NxD Inference", "supported", None, None, True, "2.30.0"),
        ("NxD Core Inference APIs", "supported", None, None, True, "2.30.0"),
    ]


def test_a_sentence_about_both_works_names_neither():
    unit = "Neuron no longer supports MXNet for training and inference starting with Neuron 2.40.0"
    assert announced(unit) == [("MXNet", "end of support", None, None, False, "2.40.0")]


def test_entering_maintenance_mode_and_the_sdks_support_for_a_package_name_it():
    tnx = "Starting from Neuron release 2.24, Transformers NeuronX library is entering maintenance mode."
    assert announced(tnx) == [("Transformers NeuronX", "supported", None, None, True, "2.24.0")]
    mxnet = "Starting with Neuron release 2.19, Neuron support for MxNet (mxnet-neuron) is entering maintenance mode."
    assert announced(mxnet) == [("mxnet-neuron", "supported", None, None, True, "2.19.0")]  # the package, not "Neuron"


def test_a_name_ends_before_the_release_it_starts_with():
    assert announced("Neuron no longer supports vLLM V0 starting with Neuron 2.28") == [
        ("vLLM V0", "end of support", None, None, False, "2.28.0")
    ]


def scoped(unit: str) -> list[tuple]:
    statements, warnings = statements_in([unit], None)
    assert warnings == []
    return [(s.package, s.status, s.versions, s.from_release, s.last_release, s.in_maintenance) for s in statements]


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        (
            "Starting with Neuron release 2.20, torch-neuron 1.9 and 1.10 versions will enter maintenance mode.",
            ("torch-neuron", "supported", "1.9 and 1.10", "2.20.0", None, True),
        ),
        (
            "Starting with Neuron release 2.18, Tensorflow-Neuron 1.x is entering maintenance mode.",
            ("tensorflow-neuron", "supported", "1.x", "2.18.0", None, True),
        ),
        (
            "Starting with Neuron Release 2.21, Neuron no longer supports torch-neuron 1.9 and 1.10 versions. Current "
            "users of torch-neuron 1.9 and 1.10 versions are advised to migrate to torch-neuron 1.13.",
            ("torch-neuron", "end of support", "1.9 and 1.10", "2.21.0", None, False),
        ),
    ],
)
def test_a_statement_about_some_versions_of_a_package_is_scoped_to_them(unit, expected):
    assert scoped(unit) == [expected]


def test_a_release_number_is_never_read_as_a_packages_versions():
    unit = "Starting with Neuron SDK 2.31.0, Neuron release 2.30 and Neuron 2.29, Neuron no longer supports vLLM V0."
    assert scoped(unit) == [("vLLM V0", "end of support", None, "2.31.0", None, False)]


def test_the_last_release_to_include_a_package_dates_its_exclusion_by_that_release():
    unit = (
        "Neuron SDK release 2.28 (PyTorch 2.9) will be the last release to include the NeuronX Distributed Training "
        "(NxDT) library. Starting with Neuron SDK release 2.29 (PyTorch 2.10), the use of NxD Core training APIs and "
        "the PyTorch/XLA package for training will no longer be supported."
    )
    statements, _ = statements_in([unit], None)
    found = {s.package: (s.status, s.work, s.from_release, s.last_release, s.manifest_package) for s in statements}
    assert found == {
        "NeuronX Distributed Training": ("not included", None, None, "2.28.0", "neuronx_distributed_training"),
        "NxD Core training APIs": ("end of support", "training", "2.29.0", None, None),
        "PyTorch/XLA": ("end of support", "training", "2.29.0", None, "torch-neuronx"),
    }
    support = "Neuron release 2.19 will be the last release to support Tensorflow-Neuron 1.x. Future releases"
    assert scoped(support) == [("tensorflow-neuron", "end of support", "1.x", None, "2.19.0", False)]


def test_a_future_tense_end_of_support_is_read_from_its_release():
    unit = "Starting with Neuron 2.28 release, vLLM V0 will no longer be supported."
    assert announced(unit) == [("vLLM V0", "end of support", None, None, False, "2.28.0")]
