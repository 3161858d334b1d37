"""A real S3 protocol server on 127.0.0.1 for the lake-on-object-storage tests: moto's server mode in a thread of
the test process, a bucket of the test's own, and the standard AWS variables (plus `RATECARD_S3_URL_STYLE=path`)
that point ratecard, in this process and in the commands it starts, at it."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from warehouse.object_store import URL_STYLE_ENV

KEY_ID, SECRET = "ratecard-test-key", "ratecard-test-secret"


@dataclass(frozen=True)
class S3Bucket:
    name: str
    endpoint: str
    client: Any  # boto3's S3 client, for the test to see what landed

    def keys(self, prefix: str = "") -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name, Prefix=prefix)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


@contextmanager
def s3_bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Bucket]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # the server's access log
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        for name, value in {
            "AWS_ACCESS_KEY_ID": KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": endpoint,
            URL_STYLE_ENV: "path",
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
        client = boto3.client(
            "s3", endpoint_url=endpoint, aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET, region_name="us-east-1"
        )
        bucket = S3Bucket(f"ratecard-{uuid.uuid4().hex[:12]}", endpoint, client)
        client.create_bucket(Bucket=bucket.name)
        yield bucket
    finally:
        server.stop()
