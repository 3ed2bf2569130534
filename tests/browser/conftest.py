"""Headless Chromium (Debian's) for the browser tests: `chromium`, and `page(url)`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
async def chromium():
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        yield browser
        await browser.close()


class Pages:
    def __init__(self, browser):
        self.browser = browser
        self.contexts = []
        self.errors: list[str] = []

    async def __call__(self, url: str, viewport: dict | None = None, wait_for: str | None = None):
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
    pages = Pages(chromium)
    yield pages
    await pages.close()
    assert not pages.errors, "JavaScript errors:\n" + "\n".join(pages.errors)


async def screenshot(page, name: str, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.png"
    await page.screenshot(path=str(path), full_page=full_page)
    return path
