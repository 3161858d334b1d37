"""Drift between versions: a new snapshot compared with the source's current version before it lands.

Three rules, each set to quarantine or warn in the sources file: the row count dropping by more than a share,
any price moving by more than a share, and the answer's shape changing (a table's headers; for JSON and XML
sources, the key paths the adapter read and found). A tripped rule's message names the rule, the setting and
the figures, so the quarantine row explains itself. Sources with no prices (FX) still get the shape rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from pipelines.kind import Key
from pipelines.sources.file import DriftRules


@dataclass(frozen=True)
class Baseline:
    """The current version of a source: its open rows' prices by business key, and its last shape."""

    prices: dict[Key, Decimal]
    shape: str | None
    rows: int = 0  # open rows of the current version (AWS: specs and prices)

    def within(self, regions: Sequence[str] | None) -> Baseline:
        """The current version in these regions only (a batch read region by region); None: all of it."""
        if regions is None:
            return self
        keep = set(regions)
        return Baseline({key: p for key, p in self.prices.items() if key[2] in keep}, self.shape)


@dataclass(frozen=True)
class _Move:
    change: Decimal
    key: Key
    old: Decimal
    new: Decimal

    @property
    def order(self) -> tuple[Decimal, str]:
        # Largest move first, then by the key as printed: a region may be None, which never compares with a str.
        return -self.change, _key_text(self.key)


@dataclass
class DriftFindings:
    quarantine: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, action: str, message: str) -> None:
        (self.quarantine if action == "quarantine" else self.warnings).append(message)


def _key_text(key: Key) -> str:
    name, kind, region = key
    return f"{name} {kind} ({region or 'region not stated'})"


def _share(value: Decimal) -> str:
    return f"{value * 100:.0f}%"


def evaluate(
    source_id: str,
    rules: DriftRules,
    baseline: Baseline | None,
    prices: dict[Key, Decimal],
    shape: str | None,
    rows: int | None = None,
) -> DriftFindings:
    """Compare a snapshot's rows, prices and shape with the current version; nothing to compare, nothing found.

    `rows` is the snapshot's row count when it counts more than its prices (AWS specs); by default the prices.
    """
    findings = DriftFindings()
    if baseline is None:
        return findings
    if baseline.prices or baseline.rows:
        _check_rows(findings, source_id, rules, baseline, len(prices) if rows is None else rows)
        _check_prices(findings, source_id, rules, _moves(rules, baseline, prices))
    if shape and baseline.shape and shape != baseline.shape:
        findings.add(
            rules.on_shape_change,
            f"[{source_id}] drift: table shape changed (fingerprint of the headers or keys read "
            f"{baseline.shape} -> {shape}) (action {rules.on_shape_change})",
        )
    return findings


def _check_rows(findings: DriftFindings, source_id: str, rules: DriftRules, baseline: Baseline, after: int) -> None:
    before = max(baseline.rows, len(baseline.prices))
    if after < before * (1 - rules.max_row_drop_share):
        drop = Decimal(before - after) / before
        findings.add(
            rules.on_row_drop,
            f"[{source_id}] drift: row count dropped from {before} to {after} ({_share(drop)}), more than "
            f"max_row_drop_share={rules.max_row_drop_share} allows (action {rules.on_row_drop})",
        )


def _moves(rules: DriftRules, baseline: Baseline, prices: dict[Key, Decimal]) -> list[_Move]:
    """Prices that moved more than the rule allows, largest move first."""
    moves = []
    for key, new in prices.items():
        old = baseline.prices.get(key)
        if old is None or old <= 0 or new <= 0:
            continue
        # Measured as a ratio either way, so a price read 100x too low trips the rule like one 100x too high.
        change = max(new, old) / min(new, old) - 1
        if change > rules.max_price_change_share:
            moves.append(_Move(change, key, old, new))
    return sorted(moves, key=lambda move: move.order)


def _check_prices(findings: DriftFindings, source_id: str, rules: DriftRules, moves: list[_Move]) -> None:
    if not moves:
        return
    shown = "; ".join(
        f"{_key_text(m.key)} {m.old.normalize():f} -> {m.new.normalize():f} ({_share(m.change)})" for m in moves[:3]
    )
    more = f" and {len(moves) - 3} more" if len(moves) > 3 else ""
    findings.add(
        rules.on_price_change,
        f"[{source_id}] drift: {len(moves)} price(s) moved more than max_price_change_share="
        f"{rules.max_price_change_share}: {shown}{more} (action {rules.on_price_change})",
    )
