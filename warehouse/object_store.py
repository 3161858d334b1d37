"""A lake whose Parquet data lives on S3-compatible storage (`RATECARD_LAKE_DATA_PATH=s3://bucket/prefix/`).

DuckDB reads and writes it through the httpfs extension, loaded by file path from its `duckdb-extension-httpfs`
wheel (INSTALL cannot download here), with a DuckDB secret made for the instance from the standard AWS variables:
`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` (optional), `AWS_REGION` (else
`AWS_DEFAULT_REGION`, else us-east-1) and `AWS_ENDPOINT_URL` for a store that is not AWS's (MinIO, R2, a local
server: its scheme decides TLS). `RATECARD_S3_URL_STYLE` is `vhost` (AWS's default) or `path` (most other stores).
`RATECARD_S3_SECRET` names a persistent DuckDB secret to use instead, for credentials kept out of the environment.
The secret's values go into DuckDB only: they are never logged, and an error names the variables, never a value.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from warehouse.files import ObjectStoreMisconfigured
from warehouse.quoting import literal

if TYPE_CHECKING:  # light to import: the CLI reads is_object_store before any DuckDB is needed
    import duckdb

URL_STYLE_ENV = "RATECARD_S3_URL_STYLE"
NAMED_SECRET_ENV = "RATECARD_S3_SECRET"
URL_STYLES = ("vhost", "path")


def is_object_store(data_path: str | None) -> bool:
    return data_path is not None and data_path.lower().startswith("s3://")


def reach(con: duckdb.DuckDBPyConnection, url: str, httpfs: Path, env: Mapping[str, str] = os.environ) -> None:
    """Make `url` (s3://bucket/...) readable and writable from `con`: httpfs loaded from `httpfs`, the extension's
    file, and a secret for the bucket (one per bucket: a lake's data and an export's target may be two)."""
    con.execute(f"LOAD {literal(str(httpfs))}")
    give_credentials(con, url, env)


def give_credentials(con: duckdb.DuckDBPyConnection, data_path: str, env: Mapping[str, str] = os.environ) -> None:
    """Give `con` (httpfs loaded) the credentials for `data_path`: a DuckDB secret scoped to its bucket."""
    if env.get(NAMED_SECRET_ENV):
        return  # a persistent secret of that name: DuckDB finds it by the path's scope
    con.execute(secret_statement(data_path, env))


def secret_statement(data_path: str, env: Mapping[str, str]) -> str:
    """CREATE SECRET for the bucket of `data_path`, from the AWS variables; ObjectStoreMisconfigured naming what is
    missing or wrong (never a value)."""
    missing = [name for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") if not env.get(name)]
    if missing:
        raise ObjectStoreMisconfigured(
            data_path, f"no credentials: set {' and '.join(missing)} (or {NAMED_SECRET_ENV}, a DuckDB secret's name)"
        )
    style = env.get(URL_STYLE_ENV, "vhost")
    if style not in URL_STYLES:
        raise ObjectStoreMisconfigured(data_path, f"{URL_STYLE_ENV} is {style!r}, not one of {', '.join(URL_STYLES)}")
    options = {
        "TYPE": "s3",
        "KEY_ID": literal(env["AWS_ACCESS_KEY_ID"]),
        "SECRET": literal(env["AWS_SECRET_ACCESS_KEY"]),
        "REGION": literal(env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"),
        "URL_STYLE": literal(style),
        "SCOPE": literal(bucket_of(data_path)),
    }
    if token := env.get("AWS_SESSION_TOKEN"):
        options["SESSION_TOKEN"] = literal(token)
    if endpoint := env.get("AWS_ENDPOINT_URL"):
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ObjectStoreMisconfigured(data_path, "AWS_ENDPOINT_URL is not an http:// or https:// address")
        options["ENDPOINT"] = literal(parts.netloc)
        options["USE_SSL"] = "true" if parts.scheme == "https" else "false"
    # CREATE SECRET takes no bound parameters: each value is quoted by literal(), each keyword is a constant.
    secret_options = ", ".join(f"{keyword} {value}" for keyword, value in options.items())
    return f"CREATE OR REPLACE SECRET {secret_name(data_path)} ({secret_options})"


def secret_name(data_path: str) -> str:
    """The bucket's secret: ratecard_s3_ and the bucket name's SHA-256 prefix (an identifier whatever the name)."""
    return "ratecard_s3_" + hashlib.sha256(bucket_of(data_path).encode()).hexdigest()[:16]


def bucket_of(data_path: str) -> str:
    """s3://bucket/prefix/ -> s3://bucket (the secret's scope)."""
    parts = urlsplit(data_path)
    return f"{parts.scheme}://{parts.netloc}"
