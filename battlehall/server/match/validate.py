"""Checks of the `POST /matches` body: each failure names the offending field.

Every check is linear in the size of the body and bounded: a body is refused by its
size (seats, nodes, depth) before anything looks at every element, so no request can
hold the event loop. The ruleset checks the meaning of `options` and `setup`.
"""

from __future__ import annotations

import re
import sys

from battlehall.bots import LEVELS
from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import SetupError
from battlehall.server.clock import DEFAULT_CLOCK
from battlehall.server.config import MAX_CASTER_DELAY_MS, Settings

SEAT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
MAX_SEED = 2**63 - 1
#: Seats of one match, whatever the ruleset (each ruleset allows fewer).
MAX_SEATS = 16
#: `options` and `setup` together: values (objects, lists and scalars), nesting depth,
#: and characters of one string. A setup of two full decks is about 300 values.
MAX_VALUES = 10_000
MAX_DEPTH = 8
MAX_STRING = 4_096
#: allowed: spectators may watch with the spectator token; public: also without one;
#: delay_ms: the stream delay; max: how many may watch at once.
DEFAULT_SPECTATORS = {"allowed": True, "public": False, "delay_ms": 0, "max": 10_000}
#: What may happen when a seat is marked away: nothing, or the others may claim the win.
WHEN_AWAY = ("nothing", "claim", "bot")


def _int(value: object, path: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SetupError(path, f"must be an integer from {low} to {high}")
    return value


def _object(body: dict, name: str) -> dict:
    """An optional object field: absent or null is {}; any other type is refused."""
    given = body.get(name)
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise SetupError(name, "must be an object")
    return given


def _bounded(sections: list[tuple[str, object]]) -> None:
    """Refuse free-form values too large to check: one pass, stopping at the first excess."""
    count = 0
    stack = [(value, path, 0) for path, value in reversed(sections)]
    while stack:
        value, path, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise SetupError(path, f"options and setup hold at most {MAX_VALUES} values together")
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise SetupError(path, f"a string here is at most {MAX_STRING} characters")
        elif isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise SetupError(path, f"nested more than {MAX_DEPTH} levels deep")
            if isinstance(value, dict):
                for key in reversed(list(value)):
                    if len(key) > MAX_STRING:
                        raise SetupError(path, f"a field name is at most {MAX_STRING} characters")
                    stack.append((value[key], f"{path}.{key}", depth + 1))
            else:
                for i in range(len(value) - 1, -1, -1):
                    stack.append((value[i], f"{path}[{i}]", depth + 1))


def _seats(body: dict, ruleset: str) -> list[str]:
    seats = body.get("seats")
    if not isinstance(seats, list) or not seats:
        raise SetupError("seats", "must be a non-empty list of seat names")
    rules = get_ruleset(ruleset)
    most = min(MAX_SEATS, rules.max_seats)
    if not rules.min_seats <= len(seats) <= most:  # before looking at any of them
        wanted = f"{rules.min_seats}" if rules.min_seats == most else f"{rules.min_seats} to {most}"
        raise SetupError("seats", f"{ruleset} is played by {wanted} seats, not {len(seats)}")
    seen = set()
    for i, seat in enumerate(seats):
        if not isinstance(seat, str) or not SEAT_NAME.match(seat):
            raise SetupError(f"seats[{i}]", "a seat name is 1-32 letters, digits, '_', '-' or '.'")
        if seat in seen:
            raise SetupError(f"seats[{i}]", f"seat {seat!r} appears twice")
        seen.add(seat)
    # Interned: every live match's "a" is then one string, wherever its state, prompts,
    # tokens and deadlines keep it (a name leaves the table with the last match using it).
    return [sys.intern(seat) for seat in seats]


def _section(body: dict, name: str, defaults: dict) -> tuple[dict, dict]:
    """A sub-object of the body: (the defaults to fill in, what was given), unknown fields refused."""
    given = _object(body, name)
    for field in sorted(given):
        if field not in defaults:
            raise SetupError(f"{name}.{field}", f"unknown {name} field {field!r}")
    return dict(defaults), given


def _caster(body: dict, min_delay_ms: int) -> dict | None:
    """`caster`: absent or null for no caster link; else its stream delay, never below the
    server's minimum (a caster sees every hidden card)."""
    if body.get("caster") is None:
        return None
    caster, given = _section(body, "caster", {"delay_ms": min_delay_ms})
    if "delay_ms" in given:
        delay = given["delay_ms"]
        if not isinstance(delay, int) or isinstance(delay, bool) or not min_delay_ms <= delay <= MAX_CASTER_DELAY_MS:
            raise SetupError("caster.delay_ms", f"must be an integer from {min_delay_ms} (this server's minimum "
                                                f"caster delay) to {MAX_CASTER_DELAY_MS}")
        caster["delay_ms"] = delay
    return caster


def create_request(body: object, caster_min_delay_ms: int = Settings.caster_min_delay_ms) -> dict:
    """The normalized create request; SetupError(path, message) on the first bad field.
    `caster_min_delay_ms`: the server's smallest caster delay (a smaller one is refused)."""
    if not isinstance(body, dict):
        raise SetupError("", "the body must be a JSON object")
    known = {"ruleset", "seats", "seed", "seed_public", "options", "setup", "clock", "spectators", "label", "caster",
             "when_away", "bots"}
    for name in sorted(body):
        if name not in known:
            raise SetupError(name, f"unknown field {name!r}")
    ruleset = body.get("ruleset")
    if ruleset not in ruleset_names():
        raise SetupError("ruleset", f"must be one of {ruleset_names()}")
    seats = _seats(body, ruleset)
    seed = body.get("seed")
    if seed is not None:
        _int(seed, "seed", 0, MAX_SEED)
    seed_public = body.get("seed_public", False)
    if not isinstance(seed_public, bool):
        raise SetupError("seed_public", "must be true or false")
    if seed_public and seed is None:
        raise SetupError("seed_public", "a public seed must be given in seed")
    options = _object(body, "options")
    setup = body.get("setup")
    if setup is not None and not isinstance(setup, dict):
        raise SetupError("setup", "must be an object or null")
    _bounded([("options", options), ("setup", setup)])
    clock, given = _section(body, "clock", DEFAULT_CLOCK)
    if "prompt_ms" in given:
        clock["prompt_ms"] = None if given["prompt_ms"] is None else _int(given["prompt_ms"], "clock.prompt_ms", 1, 86_400_000)
    if "bank_ms" in given:
        clock["bank_ms"] = _int(given["bank_ms"], "clock.bank_ms", 0, 86_400_000)
    if "window_min_ms" in given:
        clock["window_min_ms"] = _int(given["window_min_ms"], "clock.window_min_ms", 0, 60_000)
    spectators, given = _section(body, "spectators", DEFAULT_SPECTATORS)
    for flag in ("allowed", "public"):
        if flag in given:
            if not isinstance(given[flag], bool):
                raise SetupError(f"spectators.{flag}", "must be true or false")
            spectators[flag] = given[flag]
    if "delay_ms" in given:
        spectators["delay_ms"] = _int(given["delay_ms"], "spectators.delay_ms", 0, 3_600_000)
    if "max" in given:
        spectators["max"] = _int(given["max"], "spectators.max", 0, 100_000)
    caster = _caster(body, caster_min_delay_ms)
    when_away = body.get("when_away")
    if when_away is None:
        when_away = "nothing"
    elif when_away not in WHEN_AWAY:  # `in` on a tuple of strings: an unhashable value is just not in it
        raise SetupError("when_away", f"must be one of {', '.join(WHEN_AWAY)}")
    bots = _bots(body, seats)
    label = _object(body, "label")
    if len(label) > 16:
        raise SetupError("label", "must be an object of at most 16 string fields")
    for name in sorted(label):
        if not isinstance(label[name], str) or len(name) > 64 or len(label[name]) > 256:
            raise SetupError(f"label.{name}", "label values are strings of at most 256 characters")
    return {"ruleset": sys.intern(ruleset), "seats": seats, "seed": seed, "seed_public": seed_public, "options": options, "setup": setup,
            "clock": clock, "spectators": spectators, "label": label, "caster": caster,
            "when_away": when_away, "bots": bots}


def _bots(body: dict, seats: list[str]) -> dict[str, str]:
    """`bots`: the seats the server's bots play, `{seat: level}`, in seat order."""
    bots = _object(body, "bots")
    for seat in sorted(bots):
        if seat not in seats:
            raise SetupError(f"bots.{seat}", "names no seat of the match")
        if bots[seat] not in LEVELS:
            raise SetupError(f"bots.{seat}", f"must be one of {', '.join(LEVELS)}")
    return {seat: bots[seat] for seat in seats if seat in bots}
