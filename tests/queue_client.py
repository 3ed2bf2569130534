"""The quick-play queue over HTTP, as the tests that queue players use it."""

from __future__ import annotations

import time

import httpx


async def join(http: httpx.AsyncClient, base: str, **body) -> dict:
    r = await http.post(base + "/queue", json=body)
    assert r.status_code == 201, r.text
    return r.json()


async def wait_matched(http: httpx.AsyncClient, base: str, ticket: str, within_s: float = 10) -> dict:
    deadline = time.monotonic() + within_s
    while True:
        r = await http.get(f"{base}/queue/{ticket}", params={"wait_ms": 2000})
        assert r.status_code == 200, r.text
        status = r.json()
        if status["state"] != "waiting" and status["state"] != "forming":
            return status
        assert time.monotonic() < deadline, f"not matched within {within_s} s: {status}"
