"""A body the source's current version was landed from, read by the same parser, is that version again: it is
logged as an unchanged fetch with no diff run and no drift looked for (on a lake each is a catalog round trip). Not
for a kind whose rows depend on what else landed: GPU prices convert with the day's FX rates, so they are diffed."""

from __future__ import annotations

import duckdb

from pipelines.fetch.offline import pointed_at
from tests.support.refreshing import refreshed_in
from tests.support.sourcefiles import serve_samples
from warehouse import versioning

IDS = ("fx_ecb", "aws_trn1", "gpu_hyperstack")


def test_the_same_body_lands_as_unchanged_without_a_diff_unless_its_kind_reads_other_rows(
    sources, site, tmp_path, monkeypatch
):
    chosen = pointed_at([s for s in sources if s.id in IDS], site.base_url)
    serve_samples(site, [s for s in sources if s.id in IDS])
    first = {o.source_id: o for o in refreshed_in(tmp_path, chosen, max_attempts=1)}
    diffed = []
    real = versioning.land_snapshot
    monkeypatch.setattr(
        "warehouse.landing.land_snapshot",
        lambda con, table, *args, **kw: diffed.append(table.name) or real(con, table, *args, **kw),
    )
    again = {o.source_id: o for o in refreshed_in(tmp_path, chosen, max_attempts=1)}
    with duckdb.connect(str(tmp_path / "prices.duckdb"), read_only=True) as con:
        logged = con.execute("SELECT source_id, list(outcome ORDER BY fetch_id) FROM fetch_log GROUP BY ALL").fetchall()
    assert {sid: o.status for sid, o in first.items()} == dict.fromkeys(IDS, "landed")
    assert {sid: o.status for sid, o in again.items()} == dict.fromkeys(IDS, "unchanged")
    assert again["aws_trn1"].unchanged == first["aws_trn1"].inserted > 0  # every row as it was, none diffed
    assert set(diffed) == {"gpu_listing_history"}  # only the GPU prices, which convert with the FX rates
    assert dict(logged) == {key: ["landed", "unchanged"] for key in IDS}  # every attempt logged
