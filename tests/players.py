"""Player profiles and played logs, as the tests of profiles and ratings make them: a guest
profile over HTTP, and a match's log written straight into Redis for `ratings.settle`,
which rates only matches whose seats answered themselves. A plain module (not conftest.py),
like servers.py, so that test modules in any folder can import it."""

from __future__ import annotations

import httpx

from battlehall.server.storage.store import key, pack


def guest(server, name: str) -> dict:
    """A new guest profile on `server` (anything with a `url`): its id, name and secret."""
    r = httpx.post(f"{server.url}/profiles", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()


def own(seat: str, n: int) -> dict:
    """A log entry of an answer the seat sent itself: its act id with a prompt."""
    return {"seat": seat, "prompt": f"p{n}", "option": "strike", "args": {}, "act": n}


async def write_log(redis, match_id: str, entries: list[dict]) -> None:
    """`entries` as the match's log, seq after seq, as the server stores them."""
    for seq, entry in enumerate(entries, 1):
        stored = {"seq": seq, "last_seq": seq, "at": seq, **entry}
        await redis.xadd(key(match_id, "log"), {"e": pack(stored), "v": pack([])}, id=f"{seq}-0")


async def played_log(redis, match_id: str, seats: list[str], answers: int = 2) -> None:
    """A log in which each seat answered `answers` prompts itself, in turn."""
    await write_log(redis, match_id, [own(seat, n * len(seats) + i + 1)
                                      for n in range(answers) for i, seat in enumerate(seats)])
