"""A judge's rewind: a live match taken back to just before one of its decisions.

The engine is deterministic and the log is the match, so the match as it stood before
entry N is its start with the N-1 entries before it applied again. The rewind makes that
a new match (the same seats, tokens, seed and settings, and those entries as its own
log), gives its open prompts back the time they had when entry N came, and then ends
the old match with reason `judge_rewind`, naming the new one (`rewound_to` in its
result), the judge and the reason. A seat's link to the old match still works: its
socket sees the end, which names the match that goes on, and the same token plays it.

The new match is written before the old one ends, so a failure leaves the old match
as it was (and the new one is ended again); the end of the old one is a log entry in
order with its answers, like an operator's abort.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from battlehall.engine.ruleset import JUDGE_REWIND
from battlehall.server import errors
from battlehall.server.clock import Clock, now_ms
from battlehall.server.match import inputs
from battlehall.server.match.match_state import MatchState
from battlehall.server.node.hub import new_match_id

if TYPE_CHECKING:
    from battlehall.server.match.actor import MatchActor
    from battlehall.server.node.hub import Hub

REWIND_TIMEOUT_S = 10
MAX_NOTE = 500  # characters of a judge's reason


def replayed(meta: dict, start: dict, entries: list[dict]) -> tuple[MatchState, list[tuple[dict, list[dict]]]]:
    """The match from its start snapshot with `entries` applied again, and each entry
    with its event records (the new match's log)."""
    match = MatchState(meta, copy.deepcopy(start["state"]), Clock(copy.deepcopy(start["clock"])), start["seq"])
    log = []
    for entry in entries:
        # The act ids were the old match's sockets': a new match's clients start their own.
        entry = {name: value for name, value in entry.items() if name != "act"}
        log.append((entry, match.apply(entry)))
    return match, log


def refusal_of_point(match: MatchState) -> str | None:
    """Why the match cannot go on from here, if it cannot: a reaction or any-time window
    is open there (the seats would come back knowing how it was answered)."""
    for prompt in match.ruleset.prompts(match.state):
        if prompt.get("window"):
            return f"a window is open there ({prompt['kind']} for {prompt['seat']}); take it back to before the window"
    return None


async def rewind(hub: Hub, match_id: str, entry: int, judge: str, note: str | None = None) -> dict:
    """Take the live match back to just before its log entry `entry` (1 is the first):
    the new match's summary. NotFound, MatchOver, BadRequest (no such entry, path
    `entry`), RewindRefused, NotHere (another node runs it), StoreUnavailable."""
    actor = await hub.actor(match_id)
    if actor is None:
        raise errors.NotFound("no such match")
    if actor.core.over:
        raise errors.MatchOver("the match has already ended")
    start, log = await hub.store.load_from_start(match_id)
    if not 1 <= entry <= len(log):
        raise errors.BadRequest(f"the match has {len(log)} log entries: take it back to one of 1 to {len(log)}",
                                path="entry")
    meta = actor.core.meta
    new_id = new_match_id()
    now = now_ms()
    new_meta = {**meta, "created_at": now, "rewound_from": {"match": match_id, "entry": entry, "judge": judge}}
    start_match = MatchState(new_meta, start["state"], Clock(start["clock"]), start["seq"])
    start_records = list(start["events"])
    match, kept = replayed(new_meta, start, log[:entry - 1])
    refused = refusal_of_point(match)
    if refused is not None:
        raise errors.RewindRefused(refused)
    # The prompts open there get back the time they had when the undone entry came.
    match.clock.shift(now - log[entry - 1]["at"])
    lease = hub.new_lease()
    commands = hub.store.create_commands(new_id, new_meta, start_match.snapshot(), start_records, now, lease,
                                         hub.settings.lease_ms)
    if kept:
        commands += hub.store.write_commands(new_id, kept, match.snapshot(), False, hub.settings.retention_s, lease)
    await hub.launch(new_id, match, lease, commands)
    try:
        await _end_old(hub, actor, new_id, judge, note)
    except BaseException:
        await _end_old(hub, hub.actors[new_id], None, judge, "the rewind did not end the match it came from")
        raise
    return (await hub.summaries([new_id]))[0]


async def _end_old(hub: Hub, actor: MatchActor, rewound_to: str | None, judge: str, note: str | None) -> None:
    await hub.through(actor, lambda done: inputs.Abort(done, reason=JUDGE_REWIND if rewound_to else None,
                                                       rewound_to=rewound_to, by=judge, note=note),
                      "end of the rewound match", REWIND_TIMEOUT_S)
