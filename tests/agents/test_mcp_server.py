"""`ratecard mcp` driven by the MCP SDK's own client over stdio, as an agent would: its tools listed, the cheapest
8 x H100 offer the same as `ratecard find` gives, Trainium2 where `ratecard where` puts it, and every answer exact
JSON with each row's source URL and fetch time."""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.support.paths import ROOT

TOOLS = {"find", "where", "history", "changes", "decide"}


async def ask(db, calls):
    """The tools' names, then each call's JSON answer (None for an error, with its text)."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ratecard", "mcp", "--db", str(db)], cwd=str(ROOT)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        answers = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            text = result.content[0].text
            answers.append(("error", text) if result.is_error else json.loads(text))
        return names, answers


def test_an_agent_gets_the_same_answers_as_the_cli(demo_warehouse):
    calls = [
        ("find", {"accelerator": "H100", "count": 8}),
        ("where", {"accelerator": "trn2"}),
        ("history", {"offering": "trn2.48xlarge"}),
        ("changes", {"days": 30}),
        ("decide", {}),
        ("find", {"accelerator": "H1000"}),
    ]
    names, (found, where, history, changes, decided, unknown) = anyio.run(ask, demo_warehouse, calls)
    assert names == TOOLS

    listed = json.loads(
        CliRunner()
        .invoke(app, ["find", "--gpu", "H100", "--count", "8", "--format", "json", "--db", str(demo_warehouse)])
        .stdout
    )
    cheapest = found["offers"][0]
    assert cheapest == listed[0] and len(found["offers"]) == len(listed)
    assert isinstance(cheapest["usd_per_accelerator_hour"], str)  # exact text, the unit in the name
    assert Decimal(cheapest["usd_per_accelerator_hour"]) == min(Decimal(o["usd_per_accelerator_hour"]) for o in listed)
    assert cheapest["source_url"] and cheapest["fetched_at"]

    (trn2,) = where["availability"]
    assert (trn2["accelerator_model"], trn2["region"], trn2["region_code"], trn2["price_kind_family"]) == (
        "Trainium2",
        "US East (Ohio)",
        "us-east-2",
        "capacity_block",
    )
    assert trn2["cheapest_usd_per_accelerator_hour"] == "2.235050000000000000" and trn2["source_url"]

    versions = history["versions"]
    assert versions and all(v["source_url"] and v["fetched_at"] for v in versions)
    assert {v["price_kind"] for v in versions} == {"capacity_block"}
    assert isinstance(changes["changes"], list) and changes["since"]
    assert isinstance(decided, list) and all("verdict" in d for d in decided)
    assert unknown[0] == "error" and "nearest: H100" in unknown[1]
