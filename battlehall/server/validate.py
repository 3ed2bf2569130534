"""Checks of the `POST /matches` body: each failure names the offending field."""

from __future__ import annotations

import re

from ..engine import ruleset_names
from ..engine.errors import SetupError
from .clock import DEFAULT_CLOCK

SEAT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
MAX_SEED = 2**63 - 1
#: allowed: spectators may watch with the spectator token; public: also without one;
#: delay_ms: the stream delay; max: how many may watch at once.
DEFAULT_SPECTATORS = {"allowed": True, "public": False, "delay_ms": 0, "max": 10_000}


def _int(value, path: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SetupError(path, f"must be an integer from {low} to {high}")
    return value


def _section(body: dict, name: str, defaults: dict) -> tuple[dict, dict]:
    """A sub-object of the body: (the defaults to fill in, what was given), unknown fields refused."""
    given = body.get(name) or {}
    if not isinstance(given, dict):
        raise SetupError(name, "must be an object")
    for field in sorted(given):
        if field not in defaults:
            raise SetupError(f"{name}.{field}", f"unknown {name} field {field!r}")
    return dict(defaults), given


def create_request(body) -> dict:
    """The normalized create request; SetupError(path, message) on the first bad field."""
    if not isinstance(body, dict):
        raise SetupError("", "the body must be a JSON object")
    known = {"ruleset", "seats", "seed", "seed_public", "options", "setup", "clock", "spectators", "label"}
    for name in sorted(body):
        if name not in known:
            raise SetupError(name, f"unknown field {name!r}")
    ruleset = body.get("ruleset")
    if ruleset not in ruleset_names():
        raise SetupError("ruleset", f"must be one of {ruleset_names()}")
    seats = body.get("seats")
    if not isinstance(seats, list) or not seats:
        raise SetupError("seats", "must be a non-empty list of seat names")
    for i, seat in enumerate(seats):
        if not isinstance(seat, str) or not SEAT_NAME.match(seat):
            raise SetupError(f"seats[{i}]", "a seat name is 1-32 letters, digits, '_', '-' or '.'")
        if seat in seats[:i]:
            raise SetupError(f"seats[{i}]", f"seat {seat!r} appears twice")
    seed = body.get("seed")
    if seed is not None:
        _int(seed, "seed", 0, MAX_SEED)
    seed_public = body.get("seed_public", False)
    if not isinstance(seed_public, bool):
        raise SetupError("seed_public", "must be true or false")
    if seed_public and seed is None:
        raise SetupError("seed_public", "a public seed must be given in seed")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise SetupError("options", "must be an object")
    setup = body.get("setup")
    if setup is not None and not isinstance(setup, dict):
        raise SetupError("setup", "must be an object or null")
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
    label = body.get("label") or {}
    if not isinstance(label, dict) or len(label) > 16:
        raise SetupError("label", "must be an object of at most 16 string fields")
    for name in sorted(label):
        if not isinstance(label[name], str) or len(name) > 64 or len(label[name]) > 256:
            raise SetupError(f"label.{name}", "label values are strings of at most 256 characters")
    return {"ruleset": ruleset, "seats": seats, "seed": seed, "seed_public": seed_public, "options": options, "setup": setup,
            "clock": clock, "spectators": spectators, "label": label}
