"""A history chart whose prices were all fetched within 24 hours is marked "one day of history" (a level, not a
trend); a longer one, and a cost curve (no time axis), are not."""

from __future__ import annotations

from pipelines.dashboard.build import environment
from pipelines.dashboard.tables import Chart


def chart(*stamps: str) -> Chart:
    points = [{"series": "on_demand", "point_at": at, "usd": "1.2500"} for at in stamps]
    return Chart("aws-history-0", "trn1.32xlarge", points, 1)


def drawn(c: Chart) -> str:
    macros = environment().get_template("macros.html").module
    return str(macros.chart(c, "USD per accelerator-hour"))


def test_a_history_within_24_hours_is_marked_one_day_and_a_longer_one_is_not():
    same_day = chart("2026-09-28T09:00:00Z", "2026-09-28T23:59:00Z")
    across_midnight = chart("2026-09-28T22:00:00Z", "2026-09-29T06:00:00Z")  # two dates, still within 24 hours
    two_days = chart("2026-09-28T09:00:00Z", "2026-09-30T09:00:00Z")
    assert same_day.one_day and across_midnight.one_day and not two_days.one_day
    assert "one day of history" in drawn(same_day) and 'data-one-day="yes"' in drawn(same_day)
    assert "one day of history" not in drawn(two_days) and 'data-one-day="no"' in drawn(two_days)


def test_a_cost_curve_has_no_time_axis_and_is_never_marked():
    curve = Chart("deployment-curve-0", "chat-8b", [{"series": "H100", "utilisation_pct": "5", "usd": "10.00"}], 1)
    assert curve.days == 0 and not curve.one_day
