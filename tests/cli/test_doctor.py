"""`ratecard doctor --live` against real recordings served on 127.0.0.1 where their hosts serve them: each page said
to parse, with its first figures; a page that no longer parses and one that cannot be fetched named, exit 1; nothing
landed anywhere that lasts. Without --live, the bundled samples are checked."""

from __future__ import annotations

from pathlib import Path

from pipelines.sources.file import load_sources
from pipelines.sources.toml_writer import sources_toml
from tests.support.localserver import LocalServer, Reply
from tests.support.paths import RECORDED
from tests.support.pilot_runs import ratecard
from tests.support.raw_github import served_at_its_path

RECORDINGS = {  # source id -> (recording, its media type as the real host sends it)
    "fx_ecb": ("fx/eurofxref-daily_2018-06-11.xml", "text/xml"),
    "gpu_vastai": ("gpu/vastai_search_offers_2025-01.enveloped.json", "application/json"),
    "neuron_manifest": ("neuron_gate/n2-manifest.json", "text/plain; charset=utf-8"),
    "neuron_inf2_latency_benchmarks": ("neuron_benchmarks/inf2-latency_data_decoder.csv", "text/plain; charset=utf-8"),
    "aws_pricelist": ("aws/ec2_region_index_2025-05-23.json", "application/json"),
}
MORE = ["neuron_trn1_latency_benchmarks", "gpu_lambda", "gpu_gcp_tpu"]  # the last keyed, its key not set


def served(server: LocalServer, tmp_path: Path) -> Path:
    """A sources file whose sources fetch the recordings, one broken page, and one page the host does not have."""
    declared = {s.id: s for s in load_sources()}
    replies = {
        sid: Reply(body=(RECORDED / file).read_bytes(), content_type=media) for sid, (file, media) in RECORDINGS.items()
    }
    # A table that lost its throughput column; gpu_lambda's page is not there at all.
    broken = b"Model,Inst. Type,Neuron Version\nx,trn1.32xlarge,2.31.0\n"
    replies["neuron_trn1_latency_benchmarks"] = Reply(body=broken, content_type="text/plain; charset=utf-8")
    sources = [served_at_its_path(server, declared[sid], replies.get(sid)) for sid in [*RECORDINGS, *MORE]]
    file = tmp_path / "sources.toml"
    file.write_text(sources_toml(sources))
    return file


def test_live_says_which_real_pages_parse_with_their_figures_and_names_the_failures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a warehouse made here by mistake would show as var/ or a .duckdb file
    monkeypatch.delenv("RATECARD_GCP_API_KEY", raising=False)
    with LocalServer() as server:
        done = ratecard("doctor", "--live", "--sources", served(server, tmp_path))
    out = " ".join(done.stdout.split())
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "5 of 8 sources parse; 2 failed: neuron_trn1_latency_benchmarks, gpu_lambda; 1 not configured: gpu_gcp_tpu"
    ) in out
    assert "fx_ecb │ parses │ 32 │ rows other than prices" in out  # the day's 32 rates
    assert "gpu_vastai │ parses │" in out and "USD 0." in out  # the recording's own figures, exact
    assert "neuron_inf2_latency_benchmarks │ parses │ 27 │" in out  # the recording's 27 rows
    assert "aws_pricelist │ parses │" in out and "units; their files are not fetched" in out
    assert "neuron_trn1_latency_benchmarks │ refused │" in out and "throughput" in out
    assert "gpu_lambda │ fetch failed │" in out and "404" in out
    assert "gpu_gcp_tpu │ not configured │" in out and "RATECARD_GCP_API_KEY" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sources.toml"]  # nothing landed here


def test_without_live_every_bundled_sample_parses():
    done = ratecard("doctor", "--source", "aws_capacity_blocks", "--source", "gpu_runpod", "--source", "aws_spot")
    out = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ratecard doctor (bundled samples)" in out
    assert "p5.48xlarge capacity_block US East (N. Virginia) USD 39.33" in out  # exact, as the sample prints it
    assert "aws_spot │ not checked alone │" in out
    assert "2 of 3 sources parse; 1 not checked alone" in out
