"""`ratecard mcp`: a Model Context Protocol server on stdio, for agents. Its tools are the CLI's questions (find,
where, history, changes, decide) on the published snapshot, opened read-only for each call.

Every tool answers exact JSON: money as strings with the unit in the field name, times in ISO 8601, and each row's
source URL and fetch time, so an agent's answer can be traced to the page it came from.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import duckdb
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pipelines.decide.render import as_data
from pipelines.decide.steps import gather, workloads
from pipelines.decide.verdict import decide as verdict_of
from pipelines.offers.availability import where_available
from pipelines.offers.history import CHANGES, HISTORY, over_threshold
from pipelines.offers.plain import exact_rows
from pipelines.offers.search import OfferSearch, find_offers, read_snapshot
from pipelines.offers.units import Per
from warehouse.files import WarehouseMissing
from warehouse.queries import rows_as_dicts

INSTRUCTIONS = (
    "AWS Trainium/Inferentia and GPU rental prices from ratecard's published snapshot. Prices are USD excluding "
    "tax; money is exact decimal text, each field's name carries its unit; region null means the source states "
    "none, stock null means it states nothing of stock. Cite each row's source_url and fetched_at."
)


def answer(**parts: Any) -> str:
    return json.dumps(parts, indent=1)


def number(text: str | None, name: str) -> Decimal | None:
    """A figure an agent sends as text, kept exact (a JSON number would pass through a float)."""
    if text is None:
        return None
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise ToolError(f"{name}={text!r} is not a number") from None
    if not value.is_finite() or value < 0:
        raise ToolError(f"{name}={text!r}: give a number of 0 or more")
    return Decimal(format(value, "f"))  # no exponent: DuckDB would drop it when binding


def ratecard_server(db: Path | str) -> MCPServer[Any]:
    """The server and its tools, reading the warehouse `db` (its published snapshot)."""
    server: MCPServer[Any] = MCPServer("ratecard", instructions=INSTRUCTIONS)

    def read(query: Any) -> Any:
        """What `query` reads; a name, value or warehouse the user can correct is said to the agent (ToolError)."""
        try:
            return read_snapshot(db, query)
        except (ValueError, WarehouseMissing) as exc:  # UnknownName is a ValueError: it names the nearest names
            raise ToolError(str(exc)) from None

    @server.tool()
    def find(
        accelerator: str | None = None,
        count: int | None = None,
        total: int | None = None,
        memory_gib: str | None = None,
        region: str = "any",
        kind: str = "on-demand",
        provider: str | None = None,
        max_price: str | None = None,
        in_stock: bool = False,
        per: Per = Per.accel_hour,
    ) -> str:
        """Current offers of an accelerator, cheapest first in the `per` unit, as `ratecard find` lists them.

        accelerator: any name of the model (H100, 'h100 sxm', 'NVIDIA H100', trn2, Trainium2).
        count: at least this many accelerators in one offering. total: this many across offerings (adds
        offerings_needed and the total price). memory_gib: at least this memory per accelerator (text, exact).
        region: a code (us-east-2), a name ('US East (Ohio)') or any. kind: on-demand, spot, reserved,
        savings-plans, capacity-block, serverless, sagemaker, community, one exact price kind, or all.
        provider: AWS, Lambda, ...
        max_price: at most this USD price in the `per` unit (text, exact). in_stock: only offers stated in stock.
        per: accel-hour, instance-hour or month (730 hours).
        """
        search = OfferSearch(
            accelerator=accelerator,
            count=count,
            total=total,
            memory_gib=number(memory_gib, "memory_gib"),
            region=region,
            kind=kind,
            provider=provider,
            max_price=number(max_price, "max_price"),
            in_stock=in_stock,
            per=per,
        )
        offers = read(lambda con: find_offers(con, search))
        return answer(unit=f"USD {search.per.value}, excluding tax", offers=exact_rows(offers.to_pylist()))

    @server.tool()
    def where(accelerator: str, include_gone: bool = False) -> str:
        """Where an accelerator can be had, as `ratecard where` shows it: per price kind family, provider and region
        listing it now (with include_gone, also those that no longer do), the current offers, the cheapest USD per
        accelerator-hour and its offering, and when each was first and last seen in the price history."""
        found = read(lambda con: where_available(con, accelerator, include_gone=include_gone))
        return answer(availability=exact_rows(found.to_pylist()))

    @server.tool()
    def history(offering: str, kind: str | None = None, region: str | None = None) -> str:
        """The price history of an instance type (trn1.32xlarge) or GPU model or listing (H100), as `ratecard
        history` gives it: every version with valid_from and valid_to (null: current), oldest first per offering."""
        params = {"offering": offering, "kind": kind, "region": region}
        return answer(versions=exact_rows(read(lambda con: rows_as_dicts(con, HISTORY, params))))

    @server.tool()
    def changes(days: float = 7, min_change_percent: str = "0") -> str:
        """The change feed, as `ratecard changes` gives it: price moves, listings added or removed, stock flips and
        page shape changes of the last `days` days, newest first; price moves of at least min_change_percent."""
        if not 0 < days <= 36500:
            raise ToolError(f"days={days}: give a number of days from above 0 to 36500")
        since = datetime.now(UTC) - timedelta(days=days)
        least = number(min_change_percent, "min_change_percent") or Decimal(0)
        found = read(lambda con: rows_as_dicts(con, CHANGES, {"since": since}))
        return answer(since=since.isoformat(), changes=exact_rows([c for c in found if over_threshold(c, least)]))

    @server.tool()
    def decide(workload: str | None = None) -> str:
        """The guide's decision for a workload (every workload when none is named), as `ratecard decide --format
        json` gives it: each step's view and rows (software gate, pilots, bill, payback), then the verdict and the
        rule that decided it."""

        def decided(con: duckdb.DuckDBPyConnection) -> Any:
            known = workloads(con)
            if workload is not None and workload not in known:
                raise ValueError(f"unknown workload {workload!r}; the workloads here: {', '.join(known) or 'none'}")
            data = [
                as_data(steps, verdict_of(steps))
                for steps in (gather(con, w) for w in ([workload] if workload else known))
            ]
            return data[0] if workload else data

        return json.dumps(read(decided), indent=1)

    return server


def serve(db: Path | str) -> None:
    """Answer on stdin and stdout until the client closes them."""
    ratecard_server(db).run("stdio")
