"""Ending matches nobody is playing: a live match with no act and no socket connected for
`abandon_s` seconds ends with the result reason "abandoned".

The end is a log entry like an operator's abort (`{"abort": true, "reason": "abandoned"}`),
written by the match's actor in order with its answers: durable before anything is
told, replayed by recovery, mirrors and delayed spectators, re-run by `battlehall
verify`. Only the node that runs a match (holds its lease) ends it.

A match is touched by every act and by every socket joining or leaving it (actor.py);
spectators watching it on other nodes (audience.py) keep it too. A node that loads a
match (a restart, a takeover) counts from the match's last log entry, but gives it at
least GRACE_S (or `abandon_s`, if shorter) for its sockets to come back.
"""

from __future__ import annotations

import asyncio
import logging

from battlehall.engine.ruleset import ABANDONED
from battlehall.server.clock import now_ms
from battlehall.server.match import inputs

log = logging.getLogger("battlehall.abandon")

GRACE_S = 60.0
SWEEP_MAX_S = 30.0  # the sweep runs every quarter of `abandon_s`, at most this far apart
WAIT_S = 30.0  # how long the sweep waits for one match's abandon to be written


def interval(abandon_s: float) -> float:
    return max(0.1, min(SWEEP_MAX_S, abandon_s / 4))


async def last_touched(store, match_id: str, log_entries: list[dict], created_at: int) -> int:
    """When a loaded match was last touched, as far as Redis knows: its last log entry."""
    if log_entries:
        return log_entries[-1]["at"]
    last = await store.last_entry(match_id)
    return last["at"] if last is not None else created_at


def loaded_touch(abandon_s: float, last: int, now: int) -> int:
    """A loaded match's `touched`: its last activity, but never less than a grace from now."""
    return max(last, now - int(abandon_s * 1000) + int(min(GRACE_S, abandon_s) * 1000))


async def sweep(hub) -> int:
    """End every match this node runs that nobody touched for `abandon_s`; how many ended."""
    idle_before = now_ms() - int(hub.settings.abandon_s * 1000)
    candidates = [a for a in list(hub.actors.values())
                  if not a.core.over and not a.stopped and not a.stale and (a.lease is not None or not hub.leased)
                  and a.touched <= idle_before and not a.conns and not (a.feed and a.feed.conns)]
    if not candidates:
        return 0
    watching = await hub.audience.totals([a.match_id for a in candidates])
    ended = 0
    for actor, spectators in zip(candidates, watching):
        if spectators:  # watched on another node
            actor.touched = now_ms()
            continue
        done = asyncio.get_running_loop().create_future()
        actor.submit(inputs.Abandon(done, idle_before, ABANDONED))
        try:
            ended += bool(await asyncio.wait_for(done, WAIT_S))
        except Exception as exc:  # Redis away, the match moved: the next sweep tries again
            log.warning("match %s: ending it as abandoned failed: %r", actor.match_id, exc)
    if ended:
        log.info("ended %d abandoned matches", ended)
    return ended


async def watch(hub) -> None:
    """Sweep for abandoned matches, every `interval`, while the server runs."""
    if not hub.settings.abandon_s:
        return
    while True:
        await asyncio.sleep(interval(hub.settings.abandon_s))
        if hub.draining:
            continue
        try:
            await sweep(hub)
        except Exception as exc:  # Redis away: keep trying
            log.warning("sweeping for abandoned matches failed: %r", exc)
