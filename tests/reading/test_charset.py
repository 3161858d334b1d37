"""The HTTP Content-Type charset reaches the HTML parsers and, as the HTML standard orders, outranks the page's
<meta> charset; a byte order mark outranks both; a label naming no web encoding is ignored.

The pages here are samples in the real shape (the bundled Trn1 product page with one edited cell), served over
real HTTP from 127.0.0.1 and landed in a DuckDB file under tmp_path.
"""

from __future__ import annotations

import codecs
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.adapters import parser_for
from pipelines.fetch.archive import Archive
from pipelines.fetch.encoding import charset_of, decode_html, encoding_for_label, html_encoding
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.reading.tables import soup_of
from pipelines.refresh.one_source import refresh_source
from pipelines.refresh.reparse import reparse_source
from pipelines.sources.file import SourceSpec, load_sources, sample_path
from tests.support.localserver import LocalServer, Reply

TEXT = "Prix 1,34 € × 8 – café™"


def page(meta: str | None, text: str = TEXT) -> str:
    head = f'<meta charset="{meta}">' if meta else ""
    return f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body><p>{text}</p></body></html>"


def paragraph(body: bytes, content_type: str | None) -> str:
    return soup_of(body, charset_of(content_type)).p.get_text()


# -- the decision ----------------------------------------------------------------------------------------------


def test_header_windows_1252_beats_meta_utf8() -> None:
    body = page("utf-8").encode("windows-1252")
    assert html_encoding(body, "windows-1252") == ("cp1252", "transport")
    assert paragraph(body, "text/html; charset=windows-1252") == TEXT
    assert "\ufffd" in paragraph(body, None)  # without the header the meta decides, wrongly for these bytes


def test_header_utf8_beats_meta_windows_1252() -> None:
    body = page("windows-1252").encode("utf-8")
    assert html_encoding(body, "UTF-8") == ("utf-8", "transport")
    assert paragraph(body, 'text/html; charset="UTF-8"') == TEXT
    assert paragraph(body, None) == TEXT.encode("utf-8").decode("windows-1252")  # mojibake, as a reader would see it


@pytest.mark.parametrize(
    ("bom", "codec"),
    [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")],
)
def test_bom_beats_header(bom: bytes, codec: str) -> None:
    body = bom + page("windows-1252").encode(codec)
    assert html_encoding(body, "windows-1252") == (codec, "bom")
    assert paragraph(body, "text/html; charset=windows-1252") == TEXT
    assert not decode_html(body, "windows-1252").startswith("\ufeff")  # the BOM is no part of the text


@pytest.mark.parametrize("label", ["bogus-8", "utf-7", "rot13", "base64", "unicode_escape", "utf\x008", "", "  "])
def test_a_label_naming_no_web_encoding_is_ignored(label: str) -> None:
    body = page("windows-1252").encode("windows-1252")
    assert encoding_for_label(label) is None
    assert html_encoding(body, label) == ("cp1252", "meta")
    assert paragraph(body, f"text/html; charset={label}") == TEXT


def test_without_a_header_the_meta_decides_as_before() -> None:
    assert html_encoding(page("windows-1252").encode("windows-1252")) == ("cp1252", "meta")
    assert paragraph(page("windows-1252").encode("windows-1252"), "text/html") == TEXT
    assert paragraph(page("utf-8").encode("utf-8"), None) == TEXT
    # Neither header nor meta: UTF-8 if the bytes are, else windows-1252.
    assert html_encoding(page(None).encode("utf-8")) == ("utf-8", "fallback")
    assert html_encoding(page(None).encode("windows-1252")) == ("cp1252", "fallback")
    assert paragraph(page(None).encode("windows-1252"), None) == TEXT


@pytest.mark.parametrize("label", ["latin1", "ISO-8859-1", "us-ascii", "ascii", " Windows-1252 "])
def test_latin1_and_ascii_labels_mean_windows_1252_as_in_browsers(label: str) -> None:
    assert encoding_for_label(label) == "cp1252"
    body = page("utf-8").encode("windows-1252")
    assert paragraph(body, f"text/html; charset={label}") == TEXT  # € is 0x80: no Latin-1 character


def test_meta_declaring_utf16_means_utf8() -> None:
    assert html_encoding(page("utf-16").encode("utf-8")) == ("utf-8", "meta")


@pytest.mark.parametrize(
    ("content_type", "charset"),
    [
        ("text/html; charset=windows-1252", "windows-1252"),
        ('text/html;CHARSET="Shift_JIS"', "Shift_JIS"),
        ("text/html; q=1; charset = latin1 ;x=y", "latin1"),
        ("text/html", None),
        ("text/html; charset=", None),
        (None, None),
    ],
)
def test_charset_of_content_type(content_type: str | None, charset: str | None) -> None:
    assert charset_of(content_type) == charset


def test_only_html_adapters_are_given_the_charset() -> None:
    runpod = next(s for s in load_sources() if s.adapter == "gpu_runpod_graphql")
    body = sample_path(runpod).read_bytes()
    # A JSON adapter takes no charset: the content type is accepted and changes nothing.
    assert parser_for(runpod.adapter)(body, runpod, "application/json; charset=utf-8") == parser_for(runpod.adapter)(
        body, runpod
    )


# -- end to end: fetched over HTTP, landed, replayed ------------------------------------------------------------

TRN1 = next(s for s in load_sources() if s.id == "aws_trn1")
CHIPS_CELL = "<td>trn1.2xlarge</td><td>1</td>"
# × and ™ are one byte each in windows-1252 (0xD7, 0x99) and two or three in UTF-8: only the right decoding
# reads the accelerator name off the cell.
EDITED_CELL = "<td>trn1.2xlarge</td><td>1 × AWS Trainium™ chip</td>"
TRN1_ON_DEMAND = {
    "trn1.2xlarge": Decimal("1.34"),
    "trn1.32xlarge": Decimal("21.50"),
    "trn1n.32xlarge": Decimal("24.78"),
}
FAST = FetchSettings(connect_timeout_s=1, read_timeout_s=5, max_attempts=1)


def trn1_page(meta: str, codec: str) -> bytes:
    text = sample_path(TRN1).read_text(encoding="utf-8")
    assert text.count('<meta charset="utf-8">') == 1 and text.count(CHIPS_CELL) == 1
    return (
        text.replace('<meta charset="utf-8">', f'<meta charset="{meta}">')
        .replace(CHIPS_CELL, EDITED_CELL)
        .encode(codec)
    )


def query(db_path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return con.execute(sql).fetchall()


def history(db_path: Path) -> list[tuple]:
    specs = query(
        db_path,
        """SELECT instance_type, accelerator, accelerator_count, valid_from, valid_to, fetch_id
                              FROM aws_instance_spec_history ORDER BY ALL""",
    )
    prices = query(
        db_path,
        """SELECT instance_type, price_kind, usd_per_instance_hour, valid_from, valid_to, fetch_id
                               FROM aws_instance_price_history ORDER BY ALL""",
    )
    return specs + prices


@pytest.mark.parametrize(
    ("meta", "codec", "content_type"),
    [
        ("utf-8", "windows-1252", "text/html; charset=windows-1252"),
        ("windows-1252", "utf-8", "text/html; charset=utf-8"),
    ],
    ids=["bytes-and-header-1252-meta-utf8", "bytes-and-header-utf8-meta-1252"],
)
def test_header_charset_decides_over_http_and_in_reparse(
    tmp_path: Path, meta: str, codec: str, content_type: str
) -> None:
    body = trn1_page(meta, codec)
    db_path, archive = tmp_path / "prices.duckdb", Archive(tmp_path / "archive")
    with LocalServer() as server:
        server.set("/trn1.html", Reply(body=body, content_type=content_type))
        source = SourceSpec.model_validate({**TRN1.model_dump(), "url": server.url("/trn1.html")})
        with Fetcher(FAST) as fetcher:
            outcome = refresh_source(source, fetcher=fetcher, db_path=db_path, archive=archive)

    assert outcome.status == "landed", outcome.error
    assert query(db_path, "SELECT content_type FROM fetch_log") == [(content_type,)]
    specs = query(db_path, "SELECT instance_type, accelerator, accelerator_count FROM aws_instance_specs ORDER BY 1")
    assert specs == [
        ("trn1.2xlarge", "Trainium™", 1),
        ("trn1.32xlarge", "Trainium", 16),
        ("trn1n.32xlarge", "Trainium", 16),
    ]
    on_demand = query(
        db_path,
        """SELECT instance_type, usd_per_instance_hour FROM aws_instance_prices
                                  WHERE price_kind = 'on_demand'""",
    )
    assert dict(on_demand) == TRN1_ON_DEMAND  # exact Decimals, whatever the encoding
    landed = history(db_path)

    replay = reparse_source(source, db_path=db_path, archive=archive)  # decodes with the logged content type

    assert (replay.fetches, replay.landed, replay.quarantined) == (1, 1, 0)
    assert history(db_path) == landed
