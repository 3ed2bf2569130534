"""Player profiles in Redis: guest profiles (a display name and a secret the browser keeps)
and profiles vouched for by an operator's token (vouch.py), their ratings per ruleset,
rating history and recent matches.

Their keys and commands are the storage wing's (storage/profiles.py, `ProfileRecords`).

Only the SHA-256 of a secret is kept: a copy of Redis does not let anyone rename a player.

Names are not unique: every name is shown with its profile's **tag**, the first
TAG_LENGTH hex digits of the profile id ("Alice#4f2a"), which stays the same through
renames and needs no lookup wherever a profile id is at hand. What makes two players
told apart is that no two profiles hold names of one skeleton with one tag: a profile
takes a name's (skeleton, tag) when it first takes the name, and keeps it, so that an old
match's "Alice#4f2a" is never another player's. A guest or a new vouched profile whose
name's pair is taken is given another id; a rename to one is refused (`NameTaken`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TypeGuard

from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.players import names
from battlehall.server.players.rating_view import readable
from battlehall.server.players.vouch import Vouched
from battlehall.server.storage.profiles import ProfileRecords

PROFILE_ID = re.compile(r"^p_[0-9a-f]{16}$")
TAG_LENGTH = 4
#: Ids drawn for a new profile before its name is refused: each is taken with a chance of
#: (profiles holding a name of that skeleton) / 16**TAG_LENGTH.
NEW_ID_TRIES = 8
#: Why a name is refused when NameTaken, after "a display name ".
TAKEN = "looks like another player's name with the same tag: choose another name"


class NameTaken(ValueError):
    """Another profile with the same tag holds a name that looks like this one."""


def tag(profile_id: str) -> str:
    """What a profile's name is shown with, to tell it from another's that looks the same."""
    return profile_id[2:2 + TAG_LENGTH]


def _new_id() -> str:
    return "p_" + secrets.token_hex(8)


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def is_profile_id(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and PROFILE_ID.match(value) is not None


class Profiles:
    """Profiles kept in `records` (the store's: `Store.profiles`)."""

    def __init__(self, records: ProfileRecords):
        self.records = records

    async def take_name(self, profile_id: str, name: str) -> bool:
        """Take the (skeleton, tag) of `name` for the profile: True if it is now the profile's,
        False if another profile holds it. Never given back (see the module's docstring)."""
        return await self.records.take_name(names.skeleton(name), tag(profile_id), profile_id)

    async def _new_id_for(self, name: str) -> str:
        """A new profile id that has taken `name`; NameTaken when NEW_ID_TRIES ids could not."""
        for _ in range(NEW_ID_TRIES):
            profile_id = _new_id()
            if await self.take_name(profile_id, name):
                return profile_id
        raise NameTaken(name)

    async def create_guest(self, name: str) -> tuple[str, str]:
        """A new guest profile for a validated name: (its id, its secret)."""
        profile_id = await self._new_id_for(name)
        secret = secrets.token_urlsafe(24)
        await self.records.create(profile_id, {"name": name, "secret": _digest(secret), "kind": "guest",
                                               "created_at": now_ms()})
        return profile_id, secret

    async def vouched(self, player: Vouched) -> str:
        """The profile of an operator's player, made on first use; renamed when the token's name
        changed. errors.TokenInvalid if that name looks like another player's with the same tag:
        the token's name is refused as a bad one is (vouch.py)."""
        try:
            existing = await self.records.of_sub(player.sub)
            profile_id = existing if existing is not None else await self._new_id_for(player.name)
            if existing is None and await self.records.claim_sub(player.sub, profile_id):
                await self.records.create(profile_id, {"name": player.name, "kind": "vouched", "sub": player.sub,
                                                       "created_at": now_ms()})
                return profile_id
            profile_id = await self.records.of_sub(player.sub) or profile_id
            if await self.records.name(profile_id) != player.name:
                await self.rename(profile_id, player.name)
            return profile_id
        except NameTaken:
            raise errors.TokenInvalid(f"the token's name {TAKEN}") from None

    async def check_secret(self, profile_id: object, secret: object) -> bool:
        """True if `secret` is the guest profile's own."""
        if not is_profile_id(profile_id) or not isinstance(secret, str) or len(secret) > 256:
            return False
        stored = await self.records.secret_digest(profile_id)
        return stored is not None and hmac.compare_digest(stored, _digest(secret))

    async def exists(self, profile_id: str) -> bool:
        return is_profile_id(profile_id) and await self.records.exists(profile_id)

    async def rename(self, profile_id: str, name: str) -> None:
        """Rename to a validated name; NameTaken if another profile with this tag holds one like it."""
        if not await self.take_name(profile_id, name):
            raise NameTaken(name)
        await self.records.set_name(profile_id, name)

    async def names(self, profile_ids: list[str]) -> list[str | None]:
        return await self.records.names(profile_ids)

    async def ratings(self, profile_id: str) -> dict[str, dict]:
        return {ruleset: readable(rating) for ruleset, rating in (await self.records.ratings(profile_id)).items()}

    async def public(self, profile_id: str) -> dict | None:
        """What anyone may see of a profile: name, kind, ratings, history per ruleset, recent matches."""
        if not is_profile_id(profile_id):
            return None
        card = await self.records.card(profile_id)
        if card is None:
            return None
        ratings = await self.ratings(profile_id)
        lists = await self.records.lists(profile_id, list(ratings))
        history = {ruleset: [readable(h) for h in entries] for ruleset, entries in lists.history.items()}
        recent = [readable(m) for m in lists.recent]
        for match in recent:
            match["replay"] = f"/replay/{match['match']}"
            for player in match.get("players", ()):
                player["tag"] = tag(player["profile"]) if is_profile_id(player.get("profile")) else None
        return {"profile": profile_id, "name": card.name, "tag": tag(profile_id), "kind": card.kind,
                "created_at": card.created_at, "ratings": ratings, "history": history, "recent_matches": recent}

    async def leaderboard(self, ruleset: str, offset: int, limit: int) -> tuple[list[dict], int]:
        """One page of the ruleset's leaderboard, best first, and its total size."""
        page, total = await self.records.leaderboard(ruleset, offset, limit)
        rows = [{"rank": offset + i + 1, "profile": row.profile, "name": row.name, "tag": tag(row.profile),
                 **readable(row.rating if row.rating is not None else {"rating": row.score})}
                for i, row in enumerate(page)]
        return rows, total
