"""The soak's world: a copy of the bundled samples that changes a little each day, served with the day's faults.

Each day (seeded, so a seed gives the same month):
- an ECB file of that day (its rates dated the day before);
- a price moves (an Azure item's retailPrice by a few percent), or returns to where it was;
- an Azure listing goes, or comes back;
- the Trn1 product page restyles (every class name and id renamed; ratecard reads by meaning, so nothing changes);
- on some days a new EC2 price-list version appears (a new publication date and version in the region index and the
  offer files, one on-demand price moved).

The faults come from the fault matrix: a 500 on every attempt, a body cut off mid-way, a connection reset, a host
that never answers (the refresh's deadline ends it), and a page that is not the page (maintenance HTML). A fault
is set on one source's path for the day and cleared after.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import socket
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from pipelines.fetch.offline import SampleRequestHandler, sample_for
from pipelines.sources.locations import SAMPLES_DIR

FAULTS = ("500", "truncated", "reset", "timeout", "bad_page")
# The soak's sources and the sample path a fault on each is set on (the path the server sees).
FAULT_PATHS = {
    "fx_ecb": "/fx/eurofxref-daily.xml",
    "aws_trn1": "/aws/trn1.html",
    "gpu_hyperstack": "/gpu/hyperstack.html",
    "gpu_azure": "/gpu/azure/retail_prices_skip_1000.json",  # the second page: Azure splits by region
    "gpu_lambda": "/gpu/lambda.html",
}
BAD_PAGE = b"<html><head><title>Maintenance</title></head><body><p>Back soon.</p></body></html>"
AZURE_FIRST = "gpu/azure/retail_prices.json"
ECB = "fx/eurofxref-daily.xml"
TRN1 = "aws/trn1.html"
PRICELIST = "aws/pricelist"


@dataclass
class Faults:
    """Path -> fault for the day, read by the server's threads."""

    by_path: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, path: str, fault: str) -> None:
        with self.lock:
            self.by_path = {path: fault}

    def clear(self) -> None:
        with self.lock:
            self.by_path = {}

    def of(self, path: str) -> str | None:
        with self.lock:
            return self.by_path.get(path)


def faulty_handler(faults: Faults) -> type[SampleRequestHandler]:
    class FaultyHandler(SampleRequestHandler):
        def do_GET(self) -> None:
            fault = faults.of(sample_for(urlsplit(self.path).path, Path(self.directory)))
            if fault is None:
                super().do_GET()
            elif fault == "500":
                self.send_error(500, "Internal Server Error")
            elif fault == "bad_page":
                self._answer(200, BAD_PAGE)
            elif fault == "timeout":
                time.sleep(120)  # the refresh's deadline ends the wait first
            else:
                self._broken(fault)

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _broken(self, fault: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"<html><body><table><tr><td>cut")
            self.wfile.flush()
            if fault == "reset":  # SO_LINGER 0: close() sends RST
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

    return FaultyHandler


class World:
    """The samples copied under `root`, changed day by day (see the module's docstring)."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        shutil.copytree(SAMPLES_DIR, root)
        self.root = root
        self.rng = rng
        self.moved: dict[tuple[str, str, str], str] = {}  # Azure item -> its original price, while moved
        self.gone: dict[str, dict[str, object]] = {}  # Azure meter id -> the item, while gone

    def next_day(self, day: date) -> list[str]:
        """Change the samples for `day`; returns what changed, in words."""
        changes = [self._ecb(day)]
        changes.append(self._azure_price() if self.rng.random() < 0.6 else self._azure_listing())
        changes.append(self._restyle_trn1(day))
        if self.rng.random() < 0.25:
            changes.append(self._new_offer_version(day))
        return changes

    def _ecb(self, day: date) -> str:
        path = self.root / ECB
        rated = (day - timedelta(days=1)).isoformat()
        path.write_text(re.sub(r"<Cube time=(['\"])[\d-]+\1>", f"<Cube time='{rated}'>", path.read_text(), count=1))
        return f"ECB rates dated {rated}"

    def _azure_page(self) -> tuple[Path, dict[str, object]]:
        path = self.root / AZURE_FIRST
        return path, json.loads(path.read_text())

    def _azure_price(self) -> str:
        path, page = self._azure_page()
        items = page["Items"]
        assert isinstance(items, list)
        item = self.rng.choice([i for i in items if i["type"] == "Consumption"])
        key = (item["armSkuName"], item["armRegionName"], item["meterName"])
        if key in self.moved:
            item["retailPrice"] = float(self.moved.pop(key))
            said = "back to"
        else:
            self.moved[key] = repr(item["retailPrice"])
            item["retailPrice"] = round(item["retailPrice"] * self.rng.choice((0.97, 1.03, 1.08)), 4)
            said = "moved to"
        path.write_text(json.dumps(page, indent=1))
        return f"Azure {key[0]} {key[2]} in {key[1]}: price {said} {item['retailPrice']}"

    def _azure_listing(self) -> str:
        path, page = self._azure_page()
        items = page["Items"]
        assert isinstance(items, list)
        if self.gone:
            meter, item = self.gone.popitem()
            items.append(item)
            said = f"Azure listing back: {meter}"
        else:
            item = items.pop(self.rng.randrange(len(items)))
            meter = f"{item['armSkuName']} {item['meterName']} {item['armRegionName']} {item['type']}"
            self.gone[meter] = item
            said = f"Azure listing gone: {meter}"
        path.write_text(json.dumps(page, indent=1))
        return said

    def _restyle_trn1(self, day: date) -> str:
        path = self.root / TRN1
        text = path.read_text()
        tag = f"d{day:%m%d}"
        text = re.sub(r'class="([^"]*)"', lambda m: f'class="{tag}-{zlib.crc32(m.group(1).encode()) % 9973}"', text)
        path.write_text(text)
        return "Trn1 page restyled (class names renamed)"

    def _new_offer_version(self, day: date) -> str:
        stamp = f"{day:%Y%m%d}060000"
        published = f"{day:%Y-%m-%d}T06:00:00Z"
        index = self.root / PRICELIST / "region_index.json"
        text = re.sub(r"/AmazonEC2/\d{14}/", f"/AmazonEC2/{stamp}/", index.read_text())
        index.write_text(re.sub(r'"publicationDate": "[^"]+"', f'"publicationDate": "{published}"', text))
        factor = self.rng.choice(("0.99", "1.02"))
        for offer in sorted((self.root / PRICELIST).glob("*.csv")):
            lines = offer.read_text().split("\n")
            lines[2], lines[3] = f'"Publication Date","{published}"', f'"Version","{stamp}"'
            offer.write_text("\n".join(lines))
        on_demand = self.root / PRICELIST / "us-east-1.csv"
        lines = on_demand.read_text().split("\n")
        for number, line in enumerate(lines):
            if '"OnDemand"' in line and '"trn1.2xlarge"' in line:
                price = re.search(r'"Hrs","([\d.]+)"', line)
                if price:
                    moved = f"{float(price.group(1)) * float(factor):.10f}"
                    lines[number] = line.replace(f'"Hrs","{price.group(1)}"', f'"Hrs","{moved}"')
                    break
        on_demand.write_text("\n".join(lines))
        return f"EC2 price list version {stamp} (trn1.2xlarge on demand x{factor} in us-east-1)"
