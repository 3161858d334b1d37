"""Security scenarios: only the hosts the sources file names are fetched, responses are capped in size, secrets
never leave the request they are sent with, credentials in URLs are refused, and SQL is parameterised."""

from __future__ import annotations

import ast
import gzip
import json
import logging
import re
import uuid
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.definitions import build_definitions
from pipelines.errors import FetchError, SourcesFileError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher
from pipelines.orchestration.resources import FetcherResource
from pipelines.refresh.one_source import refresh_source
from pipelines.sources.file import SourceSpec, load_sources
from tests.reliability.harness import FAST, run_fault, sample_reply, sample_text
from tests.reliability.promises import (
    ERRORS_UNNAMED,
    REFUSED_FAULT,
    ROWS_WRONGLY_LANDED,
    SECRETS_LEAKED,
    UNSAFE_SQL,
    UNWANTED_REQUESTS,
)
from tests.support.localserver import Reply

ROOT = Path(__file__).resolve().parents[2]
TOKEN_ENV = "RATECARD_TEST_TOKEN"
PAYLOAD = "x'; DROP TABLE fetch_log; --"


# -- hosts ---------------------------------------------------------------------------------------------------


@pytest.mark.expect("fetch_failed")
@pytest.mark.promises(*REFUSED_FAULT, UNWANTED_REQUESTS)
def test_redirect_to_another_host_is_refused(matrix, scenario):
    # localhost is the same server under another name: had the redirect been followed, /elsewhere gets a hit.
    elsewhere = f"http://localhost:{matrix.server.port}/elsewhere"
    matrix.server.set("/elsewhere", sample_reply(matrix.source("aws_trn1")))
    run_fault(
        matrix,
        scenario,
        source_id="aws_trn1",
        expect_status="fetch_failed",
        fault=lambda m: m.serve("aws_trn1", Reply(status=302, headers={"Location": elsewhere})),
        expect_in_error=("redirect to other host localhost refused",),
    )
    scenario.measure(UNWANTED_REQUESTS, matrix.server.hits("/elsewhere"))
    assert matrix.server.hits("/elsewhere") == 0


@pytest.mark.expect("refused, 0 requests")
@pytest.mark.promises(UNWANTED_REQUESTS)
def test_fetch_refuses_a_host_not_allowed(server, scenario):
    server.set("/page", Reply(body=b"<html></html>"))
    with Fetcher(FAST) as fetcher, pytest.raises(FetchError) as caught:
        fetcher.fetch("src", server.url("/page"), allowed_hosts=frozenset({"aws.amazon.com"}))
    scenario.observed = f"refused: {caught.value}; requests: {len(server.requests)}"
    scenario.measure(UNWANTED_REQUESTS, len(server.requests))
    assert "host 127.0.0.1 not in allowed hosts ['aws.amazon.com']" in str(caught.value)
    assert server.requests == []


# -- size caps -----------------------------------------------------------------------------------------------


@pytest.mark.expect("refused over max_bytes")
@pytest.mark.promises(UNWANTED_REQUESTS)
def test_response_and_decompressed_sizes_are_capped(server, scenario):
    limit = 64 * 1024
    settings = FAST.model_copy(update={"max_bytes": limit})
    server.set("/big", Reply(body=b"x" * (limit + 1)))
    bomb = b"0" * (64 * limit)  # 4 MiB of zeros gzips to a few KiB: under the cap on the wire, far over it inflated
    assert len(gzip.compress(bomb)) < limit
    server.set("/bomb", Reply(body=bomb, gzip=True))
    with Fetcher(settings) as fetcher:
        with pytest.raises(FetchError, match=rf"body exceeds {limit} bytes \(Content-Length {limit + 1}\)"):
            fetcher.fetch("src", server.url("/big"))
        with pytest.raises(FetchError, match=rf"body exceeds {limit} bytes$") as inflated:
            fetcher.fetch("src", server.url("/bomb"))
    scenario.observed = f"plain and gzip refused: {inflated.value}"
    # a size cap is final: every request after the first one per URL is a retry that should not have happened
    scenario.measure(UNWANTED_REQUESTS, sum(max(0, server.hits(path) - 1) for path in ("/big", "/bomb")))
    assert server.hits("/big") == 1 and server.hits("/bomb") == 1  # a cap is final, not retried


# -- secrets -------------------------------------------------------------------------------------------------


def write_sources(path: Path, source: SourceSpec) -> Path:
    """One source as TOML, dicts as inline tables (as tests/conftest.py write_sources_file does)."""

    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)

    fields = source.model_dump(mode="json")
    path.write_text("[[sources]]\n" + "\n".join(f"{k} = {value(v)}" for k, v in fields.items() if v is not None))
    return path


def run_prices(sources_file: Path, db_path: Path) -> tuple[dg.ExecuteInProcessResult, list[str]]:
    """The price job in process, and every event-log entry of its run as text (user log messages included)."""
    defs = build_definitions(
        sources_file,
        db_path,
        fetch_retry_policy=dg.RetryPolicy(max_retries=0),
        fetcher=FetcherResource(max_attempts=2, backoff_initial_s=0.01, read_timeout_s=5),
    )
    with dg.DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("refresh_prices").execute_in_process(instance=instance, raise_on_error=False)
        entries = [str(entry) for entry in instance.all_logs(result.run_id)]
    return result, entries


def warehouse_text(db_path: Path) -> str:
    """Every column of every table, cast to text: fetch_log, quarantine, history, all of it."""
    out = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        tables = con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
        ).fetchall()
        for (table,) in tables:
            columns = [
                c
                for (c,) in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]
                ).fetchall()
            ]
            for column in columns:  # identifiers from the catalog, quoted: never a value
                out += [
                    str(v)
                    for (v,) in con.execute(f'SELECT DISTINCT CAST("{column}" AS VARCHAR) FROM "{table}"').fetchall()
                ]
    return "\n".join(out)


# The source's own last fetch (the price job also lands the in-repo reference files, each with a fetch_log row).
LAST_OUTCOME = "SELECT outcome FROM fetch_log WHERE source_id = ? ORDER BY fetch_id DESC LIMIT 1"


@pytest.mark.expect("secret nowhere")
@pytest.mark.promises(SECRETS_LEAKED)
def test_secret_header_never_logged_or_stored(server, scenario, tmp_path, monkeypatch, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    token = f"rc-secret-{uuid.uuid4().hex}"
    monkeypatch.setenv(TOKEN_ENV, f"Bearer {token}")
    trn1 = next(s for s in load_sources() if s.id == "aws_trn1")
    source = SourceSpec.model_validate(
        {**trn1.model_dump(), "url": server.url("/trn1"), "headers_from_env": {"Authorization": TOKEN_ENV}}
    )
    sources_file, db_path = write_sources(tmp_path / "sources.toml", source), tmp_path / "wh" / "prices.duckdb"

    page = sample_text(source)
    phases = {
        "landed": Reply(body=page.encode()),
        "fetch_failed": Reply(status=500, body=b"oops"),
        "quarantined": Reply(body=page.replace("$1.34", "$abc").encode()),  # an unreadable price cell
    }
    texts, outcomes = [], []
    for expected, reply in phases.items():
        server.set("/trn1", reply)
        result, entries = run_prices(sources_file, db_path)
        texts += entries
        for event in result.all_events:
            texts.append(str(event))
            data = event.event_specific_data
            for attribute in ("metadata", "materialization", "user_failure_data"):
                if getattr(data, attribute, None) is not None:
                    texts.append(str(getattr(data, attribute)))
        with duckdb.connect(str(db_path), read_only=True) as con:
            outcomes.append(con.execute(LAST_OUTCOME, [source.id]).fetchone()[0])
        assert outcomes[-1] == expected, outcomes
    captured = capsys.readouterr()
    texts += [caplog.text, captured.out, captured.err, *(r.getMessage() for r in caplog.records)]
    stored = warehouse_text(db_path)
    archive = Archive(db_path.parent / "archive")
    archived = b"".join(archive.get(p.name.split(".")[0]) for p in archive.root.rglob("*.zst"))

    sent = [
        h
        for path, headers in server.requests
        if path == "/trn1"
        for name, h in headers.items()
        if name.lower() == "authorization"
    ]
    scenario.observed = (
        f"outcomes {outcomes}; header sent {len(sent)}x; secret found in logs/events "
        f"{sum(token in t for t in texts)}, warehouse {stored.count(token)}, archive "
        f"{archived.count(token.encode())}"
    )
    scenario.measure(
        SECRETS_LEAKED, sum(token in t for t in texts) + stored.count(token) + archived.count(token.encode())
    )
    assert sent and all(h == f"Bearer {token}" for h in sent)  # the server did get it: the scan below can fail
    assert any("aws_trn1" in t for t in texts) and "aws_trn1" in stored  # and the scan sees what was written
    leaks = [t[max(0, t.find(token) - 100) : t.find(token)] for t in texts if token in t]
    assert not leaks, leaks
    assert token not in stored and "Bearer" not in stored, "secret stored in the warehouse"
    assert token.encode() not in archived, "secret archived"


@pytest.mark.expect("not_configured")
@pytest.mark.promises(UNWANTED_REQUESTS, ERRORS_UNNAMED)
def test_missing_secret_variable_names_it_and_sends_nothing(server, scenario, tmp_path, monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    trn1 = next(s for s in load_sources() if s.id == "aws_trn1")
    source = SourceSpec.model_validate(
        {**trn1.model_dump(), "url": server.url("/trn1"), "headers_from_env": {"Authorization": TOKEN_ENV}}
    )
    server.set("/trn1", Reply(body=sample_text(source).encode()))
    with Fetcher(FAST) as fetcher:
        outcome = refresh_source(source, fetcher=fetcher, db_path=tmp_path / "p.duckdb", archive=Archive(tmp_path))
    scenario.observed = f"{outcome.status}: {outcome.warnings}"
    scenario.measure(UNWANTED_REQUESTS, server.hits("/trn1"))
    scenario.measure(ERRORS_UNNAMED, int(not any("[aws_trn1]" in w for w in outcome.warnings)))
    # Not configured: left out, failing nothing, and said so naming the variable.
    assert (outcome.status, outcome.error, outcome.ok) == ("not_configured", None, True)
    assert outcome.warnings == [
        f"[aws_trn1] fetch: not configured: environment variable {TOKEN_ENV} (for header Authorization) is not "
        "set; the source is left out until it is"
    ]
    assert server.hits("/trn1") == 0  # no request goes out without its credential


@pytest.mark.expect("SourcesFileError")
@pytest.mark.promises(SECRETS_LEAKED)
def test_credential_in_url_is_refused_when_loading(tmp_path, scenario):
    secret = f"k{uuid.uuid4().hex}"
    path = tmp_path / "sources.toml"
    path.write_text(
        '[[sources]]\nid = "leaky"\nadapter = "aws_product_page"\nsample = "aws/trn1.html"\n'
        f'url = "https://aws.amazon.com/ec2/instance-types/trn1/?region=x&api_key={secret}"\n'
    )
    with pytest.raises(SourcesFileError) as caught:
        load_sources(path)
    scenario.observed = " ".join(str(caught.value).split()[:14])
    scenario.measure(SECRETS_LEAKED, str(caught.value).count(secret))
    assert "headers_from_env" in str(caught.value) and "api_key" in str(caught.value)
    assert secret not in str(caught.value)  # refusing the URL must not print the credential it carries


# -- SQL -------------------------------------------------------------------------------------------------------


@pytest.mark.expect("refused or verbatim")
@pytest.mark.promises(ROWS_WRONGLY_LANDED)
def test_sql_in_a_cell_is_data(fresh_matrix, scenario):
    matrix = fresh_matrix  # the first landing of every source carries the payload
    trn1, hyperstack = matrix.source("aws_trn1"), matrix.source("gpu_hyperstack")
    matrix.serve("aws_trn1", Reply(body=sample_text(trn1).replace(">trn1.2xlarge<", f">{PAYLOAD}<").encode()))
    matrix.serve(
        "gpu_hyperstack", Reply(body=sample_text(hyperstack).replace(">NVIDIA H100 PCIe<", f">{PAYLOAD}<").encode())
    )
    outcomes = matrix.refresh()
    scenario.observed = f"aws_trn1 {outcomes['aws_trn1'].status}, gpu_hyperstack {outcomes['gpu_hyperstack'].status}"
    assert matrix.query("SELECT count(*) FROM fetch_log")[0][0] == len(matrix.sources)  # still there, all logged
    for source_id, table, column in (
        ("aws_trn1", "aws_instance_spec_history", "instance_type"),
        ("gpu_hyperstack", "gpu_listing_history", "listing"),
    ):
        outcome = outcomes[source_id]
        assert outcome.status in ("landed", "quarantined"), (source_id, str(outcome.error))
        stored = [v for (v,) in matrix.query(f"SELECT {column} FROM {table} WHERE fetch_id = ?", [outcome.fetch_id])]
        # Wrongly landed: any row of a quarantined fetch; of a landed one, a row whose payload is not verbatim.
        scenario.measure(
            ROWS_WRONGLY_LANDED,
            len(stored)
            if outcome.status != "landed"
            else sum("drop table" in v.lower() and v.lower() != PAYLOAD.lower() for v in stored),
        )
        if outcome.status == "landed":
            assert PAYLOAD.lower() in [v.lower() for v in stored], stored  # as printed (AWS keys are lower-cased)
        else:
            assert stored == []
            (body,) = matrix.query("SELECT raw_body FROM quarantine WHERE fetch_id = ?", [outcome.fetch_id])[0]
            assert PAYLOAD.encode() in body  # kept verbatim for a human


# SQL text built with f-strings may interpolate only identifiers that come from code: table names from the
# table constants, column lists and join conditions built from their key columns, fixed aliases.
ALLOWED_INTERPOLATIONS = {
    "table.name",  # VersionedTable / AppendOnlyTable constants (warehouse/landing.py, gpu_landing.py)
    "table",  # pipelines/refresh/reparse.py: iterating HISTORY_TABLES
    "ident(table)",  # warehouse/rebuild.py: a table its kind's upgrade names, quoted as an identifier
    "same_version",
    "match",
    "_key_match('s', 'h', key)",  # joins over key_columns constants
    "left",
    "right",
    "k",  # _key_match: aliases 's'/'h' and key column names
    # versioning.land_snapshot / rehash: the same constants, joined into comparisons and expressions
    "keys",  # NULL-safe key comparison over ("source_id", *key_columns)
    "attributes[0]",  # the attribute columns of aliases s and h, as one row value each
    "attributes[1]",
    "open_rows",  # a subquery over table.name
    "DIFF",  # the landing's temp table: a constant name
    "scope_filter",  # IS NOT DISTINCT FROM over VersionedTable.scope_columns constants; the values are parameters
    "scope_where",  # the same, as land_snapshot names it
    "where",  # the same, in warehouse/past_snapshots.py
    "matches",  # versioning.same_version(table): NULL-safe comparisons over the table's constant columns
    "same_version(table)",
    "diff",  # close_diffed_rows: DIFF or PAST_DIFF, constant temp-table names
    "PAST_DIFF",  # warehouse/past_snapshots.py: constant temp-table names
    "RUNS",
    "current",  # pipelines/pilots/landing.py: one of CURRENT_ROWS' constant subqueries, a statement per input kind
    "rows",  # a subquery over table.name with the scope filter above
    "open_at",  # the same, limited to rows open at the $at parameter
    "attributes_hash_sql('s', table.attribute_columns)",  # sha256 over the attribute columns, alias s
    "fresh",  # the same over table.name's columns
    "counts",  # warehouse/lake_checks.py: count(*) FILTER over the schema files' own CHECK expressions
    # warehouse/lake_stats.py: a new lake table (the lake's own catalog lists it), quoted as an identifier, and
    # its NOT NULL columns, quoted, with constant placeholder values cast to the column's catalog type
    "quoted",
    "row",
    # warehouse/export.py: COPY of every view and history table the file's own catalog lists
    "ident(name)",  # a catalog name, quoted as an identifier
    "relation",  # that identifier, or a SELECT over it adding the fetch date
    "literal(str(target))",  # the output path, quoted as a string literal
    "copy_options(fmt, partitioned)",  # constant COPY options for parquet or csv
    # pipelines/pricelist/offer_csv.py: the offer file's own header names, each quoted as an identifier
    "columns",  # offer_csv.rows_by_region: select_list(...) of either reader, header names quoted as identifiers
    "fields",  # KEPT_FIELDS or RATE_FIELDS, constant column lists
    "filters",  # FILTERS of either reader, constant WHERE clauses
    "instance_type",  # "instance_type", or savings_plan_csv.INSTANCE_TYPE: a constant expression
    "FILTERS",  # constant WHERE clauses
    "KEPT_FIELDS",  # the offer reader's constant column list (pipelines/pricelist/offer_csv.py)
    "RATE_FIELDS",  # the Savings Plans reader's constant column list (pipelines/pricelist/savings_plan_csv.py)
    "family_match",  # regexp_matches over the instance type with literal(family_regex(...)): see below
    "literal(family_regex(families))",  # the allowlist as one RE2 pattern, quoted as a string literal
    "literal(str(path))",  # the offer file's path, quoted as a string literal (a bound one slows the scan)
    "SCAN_BUFFER_BYTES",  # a constant byte count
    "len(PREAMBLE)",  # a constant line count
    # warehouse/publish.py: the staging path as a quoted literal, the file's own database name as an identifier
    "staging_literal",
    "SNAPSHOT_STORAGE_VERSION",
    "database",
    # pipelines/dashboard: constant strftime expressions over fixed column names
    "TS.format(col='fetched_at')",
    "TS.format(col='max(fetched_at)')",
    "queries.TS.format(col='max(fetched_at)')",
    "TS.format(col='s.last_attempt_at')",
    "TS.format(col='s.last_good_at')",
    "ISO.format(col='point_at')",
    # warehouse/lake.py, warehouse/db.py, warehouse/transactions.py: the lake's constant catalog names, its constant
    # sequence and macro names and the query built from them, and string literals quoted by literal() (extension
    # paths, the conninfo, the constant statement that creates the sequences)
    "LAKE",
    "CATALOG_PG",
    "sequence",
    "macro",
    "query",
    "literal(str(postgres_extension()))",
    "literal(str(extension_file('duckdb_extension_ducklake', 'ducklake')))",
    "literal(str(httpfs))",
    # warehouse/object_store.py: the secret's name (a constant prefix and hex digits), and its options: constant
    # keywords, values quoted by literal() (CREATE SECRET takes no bound parameters)
    "secret_name(data_path)",
    "secret_options",
    # warehouse/export_targets.py: paths quoted by literal(), and the constant options of the manifest's COPY
    "literal(path + '/*/*')",
    "literal(self.path(name))",
    "TEXT_OPTIONS",
    "literal(lake_conninfo(location))",
    "literal(CREATE_ID_SEQUENCES)",
    # warehouse/lake_checks.py: a CHECK expression as the schema files in warehouse/sql state it
    "expression",
    # pipelines/offers: `find`'s filters and `where`'s, each a constant predicate over bound parameters ($region,
    # $kind, ...), joined; the sort column is the chosen unit's constant column name
    "conditions",
    "priced",
    "order",
    "ACCELERATOR_IS_WANTED",
    # pipelines/dashboard/front_page.py: the headline queries (constants of pipelines/across_kinds/headline.py) as
    # subqueries, and the unit columns (fixed column names times fixed hours, see FIGURES)
    "HEADLINE_PRICES",
    "GPU_CHEAPEST",
    "UNIT_COLUMNS",
    # pipelines/dashboard/value_page.py: constant expressions (the vendor a spec source names, the on-demand test)
    "VENDOR",
    "ON_DEMAND",
}
# pipelines/dashboard/figures.py: a figure cast to text at a fixed precision, or a time formatted, over a column
# named by a literal. Allowed only when every argument is a literal.
FIGURES = {"four_places", "trimmed", "as_printed", "TIME.format", "TS.format"}


def a_figure_of_literals(interpolated: str) -> bool:
    call = ast.parse(interpolated, mode="eval").body
    if not isinstance(call, ast.Call) or ast.unparse(call.func) not in FIGURES:
        return False
    return all(isinstance(arg, ast.Constant) for arg in [*call.args, *(k.value for k in call.keywords)])


SQL_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|AND|DROP|CREATE)\b")


def sql_fstring_interpolations() -> dict[str, list[str]]:
    """Each f-string that reads as SQL (or is passed to execute) -> where it is, and what it interpolates."""
    found: dict[str, list[str]] = {}
    for path in sorted([*ROOT.glob("warehouse/**/*.py"), *ROOT.glob("pipelines/**/*.py")]):
        tree = ast.parse(path.read_text(), filename=str(path))
        executed = {
            id(call.args[0])
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and call.args
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("execute", "executemany", "sql")
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if id(node) in executed or SQL_WORDS.search(literal):
                names = [ast.unparse(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]
                found[f"{path.relative_to(ROOT)}:{node.lineno}"] = names
    return found


def sql_built_by_concatenation() -> list[str]:
    """execute() given `"..." + x`, `"..." % x` or `"...".format(x)`: never allowed."""
    bad = []
    for path in sorted([*ROOT.glob("warehouse/**/*.py"), *ROOT.glob("pipelines/**/*.py")]):
        for call in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("execute", "executemany")
                and call.args
            ):
                first = call.args[0]
                if isinstance(first, ast.BinOp) or (
                    isinstance(first, ast.Call)
                    and isinstance(first.func, ast.Attribute)
                    and first.func.attr == "format"
                ):
                    bad.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    return bad


@pytest.mark.expect("only identifiers")
@pytest.mark.promises(UNSAFE_SQL)
def test_sql_is_parameterised(scenario):
    found = {
        where: [name for name in names if not a_figure_of_literals(name)]
        for where, names in sql_fstring_interpolations().items()
    }
    interpolated = {name for names in found.values() for name in names}
    scenario.observed = f"{len(found)} SQL f-strings interpolating {sorted(interpolated)}"
    scenario.measure(
        UNSAFE_SQL,
        sum(bool(set(names) - ALLOWED_INTERPOLATIONS) for names in found.values()) + len(sql_built_by_concatenation()),
    )
    assert "table.name" in interpolated  # the scan does see the versioning SQL, so it is not vacuous
    assert interpolated <= ALLOWED_INTERPOLATIONS, {k: v for k, v in found.items() if set(v) - ALLOWED_INTERPOLATIONS}
    assert sql_built_by_concatenation() == []
