"""An event as this node knows it: its settings and the fold of its log by the tournament
core, with what the server reads of the entries itself (when each round was paired, which
games have their result), kept per event and brought up to date from Redis on each use."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass, field

from battlehall.engine import get_ruleset
from battlehall.server.storage.tournaments import Loaded, Tournaments
from battlehall.server.tournaments.games import GamePlace
from battlehall.tournaments import Spec, Tournament, TournamentError

log = logging.getLogger("battlehall.tournaments")

CACHED = 256  # events folded in memory at once (the least recently used is dropped)


def spec_of(meta: dict) -> Spec:
    """The event's spec, from the body its meta keeps (parsed at its creation)."""
    rules = get_ruleset(meta["spec"]["ruleset"])
    return Spec.parse(meta["spec"], range(rules.min_seats, rules.max_seats + 1))


@dataclass(slots=True)
class Folded:
    tournament_id: str
    meta: dict
    spec: Spec
    t: Tournament
    entries: list[dict] = field(default_factory=list)
    paired_at: dict[int, int] = field(default_factory=dict)  # round -> when it was paired
    ended_rounds: set[int] = field(default_factory=set)
    results: set[GamePlace] = field(default_factory=set)  # the games entered
    names: dict[str, str] = field(default_factory=dict)  # profile -> its name at registration
    shown: tuple[int, dict] | None = None  # the core's public view, and the version it is of

    def public(self) -> dict:
        """The core's public view (standings and all), computed once per version."""
        if self.shown is None or self.shown[0] != self.version:
            self.shown = (self.version, self.t.public())
        return self.shown[1]

    @property
    def version(self) -> int:
        return len(self.entries)

    @property
    def round(self) -> int:
        return max(self.paired_at, default=0)

    def apply(self, entry: dict) -> None:
        """Fold one entry; TournamentError (nothing changed) if the event refuses it."""
        self.t.apply(entry)
        self.entries.append(entry)
        kind = entry.get("k")
        if kind == "registered":
            self.names[entry["player"]] = entry["name"]
        elif kind == "paired":
            self.paired_at[entry["round"]] = entry["at"]
        elif kind == "round_ended":
            self.ended_rounds.add(entry["round"])
        elif kind == "game":
            self.results.add(GamePlace(entry["round"], entry["table"], entry["game"]))

    @classmethod
    def of(cls, tournament_id: str, loaded: Loaded) -> Folded:
        spec = spec_of(loaded.meta)
        folded = cls(tournament_id, loaded.meta, spec, Tournament(spec, loaded.meta["seed"]))
        folded.extend(loaded.entries)
        return folded

    def extend(self, entries: list[dict]) -> None:
        for entry in entries:
            try:
                self.apply(entry)
            except TournamentError as exc:  # in the log, so written after the same fold: a bug
                log.error("tournament %s: entry %d refused by the fold (%s): skipped", self.tournament_id,
                          self.version + 1, exc)
                self.entries.append(entry)


class Folds:
    """The events this node has folded lately, each brought up to date when asked for,
    under a lock per event: this node's routes and runner change one event one at a time
    (other nodes' changes are caught by the log's position check: storage/tournaments.py)."""

    def __init__(self, storage: Tournaments):
        self.storage = storage
        self.cached: OrderedDict[str, Folded] = OrderedDict()
        self.locks: dict[str, asyncio.Lock] = {}

    def lock(self, tournament_id: str) -> asyncio.Lock:
        if tournament_id not in self.locks:
            if len(self.locks) > 4 * CACHED:
                self.locks = {t: lock for t, lock in self.locks.items() if lock.locked()}
            self.locks[tournament_id] = asyncio.Lock()
        return self.locks[tournament_id]

    async def get(self, tournament_id: str) -> Folded | None:
        """The event as Redis has it now; None for no such event."""
        async with self.lock(tournament_id):  # never beside a change's entries not yet written
            return await self.get_locked(tournament_id)

    async def get_locked(self, tournament_id: str) -> Folded | None:
        """`get`, for a caller holding the event's lock."""
        folded = self.cached.get(tournament_id)
        if folded is None:
            loaded = await self.storage.load(tournament_id)
            if loaded is None:
                return None
            folded = Folded.of(tournament_id, loaded)
        else:
            folded.extend(await self.storage.entries_after(tournament_id, folded.version))
        self.cached[tournament_id] = folded
        self.cached.move_to_end(tournament_id)
        while len(self.cached) > CACHED:
            self.cached.popitem(last=False)
        return folded

    def forget(self, tournament_id: str) -> None:
        """Drop the fold (its entries were applied in memory but not written)."""
        self.cached.pop(tournament_id, None)
