"""A headless Chromium (Debian's, never a downloaded one) for the browser tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                    "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield b
        b.close()
