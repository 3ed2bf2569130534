"""A judge's ruling on a match (docs/protocol.md, Judges): the match ends at once with
the result the judge gives it, whatever the position.

- `game_loss` for a seat: that seat is last, every other seat shares first place (the
  winners);
- `game_win` for a seat: that seat wins, every other seat shares second place;
- `void`: the match ends with no result, as an abort (every seat shares one place, no
  winner, no draw): an event plays the game again.

The ruling is an abort entry of the log (`{"abort": true, "reason": "judge_ruling" |
"judge_void", "ruling", "seat"?, "by", "note"}`), applied by `apply_entry` like any other,
so recovery, the replay and `battlehall verify` re-run it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from battlehall.engine.errors import BadSeat, MatchOver

if TYPE_CHECKING:
    from battlehall.engine.ruleset import Event, Ruleset, State

JUDGE_RULING = "judge_ruling"  # a judge awarded a game loss or a win: the result is the ruling's
JUDGE_VOID = "judge_void"  # a judge voided the match: it ends with no result
RULING_REASONS = (JUDGE_RULING, JUDGE_VOID)
RULINGS = ("game_loss", "game_win", "void")


def ruled_ranking(seats: list[str], ruling: str, seat: str | None) -> tuple[list[list[str]], list[str]]:
    """The ranking and the winners a ruling gives the match's seats."""
    if ruling == "void":
        return [list(seats)], []
    others = [s for s in seats if s != seat]
    if ruling == "game_loss":
        return [others, [cast(str, seat)]], others
    return [[cast(str, seat)], others], [cast(str, seat)]


def rule(ruleset: Ruleset, state: State, ruling: str, seat: str | None, by: str | None = None,
         note: str | None = None) -> list[Event]:
    """End the match with the ruling's result: every open prompt cancelled, then
    `match_ended`. MatchOver (after the end) or BadSeat (an unknown ruling, a seat that is
    not the match's, or a seat given to a void), before anything changes."""
    from battlehall.engine.ruleset import make_result

    if state["result"] is not None:
        raise MatchOver("the match is over")
    if ruling not in RULINGS:
        raise BadSeat(f"no ruling {ruling!r}: one of {', '.join(RULINGS)}")
    if (ruling == "void") != (seat is None) or (seat is not None and seat not in state["seats"]):
        raise BadSeat(f"a {ruling} names {'no seat' if ruling == 'void' else 'one of the seats'}, not {seat!r}")
    ranking, winners = ruled_ranking(list(state["seats"]), ruling, seat)
    extra: dict[str, Any] = {"ruling": {"ruling": ruling, **({"seat": seat} if seat else {}),
                                        **({"by": by} if by else {}), **({"note": note} if note else {})}}
    result = make_result(JUDGE_VOID if ruling == "void" else JUDGE_RULING, ranking, winners=winners, **extra)
    result["draw"] = False
    before = list(state["prompts"])
    state["prompts"] = []
    state["result"] = result
    closed, _ = ruleset._prompt_events(state, before, None, None)
    return closed + [{"kind": "match_ended", "data": cast(dict[str, Any], result)}]
