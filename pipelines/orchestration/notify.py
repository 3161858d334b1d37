"""After each publish: POST the price changes over a threshold to a Slack-compatible webhook.

The webhook URL is a secret: the sources file names the environment variable holding it, never the URL, and
the URL never reaches a log, a table or Dagster metadata. A failed POST is logged and retried once; it never
fails the refresh. `notify_log` records each run so that each change is sent once: a failed run leaves its
changes for the next publish.

Two refreshes can notify at once on a DuckLake, which takes no refresh lock: each claims the changes it will post
in `notify_claims` first, in a transaction that conflicts with any other claim, so a change is posted by one
notifier only, whatever the order of their commits.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from pipelines.offers.history import over_threshold
from pipelines.sources.file import NotifySettings
from warehouse.queries import one_row, rows_as_dicts
from warehouse.transactions import in_transaction

log = logging.getLogger("ratecard.notify")
REDACTED = "<webhook URL>"
TIMEOUT_S = 10.0


@dataclass
class NotifyResult:
    outcome: str  # not_configured, posted, nothing_over_threshold, failed
    changes_sent: int = 0
    attempts: int = 0
    messages: list[str] = field(default_factory=list)  # what was logged, URL-free

    def note(self, level: int, message: str) -> None:
        log.log(level, message)
        self.messages.append(message)


# What identifies a change, whichever notifier reads it.
PENDING = """
SELECT *,
       md5(concat_ws('|', change, family, source_id, coalesce(offering, ''), coalesce(price_kind, ''),
                     coalesce(region, ''), epoch_us(changed_at), fetch_id)) AS change_key
FROM price_changes
WHERE fetch_id > $after AND fetch_id <= $through AND list_contains($kinds, change)
ORDER BY changed_at, source_id, offering, change
"""
# Where the last delivered (or empty) run stopped. Before any, the last day's fetches: a warehouse that gains a
# webhook does not flood it with its whole history.
WATERMARK = """
SELECT coalesce(
    (SELECT max(through_fetch_id) FROM notify_log WHERE outcome <> 'failed'),
    (SELECT min(fetch_id) - 1 FROM fetch_log WHERE fetched_at > now() - INTERVAL 1 DAY),
    (SELECT max(fetch_id) FROM fetch_log),
    0)
"""
RECORD = "INSERT INTO notify_log VALUES ($at, $through, $sent, $outcome, $attempts, $error)"
# Every claim updates the one turn row first: two claims at once then conflict (at commit on a DuckLake, whose
# inserts alone never conflict and which keeps no keys; at the update on a DuckDB file), and the one run again
# finds the other's claims.
TAKE_TURN = "UPDATE notify_turn SET claim_id = $claim, claimed_at = $at"
CLAIMED = "SELECT change_key FROM notify_claims WHERE list_contains($keys, change_key)"
CLAIM = "INSERT INTO notify_claims SELECT unnest($keys), $claim, $at"
RELEASE = "DELETE FROM notify_claims WHERE claim_id = $claim"


def pending_changes(con: duckdb.DuckDBPyConnection, settings: NotifySettings) -> tuple[int, list[dict[str, Any]]]:
    """The changes landed since the last successful notification that pass the threshold, and the new mark."""
    (after,) = one_row(con, WATERMARK)
    (through,) = one_row(con, "SELECT coalesce(max(fetch_id), 0) FROM fetch_log")
    found = rows_as_dicts(con, PENDING, {"after": after, "through": through, "kinds": list(settings.changes)})
    return through, [c for c in found if over_threshold(c, settings.min_change_pct)]


def claim_changes(con: duckdb.DuckDBPyConnection, changes: list[dict[str, Any]], claim_id: str) -> set[str]:
    """The keys of the changes no other notifier has claimed, claimed now for `claim_id`."""
    keys = [c["change_key"] for c in changes]

    def claim() -> set[str]:
        at = datetime.now(UTC)
        con.execute(TAKE_TURN, {"claim": claim_id, "at": at})
        taken = {key for (key,) in con.execute(CLAIMED, {"keys": keys}).fetchall()}
        mine = [key for key in keys if key not in taken]
        if mine:
            con.execute(CLAIM, {"keys": mine, "claim": claim_id, "at": at})
        return set(mine)

    return in_transaction(con, claim)


def describe(change: dict[str, Any]) -> str:
    what = " ".join(str(change[k]) for k in ("provider", "offering", "price_kind", "region") if change[k])
    if change["change"] == "price":
        old, new = (
            Decimal(change[k]).quantize(Decimal("0.0001"))
            for k in ("old_usd_per_accelerator_hour", "new_usd_per_accelerator_hour")
        )
        return f"{what}: {old} → {new} USD/accelerator-hour ({change['change_pct']:+}%)"
    if change["change"] == "shape":
        return f"{change['source_id']}: page shape changed"
    return f"{what}: {change['change']} {change['old_value'] or ''}→{change['new_value'] or ''}".rstrip()


def slack_message(changes: list[dict[str, Any]]) -> dict[str, Any]:
    """Slack reads `text`; other receivers get every row in `changes` (JSON-safe)."""
    lines = [f"ratecard: {len(changes)} change(s)"] + [f"• {describe(c)}" for c in changes]
    rows = [{k: (str(v) if isinstance(v, Decimal | datetime) else v) for k, v in c.items()} for c in changes]
    return {"text": "\n".join(lines), "changes": rows}


class _Redact(logging.Filter):
    """httpx logs each request with its URL: the URL goes out of the record before any handler sees it."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if self.secret in text:
            record.msg, record.args = text.replace(self.secret, REDACTED), ()
        return True


@contextmanager
def _redacted(secret: str) -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in ("httpx", "httpcore")]
    redact = _Redact(secret)
    for logger in loggers:
        logger.addFilter(redact)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(redact)


def post(url: str, message: dict[str, Any], result: NotifyResult) -> bool:
    """POST once and retry once; failures are logged (without the URL), never raised."""
    import httpx

    with _redacted(url), httpx.Client(timeout=TIMEOUT_S) as client:
        for attempt in (1, 2):
            result.attempts = attempt
            try:
                status = client.post(url, json=message).status_code
                problem = None if status < 300 else f"HTTP {status}"
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}".replace(url, REDACTED)
            if problem is None:
                return True
            retry = "retrying once" if attempt == 1 else "giving up until the next publish"
            result.note(logging.WARNING, f"webhook POST failed ({problem}); {retry}")
    return False


def notify_changes(db_path: Path | str, settings: NotifySettings) -> NotifyResult:
    """Send what changed since the last notification (the caller holds the refresh lock); never raises."""
    try:
        return _notify(db_path, settings)
    except Exception as exc:  # the refresh that published is good whatever happens here
        secret = os.environ.get(settings.webhook_url_env, "") if settings.webhook_url_env else ""
        message = f"change notification failed: {type(exc).__name__}: {exc}"
        result = NotifyResult("failed")
        result.note(logging.ERROR, message.replace(secret, REDACTED) if secret else message)
        return result


def _notify(db_path: Path | str, settings: NotifySettings) -> NotifyResult:
    from warehouse.db import connect

    if not settings.webhook_url_env:
        return NotifyResult("not_configured")
    url = os.environ.get(settings.webhook_url_env, "")
    if not url:
        result = NotifyResult("not_configured")
        result.note(logging.INFO, f"change notification off: ${settings.webhook_url_env} is not set")
        return result
    with connect(db_path) as con:
        through, pending = pending_changes(con, settings)
        claim_id = uuid.uuid4().hex
        mine = claim_changes(con, pending, claim_id) if pending else set()
        changes = [c for c in pending if c["change_key"] in mine]
        result = NotifyResult("nothing_over_threshold", changes_sent=len(changes))
        if elsewhere := [c["fetch_id"] for c in pending if c["change_key"] not in mine]:
            # Claimed by another notifier, posted or still posting: the mark stops before them, so that they go
            # with the next publish if that notifier fails.
            through = min(through, min(elsewhere) - 1)
            result.note(logging.INFO, f"{len(elsewhere)} change(s) claimed by another notification, not sent again")
        if changes:
            result.outcome = "posted" if post(url, slack_message(changes), result) else "failed"
            if result.outcome == "failed":  # unclaimed again: the next publish sends them
                in_transaction(con, lambda: con.execute(RELEASE, {"claim": claim_id}))
        error = result.messages[-1] if result.outcome == "failed" else None
        record = {"at": datetime.now(UTC), "through": through, "sent": len(changes), "outcome": result.outcome}
        con.execute(RECORD, {**record, "attempts": result.attempts, "error": error})
    result.note(logging.INFO, f"change notification: {result.outcome}, {len(changes)} change(s)")
    return result
