"""The body archive: zstd for what is stored now, gzip from older archives still read, and a damaged file is an
ArchiveError naming the body, never a wrong body."""

from __future__ import annotations

import gzip
import hashlib

import duckdb
import pytest

from pipelines.fetch.archive import Archive, ArchiveError
from pipelines.pricelist.offer_csv import parse_offer_csv
from tests.support.pricelist_files import sample

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
PAGE = b"<html><body><table><tr><td>trn1.32xlarge</td><td>$21.50</td></tr></table></body></html>\n" * 50


def test_a_page_is_stored_as_zstd_under_its_hash_and_read_back_whole(tmp_path):
    archive = Archive(tmp_path)
    sha = archive.put(PAGE)
    stored = archive.path_for(sha)
    assert sha == hashlib.sha256(PAGE).hexdigest() and stored.name == f"{sha}.zst"
    assert stored.read_bytes()[:4] == ZSTD_MAGIC and stored.stat().st_size < len(PAGE) / 10
    assert archive.get(sha) == PAGE and archive.verified_path(sha) == stored


def test_storing_the_same_body_twice_writes_once(tmp_path):
    archive = Archive(tmp_path)
    stored = archive.path_for(archive.put(PAGE))
    first = stored.stat().st_mtime_ns
    archive.put(PAGE)
    assert stored.stat().st_mtime_ns == first and len(list(tmp_path.rglob("*"))) == 2  # the folder and the file


def test_an_offer_file_is_streamed_into_zstd_that_duckdb_reads_as_it_is(tmp_path):
    body = sample("us-east-1").read_bytes()
    sha = hashlib.sha256(body).hexdigest()
    archive = Archive(tmp_path / "archive")
    archive.put_file(sample("us-east-1"), sha)
    stored = archive.verified_path(sha)
    assert stored.suffix == ".zst" and archive.get(sha) == body
    (rows,) = duckdb.sql(f"SELECT count(*) FROM read_csv('{stored}', skip = 6, header = false)").fetchone() or (0,)
    assert rows == body.count(b"\n") - 6
    expected = parse_offer_csv(sample("us-east-1"), "aws_pricelist_us_east_1", region_code="us-east-1")
    replayed = parse_offer_csv(stored, "aws_pricelist_us_east_1", region_code="us-east-1")
    assert replayed.prices == expected.prices and replayed.offer_version == expected.offer_version


def test_an_older_archive_s_gzip_body_is_still_read(tmp_path):
    archive = Archive(tmp_path)
    sha = hashlib.sha256(PAGE).hexdigest()
    older = tmp_path / sha[:2] / f"{sha}.gz"
    older.parent.mkdir()
    older.write_bytes(gzip.compress(PAGE))
    assert archive.path_for(sha) == older and archive.get(sha) == PAGE and archive.verified_path(sha) == older
    archive.put(PAGE)  # already stored (as gzip): nothing new is written
    assert list(older.parent.iterdir()) == [older]


@pytest.mark.parametrize("damage", ["cut", "flipped"])
def test_a_damaged_zstd_body_is_an_archive_error_naming_it(tmp_path, damage):
    archive = Archive(tmp_path)
    body = bytes(range(256)) * 4000  # incompressible enough that a flipped byte lands in the data
    sha = archive.put(body)
    stored = archive.path_for(sha)
    packed = bytearray(stored.read_bytes())
    if damage == "cut":
        del packed[len(packed) // 2 :]
    else:
        packed[len(packed) // 2] ^= 0xFF
    stored.write_bytes(bytes(packed))
    for read in (archive.get, archive.verified_path):
        with pytest.raises(ArchiveError, match=sha):
            read(sha)


def test_a_missing_body_is_an_archive_error(tmp_path):
    with pytest.raises(ArchiveError, match="no archived body abc"):
        Archive(tmp_path).get("abc" + "0" * 61)
