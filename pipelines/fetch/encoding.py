"""Which character encoding an HTML body is in, decided in the HTML standard's order, and the body decoded.

The order (WHATWG HTML, "determining the character encoding"): a byte order mark wins; else the charset of
the HTTP Content-Type header (the transport layer); else a <meta> charset near the start of the page; else a
fallback. So a page whose meta says utf-8 but whose server says windows-1252 is read as windows-1252, as every
browser reads it. Labels are matched as the WHATWG Encoding standard does for the aliases that differ from
Python's codec names (`latin1`, `iso-8859-1` and `us-ascii` mean windows-1252); a label naming no encoding a
browser knows is ignored, so the next rule decides.
"""

from __future__ import annotations

import codecs
import re
from typing import Literal

from bs4.dammit import EncodingDetector

Rule = Literal["bom", "transport", "meta", "fallback"]

BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_BE, "utf-16-be"), (codecs.BOM_UTF16_LE, "utf-16-le"))

# WHATWG labels whose encoding is not the one Python's codec of that name implements. Browsers read pages
# labelled Latin-1 or ASCII as windows-1252 (0x80-0x9F are the euro sign, curly quotes, trade mark ... not C1
# controls), and the East Asian labels as the Microsoft supersets.
WHATWG_ALIASES = {
    **dict.fromkeys(
        (
            "ansi_x3.4-1968",
            "ascii",
            "cp819",
            "csisolatin1",
            "ibm819",
            "iso-8859-1",
            "iso-ir-100",
            "iso8859-1",
            "iso88591",
            "iso_8859-1",
            "iso_8859-1:1987",
            "l1",
            "latin1",
            "us-ascii",
            "x-cp1252",
        ),
        "cp1252",
    ),
    **dict.fromkeys(
        (
            "csisolatin5",
            "iso-8859-9",
            "iso-ir-148",
            "iso8859-9",
            "iso88599",
            "iso_8859-9",
            "iso_8859-9:1989",
            "l5",
            "latin5",
        ),
        "cp1254",
    ),
    **dict.fromkeys(("dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"), "cp874"),
    **dict.fromkeys(("csiso88598i", "iso-8859-8-i", "logical"), "iso8859-8"),
    **dict.fromkeys(("x-mac-cyrillic", "x-mac-ukrainian"), "mac-cyrillic"),
    **dict.fromkeys(("csmacintosh", "mac", "x-mac-roman"), "mac-roman"),
    **dict.fromkeys(
        ("chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "iso-ir-58", "x-gbk"), "gbk"
    ),
    **dict.fromkeys(
        (
            "cseuckr",
            "csksc56011987",
            "euc-kr",
            "iso-ir-149",
            "korean",
            "ks_c_5601-1987",
            "ks_c_5601-1989",
            "ksc5601",
            "ksc_5601",
            "windows-949",
        ),
        "cp949",
    ),
    **dict.fromkeys(
        ("csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"), "cp932"
    ),
    **dict.fromkeys(("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"), "big5hkscs"),
    **dict.fromkeys(("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"), "utf-8"),
    **dict.fromkeys(("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16"), "utf-16-le"),
}

# The encodings of the WHATWG Encoding standard, by Python codec. Anything else Python can decode (utf-7,
# utf-32, rot13, unicode_escape ...) is no web encoding: browsers ignore such a label, and so do we.
WEB_ENCODINGS = frozenset(
    codecs.lookup(name).name
    for name in (
        "utf-8",
        "utf-16-be",
        "utf-16-le",
        "cp866",
        "iso8859-2",
        "iso8859-3",
        "iso8859-4",
        "iso8859-5",
        "iso8859-6",
        "iso8859-7",
        "iso8859-8",
        "iso8859-10",
        "iso8859-13",
        "iso8859-14",
        "iso8859-15",
        "iso8859-16",
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "mac-cyrillic",
        "cp874",
        "cp1250",
        "cp1251",
        "cp1252",
        "cp1253",
        "cp1254",
        "cp1255",
        "cp1256",
        "cp1257",
        "cp1258",
        "gbk",
        "gb18030",
        "big5hkscs",
        "euc-jp",
        "iso2022-jp",
        "cp932",
        "cp949",
    )
)

CHARSET_PARAM = re.compile(r""";\s*charset\s*=\s*(?:"([^"]*)"|([^\s;"]*))""", re.IGNORECASE)


def charset_of(content_type: str | None) -> str | None:
    """The `charset` parameter of a Content-Type header value (quotes removed), if it has one."""
    match = CHARSET_PARAM.search(content_type or "")
    if match is None:
        return None
    return (match.group(1) if match.group(1) is not None else match.group(2)) or None


def encoding_for_label(label: str | None) -> str | None:
    """The Python codec a browser would decode with for this label; None for a label naming no web encoding."""
    if not label:
        return None
    key = label.strip().lower()
    try:
        name = codecs.lookup(WHATWG_ALIASES.get(key, key)).name
    except (LookupError, ValueError):  # ValueError: a NUL in the label
        return None
    return name if name in WEB_ENCODINGS else None


def _from_bom(body: bytes) -> tuple[str, int] | None:
    for bom, encoding in BOMS:
        if body.startswith(bom):
            return encoding, len(bom)
    return None


def _from_meta(body: bytes) -> str | None:
    encoding = encoding_for_label(EncodingDetector.find_declared_encoding(body, is_html=True))
    # A page cannot truly declare UTF-16 in ASCII-compatible bytes: the standard reads that as UTF-8.
    return "utf-8" if encoding in ("utf-16-le", "utf-16-be") else encoding


def _fallback(body: bytes) -> str:
    # Undeclared bytes that are not UTF-8 are read as windows-1252, as browsers in English locales do, rather
    # than having every non-ASCII byte replaced by U+FFFD.
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def html_encoding(body: bytes, transport_charset: str | None = None) -> tuple[str, Rule]:
    """The encoding to decode `body` with and the rule that chose it, in the HTML standard's order."""
    bom = _from_bom(body)
    if bom is not None:
        return bom[0], "bom"
    transport = encoding_for_label(transport_charset)
    if transport is not None:
        return transport, "transport"
    meta = _from_meta(body)
    if meta is not None:
        return meta, "meta"
    return _fallback(body), "fallback"


def decode_html(body: bytes, transport_charset: str | None = None) -> str:
    """The body as text. Once the encoding is decided, bytes it cannot decode become U+FFFD, as in browsers."""
    encoding, _ = html_encoding(body, transport_charset)
    bom = _from_bom(body)  # when there is one, it chose the encoding
    return body[bom[1] if bom else 0 :].decode(encoding, errors="replace")
