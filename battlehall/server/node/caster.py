"""Casters: a match's commentator sees every seat's hidden cards, but only its delay late.

A match created with `"caster": {"delay_ms": D}` has a caster token, apart from its seat
and spectator tokens. A socket that says hello with it gets the role `caster`: like a
delayed spectator, but shown every seat's view (every hand face up) and every event with
each seat's hidden part (as the replay shows them). D is never below the server's
`caster_min_delay_ms`, so whoever watches the cast learns nothing of the present.

Casters are always served the way spectators of another node's match are (mirror.py):
a replica of the match, replayed from its start from the log in Redis, advanced by each
entry D after it was recorded (`at`). Nothing of the live match in memory is ever used,
so nothing undelayed can reach a caster's socket, whether its welcome, a `view`, a
resume's history or a live event: each is made from the replica (or, for the history,
from records up to the replica's seq). The same on every node, and after a restart.

The caster token opens nothing else: a `hello` asking for a seat's or a spectator's
role refuses it (`wrong_role`), the replay and every other GET as an unknown token.
"""

from __future__ import annotations

import asyncio
import hmac

from battlehall.server import codec
from battlehall.server.clock import now_ms
from battlehall.server.match.spectators import DelayedFeed
from battlehall.server.node.mirror import Mirror, Mirrors

ROLE = "caster"


def settings_of(meta: dict) -> dict | None:
    """The match's caster settings (`{"delay_ms"}`), None when it has no caster link."""
    return meta.get("caster")


def is_caster_token(meta: dict, token) -> bool:
    """Whether `token` is the match's caster token (compared in constant time)."""
    secret = meta.get("caster_token")
    return isinstance(token, str) and secret is not None and hmac.compare_digest(token.encode(), secret.encode())


def created_fields(meta: dict) -> dict:
    """What the create answer adds for a match with a caster link: its token."""
    return {"caster_token": meta["caster_token"]} if "caster_token" in meta else {}


async def with_tokens(hub, summaries: list[dict]) -> list[dict]:
    """The operator's listing: each match with a caster link gets its `caster_token`."""
    casts = [s for s in summaries if s.get("caster_settings")]
    for summary, meta in zip(casts, await asyncio.gather(*(hub.meta(s["match"]) for s in casts))):
        if meta is not None and "caster_token" in meta:
            summary["caster_token"] = meta["caster_token"]
    return summaries


# -- what a caster is sent ----------------------------------------------------------------


def views(ruleset, state: dict) -> dict:
    """Every seat's view, by seat: together they show every hand."""
    return {seat: ruleset.view(state, seat) for seat in state["seats"]}


def event_message(ruleset, record: dict, shift_ms: int) -> dict:
    """An event as a caster sees it: the public `data`, and each seat's hidden part apart
    in `private` (as in the replay); a deadline moved later by the delay."""
    shown = ruleset.reveal(record)
    data = shown["data"]
    if shift_ms and "deadline" in data:
        data = {**data, "deadline": data["deadline"] + shift_ms}
    message = {"t": "event", "seq": record["seq"], "at": record["at"], "kind": shown["kind"], "data": data}
    if "private" in shown:
        message["private"] = shown["private"]
    return message


def view_fields(ruleset, state: dict | None, seq: int, delay_ms: int) -> dict:
    """What a caster's `welcome` and `view` hold: the public view, every seat's, no
    prompts; before the start is `delay_ms` old (`state` None), seq 0 and no views."""
    if state is None:
        return {"seq": 0, "view": None, "views": None, "prompts": [], "now": now_ms(), "delay_ms": delay_ms}
    return {"seq": seq, "view": ruleset.view(state, None), "views": views(ruleset, state), "prompts": [],
            "now": now_ms(), "delay_ms": delay_ms}


class CasterFeed(DelayedFeed):
    """The delayed stream of a match, as its casters see it.

    Unlike spectators, casters are not shown the start at once: it deals the hidden
    cards. Until the start's events are `delay_ms` old, a caster is at seq 0 with no
    view; then they come as events, followed by the log's.
    """

    def __init__(self, replica, delay_ms: int, metrics, start: dict | None):
        super().__init__(replica, delay_ms, metrics)
        self.opening = list((start or {}).get("events", []))  # the start's event records
        self.opened = not self.opening or self.opening[0]["at"] + delay_ms <= now_ms()
        if not self.opened:
            self._schedule_opening()

    @property
    def seq(self) -> int:
        return self.replica.seq if self.opened else 0

    def _schedule_opening(self) -> None:
        due = self.opening[0]["at"] + self.delay_ms
        self.timer = asyncio.get_running_loop().call_later(max(0, due - now_ms()) / 1000, self._tick)

    def _tick(self) -> None:
        if not self.opened:
            if self.opening[0]["at"] + self.delay_ms > now_ms():  # a log entry is never due before the start
                self.timer = None
                self._schedule_opening()
                return
            self.opened = True
            self.metrics.deliveries += self.deliver(self.opening)
        super()._tick()

    def deliver(self, records: list[dict]) -> int:
        if not self.conns or not records:
            return 0
        frames: dict[str, list[bytes]] = {}  # encoding -> the frames of all records
        for conn in self.conns:
            wire = conn.codec
            if wire not in frames:
                frames[wire] = [codec.encode(wire, self.message(r)) for r in records]
            conn.send_frames(frames[wire])
        return len(records) * len(self.conns)

    def message(self, record: dict) -> dict:
        return event_message(self.replica.ruleset, record, self.delay_ms)

    def welcome(self, match_id: str, conn) -> dict:
        r = self.replica
        state = r.state if self.opened else None
        return {"t": "welcome", "match": match_id, "role": ROLE, "seat": None,
                **view_fields(r.ruleset, state, r.seq, self.delay_ms),
                "definitions": r.ruleset.definitions(state) if state is not None else {}}


class CasterMirror(Mirror):
    """One node's casters of one match: a mirror of it at the caster delay (whichever node
    runs the match, this one included)."""

    def delay_of(self, meta: dict) -> int:
        settings = settings_of(meta)
        if settings is None:  # no caster link (never so for a caster token's match): nothing to cast
            raise LookupError(self.match_id)
        return settings["delay_ms"]

    def new_feed(self, replica, delay: int, start: dict | None) -> DelayedFeed:
        return CasterFeed(replica, delay, self.mirrors.metrics, start)

    def welcome(self, conn) -> dict:
        return self.started.welcome(self.match_id, conn)


class Casting(Mirrors):
    """The caster mirrors of one node, one per match with casters here, started on first
    use (`open`) however many casters ask at once. Casters are not spectators: letting one
    go changes no spectator count."""

    mirror_class = CasterMirror

    def __init__(self, store, metrics):
        super().__init__(store, metrics, dropped=lambda match_id: None)


# -- judges: every seat live -------------------------------------------------------------

JUDGE_ROLE = "judge"


class JudgeFeed(CasterFeed):
    """A match as its judges see it: every seat's view, as a caster's, but live (no delay).
    Never on a stream: a judge token opens only the judge's own socket."""

    def welcome(self, match_id: str, conn) -> dict:
        return {**super().welcome(match_id, conn), "role": JUDGE_ROLE}


class JudgeMirror(CasterMirror):
    def delay_of(self, meta: dict) -> int:
        return 0  # answers reach it once they are in Redis: as soon as the players' acks

    def new_feed(self, replica, delay: int, start: dict | None) -> DelayedFeed:
        return JudgeFeed(replica, delay, self.mirrors.metrics, start)


class Judging(Casting):
    """The judge mirrors of one node: one per match judged here."""

    mirror_class = JudgeMirror
