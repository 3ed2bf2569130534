"""Checking an event's log: every pairing recomputed, every game entered once, the standings.

verify_log folds the log from the start, as the server did; before each "paired" entry it
recomputes the pairing that the log so far and the seed give, and compares (the time of
an entry aside). An entry the fold refuses is a problem too (a game entered twice is one).
"""

from __future__ import annotations

from battlehall.tournaments.errors import SpecError, TournamentError
from battlehall.tournaments.spec import Spec
from battlehall.tournaments.tournament import Tournament


def ruleset_seats(ruleset: object) -> range | None:
    """The seat counts a ruleset takes, from the engine's registry (None for an unknown one)."""
    from battlehall.engine import get_ruleset, ruleset_names

    if not isinstance(ruleset, str) or ruleset not in ruleset_names():
        return None
    rules = get_ruleset(ruleset)
    return range(rules.min_seats, rules.max_seats + 1)


def _timeless(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "at"}


def verify_log(spec_body: dict, seed: str, entries: list, seats: range | None = None,
               shown_standings: list[dict] | None = None) -> list[str]:
    """The problems found in an event's log (empty: it checks out). `shown_standings` are the
    standings a server showed (public()["standings"]), compared with the fold's."""
    seats = seats or ruleset_seats(spec_body.get("ruleset") if isinstance(spec_body, dict) else None)
    if seats is None:
        return [f"unknown ruleset {spec_body.get('ruleset')!r}" if isinstance(spec_body, dict) else "no spec"]
    try:
        spec = Spec.parse(spec_body, seats)
    except SpecError as exc:
        return [f"the spec is refused: {exc}"]
    t = Tournament(spec, seed)
    problems: list[str] = []
    matches: dict[str, int] = {}
    for i, entry in enumerate(entries):
        kind = entry.get("k") if isinstance(entry, dict) else None
        if kind == "paired":
            try:
                expected = t.pair_next()
            except TournamentError as exc:
                expected, why = None, exc.code
            else:
                why = "nothing was left to pair"
            if expected is None:
                problems.append(f"entry {i}: round {entry.get('round')} paired when it could not be ({why})")
            elif _timeless(expected) != _timeless(entry):
                problems.append(f"entry {i}: round {entry.get('round')}'s pairing is not the one the log and seed give")
        if kind == "game" and isinstance(entry.get("match"), str):
            if entry["match"] in matches:
                problems.append(f"entry {i}: match {entry['match']} was entered already (entry {matches[entry['match']]})")
            matches.setdefault(entry["match"], i)
        try:
            t.apply(entry)
        except TournamentError as exc:
            problems.append(f"entry {i} ({kind}) is refused: {exc}")
    if shown_standings is not None:
        mine = [s.public() for s in t.standings()]
        if [(s.get("player"), s.get("points")) for s in shown_standings] != [(s["player"], s["points"]) for s in mine]:
            problems.append("the standings shown are not the fold's")
    return problems
