"""AWS Neuron package manifest (n2-manifest.json): the checks every source gets (tests/support/source_kit.py), a bad
row refused alone, and a document without releases refused."""

from __future__ import annotations

import json
from datetime import date

import pytest

from pipelines.errors import ParseError
from pipelines.kind import REFUSED, REFUSED_MARK
from pipelines.kinds import kind_named
from pipelines.sources.file import sample_path
from tests.support.source_kit import SourceChecks, declared, parse


class TestNeuronManifest(SourceChecks):
    source_id = "neuron_manifest"


def test_a_bad_package_row_is_refused_alone_and_the_rest_lands():
    source = declared()["neuron_manifest"]
    manifest = json.loads(sample_path(source).read_bytes())
    rows = manifest["neuron_releases"][0]["packages"]
    rows[0] = {"name": rows[0]["name"], "supported_instances": ["trn2"]}  # its version gone
    rows[1] = dict(rows[1], supported_instances=["trn2", "inf.", "trn2"])
    batch = parse(source, json.dumps(manifest).encode())
    assert len(batch.packages) == 19 and len(batch.refused) == 1 and "package_version" in batch.refused[0]
    kept = next(p for p in batch.packages if p.package == rows[1]["name"])
    assert (kept.instances, kept.unread_instances) == (["trn2"], ["inf."])
    prepared = kind_named("neuron_gate").prepare(batch, source, date(2026, 12, 6), None)
    assert prepared.counts[REFUSED] == 1
    assert any(REFUSED_MARK in w and rows[0]["name"] in w for w in prepared.warnings)
    assert any("'inf.'" in w and "kept apart" in w for w in prepared.warnings)


def test_a_document_with_no_release_is_refused_naming_what_it_looked_for():
    with pytest.raises(ParseError, match="neuron_version"):
        parse(declared()["neuron_manifest"], b'{"releases": [{"version": "2.32.0"}]}')
