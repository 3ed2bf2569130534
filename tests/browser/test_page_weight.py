"""The player page stays light: its own HTML, scripts and styles and the table it drew
come to under 300 KB, for every ruleset at its largest seat count (the time to the first
decision is measured in bench/page_load.py, not here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import httpx
import pytest

# The benchmark's own measure, loaded from its file: bench/ on sys.path would shadow
# tests' packages with its scripts of the same names (bench/nodes.py, tests/nodes/).
_spec = importlib.util.spec_from_file_location("page_load", Path(__file__).resolve().parents[2] / "bench" / "page_load.py")
page_load = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_load)
DRAWN, LARGEST, WEIGHT = page_load.DRAWN, page_load.LARGEST, page_load.WEIGHT

LIMIT = 300 * 1024


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("weight", env={"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"})


@pytest.mark.parametrize("ruleset", sorted(LARGEST))
async def test_a_player_page_weighs_under_300_kb(srv, page, ruleset):
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": ruleset, "seats": LARGEST[ruleset], "name": "ana"}, timeout=10)
    assert r.status_code == 201, r.text
    made = r.json()
    play = await page(f"{srv.url}/play/{made['match']}#token={made['token']}")
    await play.wait_for_function(DRAWN, timeout=20_000)
    await play.wait_for_load_state("networkidle")
    w = await play.evaluate(WEIGHT)
    assert w["scripts"] > 0 and w["styles"] > 0 and w["board"] > 0, w  # it measured something
    total = w["html"] + w["scripts"] + w["styles"] + w["board"]
    assert total < LIMIT, f"{ruleset}: {total / 1024:.0f} KiB ({w})"
