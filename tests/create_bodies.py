"""Random `POST /matches` bodies for property tests: valid bodies with one or two field
paths set to any JSON value (or removed), and bodies that are any JSON at all."""

from __future__ import annotations

import copy

from hypothesis import strategies as st

SPELLFIRE_SETUP = {
    "cards": [
        {"id": "test-knight", "name": "Test Knight", "type": "champion", "class": "hero", "level": 3,
         "world": "greyhawk", "powers": ["flyer"], "hook": "last_stand"},
        {"id": "test-lure", "name": "Test Lure", "type": "event", "hook": "lure"},
    ],
    "players": {
        "alice": {"formation": {"A": {"realm": "emberhold", "holding": "lantern-watch"},
                                "B": {"realm": "thornvale", "razed": True}},
                  "pool": [{"champion": "torvald-ironhand", "attached": ["crown-of-embers"]}],
                  "hand": ["flame-lance", "test-knight"], "draw": ["amberfield"], "discard": ["earthrend"]},
        "bob": {"formation": {"A": {"realm": "ironbridge"}}, "hand": ["sudden-rout", "test-lure"]},
    },
    "turn": {"seat": "bob", "phase": "pool", "number": 4, "realm_played": False, "attacks": 0},
}

BASES = [
    {"ruleset": "duel", "seats": ["alice", "bob"], "seed": 3, "options": {"hp": 5},
     "clock": {"prompt_ms": 30_000, "bank_ms": 0, "window_min_ms": 0},
     "spectators": {"allowed": True, "public": False, "delay_ms": 0, "max": 5}, "label": {"cup": "x"}},
    {"ruleset": "spellfire", "seats": ["alice", "bob"],
     "options": {"decks": ["embers", "shadows"], "turn_limit": 20, "exhaustion": "end", "same_world_bonus": True}},
    {"ruleset": "spellfire", "seats": ["alice", "bob"], "seed": 9, "setup": SPELLFIRE_SETUP},
]


def field_paths(value, path: tuple = ()) -> list[tuple]:
    """Every path into `value` (keys and list indexes), the value itself first."""
    out = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += field_paths(inner, path + (key,))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += field_paths(inner, path + (i,))
    return out


def path_text(path: tuple) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


# Words the checks know, so that random values reach past the first check of a field.
WORDS = ["alice", "bob", "duel", "spellfire", "embers", "shadows", "mirror", "lure", "last_stand",
         "emberhold", "ironbridge", "test-knight", "champion", "event", "realm", "hero", "greyhawk",
         "flyer", "pool", "draw", "A", "end", "continue", ""]

scalars = (st.none() | st.booleans() | st.integers(-2**63, 2**64) | st.sampled_from([0, 1, -1, 2**31, 2**63])
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12) | st.sampled_from(WORDS))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.sampled_from(WORDS),
                                                                inner, max_size=4),
    max_leaves=12)

REMOVE = object()


def _set(body, path: tuple, value):
    """`body` with the value at `path` replaced (or removed); a path whose parent was
    replaced by an earlier change is left alone."""
    parent = body
    for part in path[:-1]:
        if isinstance(parent, dict) and isinstance(part, str) and part in parent:
            parent = parent[part]
        elif isinstance(parent, list) and isinstance(part, int) and part < len(parent):
            parent = parent[part]
        else:
            return body
    if not path:
        return value
    last = path[-1]
    if isinstance(parent, dict) and isinstance(last, str):  # JSON keys are strings
        if value is REMOVE:
            parent.pop(last, None)
        else:
            parent[last] = value
    elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
        if value is REMOVE:
            del parent[last]
        else:
            parent[last] = value
    return body


@st.composite
def mutated_bodies(draw) -> tuple[dict, list[str]]:
    """A valid body with one or two of its field paths (or a new field) changed: the body
    and the paths changed."""
    body = copy.deepcopy(draw(st.sampled_from(BASES)))
    paths = [p for p in field_paths(body) if p]
    changed = []
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(paths))
        if draw(st.integers(0, 5)) == 0:  # a field that is not there
            path = path[:-1] + (draw(st.sampled_from(WORDS + ["x"])),)
        value = draw(json_values | st.just(REMOVE))
        body = _set(body, path, value)
        changed.append(path_text(path))
    return body, changed


any_bodies = mutated_bodies() | json_values.map(lambda body: (body, [""]))
