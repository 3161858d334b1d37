"""Two transport scenarios, the pattern the rest of the matrix follows."""

from __future__ import annotations

import pytest

from tests.reliability.harness import run_fault, sample_reply
from tests.reliability.promises import FAULT, REFUSED_FAULT
from tests.support.localserver import Reply


@pytest.mark.expect("unchanged")
@pytest.mark.promises(*FAULT)
def test_429_with_retry_after_then_success(matrix, scenario):
    def fault(m):
        m.serve("aws_trn1", Reply(status=429, headers={"Retry-After": "2"}), sample_reply(m.source("aws_trn1")))

    run_fault(matrix, scenario, source_id="aws_trn1", fault=fault, expect_status="unchanged")
    assert 2.0 in matrix.sleeps  # waited as told, through the injected sleep


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT)
def test_persistent_503_gives_up_within_its_budget(matrix, scenario):
    run_fault(
        matrix,
        scenario,
        source_id="aws_capacity_blocks",
        fault=lambda m: m.serve("aws_capacity_blocks", Reply(status=503)),
        expect_status="fetch_failed",
        expect_in_error=("gave up after 3 attempts", "503"),
    )
    # The good version came with the prelanded warehouse: every request here is the fault refresh's.
    assert matrix.prelanded and matrix.server.hits(matrix.path("aws_capacity_blocks")) == 3
