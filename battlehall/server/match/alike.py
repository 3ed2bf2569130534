"""Settings that many live matches have alike, kept once in memory.

Most matches are made with the same seats, clock, spectator settings and options (the
defaults, or a lobby's few presets). Each match's settings (its meta) are plain JSON
values, and an idle match is mostly its settings, so the parts that equal another
match's are replaced by that match's object: one dict for every default clock instead
of one per match. The parts are never changed once a match is made (a new match, a
rematch or a rewind builds its own dicts), which is what makes sharing them safe.

Identity only: what a shared part says is exactly what the match's own said (the same
JSON, in the same key order), so nothing a match decides or sends depends on it.
"""

from __future__ import annotations

import orjson

#: The meta fields that matches commonly have alike (tokens, seed and times never are);
#: `made_from`, the address that made the match, is a lobby's or an organiser's for many.
SHARED_FIELDS = ("seats", "clock", "spectators", "options", "label", "bots", "when_away", "caster", "made_from")
#: A part larger than this (as JSON) is kept per match: a match's own setup, not a preset.
MAX_SHARED_BYTES = 512
#: Distinct parts kept at most; past it new ones are kept per match, as before.
MAX_KEPT = 4096

_kept: dict[bytes, object] = {}


def share_settings(meta: dict) -> dict:
    """Replace `meta`'s common parts, in place, by the equal ones already kept; `meta`."""
    for field in SHARED_FIELDS:
        if field in meta:
            meta[field] = _shared(meta[field])
    return meta


def _shared(value: object) -> object:
    if value is None or isinstance(value, (bool, int)):
        return value  # small ints, None and the booleans are shared by Python itself
    try:
        # The JSON tells 1 from 1.0 and true from 1, and keeps the key order a client sees.
        # Its type too: a tuple and a list have the same JSON.
        key = type(value).__name__.encode() + orjson.dumps(value)
    except TypeError:
        return value  # not JSON: not a setting any match shares
    if len(key) > MAX_SHARED_BYTES:
        return value
    found = _kept.get(key)
    if found is not None:
        return found
    if len(_kept) < MAX_KEPT:
        _kept[key] = value
    return value
