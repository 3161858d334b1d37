"""The change feed and an offering's price history as `ratecard changes` and `ratecard history` read them (and the
agents' server): named queries over `price_changes` and the versioned price tables, each row with its source URL and
fetch time, and the threshold a price move must pass."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

CHANGES = """
SELECT changed_at, change, source_id, provider, offering, model, price_kind, coalesce(region, 'not stated') AS region,
       old_usd_per_accelerator_hour, new_usd_per_accelerator_hour, change_pct, old_value, new_value, source_url,
       (SELECT f.fetched_at FROM fetch_log AS f WHERE f.fetch_id = c.fetch_id) AS fetched_at
FROM price_changes AS c
WHERE changed_at >= $since
ORDER BY changed_at DESC, source_id, offering, change
"""
HISTORY = """
SELECT * FROM (
    SELECT 'AWS' AS provider, instance_type AS offering, price_kind, region, usd_per_accelerator_hour,
           CAST(NULL AS VARCHAR) AS stock_status, valid_from, valid_to, source_url, fetched_at
    FROM aws_instance_price_history WHERE lower(instance_type) = lower($offering)
    UNION ALL  -- the price list, per region; a reserved or Savings Plan term, payment (and class) are part of its kind
    SELECT 'AWS price list', instance_type,
           CASE WHEN lease_years IS NOT NULL
                THEN concat_ws(' ', price_kind, lease_years || 'y', purchase_option, offering_class)
                ELSE price_kind END,
           region_code, usd_per_accelerator_hour, NULL, valid_from, valid_to, source_url, fetched_at
    FROM aws_pricelist_price_history WHERE lower(instance_type) = lower($offering)
    UNION ALL
    SELECT provider, listing, price_kind, region, usd_per_gpu_hour, stock_status, valid_from, valid_to, source_url,
           fetched_at
    FROM gpu_listing_history WHERE lower(gpu_model) = lower($offering) OR lower(listing) = lower($offering)
)
-- A kind as the views name it (reserved_1y, compute_savings_plan_3y) also finds the price list's terms under it.
WHERE ($kind IS NULL OR price_kind = $kind OR starts_with(price_kind, $kind || ' ')
       OR starts_with(price_kind, regexp_replace($kind, '_(\\d+y)$', ' \\1') || ' '))
  AND ($region IS NULL OR lower(region) = lower($region))
ORDER BY provider, offering, price_kind, region NULLS FIRST, valid_from
"""
# Every name `history` answers to, for the nearest-name hint.
OFFERING_NAMES = """
SELECT DISTINCT instance_type AS name FROM aws_instance_price_history
UNION SELECT DISTINCT instance_type FROM aws_pricelist_price_history
UNION SELECT DISTINCT gpu_model FROM gpu_listing_history
"""


def over_threshold(change: dict[str, Any], min_pct: Decimal) -> bool:
    """A price move of at least `min_pct` percent, compared as Decimal with the feed's exact DECIMAL percentage
    (a move from a zero price has none and always passes); every other kind of change passes."""
    pct: Decimal | None = change["change_pct"]
    return change["change"] != "price" or pct is None or abs(pct) >= min_pct
