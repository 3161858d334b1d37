"""The reading commands' tables in a 100-column terminal: no line longer, the key figures present, long names
shortened; `--wide` shows every column with names in full."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.cli.fitted import printed as printed_figure

runner = CliRunner()
LONG_NAME = "RunPod serverless pool 80 GB (H100 PRO): H100 PRO"


def printed(db, *args: str) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    ("args", "figures"),
    [
        (["show"], ["trn1.32xlarge", "21.50", "1.3438", "Hyperstack", "2.50", "4194.79", "0.760000"]),
        (["history", "trn1.32xlarge", "--kind", "on_demand"], ["AWS price list", "us-east-1", "1.5488", "1.3438"]),
        (["changes", "--since", "520w"], ["trn1.32xlarge", "us-east-1", "price"]),
        (["pilot", "costs", "--workload", "chat-8b"], ["inf2.xlarge", "12585.60", "4194.79", "2.097396", "0.4989"]),
    ],
)
def test_each_table_fits_100_columns_with_its_key_figures(worked, args, figures):
    text = printed(worked, *args)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert [f for f in figures if f not in text] == []


@pytest.mark.parametrize(
    ("args", "wide_only"),
    [(["show"], "accel memory (as printed)"), (["pilot", "costs", "--workload", "chat-8b"], "USD per billed hour")],
)
def test_a_long_offering_name_is_shortened_and_wide_shows_it_whole(worked, args, wide_only):
    narrow = printed(worked, *args)
    assert LONG_NAME not in narrow and "RunPod serverless" in narrow and wide_only not in narrow
    wide = printed(worked, *args, "--wide")
    assert LONG_NAME in wide and wide_only in wide


def test_wide_history_and_changes_name_every_column(worked):
    history = printed(worked, "history", "trn1.32xlarge", "--kind", "on_demand", "--wide")
    assert "valid from (UTC)" in history and "│ AWS price list │ trn1.32xlarge │" in history
    changes = printed(worked, "changes", "--since", "520w", "--wide")
    assert "source" in changes and "aws_pricelist_us_east_1" in changes


def test_the_comparison_with_nvidia_includes_inferentia(worked):
    text = printed(worked, "show", "--table", "accelerators_vs_nvidia")
    assert "AWS accelerators vs NVIDIA" in text
    inf2 = [line for line in text.splitlines() if "│ Inferentia2 " in line and "neuron_docs" in line]
    assert inf2 and "0.7600" in inf2[0]  # inf2.xlarge's on-demand price, the pilot's winner, per chip-hour
    assert any("│ Inferentia " in line for line in text.splitlines()) and "Trainium2" in text and "H100 SXM" in text


@pytest.mark.parametrize("wide", [[], ["--wide"]])
def test_show_prints_figures_at_their_printed_precision_and_json_keeps_them_exact(worked, wide):
    text = printed(worked, "show", *wide)
    assert re.findall(r"\d[eE][-+]?\d", text) == []  # never 0E-10
    assert re.findall(r"\d\.\d{7,}", text) == []  # nor 18 decimals of a quotient
    inf2 = next(line for line in text.splitlines() if "inf2.24xlarge" in line)
    assert "1.0817" in inf2 and "1.081666" not in inf2
    prices = json.loads(printed(worked, "show", "--format", "json", "--table", "aws_prices"))["aws_prices"]
    exact = {r["instance_type"]: r["usd_per_accelerator_hour"] for r in prices if r["price_kind"] == "on_demand"}
    assert Decimal(exact["inf2.24xlarge"]) == (Decimal("6.49") / 6).quantize(Decimal("1E-18"))  # 18 dp, as stored


def test_a_zero_at_a_large_scale_prints_in_fixed_point():
    assert (printed_figure(Decimal("0E-10"), 4), printed_figure(Decimal("0E-10"))) == ("0.0000", "0")
    assert printed_figure(Decimal("1.081666666666666667")) == "1.0817"  # at most 4 places unless told
    assert printed_figure(Decimal("21.500000")) == "21.5"


def test_show_names_an_offline_runs_samples_never_its_dead_local_urls(worked):
    text = printed(worked, "show", "--wide")
    warnings = [line for line in text.splitlines() if "spec cross-check:" in line]
    assert warnings and all("127.0.0.1" not in line for line in warnings)
    assert any("pipelines/samples/aws/trn3.html (sample)" in line for line in warnings)
    landed = json.loads(printed(worked, "show", "--format", "json", "--table", "spec_crosscheck"))["spec_crosscheck"]
    assert any("http://127.0.0.1:" in row["warning"] for row in landed)  # the data keeps the URL fetched
