"""Which adapters exist: each adapter's module, kind and the media types its source may answer with.

The sources file is checked against these names when it loads, so the registry is plain data below the adapters
themselves (which are imported on first use, through pipelines.adapters).
"""

from __future__ import annotations

from dataclasses import dataclass

HTML = ("text/html", "application/xhtml+xml")
JSON = ("application/json",)
XML = ("text/xml", "application/xml")
# The price list's CSV files come from S3-style hosts, which may label them generically.
CSV = ("text/csv", "application/csv", "application/octet-stream", "binary/octet-stream")
# A Sphinx page's source text (`_sources/<page>.rst.txt`), read when the rendered page lost its table.
RST_SOURCE = ("text/plain", "text/x-rst", "text/prs.fallenstein.rst")
JAVASCRIPT = ("application/x-javascript", "application/javascript", "text/javascript")  # the spot feed's label
# A file in a repository, as GitHub's raw host serves any text: a capture kept in git.
PLAIN_TEXT = ("text/plain",)


@dataclass(frozen=True)
class AdapterInfo:
    module: str
    kind: str
    media_types: tuple[str, ...]
    reads_html: bool = False  # parse() decodes the body as an HTML page, so takes the HTTP charset
    # parse() also takes a file: the body is streamed to disk and archived from there, never held in memory.
    reads_files: bool = False
    # "module:Model": the pydantic model its sources' options must satisfy, checked when the sources file loads.
    options: str | None = None


ADAPTERS: dict[str, AdapterInfo] = {
    "aws_product_page": AdapterInfo("pipelines.adapters.aws_product_page", "aws", HTML, reads_html=True),
    "aws_capacity_blocks": AdapterInfo("pipelines.adapters.aws_capacity_blocks", "aws", HTML, reads_html=True),
    # Readers of captures only (pipelines/captures.toml): a scraper's JSON of the Capacity Blocks page, RunPod's
    # pricing page with its GPU types embedded, RunPod's Serverless page as its Markdown source.
    "aws_capacity_blocks_json": AdapterInfo("pipelines.adapters.aws_capacity_blocks_json", "aws", JSON + PLAIN_TEXT),
    "gpu_runpod_page": AdapterInfo("pipelines.adapters.gpu_runpod_page", "gpu", HTML + PLAIN_TEXT, reads_html=True),
    "gpu_runpod_serverless_mdx": AdapterInfo(
        "pipelines.adapters.gpu_runpod_serverless_mdx", "gpu", (*PLAIN_TEXT, "text/markdown"), reads_html=True
    ),
    "gpu_hyperstack": AdapterInfo("pipelines.adapters.gpu_hyperstack", "gpu", HTML, reads_html=True),
    "gpu_lambda": AdapterInfo("pipelines.adapters.gpu_lambda", "gpu", HTML, reads_html=True),
    "gpu_coreweave": AdapterInfo("pipelines.adapters.gpu_coreweave", "gpu", HTML, reads_html=True),
    "gpu_runpod_graphql": AdapterInfo("pipelines.adapters.gpu_runpod_graphql", "gpu", JSON),
    "gpu_vastai": AdapterInfo("pipelines.adapters.gpu_vastai", "gpu", JSON),
    "gpu_azure_retail": AdapterInfo("pipelines.adapters.gpu_azure_retail", "gpu", JSON),
    "gpu_oci_pricelist": AdapterInfo("pipelines.adapters.gpu_oci_pricelist", "gpu", JSON),
    "gpu_gcp_pricing_page": AdapterInfo("pipelines.adapters.gpu_gcp_pricing_page", "gpu", HTML, reads_html=True),
    "gpu_gcp_billing_catalog": AdapterInfo("pipelines.adapters.gpu_gcp_billing_catalog", "gpu", JSON),
    "gpu_leadergpu": AdapterInfo("pipelines.adapters.gpu_leadergpu", "gpu", JSON + HTML),
    "gpu_runpod_serverless": AdapterInfo("pipelines.adapters.gpu_runpod_serverless", "gpu", HTML, reads_html=True),
    "gpu_beam": AdapterInfo("pipelines.adapters.gpu_beam", "gpu", HTML, reads_html=True),
    "gpu_replicate": AdapterInfo("pipelines.adapters.gpu_replicate", "gpu", HTML, reads_html=True),
    "declarative_table": AdapterInfo(
        "pipelines.adapters.declarative_table",
        "gpu",
        HTML,
        reads_html=True,
        options="pipelines.gpu.declared_table:Options",
    ),
    "fx_ecb": AdapterInfo("pipelines.adapters.fx_ecb", "fx", XML),
    "neuron_chip": AdapterInfo("pipelines.adapters.neuron_chip", "spec", HTML, reads_html=True),
    # A Cloud TPU page's Markdown source (`<page>.md.txt`), which Google serves as plain text.
    "google_tpu_doc": AdapterInfo(
        "pipelines.adapters.google_tpu_doc", "spec", (*PLAIN_TEXT, "text/markdown"), reads_html=True
    ),
    "neuron_config": AdapterInfo("pipelines.adapters.neuron_config", "spec", HTML + RST_SOURCE, reads_html=True),
    "neuron_release": AdapterInfo("pipelines.adapters.neuron_release", "spec", HTML, reads_html=True),
    "aws_ultraserver_page": AdapterInfo("pipelines.adapters.aws_ultraserver_page", "spec", HTML, reads_html=True),
    "vendor_claims": AdapterInfo("pipelines.adapters.vendor_claims", "spec", HTML, reads_html=True),
    "launch_dates": AdapterInfo("pipelines.adapters.launch_dates", "spec", JSON),
    "nvidia_reference": AdapterInfo("pipelines.adapters.nvidia_reference", "spec", JSON),
    "neuron_status": AdapterInfo("pipelines.adapters.neuron_status", "neuron_gate", HTML + RST_SOURCE, reads_html=True),
    "neuron_lifecycle": AdapterInfo(
        "pipelines.adapters.neuron_lifecycle", "neuron_gate", HTML + RST_SOURCE, reads_html=True
    ),
    "neuron_manifest": AdapterInfo("pipelines.adapters.neuron_manifest", "neuron_gate", (*JSON, "text/plain")),
    # GitHub's raw host serves a CSV as text/plain.
    "neuron_benchmarks": AdapterInfo("pipelines.adapters.neuron_benchmarks", "vendor_benchmark", (*CSV, "text/plain")),
    "aws_pricelist_region": AdapterInfo("pipelines.adapters.aws_pricelist_region", "pricelist", CSV, reads_files=True),
    "aws_spot_feed": AdapterInfo("pipelines.adapters.aws_spot_feed", "pricelist", JSON + JAVASCRIPT),
    "aws_savings_plan_region": AdapterInfo(
        "pipelines.adapters.aws_savings_plan_region", "pricelist", CSV, reads_files=True
    ),
    "aws_sagemaker_region": AdapterInfo("pipelines.adapters.aws_sagemaker_region", "pricelist", CSV, reads_files=True),
}


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)
