"""Faults while other sources are mid-fetch: the whole matrix refreshed at once through refresh_all (as
`ratecard refresh` does), every other source answering slowly, so the broken one fails while they are in flight.
Each promise of the sequential scenarios must hold the same: nothing from the bad answer lands, its last good
version stays, the others land intact."""

from __future__ import annotations

import re

import pytest

from tests.reliability.harness import Matrix, run_fault, sample_reply, sample_text
from tests.reliability.promises import REFUSED_FAULT
from tests.support.localserver import Reply

IN_FLIGHT_S = 0.4  # the other sources answer this late, so they are still being fetched when the fault hits
TRN1 = "aws_trn1"


def others_mid_fetch(m: Matrix, broken: str) -> None:
    for source in m.sources:
        if source.id != broken:
            reply = sample_reply(source)
            m.serve(source.id, Reply(body=reply.body, content_type=reply.content_type, delay_s=IN_FLIGHT_S))


def empty_trn1_table(m: Matrix) -> None:
    body, n = re.subn(r"<tbody>.*?</tbody>", "<tbody></tbody>", sample_text(m.source(TRN1)), flags=re.DOTALL)
    assert n == 1
    m.serve(TRN1, Reply(body=body.encode()))


def trn1_price_100x(m: Matrix) -> None:
    m.serve(TRN1, Reply(body=sample_text(m.source(TRN1)).replace("<td>$1.34</td>", "<td>$134.00</td>").encode()))


CASES = {
    "503_persistent": (
        "gpu_hyperstack",
        "fetch_failed",
        ("HTTP 503",),
        lambda m: m.serve("gpu_hyperstack", Reply(status=503)),
    ),
    "404": (
        "aws_capacity_blocks",
        "fetch_failed",
        ("HTTP 404",),
        lambda m: m.serve("aws_capacity_blocks", Reply(status=404, body=b"gone")),
    ),
    "empty_table": (TRN1, "quarantined", ("observed 0",), empty_trn1_table),
    "price_100x": (TRN1, "quarantined", ("max_price_change_share",), trn1_price_100x),
    # FX failing: the GPU sources, waiting for rates, must go on with the ones already landed.
    "fx_503": ("fx_ecb", "fetch_failed", ("HTTP 503",), lambda m: m.serve("fx_ecb", Reply(status=503))),
}


@pytest.mark.expect("failed alone")
@pytest.mark.promises(*REFUSED_FAULT)
@pytest.mark.parametrize("case", CASES)
def test_fault_while_others_are_mid_fetch(matrix, scenario, case):
    source_id, status, in_error, break_it = CASES[case]
    matrix.concurrent = True

    def fault(m: Matrix) -> None:
        others_mid_fetch(m, source_id)
        break_it(m)

    run_fault(matrix, scenario, source_id=source_id, fault=fault, expect_status=status, expect_in_error=in_error)
    assert matrix.server.max_in_flight >= 2  # the sources really were fetched side by side
