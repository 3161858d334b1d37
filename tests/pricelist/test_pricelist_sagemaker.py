"""Amazon SageMaker prices (source aws_sagemaker): the offer files, their landing and their views.

Parsing runs on the bundled samples and on copies with one thing changed; the landing goes over real HTTP on
127.0.0.1 into real DuckDB files: the EC2 price list once, then the SageMaker regions on it (a good refresh, and on
a copy a refresh where one region is cut off and one type cannot be priced).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.errors import MissingColumnError, ParseError
from pipelines.fetch.archive import Archive
from pipelines.fetch.http import Fetcher, FetchSettings
from pipelines.fetch.offline import pointed_at, sample_for, serve_directory
from pipelines.offers.names import known_kind
from pipelines.pricelist.records import PriceListKind
from pipelines.pricelist.sagemaker_csv import PARSER_VERSION, parse_sagemaker_csv
from pipelines.refresh.many_sources import refresh_all
from pipelines.refresh.one_source import SourceOutcome
from pipelines.sources.file import load_sources
from pipelines.sources.locations import SAMPLES_DIR
from tests.support.landed import copy_file_warehouse

# Its module fixture lands a warehouse: every test of the module in one xdist worker, so it is landed once.
pytestmark = pytest.mark.xdist_group("pricelist_sagemaker")

SAMPLES = SAMPLES_DIR / "aws" / "sagemaker"
STAMP = "20260928190000"
HOSTING, TRAINING = PriceListKind.SAGEMAKER_HOSTING, PriceListKind.SAGEMAKER_TRAINING
EC2_INF2 = """SELECT source_id, region_code, price_kind, hourly_usd, usd_per_accelerator_hour, fetch_id, valid_from,
                     valid_to, sha256
              FROM aws_pricelist_price_history WHERE instance_type = 'inf2.xlarge' ORDER BY ALL"""


def read(body: bytes | None = None, region: str = "us-east-1", **options: object):
    source = body if body is not None else SAMPLES / f"{region}.csv"
    return parse_sagemaker_csv(source, "aws_sagemaker_x", region_code=region, **options)


def edited(change, region: str = "us-east-1") -> bytes:
    return change((SAMPLES / f"{region}.csv").read_text(encoding="utf-8")).encode()


def without_columns(*names: str) -> bytes:
    """The us-east-1 sample with whole columns taken out by header name (the file stays in the real quoting)."""
    lines = (SAMPLES / "us-east-1.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    rows = list(csv.reader(lines[5:]))
    keep = [i for i, name in enumerate(rows[0]) if name not in names]
    out = io.StringIO()
    for row in rows:
        out.write(",".join(f'"{row[i]}"' if row[i] else "" for i in keep) + "\n")
    return ("".join(lines[:5]) + out.getvalue()).encode()


def test_hosting_and_training_of_accelerator_types_are_kept_and_the_rest_left_out():
    batch = read(index_version=STAMP)
    kept = {(q.instance_type, q.price_kind): q.hourly_usd for q in batch.pending}
    assert kept == {
        ("ml.inf2.xlarge", HOSTING): Decimal("0.986"),
        ("ml.inf2.xlarge", TRAINING): Decimal("1.05"),
        ("ml.trn1.32xlarge", TRAINING): Decimal("28.99"),
        ("ml.p5.48xlarge", HOSTING): Decimal("113.07"),
        ("ml.p5.48xlarge", TRAINING): Decimal("113.07"),
        ("ml.g5.xlarge", HOSTING): Decimal("1.408"),  # its Notebook and Processing rows left out
        ("ml.g5.xlarge", TRAINING): Decimal("1.408"),
        ("ml.g5.2xlarge", HOSTING): Decimal("1.696"),
    }  # ml.m5.large (no accelerator family) left out whole
    assert batch.prices == [] and batch.refused == [] and batch.warnings == []  # priced later, with landed types
    assert (batch.offer_version, batch.region_code, batch.parser_version) == (STAMP, "us-east-1", PARSER_VERSION)
    g5 = next(q for q in batch.pending if q.instance_type == "ml.g5.2xlarge")
    assert (g5.price_list_gpu, g5.price_list_gpu_memory, g5.location) == ("1", "24 GB", "US East (N. Virginia)")
    assert {q.instance_type for q in read(families=["inf2"]).pending} == {"ml.inf2.xlarge"}


def test_the_type_and_component_are_read_from_their_other_spellings():
    """No Instance Name and no Component: the type from Instance Type, the component from the usage type."""
    alone = read(without_columns("Instance Name", "Component"))
    assert {(q.instance_type, q.price_kind) for q in alone.pending} == {
        (q.instance_type, q.price_kind) for q in read().pending
    }
    by_usage = read(without_columns("Instance Name", "Instance Type", "Component", "GPU"))  # Physical GPU read
    assert len(by_usage.pending) == 8 and {q.price_list_gpu for q in by_usage.pending} == {"1", "8", "16"}


@pytest.mark.parametrize(
    ("dropped", "named"),
    [
        (("PricePerUnit",), "price"),
        (("Region Code",), "region_code"),
        (("Instance Name", "Instance Type", "usageType"), "instance_name"),
        (("Component", "usageType"), "component"),
    ],
)
def test_a_missing_column_is_a_typed_error_naming_the_source_and_the_column(dropped, named):
    with pytest.raises(MissingColumnError) as refused:
        read(without_columns(*dropped))
    assert refused.value.missing == [named]
    assert str(refused.value).startswith("[aws_sagemaker_x]") and named in str(refused.value)


def test_a_row_whose_price_is_no_price_is_refused_by_itself_and_the_rest_kept():
    batch = read(edited(lambda t: t.replace('"Hrs","0.9860000000"', '"Hrs","0.98.6"', 1)))
    assert [str(row) for row in batch.refused] == [
        "sagemaker hosting us-east-1 ml.inf2.xlarge: SKU NN2CW3D3RTGHPYY9: price '0.98.6' is not an amount"
    ]
    kept = {(q.instance_type, q.price_kind) for q in batch.pending}
    assert ("ml.inf2.xlarge", HOSTING) not in kept and ("ml.inf2.xlarge", TRAINING) in kept and len(kept) == 7


def test_a_type_priced_twice_at_two_amounts_is_refused_and_an_unknown_component_counted():
    def change(text: str) -> str:
        p5 = next(line for line in text.splitlines() if '"Hosting","ml.p5.48xlarge"' in line)
        twice = p5.replace("113.0700000000", "120.0000000000").replace("NN", "QQ")
        unknown = [p5.replace('"Hosting"', f'"{c}"') for c in ("Async Inference", "Async Inference", "Cluster")]
        return text + "\n".join([twice, *unknown]) + "\n"

    batch = read(edited(change))
    assert [(r.instance_type, r.price_kind) for r in batch.refused] == [("ml.p5.48xlarge", HOSTING)]
    assert "priced twice in the file, at 113.0700000000" in batch.refused[0].reason
    assert batch.warnings == [
        "2 SageMaker row(s) of component 'Async Inference', which this reader does not know, left out: ml.p5.48xlarge",
        "1 SageMaker row(s) of component 'Cluster', which this reader does not know, left out: ml.p5.48xlarge",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace('"OfferCode","AmazonSageMaker"', '"OfferCode","AmazonEC2"'), "expected AmazonSageMaker"),
        (lambda t: t.replace('"us-east-1","Amazon SageMaker"', '"us-west-2","Amazon SageMaker"', 1), "us-west-2"),
        (lambda t: t[: len(t) // 2], "truncated download"),
        (lambda t: t.replace(STAMP, "20260101000000"), "region index named version 20260928190000"),
    ],
)
def test_a_bad_file_is_refused_whole_naming_the_source_and_the_fault(change, message):
    with pytest.raises(ParseError, match=message) as refused:
        read(edited(change), index_version=STAMP)
    assert "[aws_sagemaker_x]" in str(refused.value)


def test_offline_answers_the_sagemaker_offer_paths_with_the_samples():
    path = f"/offers/v1.0/aws/AmazonSageMaker/{STAMP}/us-east-2/index.csv"
    assert sample_for(path) == "/aws/sagemaker/us-east-2.csv"
    assert (SAMPLES_DIR / sample_for(path).lstrip("/")).is_file()


def refresh(ids: tuple[str, ...], db: Path, root: Path = SAMPLES_DIR) -> dict[str, SourceOutcome]:
    wanted = [s for s in load_sources() if s.id in ids]
    with serve_directory(root) as base, Fetcher(FetchSettings(max_attempts=1)) as fetcher:
        outcomes = refresh_all(
            pointed_at(wanted, base), db_path=db, archive=Archive(db.parent / "archive"), fetcher=fetcher, max_sources=2
        )
    return {o.source_id: o for o in outcomes}


def rows(db: Path, query: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(query).fetchall()


@pytest.fixture(scope="module")
def ec2_landed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The EC2 price list alone, landed into a new warehouse over HTTP."""
    db = tmp_path_factory.mktemp("ec2") / "prices.duckdb"
    outcomes = refresh(("aws_pricelist",), db)
    assert outcomes["aws_pricelist_us_east_1"].status == "landed", outcomes
    return db


@pytest.fixture(scope="module")
def landed(ec2_landed: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[object, ...]]]:
    """A copy of it with the SageMaker regions refreshed on it; the EC2 inf2.xlarge rows as they were before."""
    db = copy_file_warehouse(ec2_landed, tmp_path_factory.mktemp("sagemaker") / "w")
    before = rows(db, EC2_INF2)
    outcomes = refresh(("aws_sagemaker",), db)
    statuses = {sid: o.status for sid, o in outcomes.items()}
    assert statuses == {"aws_sagemaker_us_east_1": "landed", "aws_sagemaker_us_east_2": "landed"}, outcomes
    return db, before


def test_inf2_hosting_reaches_accelerator_hour_prices_per_accelerator_and_traced(landed):
    db, _ = landed
    found = rows(
        db,
        """SELECT price_kind, accelerator_model, accelerator_count, usd_per_billed_unit, usd_per_accelerator_hour,
                  usd_per_accelerator_hour_4dp, source_id, source_url, fetched_at IS NOT NULL, content_sha256,
                  parser_version
           FROM accelerator_hour_prices WHERE offering = 'ml.inf2.xlarge' AND region = 'US East (N. Virginia)'
           ORDER BY price_kind""",
    )
    assert [row[:6] for row in found] == [
        ("sagemaker_hosting", "Inferentia2", 1, Decimal("0.986"), Decimal("0.986"), Decimal("0.9860")),
        ("sagemaker_training", "Inferentia2", 1, Decimal("1.05"), Decimal("1.05"), Decimal("1.0500")),
    ]
    source_id, url, fetched, sha256, parser = found[0][6:]
    assert source_id == "aws_sagemaker_us_east_1" and fetched and parser == PARSER_VERSION
    assert url.endswith(f"/offers/v1.0/aws/AmazonSageMaker/{STAMP}/us-east-1/index.csv")
    assert re.fullmatch(r"[0-9a-f]{64}", sha256)
    logged = rows(db, f"SELECT url, sha256, parser_version FROM fetch_log WHERE sha256 = '{sha256}'")
    assert logged == [(url, sha256, PARSER_VERSION)]


def test_the_counts_come_from_the_landed_ec2_types_else_the_row_and_divide_exactly(landed):
    db, _ = landed
    found = rows(
        db,
        """SELECT instance_type, family, accelerator_count, accelerator_count_basis, usd_per_accelerator_hour,
                  usd_per_accelerator_hour_4dp
           FROM aws_pricelist_price_history
           WHERE region_code = 'us-east-1' AND price_kind = 'sagemaker_hosting' AND valid_to IS NULL ORDER BY 1""",
    )
    assert found == [
        ("ml.g5.2xlarge", "g5", 1, "price_list", Decimal("1.696"), Decimal("1.6960")),  # no EC2 type: its own GPU
        ("ml.g5.xlarge", "g5", 1, "price_list", Decimal("1.408"), Decimal("1.4080")),
        ("ml.inf2.xlarge", "inf2", 1, "catalog", Decimal("0.986"), Decimal("0.9860")),
        ("ml.p5.48xlarge", "p5", 8, "price_list", Decimal("14.13375"), Decimal("14.1338")),  # 113.07 / 8, half up
    ]


def test_sagemaker_rows_are_their_own_offers_and_leave_ec2_on_demand_unchanged(landed):
    db, before = landed
    assert rows(db, EC2_INF2) == before and len(before) > 2  # every EC2 inf2.xlarge version as it was
    (ec2_cells,) = rows(  # no SageMaker price under an EC2 type or kind
        db,
        """SELECT count(*) FROM aws_instance_prices WHERE source_id LIKE 'aws_sagemaker%'
           AND (price_kind NOT LIKE 'sagemaker_%' OR NOT starts_with(instance_type, 'ml.'))""",
    )
    offers = rows(
        db,
        """SELECT offering, price_kind, price_kind_family, usd_per_instance_hour FROM accelerator_offers
           WHERE region_code = 'us-east-1' AND offering IN ('inf2.xlarge', 'ml.inf2.xlarge')
             AND price_kind IN ('on_demand', 'sagemaker_hosting', 'sagemaker_training') ORDER BY ALL""",
    )
    assert ec2_cells == (0,)
    assert offers == [
        ("inf2.xlarge", "on_demand", "on_demand", Decimal("0.76")),
        ("ml.inf2.xlarge", "sagemaker_hosting", "sagemaker", Decimal("0.986")),
        ("ml.inf2.xlarge", "sagemaker_training", "sagemaker", Decimal("1.05")),
    ]


NEWER = "20261028000000"


@pytest.fixture(scope="module")
def broken(landed, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, SourceOutcome]]:
    """On a copy of the landed warehouse, a newer version of each region: us-east-2's file cut off mid-line, and
    us-east-1 with ml.inf2.xlarge hosting printing no price and a type no source gives an accelerator count
    (ml.g6e.12xlarge: no EC2 type landed, no GPU printed, no curated entry)."""
    root = tmp_path_factory.mktemp("samples")
    for folder in ("pricelist", "sagemaker"):
        shutil.copytree(SAMPLES_DIR / "aws" / folder, root / "aws" / folder)
    folder = root / "aws" / "sagemaker"
    for path in folder.iterdir():
        path.write_text(path.read_text().replace(STAMP, NEWER).replace("2026-09-28T19:00:00Z", "2026-10-28T00:00:00Z"))
    east2 = folder / "us-east-2.csv"
    east2.write_bytes(east2.read_bytes()[:-150])
    east1 = folder / "us-east-1.csv"
    text = east1.read_text().replace('"Hrs","0.9860000000"', '"Hrs","see below"', 1)
    g5 = next(line for line in text.splitlines() if '"Hosting","ml.g5.2xlarge"' in line)
    unpriced = (
        g5.replace("ml.g5.2xlarge", "ml.g6e.12xlarge").replace(',"1","24 GB",', ",,,").replace(',"1","us', ',,"us')
    )
    east1.write_text(text + unpriced + "\n")
    db = copy_file_warehouse(landed[0], tmp_path_factory.mktemp("broken") / "w")
    return db, refresh(("aws_sagemaker",), db, root)


def test_a_cut_off_region_fails_alone_naming_itself_and_keeps_its_last_good_version(broken, landed):
    db, outcomes = broken
    failed = outcomes["aws_sagemaker_us_east_2"]
    assert failed.status == "quarantined" and "[aws_sagemaker_us_east_2]" in str(failed.error)
    assert "truncated download" in str(failed.error)
    assert outcomes["aws_sagemaker_us_east_1"].status == "landed"
    (quarantined,) = rows(db, "SELECT count(*) FROM quarantine WHERE source_id = 'aws_sagemaker_us_east_2'")
    current = (
        "SELECT * FROM aws_pricelist_price_history WHERE source_id = 'aws_sagemaker_us_east_2' AND valid_to IS NULL"
    )
    assert quarantined == (1,) and rows(db, current) == rows(landed[0], current) != []


def test_a_row_refused_by_itself_is_named_and_its_last_version_stays_current(broken, landed):
    db, outcomes = broken
    refusals = sorted(w for w in outcomes["aws_sagemaker_us_east_1"].warnings if "refused, not landed:" in w)
    assert len(refusals) == 2
    assert "sagemaker hosting us-east-1 ml.g6e.12xlarge: no attributes landed and no curated entry" in refusals[0]
    assert "sagemaker hosting us-east-1 ml.inf2.xlarge: SKU NN2CW3D3RTGHPYY9: price 'see below'" in refusals[1]
    inf2 = """SELECT usd_per_instance_hour, fetch_id FROM aws_instance_prices WHERE instance_type = 'ml.inf2.xlarge'
              AND region_code = 'us-east-1' AND price_kind = 'sagemaker_hosting'"""
    assert rows(db, inf2) == rows(landed[0], inf2) == [(Decimal("0.986"), rows(db, inf2)[0][1])]
    types = rows(
        db,
        """SELECT DISTINCT instance_type FROM aws_pricelist_price_history
           WHERE source_id = 'aws_sagemaker_us_east_1' AND valid_to IS NULL ORDER BY 1""",
    )
    assert types == [
        ("ml.g5.2xlarge",),
        ("ml.g5.xlarge",),
        ("ml.inf2.xlarge",),
        ("ml.p5.48xlarge",),
        ("ml.trn1.32xlarge",),
    ]


def test_find_takes_sagemaker_as_a_kind_family_and_each_kind_alone(landed):
    db, _ = landed
    with duckdb.connect(str(db), read_only=True) as con:
        assert known_kind(con, "SageMaker") == ("price_kind_family", "sagemaker")
        assert known_kind(con, "sagemaker_training") == ("price_kind", "sagemaker_training")
