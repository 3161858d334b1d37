"""The offline dashboard: a static site generated from the published snapshot (`ratecard dashboard`).

Every page is rendered from Jinja2 templates; tables sort and filter with simple-datatables and charts draw
with Vega-Lite, both copied from their npm packages into the site (`make vendor`), so it opens from file://
with no network.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.target import local_dir


class DashboardError(RuntimeError):
    """The site cannot be written or served, for a reason the user can fix (the message says how)."""


class PortTaken(DashboardError):
    """`ratecard serve` cannot listen on the port asked for: another program has it, or it is not allowed."""


def site_dir_for(db: Path | str) -> Path:
    """Where the site of a database goes by default: `dashboard/` beside it."""
    return local_dir(db) / "dashboard"
