"""One regional EC2 offer file (CSV variant) read in DuckDB, filtered to the rows that are prices.

The file is ~250 MB for a big region, so it is never loaded into Python: DuckDB streams it with every column
as text (`all_varchar`: its sniffer would type `EndingRange` "Inf" as a date and a fractional `GPU` as an
integer), applies the filters and the family allowlist in SQL, and hands back only the kept rows (a few
thousand). Columns are found by their header names, never by position. The first five lines are metadata.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.errors import MissingColumnError, ParseError
from pipelines.fetch.archive import UNREADABLE, open_body
from pipelines.pricelist.curated import CuratedFigures, load_curated
from pipelines.pricelist.families import DEFAULT_FAMILIES, family_regex
from pipelines.pricelist.offer_rows import KeptRow, build_batch
from pipelines.pricelist.records import PriceListBatch
from pipelines.reading.tables import shape_fingerprint
from warehouse.quoting import literal

PARSER_VERSION = "aws_price_list_csv/1.0"
PREAMBLE = ("FormatVersion", "Disclaimer", "Publication Date", "Version", "OfferCode")
# Semantic name -> the header text's letters and digits, lower case ("Pre Installed S/W" -> "preinstalledsw").
COLUMNS = {
    "sku": "sku",
    "term_code": "offertermcode",
    "rate_code": "ratecode",
    "term_type": "termtype",
    "unit": "unit",
    "price": "priceperunit",
    "currency": "currency",
    "lease": "leasecontractlength",
    "purchase_option": "purchaseoption",
    "offering_class": "offeringclass",
    "product_family": "productfamily",
    "location": "location",
    "instance_type": "instancetype",
    "tenancy": "tenancy",
    "operating_system": "operatingsystem",
    "license_model": "licensemodel",
    "operation": "operation",
    "capacity_status": "capacitystatus",
    "gpu": "gpu",
    "gpu_memory": "gpumemory",
    "market_option": "marketoption",
    "pre_installed_sw": "preinstalledsw",
    "region_code": "regioncode",
}
OPTIONAL = {"rate_code", "gpu", "gpu_memory", "location", "operation"}
# The filters of aws-price-list.md: Linux, shared tenancy, nothing pre-installed, no licence, a used (not
# reserved-capacity) instance, bought on demand or reserved, in USD. Capacity Block rows carry only an OS fee.
FILTERS = """
    "product_family" = 'Compute Instance' AND "tenancy" = 'Shared' AND "operating_system" = 'Linux'
    AND "pre_installed_sw" = 'NA' AND "capacity_status" = 'Used' AND "market_option" = 'OnDemand'
    AND "license_model" = 'No License required' AND "currency" = 'USD'
    AND "term_type" IN ('OnDemand', 'Reserved') AND coalesce("operation", '') NOT LIKE '%:CB'
"""

# DuckDB's CSV buffer per scanning thread. Its default (32 MB) costs ~80 MB more peak RSS on two threads, and no
# speed: the offer file's lines are ~700 bytes.
SCAN_BUFFER_BYTES = 4 << 20


def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def read_head(path: Path, source_id: str, offer_code: str = "AmazonEC2") -> tuple[dict[str, str], list[str]]:
    """The five metadata lines (by key) and the header row, read without touching the rest of the file."""
    with open_body(path) as body:
        lines = csv.reader(io.TextIOWrapper(body, encoding="utf-8", newline=""))
        try:
            head = [next(lines) for _ in range(len(PREAMBLE) + 1)]
        except StopIteration:
            raise ParseError(source_id, f"{path.name}: the file ends inside its metadata and header") from None
        except (csv.Error, UnicodeDecodeError, *UNREADABLE) as exc:
            raise ParseError(source_id, f"{path.name}: unreadable head: {exc}") from exc
    meta = {row[0]: row[1] for row in head[:-1] if len(row) >= 2}
    missing = [key for key in PREAMBLE if key not in meta]
    if missing:
        raise ParseError(source_id, f"{path.name}: metadata line(s) {', '.join(missing)} missing from the first five")
    if meta["OfferCode"] != offer_code:
        raise ParseError(source_id, f"{path.name}: offer code {meta['OfferCode']!r}, expected {offer_code}")
    return meta, head[-1]


def ends_with_newline(path: Path) -> bool:
    """A download cut short ends mid-line; AWS's files end with a newline. A compressed file (an archived body) is
    read to its end for its last byte, so a replay says the same as the first parse; one cut short counts as
    truncated."""
    if path.suffix in (".gz", ".zst"):
        last = b""
        try:
            with open_body(path) as body:
                while chunk := body.read(1 << 20):
                    last = chunk
        except UNREADABLE:
            return False
        return last.endswith(b"\n")
    with open(path, "rb") as raw:
        raw.seek(0, io.SEEK_END)
        if raw.tell() == 0:
            return False
        raw.seek(-1, io.SEEK_END)
        return raw.read(1) == b"\n"


def select_list(
    header: list[str], source_id: str, columns: dict[str, str] = COLUMNS, optional: set[str] = OPTIONAL
) -> str:
    """`"<header as printed>" AS <semantic name>` for each wanted column, found by its header's meaning."""
    by_key = {_key(name): name for name in header}
    missing = [name for name, key in columns.items() if key not in by_key and name not in optional]
    if missing:
        raise MissingColumnError(source_id, missing, header)
    parts = []
    for name, key in columns.items():
        column = by_key.get(key)
        quoted = '"' + column.replace('"', '""') + '"' if column is not None else "NULL"
        parts.append(f"{quoted} AS {name}")
    return ", ".join(parts)


KEPT_FIELDS = (
    "sku, term_code, rate_code, term_type, unit, price, lease, purchase_option, offering_class, location, "
    "instance_type, region_code, gpu, gpu_memory"
)


def query_kept_rows(
    con: duckdb.DuckDBPyConnection, path: Path, header: list[str], families: Sequence[str], source_id: str
) -> tuple[list[KeptRow], list[str]]:
    """The rows that are prices of the allowlisted families, and every region code any row of the file names."""
    columns = select_list(header, source_id)
    kept, regions = rows_by_region(con, path, columns, KEPT_FIELDS, FILTERS, families, source_id)
    return [KeptRow(**row) for row in kept], regions


def rows_by_region(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    columns: str,
    fields: str,
    filters: str,
    families: Sequence[str],
    source_id: str,
    instance_type: str = "instance_type",
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of a price-list CSV that pass `filters` and the family allowlist (their `fields`), and every region
    code any row names. One scan: grouping by region code gathers each region's kept rows, so the whole file's
    regions come free (a file for another region, or the all-regions file, is caught by any row, not only by a
    kept one). `columns` names the header's columns (select_list); `instance_type`, an expression over them, is a
    row's type."""
    # No bound parameter: with one, DuckDB plans the scan less well (measured on a 420 MB file in a fresh
    # process: 0.93-1.18 s and 117 MB above the process's size, against 0.69-0.79 s and 37 MB with the path and
    # the allowlist written in as literals). One regular expression matches the family: 15 LIKEs over
    # split_part(...) cost 1.6 s on the same file.
    family_match = f"regexp_matches(instance_type, {literal(family_regex(families))})"
    sql = f"""
        WITH named AS (
            SELECT {columns}
            FROM read_csv({literal(str(path))}, skip = {len(PREAMBLE)}, header = true, all_varchar = true, delim = ',',
                          quote = '"', escape = '"', strict_mode = true, null_padding = false,
                          buffer_size = {SCAN_BUFFER_BYTES})
        ), typed AS (SELECT * REPLACE ({instance_type} AS instance_type) FROM named)
        SELECT nullif(trim(region_code), '') AS code,
               list(struct_pack({fields})) FILTER (WHERE {filters} AND {family_match}) AS kept
        FROM typed GROUP BY code
    """
    try:
        groups = con.execute(sql).fetchall()
    except duckdb.Error as exc:
        raise ParseError(source_id, f"{path.name}: DuckDB could not read the file: {exc}") from exc
    regions = sorted(code for code, _ in groups if code is not None)
    return [row for _, kept in groups for row in kept or []], regions


def parse_offer_csv(
    source: Path | bytes,
    source_id: str,
    *,
    region_code: str | None = None,
    families: Sequence[str] = DEFAULT_FAMILIES,
    curated: CuratedFigures | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
    index_version: str | None = None,
) -> PriceListBatch:
    """Read one regional offer file (a path, plain or .gz, or a body) into a batch of on-demand and reserved prices.

    `region_code`, when given, must be the region of every row of the file; `index_version`, when given (the stamp
    of the region index entry the file came from), must be the file's own Version. Raises ParseError naming the
    source and what was wrong; two on-demand rows for one type are refused later, by the gate
    (pipelines.pricelist.checks).
    """
    if isinstance(source, bytes):
        with tempfile.TemporaryDirectory(prefix="ratecard-offer-") as folder:
            path = spilled(source, folder)
            return parse_offer_csv(
                path,
                source_id,
                region_code=region_code,
                families=families,
                curated=curated,
                con=con,
                index_version=index_version,
            )
    path = source
    meta, header = checked_head(path, source_id, "AmazonEC2", index_version)
    own = con is None
    connection = con if con is not None else bounded_connection()
    try:
        rows, file_regions = query_kept_rows(connection, path, header, families, source_id)
    finally:
        if own:
            connection.close()
    check_file_regions(path, file_regions, region_code, source_id)
    return build_batch(
        rows,
        source_id=source_id,
        parser_version=PARSER_VERSION,
        region_code=region_code or (file_regions[0] if file_regions else None),  # checked: one region
        offer_version=meta["Version"],
        publication_date=publication_date(meta["Publication Date"], source_id),
        shape=shape_fingerprint(header),
        curated=curated if curated is not None else load_curated(),
    )


def checked_head(
    path: Path, source_id: str, offer_code: str, index_version: str | None
) -> tuple[dict[str, str], list[str]]:
    """The metadata and header of a price-list CSV, once its offer code, its Version (against the index entry it came
    from) and its last byte (a download cut short ends mid-line) are checked."""
    meta, header = read_head(path, source_id, offer_code)
    check_version(path, meta["Version"], index_version, source_id)
    if not ends_with_newline(path):
        raise ParseError(source_id, f"{path.name}: the file does not end with a newline: truncated download?")
    return meta, header


def check_file_regions(path: Path, regions: list[str], region_code: str | None, source_id: str) -> None:
    """Every row of a regional file names its region (rows naming none, such as some data-transfer rows, aside)."""
    if region_code is not None and set(regions) - {region_code}:
        others = sorted(set(regions) - {region_code})
        shown = ", ".join(others[:8]) + (f" and {len(others) - 8} more" if len(others) > 8 else "")
        raise ParseError(
            source_id,
            f"{path.name}: the region index gave this file for {region_code}, but its rows also name {shown}: "
            "a file for another region, or the all-regions file; refused",
        )
    if region_code is None and len(regions) > 1:
        raise ParseError(source_id, f"{path.name}: one offer file, several regions: {', '.join(regions)}")


def check_version(path: Path, printed: str, index_version: str | None, source_id: str) -> None:
    """The file's Version line against the stamp of the index entry it came from: another version is a stale
    mirror or cache, or a mixed-up download, and would be recorded against the wrong offer."""
    if index_version is not None and printed != index_version:
        raise ParseError(
            source_id,
            f"{path.name}: the file prints Version {printed}, but the region index named version {index_version} "
            "for it: a stale mirror or a mixed-up download; refused",
        )


def spilled(body: bytes, folder: str) -> Path:
    """A body in memory (a fetch, an archived body) written to a file, because DuckDB streams files; a gzip or zstd
    body (recognised by its magic bytes) keeps its compression."""
    suffix = ".gz" if body[:2] == b"\x1f\x8b" else ".zst" if body[:4] == b"\x28\xb5\x2f\xfd" else ""
    path = Path(folder) / f"offer.csv{suffix}"
    path.write_bytes(body)
    return path


def bounded_connection() -> duckdb.DuckDBPyConnection:
    # In memory, spilling nothing: the kept rows are few. Insertion order is irrelevant to a filter, and
    # dropping it lets DuckDB stream the scan instead of buffering it.
    con = duckdb.connect(config={"memory_limit": "384MB", "threads": 2, "preserve_insertion_order": False})
    return con


def publication_date(text: str, source_id: str) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ParseError(source_id, f"publication date {text!r} is not an ISO timestamp") from exc
