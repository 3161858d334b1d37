"""Accelerator specification adapters (kind `spec`) on the bundled samples and on variants carrying each quirk
of shared/reference/accelerator-specs.md: GiB/GB/TB mixing, "Up to", combined format labels, sparse figures,
transposed and header-less tables, figures split across bullets, a table missing from the HTML."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from pydantic import ValidationError

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from pipelines.specs import figures
from pipelines.specs.records import Compute, SpecBatch, VendorClaim

SOURCES = {s.id: s for s in load_sources()}
CHIP_PAGE_HEAD = '<html><head><meta name="docsearch:version" content="2.99.0"/></head><body><h1>AWS Trainium9</h1>'


def parse(source_id: str, body: bytes | None = None, **changes: object) -> SpecBatch:
    source = SOURCES[source_id]
    if changes:
        source = SourceSpec.model_validate({**source.model_dump(), **changes})
    batch: SpecBatch = parser_for(source.adapter)(body or sample_path(source).read_bytes(), source, "text/html")
    return batch


def by_format(items: list[Compute], sparse: bool = False) -> dict[str, tuple[D, str]]:
    return {c.number_format: (c.value, c.unit) for c in items if c.sparse is sparse}


def chip_page(compute_cell: str, memory_cell: str) -> bytes:
    rows = (
        f"<tr><td><p>Compute</p></td><td>{compute_cell}</td></tr>"
        f"<tr><td><p>Device Memory</p></td><td>{memory_cell}</td></tr>"
    )
    return f'{CHIP_PAGE_HEAD}<table class="table"><tbody>{rows}</tbody></table></body></html>'.encode()


# --- chip pages -----------------------------------------------------------------------------------------------


def test_header_less_grid_table_with_prose_figures_inferentia2() -> None:
    (chip,) = parse("neuron_inferentia2").chips
    assert (chip.chip, chip.neuron_cores, chip.neuron_core_version) == ("Inferentia2", 2, "v2")
    # "32GiB" with no space; "820 GiB/sec" across a wrapped line: as printed, then converted by definition.
    assert (chip.memory_printed, chip.memory_gib) == ("32GiB", D(32))
    assert (chip.bandwidth_printed, chip.bandwidth_unit, chip.bandwidth_gb_s) == (
        "820 GiB/sec",
        "GiB/s",
        D("880.468296"),
    )
    dense = by_format(chip.compute)
    # "190 FP16/BF16/cFP8/TF32 TFLOPS" is four formats sharing one figure; INT8 is TOPS, not TFLOPS.
    assert {f: dense[f] for f in ("FP16", "BF16", "cFP8", "TF32")} == dict.fromkeys(
        ("FP16", "BF16", "cFP8", "TF32"), (D(190), "TFLOPS")
    )
    assert dense["INT8"] == (D(380), "TOPS")
    assert dense["FP32"] == (D("47.5"), "TFLOPS")
    assert chip.doc_version == "2.29.1"


def test_singular_tflop_and_words_for_core_counts() -> None:
    (chip,) = parse("neuron_trainium").chips
    assert by_format(chip.compute)["FP32"] == (D("47.5"), "TFLOPS")  # printed "47.5 FP32 TFLOP"
    (inferentia,) = parse("neuron_inferentia").chips
    assert (inferentia.neuron_cores, inferentia.neuron_core_version) == (4, "v1")  # "Four NeuronCore-v1"
    assert inferentia.bandwidth_gb_s == D("53.687091")  # 50 GiB/sec


def test_bullets_and_sparse_figures_trainium2() -> None:
    (chip,) = parse("neuron_trainium2").chips
    assert (chip.memory_printed, chip.bandwidth_printed) == ("96 GiB", "2.9 TB/sec")  # GiB beside TB on one line
    assert chip.bandwidth_gb_s == D(2900)
    dense, sparse = by_format(chip.compute), by_format(chip.compute, sparse=True)
    assert dense["FP8"] == (D(1299), "TFLOPS")
    assert dense["BF16"] == dense["FP16"] == dense["TF32"] == (D(667), "TFLOPS")
    # The sparse figure is flagged and never taken as the dense one.
    assert sparse == dict.fromkeys(("FP8", "FP16", "BF16", "TF32"), (D(2563), "TFLOPS"))
    # The comparison table below rounds differently (Trainium 191, 0.8 TB/sec): it is not read.
    assert all(c.value != D(191) for c in chip.compute)


def test_stub_column_list_table_trainium3_equal_sparse_is_not_doubled() -> None:
    (chip,) = parse("neuron_trainium3").chips
    assert (chip.neuron_cores, chip.neuron_core_version, chip.memory_gib) == (8, "v4", D(144))
    dense, sparse = by_format(chip.compute), by_format(chip.compute, sparse=True)
    assert dense["MXFP8"] == dense["MXFP4"] == (D(2517), "TFLOPS")
    assert dense["BF16"] == (D(671), "TFLOPS")
    assert sparse["BF16"] == (D(2517), "TFLOPS")  # equals MXFP8 dense: kept as printed, nothing inferred


def test_older_definition_list_layout_with_one_figure_per_bullet() -> None:
    body = (
        f"{CHIP_PAGE_HEAD}<ul class='simple'><li><dl class='simple'><dt>Compute:</dt><dd><ul>"
        "<li><p>2x NeuronCore-v2 cores, delivering</p></li><li><p>420 INT8 TOPS</p></li>"
        "<li><p>210 FP16/BF16/cFP8/TF32 TFLOPS</p></li><li><p>52.5 FP32 TFLOPS</p></li></ul></dd></dl></li>"
        "<li><dl class='simple'><dt>Device Memory:</dt><dd><ul><li><p>32GB of device memory, with 820 GB/sec"
        " of bandwidth</p></li></ul></dd></dl></li></ul></body></html>"
    ).encode()
    (chip,) = parse("neuron_trainium", body).chips
    assert chip.chip == "Trainium9" and chip.neuron_cores == 2
    assert (chip.memory_unit, chip.memory_gib) == ("GB", D("29.802322"))  # decimal GB, as v2.8.0 printed it
    assert chip.bandwidth_gb_s == D(820)
    assert by_format(chip.compute)["TF32"] == (D(210), "TFLOPS")
    assert chip.doc_version == "2.29.1"  # the URL's /en/v2.29.1/ outranks the page's own meta


def test_doc_version_from_the_page_when_the_url_has_none() -> None:
    body = chip_page("<p>Two NeuronCore-v2 deliver 190 BF16 TFLOPS</p>", "<p>32 GiB with 820 GiB/sec</p>")
    (chip,) = parse("neuron_trainium", body, url="https://docs.example/en/latest/trainium.html").chips
    assert chip.doc_version == "2.99.0"


@pytest.mark.parametrize(
    ("compute", "memory", "missing"),
    [
        ("<p>Two NeuronCore-v2 cores.</p>", "<p>32 GiB with 820 GiB/sec</p>", "no compute figure"),
        ("<p>Two NeuronCore-v2 deliver 190 BF16 TFLOPS</p>", "<p>Plenty of memory.</p>", "without a size"),
        ("<p>Lots of TFLOPS: 190 BF16 TFLOPS</p>", "<p>32 GiB with 820 GiB/sec</p>", "no NeuronCore count"),
    ],
)
def test_a_chip_page_whose_figures_are_gone_is_refused_naming_what(compute: str, memory: str, missing: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("neuron_trainium", chip_page(compute, memory))
    assert caught.value.source_id == "neuron_trainium"
    assert missing in str(caught.value)


def test_a_chip_page_without_its_table_is_refused() -> None:
    with pytest.raises(ParseError, match=r"\[neuron_trainium2\].*no 'Compute' block"):
        parse("neuron_trainium2", f"{CHIP_PAGE_HEAD}<p>Trainium2 is fast.</p></body></html>".encode())


# --- configuration pages ---------------------------------------------------------------------------------------


def configs(source_id: str, body: bytes | None = None) -> dict[str, object]:
    return {c.configuration: c for c in parse(source_id, body).configs}


def test_size_per_row_table_with_units_in_headers_inf2() -> None:
    found = configs("neuron_inf2_arch")
    assert list(found) == ["Inf2.xlarge", "Inf2.8xlarge", "Inf2.24xlarge", "Inf2.48xlarge"]
    big = found["Inf2.48xlarge"]
    assert (big.chips, big.memory_printed, big.memory_gib, big.doc_version) == (12, "384 GiB", D(384), "2.29.1")
    # "FP8/FP16/BF16/TF32 TFLOPS" header: four formats share the column's figure; no comma in "2280".
    assert by_format(big.compute) == {
        **dict.fromkeys(("FP8", "FP16", "BF16", "TF32"), (D(2280), "TFLOPS")),
        "FP32": (D(570), "TFLOPS"),
    }


def test_thousands_commas_and_up_to_cells_trn1() -> None:
    found = configs("neuron_trn1_arch")
    assert found["Trn1.32xlarge"].chips == 16
    assert by_format(found["Trn1n.32xlarge"].compute)["BF16"] == (D(3040), "TFLOPS")  # printed "3,040"
    assert found["Trn1.2xlarge"].doc_version == "2.20.0"


def test_transposed_table_trn2_with_ultraserver_and_sparse_row() -> None:
    found = configs("neuron_trn2_arch")
    assert list(found) == ["trn2.48xlarge / trn2u.48xlarge", "Trn2 UltraServer"]
    ultra = found["Trn2 UltraServer"]
    assert (ultra.chips, ultra.memory_gib) == (64, D(6144))
    assert by_format(ultra.compute)["FP8"] == (D("83.2"), "PFLOPS")  # dense, as the table says
    assert by_format(ultra.compute, sparse=True)["FP8"] == (D(164), "PFLOPS")
    assert next(c for c in ultra.compute if c.number_format == "FP8" and not c.sparse).tera == D("83200.0")


def test_two_header_rows_and_bold_section_rows_trn3() -> None:
    found = configs("neuron_trn3_arch")
    assert list(found) == ["Trn3 Gen1 UltraServer", "Trn3 Gen2 UltraServer"]  # "Configuration" row is no config
    gen2 = found["Trn3 Gen2 UltraServer"]
    assert (gen2.chips, gen2.memory_printed, gen2.memory_gib) == (144, "20,736 GiB", D(20736))  # "144 (36 servers x 4)"
    assert by_format(gen2.compute)["MXFP8"] == (D(362448), "TFLOPS")
    assert found["Trn3 Gen1 UltraServer"].chips == 64


def test_a_configuration_table_missing_from_the_html_is_refused_loudly() -> None:
    # SDK 2.21+ trn1-arch: the malformed list-table renders as nothing, prose only.
    body = b"<html><body><h1>Amazon EC2 Trn1/Trn1n Architecture</h1><p>Up to 16 Trainium chips.</p></body></html>"
    with pytest.raises(ParseError) as caught:
        parse("neuron_trn1_arch", body)
    assert caught.value.source_id == "neuron_trn1_arch"
    assert "no configuration table" in str(caught.value) and "RST source" in str(caught.value)


def test_trn3_product_page_of_ultraservers_only_lands_configurations_without_prices() -> None:
    batch = parse("aws_trn3")
    found = {c.configuration: c for c in batch.configs}
    gen2 = found["Trn3 Gen2 UltraServer"]
    # AWS marketing prints decimal TB: kept as printed, converted by definition (not taken for 20,736 GiB).
    assert (gen2.chips, gen2.memory_printed, gen2.memory_unit, gen2.memory_gib) == (
        144,
        "20.7 TB",
        "TB",
        D("19278.377295"),
    )
    assert by_format(gen2.compute)["FP8"] == (D(362), "PFLOPS")
    assert not hasattr(batch, "prices")
    assert [c.claim_text for c in batch.claims] == [
        "Trn3 UltraServers deliver up to 4.4x more compute performance and 4x greater energy efficiency than "
        "Trn2 UltraServers."
    ]
    assert batch.claims[0].page_date is not None and batch.claims[0].is_claim


# --- SDK release, claims ---------------------------------------------------------------------------------------


def test_release_takes_the_release_statement_and_keeps_other_dates_as_provenance() -> None:
    (release,) = parse("neuron_sdk_release").releases
    assert (release.version, str(release.release_date), release.date_printed) == ("2.32.0", "2026-08-17", "08/17/2026")
    # "Last updated" (August 18) and the meta date-modified (08/13) disagree: provenance only.
    assert {"August 18, 2026", "08/13/2026"} <= set(release.other_dates)


def test_a_release_page_prints_its_own_date_which_wins() -> None:
    body = (
        b'<html><head><meta content="Release date: 08/16/2026." name="description"/></head><body>'
        b"<h1>AWS Neuron SDK 2.32.0 release notes</h1>"
        b"<p><strong>Date of release</strong>: August 17, 2026</p></body></html>"
    )
    (release,) = parse("neuron_sdk_release", body).releases
    assert (release.version, str(release.release_date), release.other_dates) == ("2.32.0", "2026-08-17", ["08/16/2026"])


def test_a_release_page_without_version_and_date_is_refused() -> None:
    with pytest.raises(ParseError, match="no release version"):
        parse("neuron_sdk_release", b"<html><body><h1>Release notes</h1><p>Coming soon.</p></body></html>")


@pytest.mark.parametrize(
    ("source_id", "claim"),
    [
        (
            "aws_trn1_claims",
            "Trn1 instances deliver up to 50% cost-to-train savings over comparable Amazon EC2 instances.",
        ),
        (
            "aws_trn2_claims",
            "Trn2 instances offer 30-40% better price performance than the current generation of GPU-based EC2 P5e "
            "and P5en instances.",
        ),
    ],
)
def test_vendor_claims_are_captured_as_claims(source_id: str, claim: str) -> None:
    (found,) = parse(source_id).claims
    assert (found.claim_text, found.is_claim) == (claim, True)
    assert found.page_url == str(SOURCES[source_id].url)


def test_a_claim_is_always_a_claim() -> None:
    with pytest.raises(ValidationError, match=r"is_claim\s+Input should be True"):
        VendorClaim(claim_text="up to 50% savings", page_url="https://x", is_claim=False)  # type: ignore[arg-type]


# --- figures ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2,563 FP8/FP16/BF16/TF32 sparse TFLOPS", [("FP8", True), ("FP16", True), ("BF16", True), ("TF32", True)]),
        ("1,299 FP8 TFLOPS (sparse)", [("FP8", True)]),
        ("667 BF16/FP16/TF32 TFLOPS", [("BF16", False), ("FP16", False), ("TF32", False)]),
        ("128 INT8 TOPS and 64\nFP16/BF16 TFLOPS", [("INT8", False), ("FP16", False), ("BF16", False)]),
    ],
)
def test_combined_labels_split_and_sparse_flagged(text: str, expected: list[tuple[str, bool]]) -> None:
    assert [(c.number_format, c.sparse) for c in figures.compute_figures(text)] == expected


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("Up to 16", None, None),
        ("up-to 25", "GiB", (D(25), "GiB")),
        ("1,536", "GiB", (D(1536), "GiB")),
        ("20TB of device memory", None, (D(20), "TB")),
        ("3.4\nTB/sec of bandwidth", None, None),  # a bandwidth is not a memory size
    ],
)
def test_memory_figures_with_units_beside_or_in_the_header(text: str, unit: str | None, expected: object) -> None:
    found = figures.memory(text, unit)
    assert (found[:2] if found else None) == expected


def test_bandwidth_wrapped_across_lines_and_header_units() -> None:
    assert figures.bandwidth("with 3.4\nTB/sec of bandwidth")[:2] == (D("3.4"), "TB/s")  # type: ignore[index]
    assert figures.unit_in_label("Device Memory Bandwidth (TB/sec)") == "TB/s"
    assert figures.unit_in_label("Device Memory (GiB)") == "GiB"
    assert figures.header_compute("FP8/FP16/BF16/TF32 Sparse PFLOPS") == (
        ["FP8", "FP16", "BF16", "TF32"],
        "PFLOPS",
        True,
    )
    assert figures.plain_number("N/A") is None


def test_integer_format_in_tops_and_capitalised_sizes_inf1() -> None:
    found = configs("neuron_inf1_arch")
    assert list(found) == ["Inf1.xlarge", "Inf1.2xlarge", "Inf1.6xlarge", "Inf1.24xlarge"]
    big = found["Inf1.24xlarge"]
    assert (big.chips, big.memory_gib) == (16, D(128))
    assert by_format(big.compute) == {
        "FP16": (D(1024), "TFLOPS"),
        "BF16": (D(1024), "TFLOPS"),
        "INT8": (D(2048), "TOPS"),
    }


def test_doc_version_drift_is_recorded_with_the_figures_of_that_release() -> None:
    # v2.21.0.beta printed 1,287 FP8 TFLOPS ("device"); later releases 1,299: the pinned URL says which.
    body = sample_path(SOURCES["neuron_trainium2"]).read_bytes().replace(b"1,299 FP8", b"1,287 FP8")
    url = "https://awsdocs-neuron.readthedocs-hosted.com/en/v2.21.0.beta/general/arch/neuron-hardware/trainium2.html"
    (chip,) = parse("neuron_trainium2", body, url=url).chips
    assert (chip.doc_version, by_format(chip.compute)["FP8"]) == ("2.21.0.beta", (D(1287), "TFLOPS"))
