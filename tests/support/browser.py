"""Debian's chromium driven by Playwright for the dashboard test: headless, no network of its own, every request
recorded, every console error kept. Never `playwright install`: the binary comes from apt (`make browser`)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
INSTALL = "apt-get install -y chromium"


@dataclass
class Recorder:
    """Every request URL the page made, and the console errors and uncaught exceptions it logged."""

    allowed: tuple[str, ...]
    urls: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def outside(self) -> list[str]:
        return [u for u in self.urls if not u.startswith(self.allowed)]

    def route(self, route: Any) -> None:
        url = route.request.url
        self.urls.append(url)
        # Anything leaving file:// or 127.0.0.1 is recorded (the test fails on it) and never sent.
        if url.startswith(self.allowed):
            route.continue_()
        else:
            route.abort()


def require_chromium() -> str:
    """Fail, never skip: the browser test is part of `make test`."""
    if shutil.which(CHROMIUM) is None:
        raise AssertionError(f"{CHROMIUM} is missing: run `{INSTALL}` as root (or `make browser`)")
    return CHROMIUM


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=require_chromium(), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def recorded_page(browser: Any, *allowed: str, width: int = 1400, height: int = 900) -> Iterator[tuple[Any, Recorder]]:
    """A fresh page whose every request goes through the recorder, in a window of the size given."""
    context = browser.new_context(viewport={"width": width, "height": height})
    recorder = Recorder(allowed)
    context.route("**/*", recorder.route)
    page = context.new_page()
    page.on("console", lambda message: recorder.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: recorder.errors.append(str(exc)))
    try:
        yield page, recorder
    finally:
        context.close()


def load(page: Any, url: str) -> int:
    """Open a page and wait until every chart has drawn; returns how many charts it has."""
    page.goto(url)
    return int(page.evaluate("window.ratecardCharts.then(views => views.length)"))
