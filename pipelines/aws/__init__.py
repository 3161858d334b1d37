"""AWS instance prices as the product and Capacity Blocks pages print them: specifications and prices per
instance-hour, versioned per source (kind `aws`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemas.regions import REGIONS_FILE
from warehouse.sql_files import SchemaPart


def _upgrade(con: Any, part: SchemaPart) -> None:
    """Rows landed before the current tables: see the landing's upgrade."""
    from pipelines.aws.landing import upgrade_aws_history  # late: only a schema change needs the landing

    upgrade_aws_history(con, part)


# The kind its sources declare (sources.toml, through their adapter); its Kind object is `kind.KIND`.
SOURCE_KIND: str | None = "aws"
SCHEMA = SchemaPart("aws", Path(__file__).resolve().parent / "sql", _upgrade, hashed_files=(REGIONS_FILE,))
