"""The order a refresh takes its sources in: one plan, read by the CLI's refresh and by Dagster's steps alike."""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.refresh.pricelist_units import prices_with_type_attributes, reads_region_index
from pipelines.sources.file import SourceSpec


@dataclass(frozen=True)
class RefreshPlan:
    """Sources that are each one unit first (FX before the rest: GPU prices convert with its rates), then each
    price-list region index (replaced by its regions, the EC2 regions before those priced with their types), then
    the feeds priced with the types the EC2 regions landed (the spot feed)."""

    units: list[SourceSpec]
    region_indexes: list[SourceSpec]
    after_indexes: list[SourceSpec]

    @property
    def type_indexes(self) -> list[SourceSpec]:
        """The region indexes whose landed types price the others (EC2's, not the Savings Plans')."""
        return [s for s in self.region_indexes if not prices_with_type_attributes(s)]


def refresh_plan(sources: list[SourceSpec]) -> RefreshPlan:
    indexes = [s for s in sources if reads_region_index(s)]
    # Without a region index in this refresh, the spot feed prices with the types already landed: no need to wait.
    after = [s for s in sources if prices_with_type_attributes(s) and not reads_region_index(s)] if indexes else []
    units = [s for s in sources if not reads_region_index(s) and s not in after]
    return RefreshPlan(units, indexes, after)
