"""Reparse replays each fetch against what was known then: FX rates landed later, and shapes of later fetches,
must not rewrite history that no parser change touched."""

from __future__ import annotations

import pytest

from pipelines.refresh.reparse import reparse_source
from tests.reliability.harness import Matrix, rows_added, sample_text
from tests.reliability.promises import LAST_GOOD_LOST, ROWS_WRONGLY_LANDED
from tests.support.localserver import Reply


@pytest.fixture
def fx_and_leadergpu(server, tmp_path) -> Matrix:
    return Matrix(server, tmp_path, ["fx_ecb", "gpu_leadergpu"])


def listings(m: Matrix) -> list[tuple]:
    return m.query("""SELECT listing, price_kind, usd_per_currency_unit, fx_rate_date, usd_per_gpu_hour, valid_from,
                             valid_to FROM gpu_listing_history ORDER BY ALL""")


@pytest.mark.expect("history identical")
@pytest.mark.promises(ROWS_WRONGLY_LANDED, LAST_GOOD_LOST)
def test_reparse_converts_with_the_rates_known_at_the_fetch(fx_and_leadergpu, scenario):
    m = fx_and_leadergpu
    assert all(o.ok for o in m.refresh().values())
    before = listings(m)
    # A later ECB fixing with another USD rate lands after the LeaderGPU fetch.
    later = sample_text(m.source("fx_ecb")).replace("2026-09-28", "2026-09-29").replace("'1.1840'", "'1.2500'")
    m.serve("fx_ecb", Reply(body=later.encode(), content_type="text/xml"))
    m.refresh()
    after_refresh = listings(m)  # LeaderGPU's second fetch converts at 1.25: a new version, rightly
    current = m.current("gpu_leadergpu")

    result = reparse_source(m.source("gpu_leadergpu"), db_path=m.db_path, archive=m.archive)

    scenario.observed = (
        f"{result.fetches} fetches replayed; history {'identical' if listings(m) == after_refresh else 'CHANGED'}"
    )
    # No parser changed: a row the replay adds is wrong, and so is any change to the current version.
    scenario.measure(ROWS_WRONGLY_LANDED, rows_added(after_refresh, listings(m)))
    scenario.measure(LAST_GOOD_LOST, int(m.current("gpu_leadergpu") != current))
    assert after_refresh != before
    assert listings(m) == after_refresh
    assert m.query("SELECT count(*) FROM quarantine") == [(0,)]
