"""A lake whose data is on S3-compatible storage: a refresh lands its Parquet files in a bucket of a real S3
protocol server on 127.0.0.1 (moto's server mode) and nothing on the local disk; show and reparse read and rewrite
it; the credentials come from the standard AWS variables, and a missing or wrong one is named, never its value."""

from __future__ import annotations

import subprocess
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.support.backends import warehouse_at
from tests.support.s3server import KEY_ID, SECRET, s3_bucket
from tests.warehouse.test_lake_backend import refresh_command
from warehouse.db import connect
from warehouse.object_store import ObjectStoreMisconfigured, secret_statement
from warehouse.target import LAKE_DATA_ENV

SOURCES = ["fx_ecb", "aws_trn1", "gpu_hyperstack"]


def test_a_refresh_lands_its_files_in_the_bucket_and_show_and_reparse_read_them(sources_file, tmp_path, monkeypatch):
    with warehouse_at("ducklake", tmp_path, monkeypatch, fresh=True) as lake, s3_bucket(monkeypatch) as bucket:
        monkeypatch.setenv(LAKE_DATA_ENV, f"s3://{bucket.name}/lake/")
        landed = subprocess.run(
            refresh_command(sources_file, lake, SOURCES), capture_output=True, text=True, check=False
        )
        assert landed.returncode == 0, landed.stdout + landed.stderr
        files = bucket.keys("lake/")
        with connect(lake, read_only=True) as con:
            (trn1,) = con.execute(
                "SELECT usd_per_instance_hour FROM aws_instance_prices WHERE instance_type = 'trn1.32xlarge' "
                "AND price_kind = 'on_demand'"
            ).fetchone()
            listed = con.execute("SELECT count(*) FROM gpu_listings WHERE provider = 'Hyperstack'").fetchone()[0]
        outputs = {}
        for name, args in {
            "show": ["show"],
            "reparse": ["reparse", "--sources", str(sources_file), "--source", "aws_trn1"],
        }.items():
            done = CliRunner().invoke(app, [*args, "--warehouse", lake], terminal_width=200)
            assert done.exit_code == 0, (name, done.stdout + done.stderr)
            outputs[name] = done.stdout
        after = bucket.keys("lake/")
    assert trn1 == Decimal("21.50") and listed > 0
    # The tables' data files, as Parquet, in the bucket (DuckLake keeps a few small inserts in its catalog instead).
    assert all(key.endswith(".parquet") for key in files)
    assert {key.split("/")[2] for key in files} >= {"fx_rates", "catalog_comments"}
    assert not (tmp_path / "lake").exists()  # and none on the local disk
    assert "21.50" in outputs["show"]
    assert "1 fetches replayed: 1 landed, 0 unchanged, 0 quarantined" in outputs["reparse"]
    assert set(files) <= set(after)  # the replay kept every file the refresh wrote


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"AWS_SECRET_ACCESS_KEY": SECRET}, "no credentials: set AWS_ACCESS_KEY_ID (or RATECARD_S3_SECRET"),
        ({"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "RATECARD_S3_URL_STYLE": "dns"}, "not one of"),
        (
            {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_ENDPOINT_URL": "minio:9000"},
            "not an http",
        ),
    ],
)
def test_a_missing_or_wrong_setting_is_named_and_no_secret_is_shown(env, says):
    with pytest.raises(ObjectStoreMisconfigured) as refused:
        secret_statement("s3://bucket/lake/", env)
    assert says in str(refused.value) and str(refused.value).startswith("s3://bucket/lake/: ")
    assert SECRET not in str(refused.value) and KEY_ID not in str(refused.value)


def test_the_secret_is_scoped_to_the_bucket_and_speaks_plain_http_to_a_local_store():
    env = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_ENDPOINT_URL": "http://127.0.0.1:9000"}
    statement = secret_statement("s3://bucket/lake/", env)
    assert "SCOPE 's3://bucket'" in statement and "ENDPOINT '127.0.0.1:9000'" in statement
    assert "USE_SSL false" in statement and "URL_STYLE 'vhost'" in statement and "REGION 'us-east-1'" in statement
    secured = secret_statement("s3://bucket/lake/", {**env, "AWS_ENDPOINT_URL": "https://r2.example.test"})
    assert "USE_SSL true" in secured
