"""A tournament's settings: parsed once from the organiser's body, then read everywhere."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from battlehall.tournaments.errors import SpecError

FORMATS = ("swiss", "round_robin", "single_elimination", "double_elimination")
TIEBREAKS = ("omw", "gw", "ogw", "buchholz", "sonneborn_berger", "random")
DEFAULT_TIEBREAKS = ("omw", "gw", "ogw")
UNFINISHED = ("draw", "tiebreak")
POD_SEATS = range(3, 7)  # pods seat 3 to 6, within the ruleset's own range
MAX_PLAYERS = 1024
MAX_ROUNDS = 30
NAME_MAX = 80
_KNOWN = frozenset({
    "name", "ruleset", "options", "clock", "format", "rounds", "cut", "best_of", "table_size", "points",
    "place_points", "tiebreaks", "max_players", "start_at", "check_in_ms", "late_entry_rounds", "rated",
    "public", "bots_take_over", "no_show_ms", "round_ms", "unfinished",
})


@dataclass(frozen=True, slots=True)
class Points:
    win: float = 3
    draw: float = 1
    loss: float = 0


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    ruleset: str
    options: dict = field(default_factory=dict)
    clock: dict | None = None  # passed to each match as it is
    format: str = "swiss"
    rounds: int | None = None  # None: from the field's size when the event starts
    cut: int = 0
    best_of: int = 1
    table_size: int = 2
    min_table: int = 2  # the smallest and largest table pods may form
    max_table: int = 2
    points: Points = Points()
    place_points: tuple[float, ...] = (3, 0)
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    max_players: int = MAX_PLAYERS
    start_at: int | None = None
    check_in_ms: int = 0
    late_entry_rounds: int = 0
    rated: bool = False
    public: bool = True
    bots_take_over: bool = False
    no_show_ms: int = 120_000
    round_ms: int = 0
    unfinished: str = "draw"

    @property
    def pods(self) -> bool:
        return self.table_size > 2

    @staticmethod
    def parse(body: Any, seats: range, cap: int = MAX_PLAYERS, now: int | None = None) -> Spec:
        """The spec of `body` for a ruleset seating `seats`; SpecError names the first bad field.
        `cap` is the operator's limit on max_players, `now` (epoch ms) refuses a start in the past."""
        return _parse(body, seats, cap, now)

    def body(self) -> dict:
        """The spec as a JSON body (every field, defaults filled in): Spec.parse(body()) == self."""
        return {
            "name": self.name, "ruleset": self.ruleset, "options": self.options, "clock": self.clock,
            "format": self.format, "rounds": self.rounds, "cut": self.cut, "best_of": self.best_of,
            "table_size": self.table_size,
            "points": {"win": self.points.win, "draw": self.points.draw, "loss": self.points.loss},
            "place_points": list(self.place_points), "tiebreaks": list(self.tiebreaks),
            "max_players": self.max_players, "start_at": self.start_at, "check_in_ms": self.check_in_ms,
            "late_entry_rounds": self.late_entry_rounds, "rated": self.rated, "public": self.public,
            "bots_take_over": self.bots_take_over, "no_show_ms": self.no_show_ms, "round_ms": self.round_ms,
            "unfinished": self.unfinished,
        }


def _int(body: dict, key: str, default: int | None, lo: int, hi: int | None = None) -> int | None:
    value = body.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(key, "must be an integer")
    if value < lo or (hi is not None and value > hi):
        raise SpecError(key, f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}")
    return value


def _bool(body: dict, key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(key, "must be true or false")
    return value


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or abs(value) > 1e6:
        raise SpecError(path, "must be a number")
    return value


def _choice(body: dict, key: str, default: str, choices: tuple[str, ...]) -> str:
    value = body.get(key, default)
    if value not in choices:
        raise SpecError(key, f"must be one of {', '.join(choices)}")
    return value


def _name(body: dict, key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(key, "is required (a non-empty string)")
    if len(value) > NAME_MAX:
        raise SpecError(key, f"is longer than {NAME_MAX} characters")
    return value.strip()


def _points(body: dict) -> Points:
    value = body.get("points", {})
    if not isinstance(value, dict):
        raise SpecError("points", "must be an object {win, draw, loss}")
    for key in value:
        if key not in ("win", "draw", "loss"):
            raise SpecError(f"points.{key}", "unknown field")
    default = Points()
    win, draw, loss = (_number(value.get(k, getattr(default, k)), f"points.{k}") for k in ("win", "draw", "loss"))
    if not win > loss or not win >= draw >= loss:
        raise SpecError("points", "needs win > loss and win >= draw >= loss")
    return Points(win, draw, loss)


def _table(body: dict, seats: range, fmt: str) -> tuple[int, int, int]:
    """(table_size, smallest table, largest table)."""
    default = 2 if 2 in seats else max(seats.start, POD_SEATS.start)
    size = _int(body, "table_size", default, 2, POD_SEATS.stop - 1)
    assert size is not None
    if size not in seats:
        raise SpecError("table_size", f"the ruleset seats {seats.start} to {seats.stop - 1} players")
    if size == 2:
        return 2, 2, 2
    if fmt != "swiss":
        raise SpecError("table_size", "tables of more than 2 (pods) are for the swiss format")
    lo, hi = max(seats.start, POD_SEATS.start), min(seats.stop, POD_SEATS.stop) - 1
    return size, lo, hi


def _place_points(body: dict, largest: int) -> tuple[float, ...]:
    value = body.get("place_points")
    if value is None:
        return tuple([3, 1] + [0] * (largest - 2))
    if not isinstance(value, list) or len(value) < largest:
        raise SpecError("place_points", f"must list the points of each of {largest} places")
    numbers = tuple(_number(v, f"place_points[{i}]") for i, v in enumerate(value))
    if any(a < b for a, b in zip(numbers, numbers[1:])) or numbers[0] <= numbers[largest - 1]:
        raise SpecError("place_points", "must not grow from a place to the next, and first must beat last")
    return numbers[:largest]


def _tiebreaks(body: dict) -> tuple[str, ...]:
    value = body.get("tiebreaks", list(DEFAULT_TIEBREAKS))
    if not isinstance(value, list) or len(set(map(str, value))) != len(value):
        raise SpecError("tiebreaks", "must be a list without repeats")
    for i, name in enumerate(value):
        if name not in TIEBREAKS:
            raise SpecError(f"tiebreaks[{i}]", f"must be one of {', '.join(TIEBREAKS)}")
    return tuple(value)


def _parse(body: Any, seats: range, cap: int, now: int | None) -> Spec:
    if not isinstance(body, dict):
        raise SpecError("", "the tournament must be a JSON object")
    for key in body:
        if key not in _KNOWN:
            raise SpecError(str(key), "unknown field")
    fmt = _choice(body, "format", "swiss", FORMATS)
    size, lo, hi = _table(body, seats, fmt)
    max_players = _int(body, "max_players", min(cap, MAX_PLAYERS), 2, min(cap, MAX_PLAYERS))
    assert max_players is not None
    rounds = _int(body, "rounds", None, 1, MAX_ROUNDS)
    if rounds is not None and fmt != "swiss":
        raise SpecError("rounds", f"{fmt} plays as many rounds as its field needs")
    cut = _int(body, "cut", 0, 0, max_players)
    assert cut is not None
    if cut:
        if fmt != "swiss" or size != 2:
            raise SpecError("cut", "a top cut follows a swiss of two-player tables")
        if cut < 2 or cut & (cut - 1):
            raise SpecError("cut", "must be 0 or a power of two (2, 4, 8, ...)")
    best_of = body.get("best_of", 1)
    if best_of not in (1, 3, 5) or isinstance(best_of, bool):
        raise SpecError("best_of", "must be 1, 3 or 5")
    late = _int(body, "late_entry_rounds", 0, 0, MAX_ROUNDS)
    assert late is not None
    if late and fmt != "swiss":
        raise SpecError("late_entry_rounds", "late entry is for the swiss format")
    start_at = _int(body, "start_at", None, 0)
    if start_at is not None and now is not None and start_at <= now:
        raise SpecError("start_at", "is in the past")
    options, clock = body.get("options", {}), body.get("clock")
    if not isinstance(options, dict):
        raise SpecError("options", "must be an object")
    if clock is not None and not isinstance(clock, dict):
        raise SpecError("clock", "must be an object or null")
    return Spec(
        name=_name(body, "name"), ruleset=_name(body, "ruleset"), options=options, clock=clock, format=fmt,
        rounds=rounds, cut=cut, best_of=best_of, table_size=size, min_table=lo, max_table=hi,
        points=_points(body), place_points=_place_points(body, max(hi, 2)), tiebreaks=_tiebreaks(body),
        max_players=max_players, start_at=start_at, check_in_ms=_int(body, "check_in_ms", 0, 0) or 0,
        late_entry_rounds=late, rated=_bool(body, "rated", False), public=_bool(body, "public", True),
        bots_take_over=_bool(body, "bots_take_over", False), no_show_ms=_int(body, "no_show_ms", 120_000, 0) or 0,
        round_ms=_int(body, "round_ms", 0, 0) or 0, unfinished=_choice(body, "unfinished", "draw", UNFINISHED),
    )
