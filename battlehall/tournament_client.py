"""The events' HTTP API from Python (docs/tournaments.md): create, list, read and wait,
register, check in, drop, start, cancel, your entry, the log; and `play`, which takes a
player through an event, playing each table it is called to with `Client`.

    async with TournamentClient("http://127.0.0.1:8000") as api:
        event = await api.create({"name": "Friday Swiss", "ruleset": "duel"})
        await api.register(event["tournament"], profile, secret)
        await api.start(event["tournament"], event["organiser_token"])
        await api.play(event["tournament"], profile, secret)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

from battlehall.client import Client


class TournamentRefused(Exception):
    """An answer other than 2xx: its status, the error's `code`, `message` and `path`."""

    def __init__(self, status: int, code: str, message: str, path: str | None):
        super().__init__(f"{status} {code}: {message}" + (f" ({path})" if path is not None else ""))
        self.status = status
        self.code = code
        self.message = message
        self.path = path


class TournamentClient:
    def __init__(self, base_url: str | list[str], api_key: str | None = None, timeout_s: float = 30.0):
        self.bases = [base_url] if isinstance(base_url, str) else list(base_url)
        self.api_key = api_key
        self.http = httpx.AsyncClient(timeout=timeout_s)

    async def __aenter__(self) -> TournamentClient:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    async def close(self) -> None:
        await self.http.aclose()

    async def _call(self, method: str, path: str, bearer: str | None = None, body: dict | None = None,
                    params: dict | None = None) -> Any:
        headers = {"Accept": "application/json"}
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        last: Exception | None = None
        for base in self.bases:  # a node that does not answer: the next one
            try:
                r = await self.http.request(method, base + path, json=body, params=params, headers=headers)
            except httpx.TransportError as exc:
                last = exc
                continue
            if r.status_code >= 300:
                try:
                    error = r.json()["error"]
                except (ValueError, KeyError, TypeError):
                    error = {"code": "unknown", "message": r.text[:200]}
                raise TournamentRefused(r.status_code, error.get("code", ""), error.get("message", ""),
                                        error.get("path"))
            return r.json()
        raise last if last is not None else RuntimeError("no server address given")

    # -- the organiser ------------------------------------------------------------------------

    async def create(self, body: dict, bearer: str | None = None) -> dict:
        """A new event: its id and organiser token. `bearer`: the API key (the client's by
        default), or a player's proof of the body's `organiser` profile."""
        return await self._call("POST", "/tournaments", bearer or self.api_key, body)

    async def start(self, tournament: str, organiser_token: str | None = None) -> dict:
        return await self._call("POST", f"/tournaments/{tournament}/start", organiser_token or self.api_key)

    async def cancel(self, tournament: str, organiser_token: str | None = None) -> dict:
        return await self._call("POST", f"/tournaments/{tournament}/cancel", organiser_token or self.api_key)

    # -- anyone ---------------------------------------------------------------------------------

    async def list(self, status: str | None = None, limit: int = 20, cursor: str | None = None) -> dict:
        params: dict = {"limit": limit}
        if status is not None:
            params["status"] = status
        if cursor is not None:
            params["cursor"] = cursor
        return await self._call("GET", "/tournaments", params=params)

    async def get(self, tournament: str, wait_since: int | None = None, wait_ms: int | None = None) -> dict:
        """The event; with `wait_since`, once its version is past it (or after `wait_ms`)."""
        return await self._call("GET", f"/tournaments/{tournament}", params=_waiting(wait_since, wait_ms))

    async def log(self, tournament: str) -> dict:
        return await self._call("GET", f"/tournaments/{tournament}/log")

    # -- a player (the profile's secret or a player token proves it) ------------------------------

    async def register(self, tournament: str, profile: str, proof: str) -> dict:
        return await self._call("POST", f"/tournaments/{tournament}/register", proof, {"profile": profile})

    async def check_in(self, tournament: str, profile: str, proof: str) -> dict:
        return await self._call("POST", f"/tournaments/{tournament}/check_in", proof, {"profile": profile})

    async def drop(self, tournament: str, profile: str, proof: str) -> dict:
        return await self._call("POST", f"/tournaments/{tournament}/drop", proof, {"profile": profile})

    async def my(self, tournament: str, profile: str, proof: str, wait_since: int | None = None,
                 wait_ms: int | None = None) -> dict:
        """Your entry: your current table, with your seat's token once its match is made."""
        return await self._call("GET", f"/tournaments/{tournament}/my", proof,
                                params={"profile": profile, **_waiting(wait_since, wait_ms)})

    async def play(self, tournament: str, profile: str, proof: str,
                   choose: Callable[[dict], tuple[str, dict]] | None = None, give_up_s: float = 3600.0) -> dict:
        """Play every table the player is called to until the event ends (answers from
        `choose`, any legal one by default); the last entry."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + give_up_s
        version: int | None = None
        played: set[str] = set()
        while loop.time() < deadline:
            try:
                entry = await self.my(tournament, profile, proof, version, 20_000 if version is not None else None)
            except TournamentRefused as exc:
                if exc.status < 500:
                    raise
                await asyncio.sleep(0.5)
                continue
            except httpx.TransportError:
                await asyncio.sleep(0.5)
                continue
            version = entry["version"]
            if entry["status"] in ("finished", "cancelled"):
                return entry
            table = entry["table"]
            if table and not table["done"] and table["match"] not in played:
                played.add(table["match"])
                await Client(self.bases, table["match"], table["token"], choose=choose).run()
        raise TimeoutError(f"the event did not end within {give_up_s} s")


def _waiting(wait_since: int | None, wait_ms: int | None) -> dict:
    params: dict = {}
    if wait_since is not None:
        params["wait_since"] = wait_since
    if wait_ms is not None:
        params["wait_ms"] = wait_ms
    return params
