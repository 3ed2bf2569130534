"""Shared helpers of the spellfire engine tests: a match driven by card ids.

Tests start from a small explicit `setup`, then answer the open prompt by naming
cards by their card id (``m.answer("emberhold", slot="A")``) instead of instance ids.
Test modules import the fixtures from here (``from spellfire_kit import match, S, ev``):
this is not a conftest.py, because tests/conftest.py is imported as ``conftest`` by
other test folders and a second conftest module would shadow it.
"""

from __future__ import annotations

import msgpack
import pytest

from battlehall.engine import get_ruleset


class Match:
    def __init__(self, setup: dict | None, options: dict | None = None, seed: int = 1,
                 seats: tuple[str, ...] = ("alice", "bob")):
        self.rs = get_ruleset("spellfire")
        self.state, self.events = self.rs.start(list(seats), seed, options, setup)
        self.log = list(self.events)

    # -- looking things up ---------------------------------------------------------------
    @property
    def prompt(self) -> dict:
        assert len(self.state["prompts"]) == 1, self.state["prompts"]
        return self.state["prompts"][0]

    def option_ids(self) -> list[str]:
        """The open prompt's options, instance ids shown as card ids."""
        cards = self.state["cards"]
        return [cards.get(o["id"], o["id"]) for o in self.prompt["options"]]

    def option(self, name: str) -> dict:
        cards = self.state["cards"]
        for o in self.prompt["options"]:
            if o["id"] == name or cards.get(o["id"]) == name:
                return o
        raise AssertionError(f"{name!r} is not an option of {self.prompt['kind']}: {self.option_ids()}")

    def iid(self, cid: str) -> str:
        found = [i for i, c in self.state["cards"].items() if c == cid]
        assert len(found) == 1, (cid, found)
        return found[0]

    def cid(self, iid: str) -> str:
        return self.state["cards"][iid]

    def player(self, seat: str) -> dict:
        return self.state["players"][seat]

    def zone(self, seat: str, zone: str) -> list[str]:
        """Card ids in a list zone (hand, draw, discard) or the pool's champions."""
        p = self.player(seat)
        if zone == "pool":
            return [self.cid(e["champion"]) for e in p["pool"]]
        return [self.cid(i) for i in p[zone]]

    def attached(self, seat: str, champion: str) -> list[str]:
        for e in self.player(seat)["pool"]:
            if self.cid(e["champion"]) == champion:
                return [self.cid(i) for i in e["attached"]]
        raise AssertionError(f"{champion} is not in {seat}'s pool")

    def slot(self, seat: str, s: str) -> dict | None:
        slot = self.player(seat)["formation"][s]
        if slot is None:
            return None
        return {"realm": self.cid(slot["realm"]), "razed": slot["razed"],
                "holding": None if slot["holding"] is None else self.cid(slot["holding"])}

    # -- acting ------------------------------------------------------------------------
    def answer(self, name: str, **args) -> list[dict]:
        p = self.prompt
        o = self.option(name)
        args = {k: (self.iid(v) if v in self.state["cards"].values() and k == "champion" else v)
                for k, v in args.items()}
        events = self.rs.answer(self.state, p["seat"], p["id"], o["id"], args)
        self._check(events)
        return events

    def window(self) -> dict[str, dict]:
        """The open prompts by seat (a window has one per seat)."""
        return {p["seat"]: p for p in self.state["prompts"]}

    def answer_as(self, seat: str, name: str, **args) -> list[dict]:
        """Answer `seat`'s open prompt with the option named by card id (or option id)."""
        p = self.window()[seat]
        cards = self.state["cards"]
        o = next((o for o in p["options"] if o["id"] == name or cards.get(o["id"]) == name), None)
        assert o is not None, f"{name!r} is not an option of {seat}'s {p['kind']}"
        events = self.rs.answer(self.state, seat, p["id"], o["id"], args)
        self._check(events)
        return events

    def expire(self) -> list[dict]:
        events = self.rs.expire(self.state, self.prompt["id"])
        self._check(events)
        return events

    def _check(self, events: list[dict]) -> None:
        self.log += events
        assert msgpack.unpackb(msgpack.packb(self.state)) == self.state
        prompts = self.state["prompts"]
        assert self.state["result"] is not None or len(prompts) == 1 or (
            len(prompts) > 1 and len({p.get("window") for p in prompts} - {None}) == 1), prompts

    def until(self, kind: str, answer: str = None) -> None:
        """Answer prompts with their default (or `answer`) until one of `kind` is open."""
        for _ in range(200):
            if self.state["result"] is not None or self.prompt["kind"] == kind:
                return
            if answer is not None and any(o["id"] == answer for o in self.prompt["options"]):
                self.answer(answer)
            else:
                self.expire()
        raise AssertionError(f"no {kind} prompt")


def kinds(events: list[dict]) -> list[str]:
    return [e["kind"] for e in events]


def find(events: list[dict], kind: str) -> list[dict]:
    return [e["data"] for e in events if e["kind"] == kind]


def seat_setup(hand=(), draw=(), pool=(), formation=None, discard=(), dungeon=None) -> dict:
    out: dict = {"hand": list(hand), "draw": list(draw), "discard": list(discard)}
    if dungeon is not None:
        out["dungeon"] = dungeon
    out["pool"] = [{"champion": p, "attached": []} if isinstance(p, str)
                   else {"champion": p[0], "attached": list(p[1])} for p in pool]
    if formation:
        out["formation"] = {s: ({"realm": v} if isinstance(v, str) else v) for s, v in formation.items()}
    return out


@pytest.fixture
def match():
    """match(alice={...}, bob={...}, turn={...}, options={...}, cards=[...], rule={seat, card}) -> Match;
    more seats by name after bob: match(alice=..., bob=..., carol={...}, dave={...})."""
    def make(alice=None, bob=None, turn=None, options=None, cards=None, seed=1, rule=None, **more):
        setup = {"players": {"alice": alice or {}, "bob": bob or {}, **{k: v or {} for k, v in more.items()}}}
        if rule is not None:
            setup["rule"] = rule
        if turn is not None:
            setup["turn"] = turn
        if cards is not None:
            setup["cards"] = cards
        opts = {"exhaustion": "continue"}
        opts.update(options or {})
        return Match(setup, opts, seed=seed, seats=("alice", "bob", *more))
    return make


@pytest.fixture
def S():
    """The seat_setup helper, as a fixture."""
    return seat_setup


@pytest.fixture
def ev():
    """Event helpers: ev.kinds(events), ev.find(events, kind)."""
    class _Ev:
        pass
    e = _Ev()
    e.kinds, e.find = kinds, find
    return e
