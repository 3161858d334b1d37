"""Beam pricing page (source "gpu_beam", adapter gpu_beam): exact serverless offers and billing terms from the
bundled sample, then the ways the page can drift. Altered pages are built from the sample; the sample is never
modified."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup, Tag

from pipelines.adapters import gpu_beam, parser_for
from pipelines.errors import CellError, MissingColumnError, ParseError, TableNotFoundError
from pipelines.gpu.normalise import FxTable, listing
from pipelines.gpu.records import GpuBatch
from pipelines.sources.file import sample_path
from tests.support.gpu_offers import offer_rows as rows
from tests.support.gpu_offers import recorded_offer_rows, render
from tests.support.source_kit import declared

SOURCE = declared()["gpu_beam"]  # as pipelines/sources.toml declares it
URL = str(SOURCE.url)
SAMPLE = sample_path(SOURCE).read_bytes()
D = Decimal


def expected(name_printed: str, gpu_name: str, amount: str, memory: int | None = None) -> tuple:
    """A serverless USD offer per GPU-second, one GPU, stock and region not stated, memory only if the name has it."""
    vram = D(memory) if memory is not None else None
    return (name_printed, gpu_name, 1, "serverless", D(amount), "USD", "gpu", "second", "unknown", None, 1, vram)


EXPECTED = recorded_offer_rows("gpu_beam")  # tests/sources/expected/gpu_beam.jsonl
HOURLY = {"T4 GPU": "0.54", "RTX 4090 GPU": "0.69", "A10G GPU": "1.05", "A100-40 GPU": "2.75"}
HOURLY |= {"A100-80 GPU": "3.44", "H100 GPU": "4.40"}


def parse(body: bytes = SAMPLE) -> GpuBatch:
    return parser_for("gpu_beam")(body, SOURCE)


def soup() -> BeautifulSoup:
    return BeautifulSoup(SAMPLE, "lxml")


def price_table(page: BeautifulSoup) -> Tag:
    return next(t for t in page.find_all("table") if "Resource" in t.find("tr").get_text())


def cells(tr: Tag) -> list[Tag]:
    return tr.find_all(["td", "th"], recursive=False)


def row_of(page: BeautifulSoup, name: str) -> Tag:
    return next(tr for tr in price_table(page).find_all("tr") if cells(tr)[0].get_text(strip=True) == name)


def test_sample_yields_the_exact_offers() -> None:
    batch = parse()
    assert batch.source_id == "gpu_beam"
    assert batch.provider == "Beam"
    assert batch.parser_version == "gpu_beam/1.0"
    assert rows(batch) == EXPECTED
    assert batch.unpriced == []  # CPU, RAM and File Storage are not GPU offers: skipped, not unpriced


def test_amounts_keep_their_printed_decimals() -> None:
    assert [str(o.amount) for o in parse().offers] == [row[4].to_eng_string() for row in EXPECTED]


def test_billing_terms_come_from_the_page() -> None:
    terms = {o.serverless for o in parse().offers}
    assert len(terms) == 1
    (billing,) = terms
    assert billing is not None
    assert billing.increment_seconds == 1
    assert billing.idle_timeout_seconds == 180  # the endpoint default, stated first
    assert billing.cold_start_billed is True
    assert billing.terms_url == URL
    assert "billed per second" in billing.terms
    assert "180 seconds for endpoints" in billing.terms


def test_registered_parser_is_this_module() -> None:
    from pipelines.adapters import adapter_module

    assert adapter_module("gpu_beam") is gpu_beam


def test_provider_name_comes_from_the_source_options() -> None:
    other = SOURCE.model_copy(update={"options": {"provider": "Beam (beta9)"}})
    assert parser_for("gpu_beam")(SAMPLE, other).provider == "Beam (beta9)"


def test_usd_per_gpu_hour_is_per_second_times_3600() -> None:
    on = date(2026, 9, 28)
    for offer in parse().offers:
        normal = listing("Beam", offer, FxTable(), on)
        assert normal.usd_per_gpu_hour == offer.amount * 3600
        assert normal.usd_per_gpu_second == offer.amount
        assert normal.usd_per_gpu_hour.quantize(D(HOURLY[offer.listing])) == D(HOURLY[offer.listing])
        assert normal.billing_increment_seconds == 1 and normal.idle_timeout_seconds == 180
        assert normal.gpu_model is not None, offer.gpu_name


def test_memory_in_the_name_reaches_the_listing() -> None:
    on = date(2026, 9, 28)
    normal = {o.listing: listing("Beam", o, FxTable(), on) for o in parse().offers}
    assert (normal["A100-40 GPU"].gpu_model, normal["A100-40 GPU"].gpu_memory_printed) == ("A100", D(40))
    assert (normal["A100-80 GPU"].gpu_model, normal["A100-80 GPU"].gpu_memory_printed) == ("A100", D(80))
    assert normal["A100-80 GPU"].gpu_memory_from_catalog is False
    assert normal["H100 GPU"].gpu_memory_from_catalog is True  # the name prints none: the catalog's, flagged


def test_reordered_columns_parse_the_same() -> None:
    page = soup()
    for tr in price_table(page).find_all("tr"):
        found = [c.extract() for c in cells(tr)]
        for cell in [found[2], found[1], found[0]]:  # per hour, per second, resource
            tr.append(cell)
    assert rows(parse(render(page))) == EXPECTED


def test_footnote_marks_and_a_table_without_thead_parse_the_same() -> None:
    page = soup()
    table = price_table(page)
    header = cells(table.find("tr"))
    header[1].append(page.new_tag("sup"))
    header[1].sup.string = "1"
    header[2].string = "Price (Per Hour)*"
    cells(row_of(page, "H100 GPU"))[0].string = "H100 GPU†"
    table.thead.unwrap()
    batch = parse(render(page))
    assert rows(batch) == [*EXPECTED[:-1], expected("H100 GPU", "H100 GPU", "0.001222")]


def test_without_the_hourly_column_the_per_second_price_stands() -> None:
    page = soup()
    for tr in price_table(page).find_all("tr"):
        cells(tr)[2].decompose()
    assert rows(parse(render(page))) == EXPECTED


def test_another_copys_h100_figures_parse() -> None:
    body = SAMPLE.replace(b"<td>$0.001222</td><td>$4.40</td>", b"<td>$0.000972</td><td>$3.50</td>")
    assert [o.amount for o in parse(body).offers if o.listing == "H100 GPU"] == [D("0.000972")]


def test_an_hourly_figure_with_more_decimals_is_checked_at_those_decimals() -> None:
    assert parse(SAMPLE.replace(b"<td>$4.40</td>", b"<td>$4.3992</td>")).offers[-1].amount == D("0.001222")
    with pytest.raises(CellError, match=r"hourly 4\.3990 disagrees with 0\.001222/sec x 3600 = 4\.399200"):
        parse(SAMPLE.replace(b"<td>$4.40</td>", b"<td>$4.3990</td>"))


@pytest.mark.parametrize("cell", ["$0.000l92", "about $0.0002", "$0.000192 per core", "€0.000192", "$0.000000"])
def test_an_unreadable_price_is_a_cell_error_naming_the_row(cell: str) -> None:
    body = SAMPLE.replace(b"<td>$0.000192</td>", f"<td>{cell}</td>".encode())
    with pytest.raises(CellError) as err:
        parse(body)
    assert err.value.source_id == "gpu_beam"
    assert "RTX 4090 GPU" in str(err.value)
    assert err.value.column == "Price (Per Second)"


def test_a_disagreeing_hourly_figure_is_a_cell_error_naming_the_row() -> None:
    body = SAMPLE.replace(b"<td>$3.44</td>", b"<td>$3.45</td>")
    with pytest.raises(CellError) as err:
        parse(body)
    assert err.value.source_id == "gpu_beam"
    assert "A100-80 GPU" in str(err.value)
    assert err.value.column == "Price (Per Hour)"
    assert "3.45" in str(err.value) and "3.438" in str(err.value)


def test_contact_us_and_blank_prices_are_unpriced_not_zero() -> None:
    page = soup()
    cells(row_of(page, "H100 GPU"))[1].string = "Contact us"
    cells(row_of(page, "H100 GPU"))[2].string = "Contact us"
    cells(row_of(page, "T4 GPU"))[1].string = ""
    cells(row_of(page, "T4 GPU"))[2].string = ""
    batch = parse(render(page))
    assert batch.unpriced == ["T4 GPU", "H100 GPU"]
    assert rows(batch) == EXPECTED[1:-1]


def test_a_page_without_the_price_table_is_a_typed_error() -> None:
    page = soup()
    price_table(page).decompose()  # the keep-warm table stays: it carries no price column
    with pytest.raises(TableNotFoundError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_beam"


def test_a_missing_per_second_column_is_named() -> None:
    page = soup()
    for tr in price_table(page).find_all("tr"):
        cells(tr)[1].decompose()
    with pytest.raises(MissingColumnError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_beam"
    assert err.value.missing == ["per_second"]


def test_billing_prose_removed_is_a_parse_error() -> None:
    page = soup()
    for p in page.find_all("p"):
        if "billed per second" in p.get_text():
            p.decompose()
    with pytest.raises(ParseError) as err:
        parse(render(page))
    assert err.value.source_id == "gpu_beam"
    assert "billed increment" in str(err.value)


def test_the_charged_for_list_alone_states_on_start_billed() -> None:
    page = soup()
    lead = next(p for p in page.find_all("p") if "boot your application and run its" in p.get_text())
    lead.string = "You are charged whenever a container is running. This includes:"
    (billing,) = {o.serverless for o in parse(render(page)).offers}
    assert billing is not None and billing.cold_start_billed is True


def test_a_gpu_listed_twice_is_refused() -> None:
    body = SAMPLE.replace(b"<td>A10G GPU</td>", b"<td>T4 GPU</td>", 1).replace(b"<td>$1.05</td>", b"<td>$0.54</td>")
    body = body.replace(b"<td>$0.000292</td>", b"<td>$0.000150</td>")
    with pytest.raises(ParseError, match="listed twice"):
        parse(body)


def test_not_html_at_all_is_a_typed_error() -> None:
    with pytest.raises(ParseError) as err:
        parse(b'{"prices": []}')
    assert err.value.source_id == "gpu_beam"


def test_the_bundled_sample_is_declared_a_sample_and_small() -> None:
    assert b"ratecard SAMPLE" in SAMPLE[:400]
    assert URL.encode() in SAMPLE[:400]
    assert b"recording" not in SAMPLE.replace(b"not a recording", b"")
    assert len(SAMPLE) < 30_000
