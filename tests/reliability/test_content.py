"""Content faults: the page answers 200 but what it says is broken, odd or hostile.

Each scenario builds its broken page from a bundled sample with string edits (`edit` refuses an edit that
does not apply, so a changed sample cannot make a scenario vacuous), serves it on 127.0.0.1 and runs the real
refresh path through `run_fault`. Where the page should still land, the test also checks the figures.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pipelines.errors import MissingColumnError, TableNotFoundError
from tests.reliability.harness import run_fault, sample_text
from tests.reliability.promises import FAULT, LAST_GOOD_LOST, REFUSED_FAULT, ROWS_WRONGLY_LANDED
from tests.support.localserver import Reply


@pytest.fixture
def matrix(matrix_on_each_backend):
    """Landing scenarios: each runs on both warehouse backends."""
    return matrix_on_each_backend


# A page refused by its parser, record model or suite never reaches a landing: the same code refuses it on either
# backend, so these run on the file alone. The lake's refusals are shown by the empty table (the suite), the 100x
# price (drift against the lake's current version) and Hyperstack's currency switch (a GPU page).
PARSER_REFUSES = pytest.mark.parametrize("matrix_on_each_backend", ["file"], indirect=True)


TRN1, HYPERSTACK = "aws_trn1", "gpu_hyperstack"
TRN1_PRICES = {  # the sample's figures: (instance type, price kind) -> USD per instance-hour
    ("trn1.2xlarge", "on_demand"): Decimal("1.34"),
    ("trn1.2xlarge", "reserved_1y"): Decimal("0.79"),
    ("trn1.2xlarge", "reserved_3y"): Decimal("0.4744"),
    ("trn1.32xlarge", "on_demand"): Decimal("21.50"),
    ("trn1.32xlarge", "reserved_1y"): Decimal("12.60"),
    ("trn1.32xlarge", "reserved_3y"): Decimal("7.59"),
    ("trn1n.32xlarge", "on_demand"): Decimal("24.78"),
    ("trn1n.32xlarge", "reserved_1y"): Decimal("14.52"),
    ("trn1n.32xlarge", "reserved_3y"): Decimal("8.59"),
}
ROW_2XL = (
    "<tr><td>trn1.2xlarge</td><td>1</td><td>32</td><td>8</td><td>32</td><td>0.5</td><td>Up to 12.5</td>"
    "<td>No</td><td>Up to 20</td><td>$1.34</td><td>$0.79</td><td>$0.4744</td></tr>"
)


# Hyperstack's sample is its live page's cards of <div>s: the on-demand card's rows come before this heading.
HYPERSTACK_RESERVATION_CARD = "<h3><span>Reservation</span> Pricing</h3>"
HYPERSTACK_ROW = '<div class="page-price_card_row_item df">'


def hyperstack_first_row(page: str) -> str:
    """The on-demand card's first row (H200 SXM), whole: a copy edited is a row the page could print."""
    start = page.index(HYPERSTACK_ROW)
    return page[start : page.index(HYPERSTACK_ROW, start + 1)]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, f"the sample no longer contains {old!r}"
    return text.replace(old, new)


def serve_edited(m, source_id: str, *edits: tuple[str, str]) -> None:
    text = sample_text(m.source(source_id))
    for old, new in edits:
        text = edit(text, old, new)
    m.serve(source_id, Reply(body=text.encode(), content_type="text/html; charset=utf-8"))


def product_table(text: str, change) -> str:
    """Apply `change(cells) -> cells` to the header row and every body row of the Trn1 product table."""
    start, end = text.index('<div class="lb-tbl">'), text.index("</div>", text.index('<div class="lb-tbl">'))

    def row(match: re.Match) -> str:
        cells = re.findall(r"<(t[hd])>(.*?)</\1>", match.group(1), re.DOTALL)
        return "<tr>" + "".join(f"<{tag}>{body}</{tag}>" for tag, body in change(cells)) + "</tr>"

    table, rows = re.subn(r"<tr>(.*?)</tr>", row, text[start:end], flags=re.DOTALL)
    assert rows == 4, rows
    return text[:start] + table + text[end:]


def trn1_prices(m) -> dict[tuple[str, str], Decimal]:
    return {
        (t, k): p
        for t, k, p in m.query(
            """SELECT instance_type, price_kind, usd_per_instance_hour
        FROM aws_instance_price_history WHERE source_id = ? AND valid_to IS NULL""",
            [TRN1],
        )
    }


def fetch_row(m, fetch_id: int) -> tuple:
    return m.query("SELECT outcome, warnings, shape_fingerprint, error FROM fetch_log WHERE fetch_id = ?", [fetch_id])[
        0
    ]


# -- the table itself --------------------------------------------------------------------------------------


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_empty_price_table(matrix, scenario):
    def fault(m):
        text = sample_text(m.source(TRN1))
        body, n = re.subn(r"<tbody>.*?</tbody>", "<tbody></tbody>", text, flags=re.DOTALL)
        assert n == 1
        m.serve(TRN1, Reply(body=body.encode()))

    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("expect_table_row_count_to_be_between", "observed 0"),
    )


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_price_table_missing(matrix, scenario):
    def fault(m):
        text = sample_text(m.source(TRN1))
        body, n = re.subn(r'<div class="lb-tbl">.*?</div>', "<p>Pricing is moving.</p>", text, flags=re.DOTALL)
        assert n == 1
        m.serve(TRN1, Reply(body=body.encode()))

    outcomes = run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("no table found", "on_demand"),
    )
    assert isinstance(outcomes[TRN1].error, TableNotFoundError)


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_required_column_renamed(matrix, scenario):
    outcomes = run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(m, TRN1, ("On-Demand Price/hr", "Hourly Rate")),
        expect_in_error=("required column(s) on_demand missing", "Hourly Rate"),
    )
    assert isinstance(outcomes[TRN1].error, MissingColumnError) and outcomes[TRN1].error.missing == ["on_demand"]


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_required_column_missing(matrix, scenario):
    def fault(m):  # drop "Trainium Chips" (the second column) from the header and every row
        text = product_table(sample_text(m.source(TRN1)), lambda cells: cells[:1] + cells[2:])
        assert "Trainium Chips" not in text
        m.serve(TRN1, Reply(body=text.encode()))

    outcomes = run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("required column(s) accelerators missing",),
    )
    assert outcomes[TRN1].error.missing == ["accelerators"]


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
def test_reordered_and_extra_columns(matrix, scenario):
    def fault(m):  # every column in reverse order, plus a new column the parser does not know
        def change(cells):
            extra = ("th", "Launch Date") if cells[0][0] == "th" else ("td", "2022-10-10")
            return [extra, *reversed(cells)]

        m.serve(TRN1, Reply(body=product_table(sample_text(m.source(TRN1)), change).encode()))

    outcomes = run_fault(matrix, scenario, source_id=TRN1, fault=fault, expect_status="unchanged")
    assert scenario.value(LAST_GOOD_LOST) == 0 and trn1_prices(matrix) == TRN1_PRICES
    assert any("table shape changed" in w for w in outcomes[TRN1].warnings), outcomes[TRN1].warnings


# -- the price cells ---------------------------------------------------------------------------------------


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
@pytest.mark.parametrize(
    ("cell", "cause"),
    [("call us", "no amount in price cell 'call us'"), ("$-1.34", "negative amount"), ("$0.00", "greater than 0")],
    ids=["text", "negative", "zero"],
)
def test_bad_price_cell(matrix, scenario, cell, cause):
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(m, TRN1, ("<td>$1.34</td>", f"<td>{cell}</td>")),
        expect_in_error=(cause,),
    )


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_price_100x_previous_version(matrix, scenario):
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(m, TRN1, ("<td>$1.34</td>", "<td>$134.00</td>")),
        expect_in_error=("max_price_change_share=1.0", "trn1.2xlarge on_demand", "1.34 -> 134 "),
    )


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_duplicate_rows(matrix, scenario):
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(m, TRN1, (ROW_2XL, ROW_2XL + "\n" + ROW_2XL)),
        expect_in_error=("expect_column_values_to_be_unique(instance_type)", "trn1.2xlarge"),
    )


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_currency_switch_on_aws_page(matrix, scenario):
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(m, TRN1, ("<td>$1.34</td>", "<td>€1.34</td>")),
        expect_in_error=("'€1.34' is in €, not USD",),
    )


@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_currency_switch_on_hyperstack(matrix, scenario):
    def fault(m):  # Hyperstack's on-demand card switches to euros; RunPod's JSON (still USD) is served unchanged
        page = sample_text(m.source(HYPERSTACK))
        on_demand, rest = page.split(HYPERSTACK_RESERVATION_CARD, 1)
        on_demand, n = re.subn(r"<span> \$(\d+\.\d+)</span>", r"<span> €\1</span>", on_demand)
        assert n == 6
        m.serve(HYPERSTACK, Reply(body=(on_demand + HYPERSTACK_RESERVATION_CARD + rest).encode()))

    run_fault(
        matrix,
        scenario,
        source_id=HYPERSTACK,
        fault=fault,
        expect_status="quarantined",
        expect_in_error=("is in €, not USD",),
    )


# -- encodings ---------------------------------------------------------------------------------------------


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_page_in_windows_1252(matrix, scenario):
    def fault(m):  # declared in a meta tag; × is 0xD7 and ™ 0x99 in windows-1252, invalid as UTF-8
        text = edit(sample_text(m.source(TRN1)), '<meta charset="utf-8">', '<meta charset="windows-1252">')
        text = edit(text, "<td>trn1.2xlarge</td><td>1</td>", "<td>trn1.2xlarge</td><td>1 × AWS Trainium™ chip</td>")
        body = text.encode("windows-1252")
        assert b"\xd7" in body and b"\x99" in body
        m.serve(TRN1, Reply(body=body, content_type="text/html"))

    outcomes = run_fault(matrix, scenario, source_id=TRN1, fault=fault, expect_status="landed", lands=1)
    accelerators = dict(
        matrix.query(
            """SELECT instance_type, accelerator FROM aws_instance_spec_history
                                        WHERE source_id = ? AND valid_to IS NULL""",
            [TRN1],
        )
    )
    assert accelerators == {"trn1.2xlarge": "Trainium™", "trn1.32xlarge": "Trainium", "trn1n.32xlarge": "Trainium"}
    assert trn1_prices(matrix) == TRN1_PRICES and (outcomes[TRN1].inserted, outcomes[TRN1].closed) == (1, 1)


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_invalid_utf8_bytes_in_non_price_cell(matrix, scenario):
    def fault(m):  # broken bytes in the EFA and network cells; and one real price move, so the page must land
        text = edit(sample_text(m.source(TRN1)), "<td>$24.78</td>", "<td>$24.90</td>")
        body = text.encode()
        for old, new in (
            (b"<td>No</td><td>Up to 20</td>", b"<td>N\xc3\x28o\xff</td><td>Up to 20</td>"),
            (b"<td>800</td>", b"<td>800\x80\xfe</td>"),
        ):
            assert body.count(old) == 1
            body = body.replace(old, new)
        m.serve(TRN1, Reply(body=body))

    outcomes = run_fault(matrix, scenario, source_id=TRN1, fault=fault, expect_status="landed", lands=1)
    assert trn1_prices(matrix) == {**TRN1_PRICES, ("trn1n.32xlarge", "on_demand"): Decimal("24.90")}
    assert (outcomes[TRN1].inserted, outcomes[TRN1].closed) == (1, 1)


# -- markup and hostile text -------------------------------------------------------------------------------

MARKUP = {
    "bold_price": [("<td>$1.34</td>", "<td><b>$1.34</b></td>")],
    "script_in_name": [("<td>trn1.2xlarge</td>", "<td>trn1.2xlarge<script>alert(1)</script></td>")],
    "entities": [
        (
            "<td>trn1.32xlarge</td><td>16</td>",
            "<td>trn1&#46;32xlarge</td><td>16&nbsp;&times;&#32;AWS&nbsp;Trainium chips</td>",
        ),
        ("<td>$21.50</td>", "<td>&#36;21&#x2E;50</td>"),
    ],
}


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
@pytest.mark.parametrize("variant", sorted(MARKUP))
def test_markup_in_cells_is_read_as_text(matrix, scenario, variant):
    # unchanged: the cells read exactly as the plain sample's, so not one versioned attribute differs
    run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="unchanged",
        fault=lambda m: serve_edited(m, TRN1, *MARKUP[variant]),
    )
    # Wrongly landed here also means any row, of any fetch, whose key still carries the injected markup.
    scenario.measure(
        ROWS_WRONGLY_LANDED,
        sum(
            matrix.query(f"SELECT count(*) FROM {table} WHERE regexp_matches(instance_type, '<|>|&|alert')")[0][0]
            for table in ("aws_instance_price_history", "aws_instance_spec_history")
        ),
    )
    specs = matrix.query(
        """SELECT instance_type, family, accelerator FROM aws_instance_spec_history
                            WHERE source_id = ? AND valid_to IS NULL ORDER BY 1""",
        [TRN1],
    )
    assert specs == [
        ("trn1.2xlarge", "trn1", "Trainium"),
        ("trn1.32xlarge", "trn1", "Trainium"),
        ("trn1n.32xlarge", "trn1n", "Trainium"),
    ]
    assert trn1_prices(matrix) == TRN1_PRICES
    landed = str(matrix.query("SELECT list(instance_type) FROM aws_instance_price_history"))
    assert "<script" not in landed and "alert" not in landed and "<b>" not in landed


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_unknown_gpu_name_is_kept_and_reported(matrix, scenario):
    h200 = hyperstack_first_row(sample_text(matrix.source(HYPERSTACK)))
    row = h200.replace("NVIDIA H200 SXM", "NVIDIA Z999 Ultra").replace(" $3.50", " $4.20").replace(">141<", ">96<")
    before = {}

    def fault(m):
        before.update(
            m.query(
                """SELECT listing, fetch_id FROM gpu_listing_history
                                 WHERE source_id = ? AND valid_to IS NULL""",
                [HYPERSTACK],
            )
        )
        serve_edited(
            m,
            HYPERSTACK,
            (h200, h200 + row),
        )

    outcomes = run_fault(matrix, scenario, source_id=HYPERSTACK, fault=fault, expect_status="landed", lands=1)
    new = outcomes[HYPERSTACK]
    assert (new.inserted, new.closed) == (1, 0)
    assert matrix.query(
        """SELECT gpu_model, usd_per_gpu_hour, stock_status FROM gpu_listing_history
                           WHERE source_id = ? AND listing = 'NVIDIA Z999 Ultra' AND valid_to IS NULL""",
        [HYPERSTACK],
    ) == [(None, Decimal("4.2"), "unknown")]  # the page states no stock
    assert any("unknown GPU name 'NVIDIA Z999 Ultra'" in w for w in new.warnings), new.warnings
    assert any("NVIDIA Z999 Ultra" in w for w in fetch_row(matrix, new.fetch_id)[1])
    after = dict(
        matrix.query(
            """SELECT listing, fetch_id FROM gpu_listing_history
                                 WHERE source_id = ? AND valid_to IS NULL AND listing <> 'NVIDIA Z999 Ultra'""",
            [HYPERSTACK],
        )
    )
    assert len(before) == 6 and after == before  # the six known listings kept their version


SQL_NAME = "trn1.2xlarge'; DROP TABLE fetch_log; --"


@PARSER_REFUSES
@pytest.mark.expect("quarantined")
@pytest.mark.promises(*REFUSED_FAULT)
def test_sql_looking_instance_type_is_refused(matrix, scenario):
    outcomes = run_fault(
        matrix,
        scenario,
        source_id=TRN1,
        expect_status="quarantined",
        fault=lambda m: serve_edited(
            m, TRN1, (ROW_2XL, ROW_2XL + ROW_2XL.replace("<td>trn1.2xlarge</td>", f"<td>{SQL_NAME}</td>"))
        ),
        expect_in_error=("instance_type", "drop table fetch_log"),
    )
    assert matrix.query("SELECT count(*) FROM fetch_log")[0][0] == 10  # 5 sources x 2 refreshes, table intact
    (reasons,) = matrix.query("SELECT reasons FROM quarantine WHERE fetch_id = ?", [outcomes[TRN1].fetch_id])[0]
    assert any(SQL_NAME.lower() in r for r in reasons)  # stored verbatim, as data


@pytest.mark.expect("landed")
@pytest.mark.promises(*FAULT)
def test_sql_looking_gpu_listing_is_stored_verbatim(matrix, scenario):
    name = "Z999'); DROP TABLE gpu_listing_history; --"
    outcomes = run_fault(
        matrix,
        scenario,
        source_id=HYPERSTACK,
        expect_status="landed",
        lands=1,
        fault=lambda m: serve_edited(m, HYPERSTACK, ("<span>NVIDIA L40</span>", f"<span>{name}</span>")),
    )
    # Wrongly landed here also means the payload stored altered (escaped, cut, re-cased) instead of verbatim.
    scenario.measure(
        ROWS_WRONGLY_LANDED,
        matrix.query(
            "SELECT count(*) FROM gpu_listing_history "
            "WHERE fetch_id = ? AND listing ILIKE '%drop table%' AND listing <> ?",
            [outcomes[HYPERSTACK].fetch_id, name],
        )[0][0],
    )
    assert matrix.query("SELECT count(*) FROM fetch_log")[0][0] == 10
    assert matrix.query(
        """SELECT listing, usd_per_gpu_hour FROM gpu_listing_history WHERE source_id = ?
                           AND valid_to IS NULL AND listing LIKE 'Z999%'""",
        [HYPERSTACK],
    ) == [(name, Decimal(1))]
    assert (outcomes[HYPERSTACK].inserted, outcomes[HYPERSTACK].closed) == (1, 1)  # NVIDIA L40 gone, Z999 new
