"""The gate's suite refuses what pydantic cannot see: repeated keys, malformed releases and families, empty quotes."""

from __future__ import annotations

from pipelines.neuron_gate.records import GateBatch, ManifestPackage, SupportStatement
from pipelines.neuron_gate.suite import validate_gate, validate_gate_many
from tests.support.ge_frames import failures

UNIQUE = "expect_column_values_to_be_unique"
REGEX = "expect_column_values_to_match_regex"


def package(release: str = "2.32.0", instances: tuple[str, ...] = ("trn2",)) -> ManifestPackage:
    return ManifestPackage.model_construct(
        release=release,
        package="vllm-neuron",
        package_version="0.24.0",
        instances=list(instances),
        unread_instances=[],
        python_versions=["3.11"],
    )


def statement(quoted: str = "vLLM Neuron (Beta — Trn2/Trn3 only)") -> SupportStatement:
    return SupportStatement.model_construct(
        package="vLLM Neuron",
        framework="vLLM Neuron",
        manifest_package="vllm-neuron",
        status="beta",
        printed_statuses=["beta"],
        instances=["trn2"],
        from_release=None,
        doc_release=None,
        quoted=quoted,
    )


def batch(**records: list) -> GateBatch:
    return GateBatch(source_id="neuron_manifest", parser_version="test", **records)


def test_a_well_formed_batch_passes():
    assert all(r.success for r in validate_gate(batch(packages=[package()], statements=[statement()])))


def test_repeated_keys_malformed_releases_and_families_are_each_named():
    found = failures(
        validate_gate(batch(packages=[package(), package(), package("2.32"), package(instances=("gpu",))]))
    )
    assert set(found) == {(UNIQUE, "business_key"), (REGEX, "release"), (REGEX, "instance")}
    assert found[(REGEX, "release")] == ["2.32"] and found[(REGEX, "instance")] == ["gpu"]


def test_a_statement_without_its_words_is_refused():
    found = failures(validate_gate(batch(statements=[statement(quoted="x")])))
    assert list(found) == [("expect_column_value_lengths_to_be_between", "quoted")]


def test_many_sources_in_one_run_get_the_reports_each_would_alone():
    good, bad = batch(packages=[package()]), batch(packages=[package(), package()])
    reports = validate_gate_many({"good": good, "bad": bad})
    assert all(r.success for r in reports["good"])
    assert set(failures(reports["bad"])) == {(UNIQUE, "business_key")}
