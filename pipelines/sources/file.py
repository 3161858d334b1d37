"""The sources file: which pages ratecard fetches, with which adapter, from which URL.

`ratecard refresh --sources FILE` swaps the whole file, so any source can be pointed at a mirror or a
local server by URL alone.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pipelines.fx.records import DEFAULT_MAX_FX_RATE_AGE_DAYS
from pipelines.sources import errors as sources_errors
from pipelines.sources.adapter_registry import ADAPTERS, AdapterInfo, adapter_names
from pipelines.sources.locations import DEFAULT_SOURCES_FILE, SAMPLES_DIR


class DriftRules(BaseModel):
    """How far a new snapshot may move from the current version before it is quarantined or warned about.

    Set defaults in a top-level `[drift]` table of the sources file; a source may override any of them with
    its own `drift = { ... }`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # A snapshot with fewer rows than (1 - share) x the current version's (0.5: losing over half the rows).
    max_row_drop_share: Decimal = Field(Decimal("0.5"), ge=0, le=1)
    on_row_drop: Literal["quarantine", "warn"] = "quarantine"
    # max(new, current) / min(new, current) - 1 above this for any key: 1.0 lets a price double or halve; a
    # 100x misread either way (99.0) is far beyond it.
    max_price_change_share: Decimal = Field(Decimal("1.0"), gt=0)
    on_price_change: Literal["quarantine", "warn"] = "quarantine"
    # The table's headers changed (a redesign): the parse may still be right, so by default only warn.
    on_shape_change: Literal["quarantine", "warn"] = "warn"


class FxSettings(BaseModel):
    """How FX conversion treats old rates. Defaults in a top-level `[fx]` table; a source may override with
    its own `fx = { ... }`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # A price converted with an ECB rate more than this many days before its fetch date still lands, flagged
    # fx_rate_stale (the ECB publishes on working days, so a long weekend with holidays stays within 7).
    max_rate_age_days: int = Field(DEFAULT_MAX_FX_RATE_AGE_DAYS, ge=0, le=3660)


ChangeKind = Literal["price", "added", "removed", "stock", "shape", "status"]


class NotifySettings(BaseModel):
    """The `[notify]` table of the sources file: which changes the webhook after each publish is sent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Name of the environment variable holding the webhook URL; empty: no notifications.
    webhook_url_env: str = Field("", pattern=r"^([A-Z_][A-Z0-9_]*)?$")
    # A price move is sent when |change %| is at least this; other kinds of change have no size.
    min_change_pct: Decimal = Field(Decimal(5), ge=0)
    changes: tuple[ChangeKind, ...] = ("price",)


class SplitBy(BaseModel):
    """How an OData answer (Azure's) splits when it cannot be read whole: each value of the items' field `by` that
    the pages read before the failure name is asked for on its own, its `$filter` narrowed to that value, whole or
    not at all (pipelines/fetch/split_pages.py). `items` is the key of each page's list of items."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: str = Field(min_length=1)  # Azure: Items
    by: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")  # Azure: armRegionName


class Paging(BaseModel):
    """An answer paged by what each page names next (pipelines/fetch/pages.py): fetched whole, or not at all. Give
    `next_link` (the key holding the next page's URL), or `next_token` with `token_param` (the key holding a token,
    and the query parameter that sends it back); `split` reads the answer part by part when it fails whole."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    next_link: str | None = Field(None, min_length=1)  # Azure: NextPageLink
    next_token: str | None = Field(None, min_length=1)  # Google's Billing Catalog: nextPageToken...
    token_param: str | None = Field(None, min_length=1)  # ...sent back as pageToken
    max_pages: int = Field(100, ge=1, le=10_000)  # an answer with more pages fails, named: a link that never ends
    split: SplitBy | None = None

    @model_validator(mode="after")
    def _one_way(self) -> Paging:
        if (self.next_link is None) == (self.next_token is None):
            raise ValueError("give next_link, or next_token with token_param")
        if (self.next_token is None) != (self.token_param is None):
            raise ValueError("next_token and token_param go together")
        return self

    @property
    def key(self) -> str:
        return self.next_link or self.next_token or ""


class SourceSpec(BaseModel):
    # Inputs stay out of error messages: a URL refused for carrying a credential must not print it.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    adapter: str
    url: HttpUrl
    title: str = ""
    # Path of the bundled sample under pipelines/samples/, served by `--offline` and the tests.
    sample: str
    # False for pages that print specs but no price (Trn2, Trn3): a missing price column is then normal.
    expects_prices: bool = True
    options: dict[str, Any] = Field(default_factory=dict)
    # APIs that want a POST (RunPod's GraphQL): the body is sent as is, with this content type.
    method: Literal["GET", "POST"] = "GET"
    request_body: str | None = None
    request_content_type: str | None = None
    drift: DriftRules = DriftRules()
    fx: FxSettings = FxSettings()
    # Secrets never live in this file or in URLs: a header's value is read from an environment variable at
    # fetch time and never logged or stored (e.g. { Authorization = "RUNPOD_API_KEY" }).
    headers_from_env: dict[str, str] = Field(default_factory=dict)
    # Cap on one response body, when this source's differs from the fetch settings' (a price-list region file).
    max_bytes: int | None = Field(None, ge=1)
    # An API that pages its answer by a link in each page: every page is fetched, or the source fails.
    paging: Paging | None = None

    @field_validator("adapter")
    @classmethod
    def _known_adapter(cls, value: str) -> str:

        if value not in adapter_names():
            raise ValueError(f"unknown adapter {value!r}; known: {adapter_names()}")
        return value

    @field_validator("options")
    @classmethod
    def _declared_options(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        """Options an adapter gives a model for (a table described in this file) are checked here, so a bad option
        is refused when the file loads."""
        adapter = ADAPTERS.get(info.data.get("adapter") or "")
        if adapter is not None and adapter.options is not None:
            module, model = adapter.options.split(":")
            try:
                getattr(importlib.import_module(module), model).model_validate(value)
            except ValidationError as exc:
                raise ValueError(f"bad declaration: {option_problems(exc)}") from None
        return value

    @field_validator("url")
    @classmethod
    def _no_secret_in_url(cls, value: HttpUrl) -> HttpUrl:
        secret_like = re.compile(r"(token|key|secret|password|passwd|signature|auth|credential)", re.IGNORECASE)
        named = [name for name, _ in value.query_params() if secret_like.search(name)]
        if named or value.password:
            raise ValueError(f"the URL carries a credential ({named or ['password']}): move it to headers_from_env")
        return value

    @property
    def host(self) -> str:
        return self.url.host or ""

    @property
    def adapter_info(self) -> AdapterInfo:
        return ADAPTERS[self.adapter]

    @property
    def kind(self) -> str:
        """The kind of data this source gives (aws, gpu, fx, spec, pricelist): its adapter's, the one place it is
        decided."""
        return ADAPTERS[self.adapter].kind


class Concurrency(BaseModel):
    """How many sources a refresh fetches (and parses, and validates) at once; landing is always one at a time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_sources: int = Field(16, ge=1, le=256)  # sources in flight at once, over all hosts
    per_host: int = Field(2, ge=1, le=64)  # requests in flight to one host: politeness toward each provider


class FetchLimits(BaseModel):
    """What bounds one refresh's fetching in time (pipelines/fetch/limits.py): a host that times out this many
    times in a row fails its remaining sources at once, and no fetch runs past the deadline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deadline_s: float = Field(1800, gt=0, le=86400)  # seconds from the refresh's start
    trip_after_timeouts: int = Field(3, ge=1, le=100)


class SourcesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)  # as SourceSpec: no URL in errors

    drift: DriftRules = DriftRules()
    fx: FxSettings = FxSettings()
    concurrency: Concurrency = Concurrency()
    fetch: FetchLimits = FetchLimits()
    notify: NotifySettings = NotifySettings()  # the change-feed webhook (pipelines/orchestration/notify.py)
    # Secrets never live in this file or in URLs: a header's value is read from an environment variable at
    # fetch time and never logged or stored (e.g. { Authorization = "RUNPOD_API_KEY" }).
    headers_from_env: dict[str, str] = Field(default_factory=dict)
    sources: list[SourceSpec]

    @field_validator("sources")
    @classmethod
    def _unique_ids(cls, sources: list[SourceSpec]) -> list[SourceSpec]:
        ids = [s.id for s in sources]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate source ids: {duplicates}")
        return sources


def load_sources(path: Path | str | None = None) -> list[SourceSpec]:
    """The file's sources; a SourcesFileError naming the file, line and field when it cannot be used."""
    return load_sources_file(path).sources


def load_sources_file(path: Path | str | None = None) -> SourcesFile:
    """The whole file: its sources and the file-level settings (concurrency)."""
    path = Path(path) if path else DEFAULT_SOURCES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise sources_errors.unreadable(path, exc) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise sources_errors.toml_syntax(path, text, exc) from exc
    with_source_defaults(data)
    try:
        return SourcesFile.model_validate(data)
    except ValidationError as exc:
        raise sources_errors.invalid_fields(path, text, data, exc) from exc


def with_source_defaults(data: dict[str, Any]) -> None:
    """A source's own drift and fx settings override the file's defaults, key by key (ill-typed tables are left
    to pydantic, which names them)."""
    entries = data.get("sources", [])
    if not isinstance(entries, list):
        return
    for table in ("drift", "fx"):
        defaults = data.get(table, {})
        if not isinstance(defaults, dict):
            continue
        for source in entries:
            if isinstance(source, dict) and isinstance(source.get(table, {}), dict):
                source[table] = {**defaults, **source.get(table, {})}


def sample_path(source: SourceSpec) -> Path:
    return SAMPLES_DIR / source.sample


def option_problems(exc: ValidationError) -> str:
    """Each problem as `options.<path>: <message>`, joined."""
    return "; ".join(
        f"options.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}".replace("options.: ", "options: ")
        for e in exc.errors()
    )
