"""Judges' tokens: who may judge which matches (docs/protocol.md, Judging).

A judge token is a random secret the operator hands out (`POST /judges`): Redis keeps
its name and scope under the token's SHA-256, never the token, for as long as it is
valid. A judge of a tournament judges the matches that tournament made (their
`label.tournament`); a judge without one, any match.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

import orjson

from battlehall.server.storage.store import Store

PREFIX = "bh:judge:"


@dataclass(frozen=True, slots=True)
class Judge:
    name: str
    tournament: str | None  # None: any match
    expires_at: int  # epoch ms

    def may_judge(self, meta: dict) -> bool:
        """Whether this judge's token opens the match of `meta`."""
        if self.tournament is None:
            return True
        label = meta.get("label") or {}
        return label.get("tournament") == self.tournament


def _key(token: str) -> str:
    return PREFIX + hashlib.sha256(token.encode()).hexdigest()


class Judges:
    def __init__(self, store: Store):
        self.store = store

    async def issue(self, name: str, tournament: str | None, ttl_s: int, now: int) -> tuple[str, Judge]:
        """A new judge token, valid `ttl_s` from `now`."""
        token = secrets.token_hex(16)
        judge = Judge(name, tournament, now + ttl_s * 1000)
        await self.store.client.set(_key(token), orjson.dumps({"name": name, "tournament": tournament,
                                                               "expires_at": judge.expires_at}), ex=ttl_s)
        return token, judge

    async def find(self, token: object) -> Judge | None:
        """The judge holding `token`, if it is a valid judge token (StoreUnavailable if
        Redis cannot say)."""
        if not isinstance(token, str) or not 16 <= len(token) <= 128:
            return None
        raw = await self.store.client.get(_key(token))
        if raw is None:
            return None
        found = orjson.loads(raw)
        return Judge(found["name"], found["tournament"], found["expires_at"])
