"""Browser tests: Playwright for Python driving the distribution's Chromium, headless,
against the suite's real server (tests/conftest.py).

Chromium is Debian's (/usr/bin/chromium; `.ci/run` and `make install` install it), never
one downloaded by Playwright. Screenshots go to test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

from servers import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
# Without the networking flags, Chromium keeps trying to reach Google's hosts, which a
# closed network refuses; --no-sandbox because CI runs as root.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
API_KEY = "operator-test-key"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
async def chromium() -> Browser:
    """One headless Chromium for the session; each page gets a fresh context (profile)."""
    assert shutil.which(CHROMIUM), f"{CHROMIUM} is missing: apt-get install chromium (make install does)"
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        await browser.close()


class Pages:
    """Opens pages, each in a context of its own (its own storage, as another person's
    browser), and records the JavaScript errors none of them may raise."""

    def __init__(self, browser: Browser):
        self.browser = browser
        self.contexts = []
        self.errors: list[str] = []

    async def __call__(self, url: str, viewport: dict | None = None, wait_for: str | None = None) -> Page:
        context = await self.browser.new_context(viewport=viewport or {"width": 1280, "height": 800})
        self.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        await page.goto(url)
        if wait_for:
            await page.wait_for_selector(wait_for)
        return page

    async def close(self) -> None:
        for context in self.contexts:
            await context.close()


@pytest.fixture
async def page(chromium):
    """`await page(url)`: a new page in a fresh context. The test fails if any page of it
    threw an uncaught JavaScript error."""
    pages = Pages(chromium)
    yield pages
    await pages.close()
    assert not pages.errors, "JavaScript errors:\n" + "\n".join(pages.errors)


async def screenshot(page: Page, name: str, full_page: bool = True) -> Path:
    """A PNG in test-artifacts/screenshots/ (for people to look at; nothing compares them)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.png"
    await page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture(scope="session")
def start_server(tmp_path_factory):
    """`start_server(name, env=..., args=...)`: another server process like the suite's,
    stopped at the end of the session."""
    started = []

    def start(name: str, **kw):
        srv = ServerProcess(tmp_path_factory.mktemp(name), **kw).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture(scope="session")
def keyed_server(start_server):
    """A server with an API key, for the operator page (the suite's server has none)."""
    return start_server("keyed", env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}, args=("--api-key", API_KEY))


@pytest.fixture
def shoot():
    """`await shoot(page, name)`: `screenshot` as a fixture."""
    return screenshot
