"""What anyone may know of a match, without its tokens: which matches are public, who may
read a private match's replay, and a delayed match as of its stream delay.

A match is public when anyone may watch it without a token (`spectators.allowed` and
`spectators.public`). Everything else is private: it is listed to nobody, and its replay
(every card, the seed) needs one of its own tokens or the API key.

A match with a stream delay of D is, to everyone without a token, the match as it was D
ago: its summary's `seq`, `status` and `result`, and whether its replay is open. That is
read from the match's log in Redis (each entry has the time `at` it was recorded), so it
is the same on every node, whether it runs the match, mirrors it or neither.
"""

from __future__ import annotations

import hmac

from . import auth
from .store import Store, key, unpack

LOG_PAGE = 64  # log entries read back per round trip while looking for the last one old enough


def is_public(meta: dict) -> bool:
    spectators = meta["spectators"]
    return bool(spectators["allowed"] and spectators["public"])


def may_read(meta: dict, authorization: str, api_key: str | None) -> bool:
    """Whether a request with this `Authorization` header may read the match's replay:
    anyone for a public match; for a private one, a Bearer token that is a seat's, the
    spectator token or the server's API key."""
    if is_public(meta):
        return True
    given = auth.bearer(authorization or "")
    if given is None:
        return False
    secrets = [*meta["tokens"].values(), meta["spectator_token"], *([api_key] if api_key else [])]
    found = False
    for secret in secrets:  # every one compared, in constant time each
        found |= hmac.compare_digest(given.encode(), secret.encode())
    return found


async def as_of_delay(store: Store, summary: dict, now: int) -> dict:
    """`summary` as its spectators see it: as of `now` minus the match's stream delay.

    The last log entry recorded at or before that time gives `seq`; the match is shown
    finished, with its result, only once its last entry (the one that ended it) is that
    old. Before any entry is that old, `seq` is the start's.
    """
    delay = summary["spectator_settings"]["delay_ms"]
    if not delay:
        return summary
    cutoff = now - delay
    log = key(summary["match"], "log")
    newest = True
    upper = "+"
    oldest_seq = 0  # the first seq of the oldest entry read so far (once newest is False)
    while True:
        rows = await store.redis.xrevrange(log, upper, "-", count=LOG_PAGE)
        for _stream_id, fields in rows:
            entry = unpack(fields[b"e"])
            if entry["at"] <= cutoff:
                if newest:  # every entry is old enough: the match is as it is now
                    return summary
                return {**summary, "status": "live", "result": None, "seq": entry["last_seq"]}
            newest = False
            oldest_seq = entry["seq"]
        if len(rows) < LOG_PAGE:
            break
        upper = "(" + rows[-1][0].decode()
    if newest:  # no entry at all: the match is as it started (it ends at creation, if at all)
        if summary["created_at"] <= cutoff:
            return summary
        return {**summary, "status": "live", "result": None}
    return {**summary, "status": "live", "result": None, "seq": oldest_seq - 1}
