"""Render the site: one HTML file per page, plus the vendored libraries, into one folder that opens offline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from pipelines.dashboard import DashboardError
from pipelines.dashboard.data import SiteData, read_site_data
from pipelines.dashboard.filters import NAMED
from pipelines.dashboard.tables import Chart
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
NUMERIC = {
    "accels",
    "offers",
    "memory_gib",
    "dense_bf16_tflops",
    "dense_fp8_tflops",
    "usd_per_accel_hour",
    "usd_per_gpu_hour",
    "providers_in_stock",
    "providers_offering",
}
PAGES = {
    "index.html": "Today's prices per accelerator-hour",
    "gpus.html": "Cheapest GPU per model",
    "value.html": "Value per PFLOP and GiB",
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


# Colour, dash and point shape per series, so lines that run together (or lie on each other, as the caption then
# says) stay told apart.
SERIES_MARKS = {
    "color": {"field": "series", "type": "nominal", "legend": {"orient": "right", "labelLimit": 360}},
    "strokeDash": {"field": "series", "type": "nominal", "legend": None},
    "shape": {"field": "series", "type": "nominal", "legend": None},
}


def params(chart: Chart) -> list[dict[str, str]]:
    """A chart whose points carry the page filters' fields takes one Vega param per filter (f_kind, ...), which
    filters.js sets from the page's selects."""
    return [{"name": f"f_{name}", "value": "all"} for name, _, _ in NAMED] if chart.filtered else []


def filtered_points(chart: Chart) -> list[dict[str, str]]:
    """The transform that keeps the points passing every filter ("all" passes everything)."""
    if not chart.filtered:
        return []
    return [{"filter": " && ".join(f"(f_{name} == 'all' || datum.{field} == f_{name})" for name, field, _ in NAMED)}]


def embedded(spec: dict[str, object]) -> Markup:
    """A Vega-Lite spec, safe inside a <script> element."""
    return Markup(json.dumps(spec).replace("</", "<\\/"))


def chart_spec(chart: Chart, y_title: str) -> Markup:
    """The Vega-Lite spec of one history chart."""
    return embedded(
        {
            "width": 360,
            "height": 150,
            "params": params(chart),
            "data": {"values": chart.points},
            # The figure travels as DECIMAL text; the chart converts it for drawing only, the tooltip shows the text.
            "transform": [*filtered_points(chart), {"calculate": "toNumber(datum.usd)", "as": "value"}],
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
                **SERIES_MARKS,
                "tooltip": [
                    {"field": "series"},
                    {"field": "usd", "title": y_title},
                    {"field": "source_url", "title": "source URL"},
                    {"field": "fetched_at", "title": "fetched at"},
                ],
            },
        }
    )


REFERENCE_UTILISATION = "utilisation of the accelerator's reference always-on option (%)"


def cost_curve_spec(chart: Chart) -> Markup:
    """The Vega-Lite spec of one workload's monthly cost against utilisation on one accelerator: a line per option."""
    return embedded(
        {
            "width": 420,
            "height": 200,
            "params": params(chart),
            "data": {"values": chart.points},
            "transform": [
                *filtered_points(chart),
                {"calculate": "toNumber(datum.usd)", "as": "value"},
                {"calculate": "toNumber(datum.utilisation_pct)", "as": "pct"},
            ],
            "mark": {"type": "line", "point": True},
            "encoding": {
                "x": {
                    "field": "pct",
                    "type": "quantitative",
                    "title": REFERENCE_UTILISATION,
                },
                "y": {"field": "value", "type": "quantitative", "title": "USD per month"},
                **SERIES_MARKS,
                "tooltip": [{"field": "series"}, {"field": "utilisation_pct", "title": "%"}, {"field": "usd"}],
            },
        }
    )


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
