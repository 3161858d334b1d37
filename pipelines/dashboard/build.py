"""Render the site: one HTML file per page, plus the vendored libraries, into one folder that opens offline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from pipelines.dashboard import DashboardError
from pipelines.dashboard.data import Chart, SiteData, read_site_data
from warehouse.target import is_lake

HERE = Path(__file__).parent
VENDOR = HERE / "vendor"
# The npm files `make vendor` copies (package.json pins their versions), under the names the pages load.
VENDORED = {
    "vega.min.js": "vega/build/vega.min.js",
    "vega-lite.min.js": "vega-lite/build/vega-lite.min.js",
    "vega-embed.min.js": "vega-embed/build/vega-embed.min.js",
    "simple-datatables.js": "simple-datatables/dist/umd/simple-datatables.js",
    "simple-datatables.css": "simple-datatables/dist/style.css",
}
# Columns sorted as numbers rather than text (as text, "10.5" would sort before "9.2").
NUMERIC = {"accels", "usd_per_accel_hour", "usd_per_gpu_hour", "providers_in_stock", "providers_offering"}
PAGES = {
    "index.html": "Today's prices per accelerator-hour",
    "gpus.html": "Cheapest GPU per model",
    "regions.html": "AWS prices by region",
    "history.html": "Price history",
    "deployment.html": "Always-on or serverless",
    "decisions.html": "Decisions",
    "sources.html": "Sources and quarantine",
    "dictionary.html": "Data dictionary",
}


class VendorFilesMissing(DashboardError):
    """The browser libraries were not copied from npm yet."""

    def __init__(self, missing: list[str]) -> None:
        super().__init__(f"dashboard libraries missing from {VENDOR}: {', '.join(missing)}; run `make vendor`")


SHORT_HISTORY_DAYS = 60


def date_axis(chart: Chart) -> dict[str, object]:
    """Dates, never the seconds of one refresh: a short history (minutes, weeks) gets one tick per day on a domain
    widened to whole days; a long one (a backfilled history of years) keeps Vega's month or year ticks."""
    axis: dict[str, object] = {"format": "%Y-%m-%d", "labelOverlap": True}
    if chart.days < SHORT_HISTORY_DAYS:
        axis["tickCount"] = {"interval": "day", "step": 1}
    return axis


def chart_spec(chart: Chart, y_title: str) -> Markup:
    """The Vega-Lite spec of one history chart, safe inside a <script> element."""
    spec = {
        "width": 360,
        "height": 150,
        "data": {"values": chart.points},
        # The figure travels as DECIMAL text; the chart converts it for drawing only, the tooltip shows the text.
        "transform": [{"calculate": "toNumber(datum.usd)", "as": "value"}],
        "mark": {"type": "line", "interpolate": "step-after", "point": True},
        "encoding": {
            "x": {
                "field": "point_at",
                "type": "temporal",
                "title": "valid from (UTC)",
                "scale": {"nice": "day"},
                "axis": date_axis(chart),
            },
            "y": {"field": "value", "type": "quantitative", "title": y_title},
            "color": {"field": "series", "type": "nominal", "legend": {"orient": "right", "labelLimit": 320}},
            "tooltip": [
                {"field": "series"},
                {"field": "usd", "title": y_title},
                {"field": "source_url", "title": "source URL"},
                {"field": "fetched_at", "title": "fetched at"},
            ],
        },
    }
    return Markup(json.dumps(spec).replace("</", "<\\/"))


def cost_curve_spec(chart: Chart) -> Markup:
    """The Vega-Lite spec of one workload's monthly cost against utilisation: one line per option."""
    spec = {
        "width": 420,
        "height": 200,
        "data": {"values": chart.points},
        "transform": [
            {"calculate": "toNumber(datum.usd)", "as": "value"},
            {"calculate": "toNumber(datum.utilisation_pct)", "as": "pct"},
        ],
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "pct", "type": "quantitative", "title": "utilisation of an always-on instance (%)"},
            "y": {"field": "value", "type": "quantitative", "title": "USD per month"},
            "color": {"field": "series", "type": "nominal", "legend": {"orient": "right", "labelLimit": 360}},
            "tooltip": [{"field": "series"}, {"field": "utilisation_pct", "title": "%"}, {"field": "usd"}],
        },
    }
    return Markup(json.dumps(spec).replace("</", "<\\/"))


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    env.globals["spec"] = chart_spec
    env.globals["cost_spec"] = cost_curve_spec
    env.globals["pages"] = list(PAGES.items())
    env.globals["numeric"] = NUMERIC
    return env


def copy_assets(out: Path) -> None:
    missing = [name for name in VENDORED if not (VENDOR / name).is_file()]
    if missing:
        raise VendorFilesMissing(missing)
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in VENDORED:
        shutil.copyfile(VENDOR / name, assets / name)
    for static in (HERE / "static").iterdir():
        shutil.copyfile(static, assets / static.name)


def render_site(site: SiteData, out: Path) -> list[Path]:
    copy_assets(out)
    env = environment()
    written = []
    for page, title in PAGES.items():
        path = out / page
        path.write_text(env.get_template(page).render(site=site, page=page, title=title), encoding="utf-8")
        written.append(path)
    for stale in out.glob("decision-*.html"):  # a workload no longer in the snapshot keeps no page
        stale.unlink()
    for decision in site.decisions or []:  # one page per workload, under the Decisions tab
        path = out / decision.page
        title = f"Decision: {decision.workload}"
        html = env.get_template("decision.html").render(site=site, page="decisions.html", title=title, d=decision)
        path.write_text(html, encoding="utf-8")
        written.append(path)
    return written


def build_dashboard(snapshot: Path | str, out: Path) -> list[Path]:
    """Read the snapshot (or a lake) and write the site into `out`; returns the pages written."""
    if not is_lake(snapshot) and not Path(snapshot).is_file():
        raise DashboardError(f"{snapshot}: no published snapshot yet; run `ratecard refresh` first")
    return render_site(read_site_data(snapshot), out)
