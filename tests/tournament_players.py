"""Players of an event for tests: guest profiles that register over HTTP, wait for their
table with the long poll of `GET /tournaments/{id}/my`, and play each game's match with
battlehall.client (any legal answer) until the event ends.

A plain module (not a conftest) so that tests/server and tests/nodes both import it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import httpx

from battlehall.client import Client


@dataclass
class Player:
    profile: str
    secret: str
    name: str
    played: list[str] = field(default_factory=list)  # match ids, in the order played

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.secret}"}


def make_players(base: str, count: int, prefix: str = "Player") -> list[Player]:
    out = []
    for i in range(count):
        r = httpx.post(f"{base}/profiles", json={"name": f"{prefix} {i + 1}"}, timeout=10)
        assert r.status_code == 201, r.text
        body = r.json()
        out.append(Player(body["profile"], body["secret"], body["name"]))
    return out


def register_all(base: str, tournament: str, players: list[Player]) -> None:
    for p in players:
        r = httpx.post(f"{base}/tournaments/{tournament}/register", json={"profile": p.profile},
                       headers=p.auth, timeout=10)
        assert r.status_code == 200, r.text
        assert r.json()["registered"] is True


async def play_event(bases: list[str], tournament: str, player: Player, give_up_s: float = 240) -> dict:
    """Play every table the player is called to, until the event has ended; the last entry."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + give_up_s
    version: int | None = None  # the first ask answers at once
    async with httpx.AsyncClient(timeout=30) as http:
        turn = 0
        while loop.time() < deadline:
            base = bases[turn % len(bases)]
            try:
                params: dict = {"profile": player.profile, "wait_ms": 2000}
                if version is not None:
                    params["wait_since"] = version
                r = await http.get(f"{base}/tournaments/{tournament}/my", params=params, headers=player.auth)
            except httpx.HTTPError:  # that node is gone: ask another
                turn += 1
                await asyncio.sleep(0.2)
                continue
            if r.status_code >= 500:
                turn += 1
                await asyncio.sleep(0.2)
                continue
            assert r.status_code == 200, r.text
            entry = r.json()
            version = entry["version"]
            if entry["status"] in ("finished", "cancelled"):
                return entry
            table = entry["table"]
            if table and not table["done"] and table["match"] not in player.played:
                player.played.append(table["match"])
                client = Client(bases, table["match"], table["token"], on_status=lambda s: None, give_up_s=60)
                await client.run()
        raise AssertionError(f"{player.name}: the event did not end in {give_up_s} s")
