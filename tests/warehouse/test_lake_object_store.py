"""A lake whose data is on S3-compatible storage: a refresh lands its Parquet files in a bucket of a real S3
protocol server on 127.0.0.1 (moto's server mode) and nothing on the local disk; show and reparse read and rewrite
it; the credentials come from the standard AWS variables, and a missing or wrong one is named, never its value."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.reliability.harness import start, wait_until
from tests.support.backends import warehouse_at
from tests.support.s3server import KEY_ID, SECRET, s3_bucket
from tests.warehouse.test_lake_backend import refresh_command
from warehouse.db import connect
from warehouse.files import ObjectStoreMisconfigured
from warehouse.object_store import secret_statement
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
            "export": ["export", "--out", f"s3://{bucket.name}/exports/"],
        }.items():
            done = CliRunner().invoke(app, [*args, "--warehouse", lake], terminal_width=200)
            assert done.exit_code == 0, (name, done.stdout + done.stderr)
            outputs[name] = done.stdout
        after = bucket.keys("lake/")
        exported = bucket.keys("exports/")
        manifest = json.loads(bucket.client.get_object(Bucket=bucket.name, Key="exports/manifest.json")["Body"].read())
    assert trn1 == Decimal("21.50") and listed > 0
    # The tables' data files, as Parquet, in the bucket (DuckLake keeps a few small inserts in its catalog instead).
    assert all(key.endswith(".parquet") for key in files)
    assert {key.split("/")[2] for key in files} >= {"fx_rates", "catalog_comments"}
    assert not (tmp_path / "lake").exists()  # and none on the local disk
    assert "21.50" in outputs["show"]
    assert "1 fetches replayed: 1 landed, 0 unchanged, 0 quarantined" in outputs["reparse"]
    assert set(files) <= set(after)  # the replay kept every file the refresh wrote
    # The export beside it, in the same bucket: every file the manifest names is there, and the manifest's own
    # snapshot is the lake's.
    named = {f"exports/{f['path']}" for f in manifest["files"] if f["kind"] == "view"}
    assert named and named <= set(exported) and "lake_snapshot_id" in manifest["snapshot"]
    history = next(f for f in manifest["files"] if f["name"] == "aws_instance_price_history")
    assert history["partitions"] and all(p.startswith("fetch_date=") for p in history["partitions"])
    assert f"s3://{bucket.name}/exports/manifest.json" in " ".join(outputs["export"].split())


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
    assert (
        statement.startswith("CREATE OR REPLACE SECRET ratecard_s3_")
        and "SCOPE 's3://bucket'" in statement
        and "ENDPOINT '127.0.0.1:9000'" in statement
    )
    assert "USE_SSL false" in statement and "URL_STYLE 'vhost'" in statement and "REGION 'us-east-1'" in statement
    secured = secret_statement("s3://bucket/lake/", {**env, "AWS_ENDPOINT_URL": "https://r2.example.test"})
    assert "USE_SSL true" in secured


FX_FILES = "SELECT data_file FROM ducklake_list_files('lake', 'fx_rates')"


def test_a_refresh_killed_mid_upload_leaves_readers_nothing_of_it(sources_file, tmp_path, monkeypatch, children):
    """Stopped dead inside its landing transaction, its rates uploaded and nothing committed: readers see none of
    it, and the next refresh lands the rates once; a file the dead writer left in the bucket is no reader's, and
    `lake maintain` deletes it once past its grace period."""
    with warehouse_at("ducklake", tmp_path, monkeypatch, fresh=True) as lake, s3_bucket(monkeypatch) as bucket:
        monkeypatch.setenv(LAKE_DATA_ENV, f"s3://{bucket.name}/lake/")
        marker = tmp_path / "mid-landing"
        code = "import sys; from pipelines.cli.app import app; sys.argv[0] = 'ratecard'; app()"
        args = ["refresh", "--sources", sources_file, "--warehouse", lake, "--source", "fx_ecb"]
        env = {"RATECARD_FAILPOINT": f"landing:{marker}"}
        writer = start(children, code, *args, env=env, stdout=subprocess.DEVNULL)
        wait_until(marker.exists, writer, "the writer to stop inside its landing transaction", timeout_s=120)
        writer.kill()
        writer.wait(timeout=30)
        left = bucket.keys("lake/main/fx_rates/")
        with connect(lake, read_only=True) as con:
            seen_after_kill = con.execute("SELECT count(*) FROM fx_rates").fetchone()[0]
        command = refresh_command(sources_file, lake, ["fx_ecb"])
        again = subprocess.run(command, capture_output=True, text=True, check=False)
        assert again.returncode == 0, again.stdout + again.stderr
        with connect(lake, read_only=True) as con:
            rates, dates = con.execute(
                "SELECT count(*), count(DISTINCT (currency, rate_date)) FROM fx_rates"
            ).fetchone()
            referenced = [row[0] for row in con.execute(FX_FILES).fetchall()]
        stored = bucket.keys("lake/main/fx_rates/")
        # Upkeep: by default a file no snapshot references is left for a day (a writer may be uploading it); with
        # no grace it goes, and with no days kept every snapshot but the current one is expired.
        maintain = ["lake", "maintain", "--warehouse", lake]
        kept = CliRunner().invoke(app, maintain, terminal_width=200)
        dry = CliRunner().invoke(app, [*maintain, "--grace-hours", "0", "--dry-run"], terminal_width=200)
        stored_dry = bucket.keys("lake/main/fx_rates/")
        cleaned = CliRunner().invoke(app, [*maintain, "--grace-hours", "0", "--keep-days", "0"], terminal_width=200)
        with connect(lake, read_only=True) as con:
            rates_after = con.execute("SELECT count(*) FROM fx_rates").fetchone()[0]
            referenced_after = [row[0] for row in con.execute(FX_FILES).fetchall()]
            snapshots = con.execute("SELECT count(*) FROM lake.snapshots()").fetchone()[0]
        stored_after = bucket.keys("lake/main/fx_rates/")
    assert kept.exit_code == 0 and cleaned.exit_code == 0, kept.stdout + cleaned.stdout
    assert " 0 referenced by no snapshot" in kept.stdout and "snapshots expired: 0" in kept.stdout
    orphans = len(set(left) - {p.split(f"s3://{bucket.name}/", 1)[1] for p in referenced})
    assert f"files would be deleted: 0 replaced or expired, {orphans} referenced by no" in " ".join(dry.stdout.split())
    assert stored_dry == stored  # a dry run deletes nothing
    assert not set(left) & set(stored_after)  # the dead writer's files are gone
    assert f"{orphans} referenced by no snapshot" in " ".join(cleaned.stdout.split())
    assert rates_after == rates and snapshots == 1
    assert all(path.split(f"s3://{bucket.name}/", 1)[1] in stored_after for path in referenced_after)
    assert left  # the dead writer's rates were uploaded before it died
    assert seen_after_kill == 0  # killed before COMMIT: nothing of it, ever
    assert rates == dates > 0  # the rates once each, whatever the dead writer uploaded
    assert referenced and all(path.split(f"s3://{bucket.name}/", 1)[1] in stored for path in referenced)
    # Its file stays in the bucket, referenced by no snapshot: readers never read it.
    assert set(left) <= set(stored) and not set(left) & {p.split(f"s3://{bucket.name}/", 1)[1] for p in referenced}


def test_a_file_warehouse_exports_to_a_bucket_with_its_manifest_last(demo_warehouse, monkeypatch):
    with s3_bucket(monkeypatch) as bucket:
        done = CliRunner().invoke(app, ["export", "--out", f"s3://{bucket.name}/daily/", "--db", str(demo_warehouse)])
        keys = bucket.keys("daily/")
        body = bucket.client.get_object(Bucket=bucket.name, Key="daily/manifest.json")["Body"].read()
    assert done.exit_code == 0, done.stdout + done.stderr
    manifest = json.loads(body)
    assert body.endswith(b"}\n") and manifest["format"] == "parquet" and "sha256" in manifest["snapshot"]
    views = {f"daily/{f['path']}" for f in manifest["files"] if f["kind"] == "view"}
    assert "daily/accelerator_hour_prices.parquet" in views and views <= set(keys)


def test_an_export_to_a_bucket_without_credentials_is_exit_9_naming_the_variables(demo_warehouse, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "RATECARD_S3_SECRET"):
        monkeypatch.delenv(name, raising=False)
    done = CliRunner().invoke(app, ["export", "--out", "s3://nowhere/exports/", "--db", str(demo_warehouse)])
    said = " ".join((done.stdout + done.stderr).split())
    assert done.exit_code == 9, said
    assert "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in said and "docs/DEPLOY.md" in said
