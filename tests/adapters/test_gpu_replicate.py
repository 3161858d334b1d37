"""Replicate pricing page (source "gpu_replicate", adapter gpu_replicate): exact serverless offers and billing terms
from the bundled sample, then the ways the page can drift. Altered pages are built from the sample; the sample is
never modified."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup, Tag

from pipelines.adapters import adapter_module, gpu_replicate, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.gpu.normalise import FxTable, listing
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows, render
from tests.support.source_kit import declared

SOURCE = declared()["gpu_replicate"]  # as pipelines/sources.toml declares it
SAMPLE = sample_path(SOURCE).read_bytes()
D = Decimal


def expected(sku: str, name: str, count: int, amount: str, vram: int | None) -> tuple:
    """A serverless USD offer per second, stock and region not stated, one offer, VRAM per GPU."""
    per = "gpu" if count == 1 else "instance"
    vram_per_gpu = D(vram) if vram is not None else None
    return (sku, name, count, "serverless", D(amount), "USD", per, "second", "unknown", None, 1, vram_per_gpu)


EXPECTED = recorded_offer_rows("gpu_replicate")  # tests/sources/expected/gpu_replicate.jsonl


def parse(body: bytes = SAMPLE) -> GpuBatch:
    return parser_for("gpu_replicate")(body, SOURCE)


def soup() -> BeautifulSoup:
    return BeautifulSoup(SAMPLE, "lxml")


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def row_of(page: BeautifulSoup, sku: str) -> Tag:
    return next(tr for tr in page.find_all("tr") if tr.find("code", string=sku))


def set_price(page: BeautifulSoup, sku: str, text: str) -> None:
    cell = cells(row_of(page, sku))[1]
    cell.clear()
    cell.append(text)


def test_sample_yields_the_exact_offers() -> None:
    batch = parse()
    assert (batch.source_id, batch.provider, batch.parser_version) == (
        "gpu_replicate",
        "Replicate",
        "gpu_replicate/1.0",
    )
    assert rows(batch) == EXPECTED
    assert [str(o.amount) for o in batch.offers] == [str(e[4]) for e in EXPECTED]  # as printed: 0.001400
    assert batch.unpriced == []  # the `cpu` row is not a GPU offer: skipped, not unpriced
    assert batch.shape


def test_billing_terms_are_read_from_the_page() -> None:
    terms = parse().offers[0].serverless
    assert terms is not None
    assert (terms.increment_seconds, terms.idle_timeout_seconds) == (1, None)  # no idle timeout is stated
    assert terms.terms_url == "https://replicate.com/pricing"
    assert "billed by the second" in terms.terms
    assert {o.serverless for o in parse().offers} == {terms}


def test_a_public_models_cold_start_is_not_billed() -> None:
    terms = parse().offers[0].serverless
    assert terms is not None and terms.cold_start_billed is False


def test_usd_per_gpu_hour_divides_the_instance_price_by_its_gpus() -> None:
    offer = next(o for o in parse().offers if o.listing == "gpu-h100-8x")
    item = listing("Replicate", offer, FxTable(), date(2026, 9, 28))
    assert item.usd_per_gpu_hour == D("0.012200") * 3600 / 8 == D("5.49")
    assert item.usd_per_gpu_second == D("0.001525")
    assert (item.gpu_model, item.billing_increment_seconds, item.billing_terms_url) == (
        "H100",
        1,
        "https://replicate.com/pricing",
    )


def test_registered_parser_is_this_module() -> None:
    assert adapter_module("gpu_replicate") is gpu_replicate


def test_provider_name_comes_from_the_source_options() -> None:
    other = SOURCE.model_copy(update={"options": {"provider": "Replicate (public models)"}})
    assert parser_for("gpu_replicate")(SAMPLE, other).provider == "Replicate (public models)"


def test_reordered_rows_parse_the_same_offers() -> None:
    page = soup()
    body = page.find("tbody")
    for tr in reversed([tr.extract() for tr in body.find_all("tr", recursive=False)]):
        body.append(tr)
    assert sorted(rows(parse(render(page)))) == sorted(EXPECTED)


def test_reordered_columns_parse_the_same() -> None:
    page = soup()
    for tr in page.find("table").find_all("tr"):
        found = [c.extract() for c in cells(tr)]
        # Price | RAM | GPU RAM | GPU | CPU | Hardware; a note spanning the spec cells stays one cell.
        order = [1, 5, 4, 2, 3, 0] if len(found) == 6 else [1, 2, 0] if len(found) == 3 else [0]
        for index in order:
            tr.append(found[index])
    assert rows(parse(render(page))) == EXPECTED


def test_a_group_heading_that_is_not_one_spanning_cell_is_skipped() -> None:
    page = soup()
    heading = page.find("h3").find_parent("tr")
    heading.find("td")["colspan"] = "1"
    for _ in range(5):
        heading.append(page.new_tag("td"))
    assert rows(parse(render(page))) == EXPECTED


@pytest.mark.parametrize("text", ["Free", "$0.00O975/sec $3.51/hr", "$0.000975 $3.51", "€0.000975/sec €3.51/hr"])
def test_an_unreadable_price_is_a_cell_error_naming_the_row(text: str) -> None:
    page = soup()
    set_price(page, "gpu-l40s", text)
    with pytest.raises(CellError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_replicate"
    assert "gpu-l40s" in str(err.value) and err.value.column == "Price"


@pytest.mark.parametrize(
    ("sku", "text"), [("gpu-l40s", "$0.000975/sec $3.50/hr"), ("gpu-h100-8x", "$0.0122/sec $43.90/hr")]
)
def test_an_hourly_figure_that_disagrees_is_refused(sku: str, text: str) -> None:
    page = soup()
    set_price(page, sku, text)
    with pytest.raises(CellError, match="disagrees") as err:
        parse(render(page))
    assert sku in str(err.value)


def test_an_hourly_figure_at_more_decimals_is_checked_at_its_own() -> None:
    page = soup()
    set_price(page, "gpu-l40s", "$0.000972/sec ($3.4992/hr)")  # L40S as another copy of the page prints it
    offer = next(o for o in parse(render(page)).offers if o.listing == "gpu-l40s")
    assert offer.amount == D("0.000972")


def test_a_blank_price_is_unpriced_not_zero() -> None:
    page = soup()
    set_price(page, "gpu-a100-large", "-")
    batch = parse(render(page))
    assert batch.unpriced == ["gpu-a100-large"]
    assert "gpu-a100-large" not in [o.listing for o in batch.offers]


def test_a_gpu_count_that_disagrees_with_the_sku_is_refused() -> None:
    page = soup()
    cells(row_of(page, "gpu-2x-l40s"))[2].string = "4x"
    with pytest.raises(CellError, match="disagree") as err:
        parse(render(page))
    assert "gpu-2x-l40s" in str(err.value)


def test_a_hardware_cell_without_a_sku_is_refused() -> None:
    page = soup()
    row_of(page, "gpu-t4").find("code").decompose()
    with pytest.raises(CellError, match="SKU") as err:
        parse(render(page))
    assert "Nvidia T4 GPU" in str(err.value)


def test_a_sku_listed_twice_is_refused() -> None:
    body = SAMPLE.replace(b">gpu-a40-small<", b">gpu-a40-large<")
    with pytest.raises(ParseError, match="listed twice"):
        parse(body)


def test_a_missing_price_column_is_named() -> None:
    page = soup()
    for tr in page.find("table").find_all("tr"):
        if len(cells(tr)) > 1:
            cells(tr)[1].decompose()
    with pytest.raises(MissingColumnError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_replicate" and "price" in err.value.missing


def test_a_page_without_the_table_is_a_typed_error() -> None:
    page = soup()
    page.find("table").decompose()
    with pytest.raises(TableNotFoundError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_replicate"


def test_a_page_without_its_billing_prose_is_refused() -> None:
    page = soup()
    for p in page.find_all("p"):
        if p.find_parent("table") is None:
            p.decompose()
    with pytest.raises(ParseError, match="billed increment") as err:
        parse(render(page))
    assert not isinstance(err.value, TableNotFoundError)
    assert err.value.source_id == "gpu_replicate"


def test_the_bundled_sample_is_declared_a_sample_and_small() -> None:
    assert b"ratecard SAMPLE" in SAMPLE[:400]
    assert b"https://replicate.com/pricing" in SAMPLE[:400]
    assert b"recording" in SAMPLE[:400]  # "not a recording"
    assert len(SAMPLE) < 30_000
