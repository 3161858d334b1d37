"""LeaderGPU servers (EUR, HTML inside JSON): the checks every source gets (tests/support/source_kit.py)."""

from decimal import Decimal

from pipelines.adapters import parser_for
from tests.support.leadergpu import (
    EXPECTED,
    EXPECTED_UNPRICED,
    SAMPLE,
    SAMPLE_HTML,
    SAMPLE_JSON,
    SPEC,
    offers_of,
)
from tests.support.source_kit import SourceChecks


class TestGpuLeadergpu(SourceChecks):
    source_id = "gpu_leadergpu"


def test_sample_yields_exactly_the_expected_offers() -> None:
    batch = parser_for("gpu_leadergpu")(SAMPLE, SPEC)
    assert batch.source_id == "gpu_leadergpu"
    assert batch.parser_version == "gpu_leadergpu/2.1"
    assert batch.provider == "LeaderGPU"
    assert [o.listing for o in batch.offers] == list(EXPECTED)  # card order, then minute/day/week/month
    assert offers_of(batch) == EXPECTED
    assert batch.unpriced == EXPECTED_UNPRICED


def test_amounts_keep_their_printed_digits() -> None:
    batch = parser_for("gpu_leadergpu")(SAMPLE, SPEC)
    printed = {o.listing: str(o.amount) for o in batch.offers}
    assert printed["1 pcs NVIDIA A10 / minute"] == "0.0053"
    assert printed["2 pcs NVIDIA RTX A6000 / minute"] == "0.0180"
    assert printed["8 pcs NVIDIA H100 / week"] == "2650.00"
    assert printed["8 pcs NVIDIA H100 / month"] == "10900.00"
    assert all(isinstance(o.amount, Decimal) for o in batch.offers)


def test_sample_starts_with_the_sample_comment_and_the_exact_figures() -> None:
    assert "ratecard SAMPLE" in SAMPLE_JSON["_comment"]
    assert "filter_servers?filterExpression=available_server_next_month" in SAMPLE_JSON["_comment"]
    for figure in (
        "€ 0.0053",
        "€ 7.50",
        "€ 49.00",
        "€ 199.00",
        "€ 0.29",
        "€ 410.00",
        "€ 2,650.00",
        "€ 10,900.00",
        "€ 0.0180",
        "€ 24.00",
        "€ 150.00",
        "€ 560.00",
        "Price on request",
    ):
        assert figure in SAMPLE_HTML
    assert len(SAMPLE) < 30_000
