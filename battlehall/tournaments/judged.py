"""The judges' entries of an event's log (`"k": "judged"`): what a judge (or the operator)
did to one of its games or players, and what the fold makes of it.

- `pause`, `resume`, `add_time`: the game's clocks (recorded; the match's own log has them);
- `rewind`: the game went on as another match (`rewound_to`): the game's result is that
  match's, never the rewound one's;
- `game_loss`, `game_win`: the game's `player` was awarded a loss or a win: the game entry
  that follows for that match must rank them as the ruling says;
- `void`: the game is not counted: its table plays that game again (a replay, as a new
  match), and no game entry may name the voided match;
- `replace`: `replacement` (a profile not in the event) takes `player`'s place and record.
  It takes effect when no round is in play: at once before the first round or between
  rounds, else when the round in play ends (its `round_ended`), so the next pairing has
  it; every earlier table, game and bye of `player` is then the replacement's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlehall.tournaments import best_of
from battlehall.tournaments.errors import TournamentError
from battlehall.tournaments.records import Game, Player, Round, Table

if TYPE_CHECKING:
    from battlehall.tournaments.tournament import Tournament

CLOCK_ACTIONS = ("pause", "resume", "add_time")
RULINGS = ("game_loss", "game_win")
ACTIONS = (*CLOCK_ACTIONS, "rewind", *RULINGS, "void", "replace")


def _bad(message: str) -> TournamentError:
    return TournamentError("bad_entry", message)


def _text(e: dict, key: str, required: bool = True) -> str | None:
    value = e.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise _bad(f"{key} must be a non-empty string")
    return value


def apply(t: Tournament, e: dict) -> None:
    """Fold one judged entry into `t`, or raise TournamentError having changed nothing."""
    action = e.get("action")
    if action not in ACTIONS:
        raise _bad(f"action must be one of {', '.join(ACTIONS)}")
    _text(e, "judge")
    _text(e, "reason", required=action in (*RULINGS, "void", "replace"))
    if action == "replace":
        _replace(t, e)
    else:
        if t.phase != "running":
            raise TournamentError("not_running")
        match = _text(e, "match")
        assert match is not None
        if match in t.moved or match in t.voided:
            raise _bad(f"match {match} has ended already (rewound or voided)")
        if action == "rewind":
            t.moved[match] = str(_text(e, "rewound_to"))
        elif action in RULINGS or action == "void":
            _ruled(t, e, match, action)
    t.judged.append({k: v for k, v in e.items() if k != "k"})


def _current_table(t: Tournament, e: dict) -> Table:
    """The table of the entry's game, which must be the game it plays now."""
    rnd = t.rounds[-1] if t.rounds else None
    number = e.get("table")
    table = rnd.table(number) if rnd and isinstance(number, int) else None
    if rnd is None or table is None or e.get("round") != rnd.round or rnd.ended:
        raise _bad("a ruling is on a game of the round in play")
    if best_of.decided(t.spec, table) or e.get("game") != len(table.games) + 1:
        raise _bad(f"table {table.table} plays game {len(table.games) + 1}")
    return table


def _ruled(t: Tournament, e: dict, match: str, action: str) -> None:
    table = _current_table(t, e)
    if action == "void":
        table.replays += 1
        t.voided.add(match)
        return
    player = _text(e, "player")
    if player not in best_of.seats_for(table, len(table.games) + 1):
        raise _bad(f"{player!r} does not play game {len(table.games) + 1} of table {table.table}")
    if match in t.rulings:
        raise _bad(f"match {match} is ruled already")
    t.rulings[match] = (action, str(player))


def check_game(t: Tournament, match: Any, places: tuple[tuple[str, ...], ...]) -> None:
    """A game entry for `match` against the judges': not a voided or rewound match, and a
    ruled match ranked as ruled (the ruling is then spent)."""
    if not isinstance(match, str):
        return
    if match in t.voided:
        raise _bad(f"match {match} was voided: its game is played again")
    if match in t.moved:
        raise _bad(f"match {match} was rewound: the game went on as {t.moved[match]}")
    ruled = t.rulings.get(match)
    if ruled is not None:
        action, player = ruled
        want = places[-1] if action == "game_loss" else places[0]
        if len(places) != 2 or want != (player,):
            raise _bad(f"match {match} was ruled a {action.replace('_', ' ')} for {player}")


def spent(t: Tournament, match: Any) -> None:
    t.rulings.pop(match, None)


def _replace(t: Tournament, e: dict) -> None:
    old, new = _text(e, "player"), _text(e, "replacement")
    assert old is not None and new is not None
    if t.phase not in ("registering", "running"):
        raise TournamentError("not_running")
    if old not in t.players or any(o == old for o, _, _ in t.replacing):
        raise TournamentError("not_registered", f"{old} is not a player of the event")
    if t.players[old].dropped:
        raise TournamentError("already_dropped")
    if new in t.players or any(n == new for _, n, _ in t.replacing):
        raise TournamentError("already_registered", f"{new} is in the event already")
    t.replacing.append((old, new, str(e.get("name") or new)))
    if between_rounds(t):
        take_effect(t)


def between_rounds(t: Tournament) -> bool:
    return t.phase == "registering" or not t.rounds or t.rounds[-1].ended


def take_effect(t: Tournament) -> None:
    """The replacements waiting for the round in play to end: each takes its player's place."""
    for old, new, name in t.replacing:
        _swap(t, old, new, name)
    t.replacing.clear()


def _swap(t: Tournament, old: str, new: str, name: str) -> None:
    def sub(p: str) -> str:
        return new if p == old else p

    players: dict[str, Player] = {}
    for pid, p in t.players.items():
        if pid == old:
            p = Player(new, name, p.rating, p.order, p.checked_in, p.dropped, p.dropped_after)
        players[p.id] = p
    t.players = players
    for i, rnd in enumerate(t.rounds):
        tables = [Table(x.table, tuple(map(sub, x.players)),
                        [Game(g.game, g.match, tuple(map(sub, g.seats)), tuple(tuple(map(sub, grp)) for grp in g.places))
                         for g in x.games], x.replays) for x in rnd.tables]
        t.rounds[i] = Round(rnd.round, rnd.stage, tables, tuple(map(sub, rnd.byes)), rnd.ended, _sub_all(rnd.extra, old, new))
    t.forget_records()


def _sub_all(value: Any, old: str, new: str) -> Any:
    """`value` (a stage's kept data: seeds, brackets) with the player's id replaced."""
    if value == old:
        return new
    if isinstance(value, list):
        return [_sub_all(v, old, new) for v in value]
    if isinstance(value, tuple):
        return tuple(_sub_all(v, old, new) for v in value)
    if isinstance(value, dict):
        return {_sub_all(k, old, new): _sub_all(v, old, new) for k, v in value.items()}
    return value
