"""The order a refresh takes its sources in: one plan, read by the CLI's refresh and by Dagster's steps alike."""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.refresh.fan_out import lands_after_units, reads_index
from pipelines.sources.file import SourceSpec


@dataclass(frozen=True)
class RefreshPlan:
    """Sources that are each one unit first (FX before the rest: GPU prices convert with its rates), then each
    index source (replaced by its units: the price list's EC2 regions before the Savings Plans regions priced with
    their types), then the sources that read what the units landed (the spot feed)."""

    units: list[SourceSpec]
    indexes: list[SourceSpec]
    after_indexes: list[SourceSpec]

    @property
    def first_indexes(self) -> list[SourceSpec]:
        """The index sources whose units the others read (the EC2 region index, not the Savings Plans one)."""
        return [s for s in self.indexes if not lands_after_units(s)]


def refresh_plan(sources: list[SourceSpec]) -> RefreshPlan:
    indexes = [s for s in sources if reads_index(s)]
    # Without an index source in this refresh, the spot feed prices with the types already landed: no need to wait.
    after = [s for s in sources if lands_after_units(s) and not reads_index(s)] if indexes else []
    units = [s for s in sources if not reads_index(s) and s not in after]
    return RefreshPlan(units, indexes, after)
