"""What every regional price-list CSV reader shares (the Savings Plans rates, the SageMaker offer): the file on disk,
its head checked, its rows read in DuckDB, its region checked, and the batch around what the reader made of them.
The EC2 offer reader (offer_csv) holds the parts they are built from."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import duckdb

from pipelines.pricelist.families import DEFAULT_FAMILIES
from pipelines.pricelist.offer_csv import (
    bounded_connection,
    check_file_regions,
    checked_head,
    publication_date,
    spilled,
)
from pipelines.pricelist.records import PriceListBatch
from pipelines.reading.tables import shape_fingerprint

Row = TypeVar("Row")
# (connection, the file, its header, the family allowlist, the source id) -> (the kept rows, every region code any
# row names)
RowsOf = Callable[[duckdb.DuckDBPyConnection, Path, list[str], Sequence[str], str], tuple[list[Row], list[str]]]


@dataclass(frozen=True)
class RegionalReader(Generic[Row]):
    """A reader of one offer's regional CSV files: `rows_of` reads the kept rows in DuckDB, `batch_fields` makes the
    batch's records of them (with the source id, to name it in errors)."""

    offer_code: str
    parser_version: str
    rows_of: RowsOf[Row]
    batch_fields: Callable[[list[Row], str], dict[str, Any]]

    def __call__(
        self,
        source: Path | bytes,
        source_id: str,
        *,
        region_code: str | None = None,
        families: Sequence[str] = DEFAULT_FAMILIES,
        index_version: str | None = None,
    ) -> PriceListBatch:
        """One region's file (a path, plain or compressed, or a body in memory, spilled to a temporary file because
        DuckDB streams files) as a batch. `region_code`, when given, must be every row's region, `index_version`
        the file's own Version. Raises ParseError naming the source: a wrong offer code or version, a truncated
        file, a row of another region, a missing column."""
        if isinstance(source, bytes):
            with tempfile.TemporaryDirectory(prefix=f"ratecard-{self.offer_code}-") as folder:
                path = spilled(source, folder)
                return self(path, source_id, region_code=region_code, families=families, index_version=index_version)
        meta, header = checked_head(source, source_id, self.offer_code, index_version)
        con = bounded_connection()
        try:
            rows, file_regions = self.rows_of(con, source, header, families, source_id)
        finally:
            con.close()
        check_file_regions(source, file_regions, region_code, source_id)
        return PriceListBatch(
            source_id=source_id,
            parser_version=self.parser_version,
            region_code=region_code or (file_regions[0] if file_regions else None),  # checked: one region
            offer_version=meta["Version"],
            publication_date=publication_date(meta["Publication Date"], source_id),
            prices=[],
            shape=shape_fingerprint(header),
            **self.batch_fields(rows, source_id),
        )
