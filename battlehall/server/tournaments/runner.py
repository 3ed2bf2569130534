"""The runner of one event, on the node holding its lease: it starts the event, pairs each
round (the core's `pair_next`, appended once), makes each game's match (placed as
`POST /matches` places one, its seats bound to the players' profiles), learns the results
(the hub's end-of-match hook, and a sweep of the open games for matches other nodes ran),
applies no-shows and the round clock, and ends the event.

It keeps nothing the log does not say: after a takeover, the next runner folds the log,
finds the games made (their ids follow from their place: games.py) and goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from battlehall.engine.errors import EngineError
from battlehall.engine.ruleset import JUDGE_REWIND
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.errors import Fenced
from battlehall.server.match import validate
from battlehall.server.node import nodes
from battlehall.server.players import ratings
from battlehall.server.storage.store import StoreUnavailable
from battlehall.server.tournaments import games
from battlehall.server.tournaments.folding import Folded
from battlehall.server.tournaments.games import GamePlace
from battlehall.server.tournaments.refusals import Refused

if TYPE_CHECKING:
    from battlehall.server.tournaments.events import Events

log = logging.getLogger("battlehall.tournaments")

TICK_S = 0.5  # the runner looks at its event at least this often (clocks, no-shows, start time)
IDLE_TICK_S = 2.0  # before the start: a change through this node wakes it at once, another node's within this
SWEEP_S = 1.0  # and at its open games' matches this often (those another node runs)
CREATES_AT_ONCE = 32  # a round's games are made this many at a time


@dataclass(slots=True)
class OpenGame:
    """A game made and not yet entered."""
    place: GamePlace
    match: str
    players: list[str]  # profiles, in seat order
    profiles: dict[str, str]  # seat -> profile


class EventRunner:
    def __init__(self, events: Events, tournament_id: str, lease: str):
        self.events = events
        self.hub = events.hub
        self.tournament_id = tournament_id
        self.lease = lease
        self.wake = asyncio.Event()
        self.stopped = False
        self.task: asyncio.Task | None = None
        self.open: dict[str, OpenGame] = {}  # by match id
        self.ended: dict[str, dict] = {}  # match id -> result, heard from the hook
        self.no_show_checked: set[str] = set()
        self.swept_at = 0.0
        self.next_look_s = TICK_S  # until the next look: longer before the start (IDLE_TICK_S)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self.stopped = True
        self.events.let_go(self)
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    def heard(self, match_id: str, result: dict) -> None:
        self.ended[match_id] = result
        self.wake.set()

    async def _run(self) -> None:
        while not self.stopped:
            try:
                await self.step()
            except Fenced:
                log.warning("tournament %s: fenced out (another node holds it now)", self.tournament_id)
                await self.stop()
                return
            except StoreUnavailable as exc:
                log.warning("tournament %s: Redis: %s", self.tournament_id, exc)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament %s: the runner's step failed", self.tournament_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.next_look_s)
            self.wake.clear()

    async def append(self, decide, applies: bool = False) -> Folded | None:
        """An entry of the runner's, under its lease (Fenced when lost); None if the event
        refused it (decided on a fold that has changed since: the next step decides again)."""
        try:
            return await self.events.change(self.tournament_id, decide, self.lease, applies)
        except Refused as exc:  # decided on a fold another entry has changed since: next step
            log.info("tournament %s: %s", self.tournament_id, exc.message)
            return None

    # -- one look at the event ---------------------------------------------------------------

    async def step(self) -> None:
        folded = await self.events.folds.get(self.tournament_id)
        if folded is None:  # deleted, or past its retention
            await self.stop()
            return
        phase = folded.t.phase
        now = now_ms()
        if phase in ("finished", "cancelled"):
            await self.events.storage.moved(self.tournament_id, phase, now, folded.spec.public)
            await self.stop()
            return
        if phase == "registering":
            start_at = folded.spec.start_at
            soon = (start_at - now) / 1000 if start_at is not None else IDLE_TICK_S
            self.next_look_s = min(IDLE_TICK_S, max(0.05, soon))
            await self.maybe_start(folded, now)
            return
        self.next_look_s = TICK_S
        await self.make_games(folded)
        await self.collect(now)
        folded = await self.events.folds.get(self.tournament_id) or folded
        await self.no_shows(folded, now)
        await self.round_clock(folded, now)
        await self.advance()

    async def maybe_start(self, folded: Folded, now: int) -> None:
        start_at = folded.spec.start_at
        if start_at is not None and now >= start_at:
            try:
                await self.events.change(self.tournament_id, lambda f: [{"k": "started", "at": now_ms()}]
                                         if f.t.phase == "registering" else [], self.lease)
            except Refused:  # too few players to pair at the start: the event does not take place
                await self.append(lambda f: [{"k": "cancelled", "at": now_ms()}] if f.t.phase == "registering" else [])
        elif start_at is None and now >= folded.meta.get("expire_at", now + 1):
            await self.append(lambda f: [{"k": "cancelled", "at": now_ms()}] if f.t.phase == "registering" else [])

    async def advance(self) -> None:
        """When the round is over (or none is paired yet): close it, then pair the next or end the event."""
        def decide(f: Folded) -> list[dict]:
            t = f.t
            if t.phase != "running" or (t.rounds and not t.round_over()):
                return []
            out: list[dict] = []
            current = f.round
            if current and current not in f.ended_rounds:
                out.append({"k": "round_ended", "round": current, "at": now_ms()})
                f.apply(out[-1])  # what follows is decided on the round closed
            follows = t.pair_next(now_ms()) or {"k": "finished", "at": now_ms()}
            f.apply(follows)
            return [*out, follows]
        await self.append(decide, applies=True)

    # -- games --------------------------------------------------------------------------------

    async def make_games(self, folded: Folded) -> None:
        """Make every game the event needs now that is not made yet (found made, after a takeover)."""
        calls = [c for c in folded.t.games_to_create()
                 if GamePlace(c.round, c.table, c.game) not in folded.results]
        todo = [c for c in calls if games.match_id(folded.meta["seed"], GamePlace(c.round, c.table, c.game))
                not in self.open]
        if not todo:
            return
        if (await self.events.storage.owners([self.tournament_id]))[0] != self.lease:
            raise Fenced("another node holds the event: its games are its to make")  # no game made by two
        gate = asyncio.Semaphore(CREATES_AT_ONCE)

        async def one(call) -> None:
            async with gate:
                await self.make_game(folded, GamePlace(call.round, call.table, call.game), list(call.seats))
        await asyncio.gather(*(one(c) for c in todo))

    async def make_game(self, folded: Folded, place: GamePlace, players: list[str]) -> None:
        match_id = games.match_id(folded.meta["seed"], place)
        store = self.hub.store
        meta = await store.meta(match_id)
        if meta is None:
            seats = games.seat_names([folded.names.get(p, "player") for p in players])
            body = games.create_body(self.tournament_id, folded.spec, place, seats, folded.meta.get("caster"))
            bound = {"match_id": match_id, "profiles": dict(zip(seats, players)), "rated": folded.spec.rated,
                     "made_by": folded.meta.get("made_by", "operator"), "made_from": None}
            request = validate.create_request(body, self.hub.settings.caster_min_delay_ms)
            try:
                created = await self.hub.placement.create(body, request, bound)
            except EngineError as exc:  # the ruleset refuses the event's settings: nothing to play
                log.error("tournament %s: game %s cannot be made: %s", self.tournament_id, place.label, exc)
                return
            tokens, ws_url = created["tokens"], created["ws_url"]
        else:
            seats = meta["seats"]
            tokens, ws_url = meta["tokens"], None
        profiles = dict(zip(seats, players))
        tables = {}
        for seat, profile in profiles.items():
            token = tokens[seat]
            tables[profile] = {"round": place.round, "table": place.table, "game": place.game, "match": match_id,
                               "seat": seat, "token": token, "ws": f"/ws/{match_id}",
                               "ws_url": ws_url, "play": f"/play/{match_id}#token={token}"}
        await self.events.storage.set_seats(self.tournament_id, tables)
        self.open[match_id] = OpenGame(place, match_id, players, profiles)
        self.events.wake_waiters(self.tournament_id)

    async def collect(self, now: int) -> None:
        """Enter the results heard from the hook, and every second those the open games'
        matches have (matches another node ran)."""
        found = {m: r for m, r in self.ended.items() if m in self.open}
        self.ended.clear()
        loop = asyncio.get_running_loop()
        if loop.time() - self.swept_at >= SWEEP_S:
            self.swept_at = loop.time()
            unheard = [m for m in self.open if m not in found]
            for match_id, live in zip(unheard, await self.events.storage.live_flags(unheard)):
                if live:
                    continue
                seen = await self.hub.meta_and_state(match_id)
                if seen is not None and seen[1].get("result") is not None:
                    found[match_id] = seen[1]["result"]
        for match_id, result in list(found.items()):
            if result.get("reason") == JUDGE_REWIND and result.get("rewound_to"):
                # A judge took the game back: it goes on as another match, whose result is the game's.
                del found[match_id]
                game = self.open.pop(match_id)
                self.open[result["rewound_to"]] = OpenGame(game.place, result["rewound_to"], game.players,
                                                           game.profiles)
        if not found:
            return

        def decide(f: Folded) -> list[dict]:
            out = []
            for match_id, result in found.items():
                game = self.open[match_id]
                if game.place not in f.results:  # once: a result already entered is not entered again
                    out.append(games.game_entry(game.place, match_id, game.players, game.profiles, result, now_ms()))
            return out
        if await self.append(decide) is not None:
            for match_id in found:
                self.open.pop(match_id, None)

    async def no_shows(self, folded: Folded, now: int) -> None:
        """A first game's player away and silent `no_show_ms` after the round was paired loses it."""
        spec = folded.spec
        if spec.bots_take_over:
            return
        due = [g for g in self.open.values() if g.place.game == 1 and g.match not in self.no_show_checked
               and folded.paired_at.get(g.place.round, now) + spec.no_show_ms <= now]
        for game in due:
            self.no_show_checked.add(game.match)
            seen = await self.hub.meta_and_state(game.match)
            if seen is None or seen[1].get("result") is not None:
                continue
            away = [s for s in seen[1].get("away", ()) if s in game.profiles]
            if not away:
                continue
            answered = await ratings.own_answers(self.hub.store.ratings, game.match, away, 1)
            absent = {game.profiles[s] for s in away if not answered.get(s)}
            if not absent:
                continue
            entered = await self.append(lambda f, g=game, a=absent: [] if g.place in f.results else
                                        [games.no_show_entry(g.place, g.match, g.players, a, now_ms())])
            if entered is not None:
                self.open.pop(game.match, None)
                await self.end_match(game.match)

    async def round_clock(self, folded: Folded, now: int) -> None:
        """A round still playing `round_ms` after it was paired ends: each undecided table's
        game as `unfinished` says, then the round is closed."""
        spec, current = folded.spec, folded.round
        if not spec.round_ms or not current or current in folded.ended_rounds:
            return
        if folded.paired_at[current] + spec.round_ms > now:
            return
        playing = [g for g in self.open.values() if g.place.round == current]
        by_table = {g.place.table: g.match for g in playing}

        def decide(f: Folded) -> list[dict]:
            if f.round != current or current in f.ended_rounds:
                return []
            out = []
            for call in f.t.games_to_create():
                entry = {**f.t.unfinished_result(current, call.table, by_table.get(call.table)), "at": now_ms()}
                f.apply(entry)
                out.append(entry)
            out.append({"k": "round_ended", "round": current, "at": now_ms()})
            f.apply(out[-1])
            return out
        if await self.append(decide, applies=True) is not None:
            for game in playing:
                self.open.pop(game.match, None)
                await self.end_match(game.match)

    async def end_match(self, match_id: str) -> None:
        """Abort a game's match whose result the event has entered (a no-show, the round clock)."""
        try:
            await self.hub.abort(match_id)
        except errors.NotHere as exc:  # run elsewhere: its node aborts it, when this node may ask
            key = self.hub.settings.api_key
            if exc.redirect is not None and key:
                with contextlib.suppress(Exception):
                    await nodes.forward(exc.redirect.rsplit("/ws/", 1)[0], "POST", f"/matches/{match_id}/abort",
                                        b"", {"authorization": f"Bearer {key}"})
        except Exception as exc:  # ended meanwhile (match_over), or Redis: the event has its result
            log.info("tournament %s: match %s not aborted: %r", self.tournament_id, match_id, exc)

