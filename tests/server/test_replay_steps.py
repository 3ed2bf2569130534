"""GET /matches/{id}/replay/steps answers a bounded range of steps, each computed once and
shared by everyone who asks; GET .../replay/definitions the inline definitions no step
repeats. The cache and its builders are also driven directly, with real matches re-run."""

from __future__ import annotations

import asyncio
import random
import zlib

import httpx
import orjson
import pytest

from battlehall import steps
from battlehall.client import Client
from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server import errors
from battlehall.server.http import replay_steps
from battlehall.server.http.replay_steps import BUILDERS, CHUNK, MAX_COUNT, WAITING, ReplaySteps
from create_bodies import SPELLFIRE_SETUP


def drawn(idx: steps.Index, first: int, stop: int) -> replay_steps.Chunk:
    """A chunk as the server keeps it, drawn at once."""
    encoded = steps.encoded(idx, first, stop)
    return replay_steps.Chunk(zlib.compress(b",".join(encoded), 6), replay_steps._ends(encoded))


def played(seats: int = 3, seed: int = 1, turn_limit: int = 40) -> dict:
    """A spellfire match played to its end here, as its replay would give it."""
    ruleset = get_ruleset("spellfire")
    names = [f"s{i}" for i in range(seats)]
    options = ruleset.resolve_options({"turn_limit": turn_limit})
    state, events = ruleset.start(names, seed, options)
    rng, log, seq = random.Random(seed), [], len(events)
    while state["result"] is None:
        prompt = ruleset.prompts(state)[0]
        option, args = random_answer(rng, prompt)
        log.append({"seq": seq + 1, "prompt": prompt["id"], "seat": prompt["seat"], "option": option, "args": args})
        seq += len(ruleset.answer(state, prompt["seat"], prompt["id"], option, args))
    return {"ruleset": "spellfire", "seats": names, "seed": seed, "options": options, "setup": None, "log": log,
            "result": state["result"]}


def engine_steps(replay: dict) -> list[dict]:
    """Every step re-run plainly: what the ranges must give, piece by piece."""
    ruleset = get_ruleset(replay["ruleset"])
    state, _ = ruleset.start(replay["seats"], replay["seed"], replay["options"], replay["setup"])
    out = []
    for k in range(len(replay["log"]) + 1):
        if k:
            entry = replay["log"][k - 1]
            ruleset.answer(state, entry["seat"], entry["prompt"], entry["option"], entry["args"])
        out.append(orjson.loads(orjson.dumps({seat: ruleset.view(state, seat) for seat in replay["seats"]})))
    return out


async def body(response) -> dict:
    return orjson.loads(b"".join([chunk async for chunk in response.body_iterator]))


async def test_every_range_is_the_engine_re_run():
    replay = played()
    expected = engine_steps(replay)
    pages = ReplaySteps(64 * 1024 * 1024)

    async def read():
        return replay
    total = len(expected)
    assert total > 2 * MAX_COUNT
    for start, count in ((0, MAX_COUNT), (5, 3), (CHUNK - 1, 2), (total - 4, MAX_COUNT), (total - 1, 1)):
        got = await body(await pages.page("m", {"result": replay["result"]}, read,
                                          {"from": str(start), "count": str(count)}))
        assert got["total"] == total and got["from"] == start
        assert [s["step"] for s in got["steps"]] == list(range(start, min(start + count, total)))
        assert [s["views"] for s in got["steps"]] == expected[start:start + count]
        for s in got["steps"]:
            assert s["entry"] == (replay["log"][s["step"] - 1] if s["step"] else None)
            assert b"custom_cards" not in orjson.dumps(s)


def test_a_chunk_reads_any_span_a_piece_at_a_time():
    replay = played(seats=2, seed=4)
    idx = steps.index(replay)
    chunk = drawn(idx, CHUNK, 2 * CHUNK)
    text = b",".join(steps.encoded(idx, CHUNK, 2 * CHUNK))
    assert len(text) > 10 * 1000
    for i, j in ((0, CHUNK), (0, 1), (3, 4), (5, CHUNK), (CHUNK - 1, CHUNK)):
        begin, end = chunk.span(i, j)
        for piece in (1000, 7, replay_steps.PIECE):
            parts = list(chunk.read(begin, end, piece))
            assert b"".join(parts) == text[begin:end] == b",".join(steps.encoded(idx, CHUNK + i, CHUNK + j))
            assert max(map(len, parts)) <= piece


async def test_many_asking_at_once_share_one_computation():
    replay = played(seats=6, seed=2)
    pages = ReplaySteps(64 * 1024 * 1024)
    reads = []

    async def read():
        reads.append(1)
        return replay
    answers = await asyncio.gather(*(pages.page("m", {"result": None}, read, {"from": "40", "count": "20"})
                                     for _ in range(20)))
    bodies = [await body(a) for a in answers]
    assert all(b == bodies[0] for b in bodies)
    # One replay read, one index, and the two chunks that steps 40-59 span: not twenty of each.
    assert len(reads) == 1 and pages.builds == 1 + len({40 // CHUNK, 59 // CHUNK})
    await body(await pages.page("m", {"result": None}, read, {"from": "41", "count": "3"}))
    assert pages.builds == 3  # kept


async def test_the_cache_is_bounded_in_bytes_and_forgets_the_oldest():
    replay = played(seats=6, seed=3)
    idx = steps.index(replay)
    chunk = max(len(drawn(idx, first, min(first + CHUNK, idx.total)).compressed)
                for first in range(0, idx.total, CHUNK))
    limit = idx.size() + 3 * (chunk + 32 * CHUNK + 200)  # the index and three chunks
    pages = ReplaySteps(limit)

    async def read():
        return replay
    assert idx.total > 6 * CHUNK
    for start in range(0, idx.total, CHUNK):
        await body(await pages.page("m", {"result": None}, read, {"from": str(start), "count": "1"}))
        assert pages.cache.used <= limit
    built = pages.builds
    await body(await pages.page("m", {"result": None}, read, {"from": "0", "count": "1"}))
    assert pages.builds == built + 1  # the first chunk was forgotten, and built again


async def test_past_the_waiting_room_a_request_is_refused_busy():
    pages = ReplaySteps(1024 * 1024)
    gate = asyncio.Event()

    async def slow():
        await gate.wait()
        return "done", 1
    waiting = [asyncio.ensure_future(pages._cached(("k", i), slow)) for i in range(BUILDERS + WAITING)]
    await asyncio.sleep(0)
    with pytest.raises(errors.Busy) as refused:
        await pages._cached(("k", "one more"), slow)
    assert refused.value.status == 503 and refused.value.code == "busy"
    assert errors.http_headers(refused.value) == {"Retry-After": "1"}
    gate.set()
    assert await asyncio.gather(*waiting) == ["done"] * (BUILDERS + WAITING)
    assert await pages._cached(("k", "one more"), slow) == "done"  # room again


async def test_a_long_match_over_http_comes_in_ranges(server):
    created = server.create(ruleset="spellfire", seats=["a", "b", "c"], seed=6, seed_public=True,
                            options={"turn_limit": 30}, spectators={"public": True})
    match = created["match"]
    live = httpx.get(f"{server.url}/matches/{match}/replay/steps")
    assert live.status_code == 409 and live.json()["error"]["code"] == "match_live"
    bots = [Client(server.url, match, token, seed=i) for i, token in enumerate(created["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 60)
    replay = httpx.get(f"{server.url}/matches/{match}/replay").json()
    total = len(replay["log"]) + 1
    assert total > MAX_COUNT
    whole = httpx.get(f"{server.url}/matches/{match}/replay/steps").json()  # no range: the first one
    assert whole["total"] == total and whole["from"] == 0 and len(whole["steps"]) == MAX_COUNT
    assert whole["result"] == replay["result"] and whole["seats"] == ["a", "b", "c"]
    expected = engine_steps({**replay, "seed": int(replay["seed"])})
    got = []
    while len(got) < total:
        r = httpx.get(f"{server.url}/matches/{match}/replay/steps", params={"from": len(got), "count": 7})
        assert r.status_code == 200 and r.headers["content-length"] == str(len(r.content))
        got += r.json()["steps"]
    assert [s["views"] for s in got] == expected
    for params, path in (({"count": MAX_COUNT + 1}, "count"), ({"count": 0}, "count"), ({"from": -1}, "from"),
                         ({"from": "x"}, "from"), ({"from": total}, "from"), ({"from": "²"}, "from"),
                         ({"count": "00"}, "count"), ({"count": "1.5"}, "count"), ({"from": "9" * 40}, "from")):
        r = httpx.get(f"{server.url}/matches/{match}/replay/steps", params=params)
        assert r.status_code == 400, params
        assert r.json()["error"]["code"] == "bad_request" and r.json()["error"]["path"] == path


async def test_inline_cards_come_once_with_the_definitions(server):
    created = server.create(ruleset="spellfire", seats=["alice", "bob"], seed=9, setup=SPELLFIRE_SETUP,
                            spectators={"public": True})
    match = created["match"]
    r = httpx.post(f"{server.url}/matches/{match}/abort")
    if r.status_code in (401, 403):  # no operator key on this server: play it out instead
        bots = [Client(server.url, match, token, seed=i) for i, token in enumerate(created["tokens"].values())]
        await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 60)
    defs = httpx.get(f"{server.url}/matches/{match}/replay/definitions").json()
    assert defs["match"] == match and defs["ruleset"] == "spellfire"
    assert [c["id"] for c in defs["definitions"]["custom_cards"]] == ["test-knight", "test-lure"]
    steps = httpx.get(f"{server.url}/matches/{match}/replay/steps").json()["steps"]
    assert steps and b"custom_cards" not in orjson.dumps(steps)  # cards by id in the steps; defined once, above
    assert httpx.get(f"{server.url}/matches/m_0000000000000000/replay/definitions").status_code == 404
