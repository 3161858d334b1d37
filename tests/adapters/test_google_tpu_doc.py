"""Cloud TPU page adapter (sources "tpu_v5e", "tpu_v5p", "tpu_v6e"): each page's chip, its HBM and bandwidth as
printed, and its peak compute per chip by number format, dense unless the label says otherwise; rows per Pod or host
are not the chip's; a page without a figure is refused naming it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.adapters import parser_for
from pipelines.errors import ParseError
from pipelines.sources.file import SourceSpec, load_sources, sample_path

D = Decimal
SPECS = {s.id: s for s in load_sources() if s.adapter == "google_tpu_doc"}


def parse(text: str, source_id: str = "tpu_v6e"):
    return parser_for("google_tpu_doc")(text.encode(), SPECS[source_id])


def sample(source_id: str) -> str:
    return sample_path(SPECS[source_id]).read_text(encoding="utf-8")


def test_each_page_gives_its_chip_with_figures_as_printed_and_converted():
    chips = {s: parser_for("google_tpu_doc")(sample_path(spec).read_bytes(), spec).chips for s, spec in SPECS.items()}
    (v6e,), (v5e,), (v5p,) = chips["tpu_v6e"], chips["tpu_v5e"], chips["tpu_v5p"]
    assert (v6e.chip, v6e.vendor, v6e.neuron_cores, v6e.neuron_core_version) == ("TPU v6e", "Google", None, None)
    assert (v6e.memory_printed, v6e.memory_value, v6e.memory_unit, v6e.memory_gib) == (
        "32 GB",
        D(32),
        "GB",
        D("29.802322"),
    )
    assert (v6e.bandwidth_printed, v6e.bandwidth_unit, v6e.bandwidth_gb_s) == ("1638 GBps", "GB/s", D(1638))
    assert [(c.number_format, c.value, c.unit, c.sparse) for c in v6e.compute] == [
        ("BF16", D(918), "TFLOPS", False),
        ("INT8", D(1836), "TOPS", False),
    ]
    # Not the chip's: DRAM per host (1536 GiB), BF16 peak compute per Pod (234.9 PFLOPs), ICI bandwidth.
    assert D("234.9") not in {c.value for c in v6e.compute} and v6e.memory_value != D(1536)
    assert (v5e.chip, v5e.memory_printed, v5e.bandwidth_printed) == ("TPU v5e", "16 GB", "819 GBps")
    # The older page's one row for both: "HBM2e capacity and bandwidth | 95 GB, 2765 GBps".
    assert (v5p.chip, v5p.memory_printed, v5p.bandwidth_printed, v5p.bandwidth_gb_s) == (
        "TPU v5p",
        "95 GB",
        "2765 GBps",
        D(2765),
    )
    assert [(c.number_format, c.value) for c in v5p.compute] == [("BF16", D(459))]


def test_a_figure_in_gib_per_second_converts_by_its_unit():
    text = sample("tpu_v5e").replace("| HBM bandwidth per chip | 819 GBps |", "| HBM bandwidth per chip | 800 GiBps |")
    (chip,) = parse(text, "tpu_v5e").chips
    assert (chip.bandwidth_printed, chip.bandwidth_unit, chip.bandwidth_gb_s) == ("800 GiBps", "GiB/s", D("858.993459"))


def test_a_figure_labelled_sparse_is_kept_sparse_never_dense():
    text = sample("tpu_v6e").replace(
        "| Peak compute per chip (Int8) | 1836 TOPs |",
        "| Peak compute per chip (Int8) | 1836 TOPs |\n| Peak compute per chip with sparsity (fp8) | 3672 TFLOPs |",
    )
    (chip,) = parse(text).chips
    assert [(c.number_format, c.sparse) for c in chip.compute] == [("BF16", False), ("INT8", False), ("FP8", True)]


@pytest.mark.parametrize(
    ("removed", "missing"),
    [
        ("| HBM capacity per chip | 32 GB |\n", "no HBM capacity per chip"),
        ("| HBM bandwidth per chip | 1638 GBps |\n", "no HBM bandwidth per chip"),
        (
            "| Peak compute per chip (bf16) | 918 TFLOPs |\n| Peak compute per chip (Int8) | 1836 TOPs |\n",
            "no peak compute per chip",
        ),
    ],
)
def test_a_page_without_a_figure_is_refused_naming_it(removed: str, missing: str):
    text = sample("tpu_v6e")
    assert removed in text
    with pytest.raises(ParseError, match=rf"\[tpu_v6e\] parse: the TPU v6e page prints {missing}"):
        parse(text.replace(removed, ""))


def test_a_figure_in_an_unknown_format_is_refused_naming_the_row():
    text = sample("tpu_v6e").replace("(Int8) | 1836 TOPs", "(int4) | 3672 TOPs")
    with pytest.raises(ParseError, match=r"'Peak compute per chip \(int4\)' \| '3672 TOPs' is not a figure"):
        parse(text)


def test_a_page_whose_title_names_no_tpu_is_refused():
    with pytest.raises(ParseError, match=r"\[tpu_v6e\] parse: the page's title names no TPU version"):
        parse(sample("tpu_v6e").replace("# TPU v6e", "# Cloud accelerators"))


def test_the_options_may_name_the_chip():
    spec = SourceSpec.model_validate({**SPECS["tpu_v6e"].model_dump(), "options": {"chip": "TPU v6e"}})
    text = sample("tpu_v6e").replace("# TPU v6e", "# Trillium")
    assert parser_for("google_tpu_doc")(text.encode(), spec).chips[0].chip == "TPU v6e"
