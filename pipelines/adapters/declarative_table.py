"""Any GPU pricing page that is one HTML table, one row per GPU offer, described entirely in sources.toml.

The source's `options` say what the columns mean (header regexes on lower-cased header text, found with
`tables.locate`, so column order and extra columns do not matter) and what the page leaves unsaid (currency,
per GPU or per instance, billing period, price kind, a fixed GPU count). A row with no price ("—", blank,
"Contact sales") is reported in `unpriced`, never priced. A bad declaration is a ParseError naming the option.

    [sources.options]
    provider = "QuantaCloud"       currency = "USD"         decimal_separator = "."   (optional; "," for 7,50)
    price_per = "gpu"              period = "hour"          price_kind = "on_demand"
    gpu_count = 1                  # or a `gpu_count` column ("8", "8x", "8 x H100"); exactly one of the two
    memory_in_gpu_cell = true      # (optional) memory printed inside the GPU cell ("NVIDIA H100 80GB HGX")
    [sources.options.columns]      # required: gpu, price; optional: spot, memory, stock, gpu_count, region, listing
    gpu = ["^accelerator"]         price = ["^on-demand"]   memory = ["memory"]      stock = ["status"]
    spot = ["^spot"]               # a second price column: each row priced there is a spot offer too
    [sources.options.stock_values] # substring of the lower-cased cell; the longest match wins; else unknown
    in_stock = ["available"]       sold_out = ["waitlist", "sold out"]
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import ValidationError

from pipelines.errors import CellError, ParseError
from pipelines.gpu.declared_table import Options, StockValues
from pipelines.gpu.records import GpuOffer, GpuPriceKind, GpuRows, StockStatus
from pipelines.reading.tables import Column, HeaderTable, Row, locate, read_cell, soup_of
from pipelines.reading.values import parse_accelerators, parse_memory, parse_memory_in, parse_money, unit_in_header
from pipelines.sources.file import SourceSpec, option_problems

PARSER_VERSION = "declarative_table/1.1"  # 1.1: the spot column
PROVIDER = ""  # the sources file names it: `provider` is a required option of a declared table
SPOT_STOCK = StockStatus.UNKNOWN


class DeclarationError(ParseError):
    """The source's options do not declare a readable table."""


def options_of(source: SourceSpec) -> Options:
    try:
        return Options.model_validate(source.options)
    except ValidationError as exc:
        raise DeclarationError(source.id, f"bad declaration in sources.toml: {option_problems(exc)}") from None


def parse(body: bytes, source: SourceSpec, *, charset: str | None = None) -> GpuRows:
    opts = options_of(source)
    declared = opts.columns.model_dump()
    columns = [
        Column(key, tuple(patterns), required=key in ("gpu", "price"), fill_down=key == "region")
        for key, patterns in declared.items()
        if patterns is not None
    ]
    table = locate(soup_of(body, charset), columns, source.id)
    offers: list[GpuOffer] = []
    unpriced: list[str] = []
    for row in table.rows("gpu"):
        listing = _required(row, table, "listing" if "listing" in table.columns else "gpu", source.id)
        gpu_name = _required(row, table, "gpu", source.id)
        amount = read_cell(
            row,
            table,
            "price",
            source.id,
            lambda t: parse_money(t, opts.currency, decimal_separator=opts.decimal_separator),
        )
        if amount is None:
            unpriced.append(listing)
            continue
        if amount <= 0:
            raise CellError(source.id, row.label, table.header_of("price"), f"price {amount} is not positive")
        offer = _offer(row, table, source, opts, listing, gpu_name, amount)
        offers.append(offer)
        spot = _spot(row, table, source, opts)
        if spot is not None:
            # The same GPU at the spot column's price; what the page says of stock is said of its main offer.
            update = {"amount": spot, "price_kind": GpuPriceKind.SPOT, "stock_status": SPOT_STOCK}
            offers.append(GpuOffer.model_validate(offer.model_dump() | update))  # validated as the main one was
    keys = [(o.price_kind, o.region, o.listing) for o in offers]
    for _kind, region, listing in {k for k in keys if keys.count(k) > 1}:
        raise ParseError(source.id, f"listing {listing!r} appears twice (region {region!r})")
    return GpuRows(
        offers=offers,
        unpriced=unpriced,
        shape=table.fingerprint,
    )


def _offer(
    row: Row, table: HeaderTable, source: SourceSpec, opts: Options, listing: str, gpu_name: str, amount: Decimal
) -> GpuOffer:
    count = opts.gpu_count
    if "gpu_count" in table.columns:
        count = read_cell(row, table, "gpu_count", source.id, lambda t: parse_accelerators(t)[0])
    if count is None:  # a blank count cell: never guess one
        raise CellError(source.id, row.label, table.header_of("gpu_count"), "no GPU count")
    memory, memory_unit = None, "GB"
    if "memory" in table.columns:
        unit = unit_in_header(table.header_of("memory"))
        printed = read_cell(row, table, "memory", source.id, lambda t: parse_memory_in(t, unit))
        if printed is not None and printed[1] not in ("GB", "GiB"):
            raise CellError(source.id, row.label, table.header_of("memory"), f"GPU memory in {printed[1]}")
        memory, memory_unit = (printed[0], printed[1]) if printed else (None, "GB")
    elif opts.memory_in_gpu_cell and (printed := _memory_in(row.get("gpu"))) is not None:
        memory, memory_unit = printed
    try:
        return GpuOffer(
            listing=listing,
            gpu_name=gpu_name,
            gpu_count=count,
            price_kind=opts.price_kind,
            amount=amount,
            currency=opts.currency,
            price_per=opts.price_per,
            period=opts.period,
            stock_status=_stock(row.get("stock"), opts.stock_values),
            region=row.get("region") or None,
            gpu_memory_gb_printed=memory,
            gpu_memory_unit=memory_unit,
        )
    except ValidationError as exc:
        raise ParseError(source.id, f"row {row.label!r} makes no valid offer: {exc.errors()[0]['msg']}") from None


def _spot(row: Row, table: HeaderTable, source: SourceSpec, opts: Options) -> Decimal | None:
    """The row's spot price, when the page has a spot column and prices the row there."""
    if "spot" not in table.columns:
        return None
    amount = read_cell(
        row, table, "spot", source.id, lambda t: parse_money(t, opts.currency, decimal_separator=opts.decimal_separator)
    )
    if amount is not None and amount <= 0:
        raise CellError(source.id, row.label, table.header_of("spot"), f"spot price {amount} is not positive")
    return amount


def _memory_in(gpu_cell: str | None) -> tuple[Decimal, str] | None:
    """The memory figure a GPU cell prints ("AMD MI300X 192GB"), or None when it prints none."""
    try:
        return parse_memory(gpu_cell)
    except ValueError:
        return None


def _required(row: Row, table: HeaderTable, key: str, source_id: str) -> str:
    value = row.get(key) or ""
    if not value:
        raise CellError(source_id, row.label, table.header_of(key), "empty identifying cell")
    return value


def _stock(text: str | None, values: StockValues) -> StockStatus:
    cell = (text or "").lower()
    hits = [
        (len(p), status)
        for status, phrases in ((StockStatus.IN_STOCK, values.in_stock), (StockStatus.SOLD_OUT, values.sold_out))
        for p in phrases
        if p.lower() in cell and p
    ]
    return max(hits, key=lambda hit: hit[0])[1] if hits else StockStatus.UNKNOWN
