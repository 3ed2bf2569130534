"""An event's state: the fold of its log, entry by entry, like a match's.

Tournament(spec, seed) is empty; apply(entry) folds one entry or raises TournamentError
(and changes nothing). What the next round must be (pair_next), which games to create,
the standings and the public view are all computed from that state and the seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from battlehall.tournaments import best_of, elimination, ledger, plan, views
from battlehall.tournaments.errors import TournamentError
from battlehall.tournaments.records import Game, Player, Round, Table
from battlehall.tournaments.spec import Spec
from battlehall.tournaments.standings import Standing, standings

PHASES = ("registering", "running", "finished", "cancelled")


@dataclass(frozen=True, slots=True)
class GameCall:
    """A game to create: the match of game `game` at `table` of `round`, its seats in seat order."""
    round: int
    table: int
    game: int
    seats: tuple[str, ...]
    stage: str


def _bad(message: str) -> TournamentError:
    return TournamentError("bad_entry", message)


def _str(entry: dict, key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise _bad(f"{key} must be a non-empty string")
    return value


def _int(entry: dict, key: str) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{key} must be an integer")
    return value


class Tournament:
    def __init__(self, spec: Spec, seed: str) -> None:
        self.spec = spec
        self.seed = seed
        self.phase = "registering"
        self.players: dict[str, Player] = {}
        self.rounds: list[Round] = []
        self.planned_rounds = 0  # swiss rounds, fixed when the event starts
        self.entries = 0  # entries folded: the state's version (only apply changes the state)
        self._standings: tuple[int, list[Standing]] = (-1, [])
        self._public: tuple[int, dict] = (-1, {})
        self.round_views: dict[int, dict] = {}  # the public views of the rounds before the current one
        self._past: tuple[int, dict[str, ledger.Record]] = (0, {})  # the records of the rounds before it

    # -- the fold -------------------------------------------------------------------------

    def apply(self, entry: Any) -> None:
        if not isinstance(entry, dict):
            raise _bad("an entry is an object")
        handler = getattr(self, "_on_" + str(entry.get("k")), None)
        if handler is None:
            raise _bad(f"unknown entry kind {entry.get('k')!r}")
        handler(entry)
        self.entries += 1

    def _on_registered(self, e: dict) -> None:
        player = _str(e, "player")
        if player in self.players:
            raise TournamentError("already_registered")
        swiss = len(plan.stage_rounds(self, "swiss"))
        late_until = self.spec.late_entry_rounds  # swiss rounds a late entrant may miss
        late = self.phase == "running" and 0 < late_until and swiss <= late_until \
            and len(self.rounds) == swiss < self.planned_rounds
        if self.phase != "registering" and not late:
            raise TournamentError("registration_closed")
        if sum(not p.dropped for p in self.players.values()) >= self.spec.max_players:
            raise TournamentError("tournament_full")
        rating = e.get("rating", 0.0)
        if isinstance(rating, bool) or not isinstance(rating, int | float):
            raise _bad("rating must be a number")
        self.players[player] = Player(player, str(e.get("name") or player), float(rating), len(self.players),
                                      checked_in=late)

    def _player(self, e: dict) -> Player:
        player = self.players.get(_str(e, "player"))
        if player is None:
            raise TournamentError("not_registered")
        if player.dropped:
            raise TournamentError("already_dropped")
        return player

    def _on_checked_in(self, e: dict) -> None:
        player = self._player(e)
        if self.phase != "registering" or not self.spec.check_in_ms or not self.check_in_open(_int(e, "at")):
            raise TournamentError("check_in_closed")
        player.checked_in = True

    def check_in_open(self, at: int) -> bool:
        """Whether a check-in at `at` (epoch ms) is inside the window."""
        if self.phase != "registering" or not self.spec.check_in_ms:
            return False
        start = self.spec.start_at
        return start is None or start - self.spec.check_in_ms <= at < start

    def _on_dropped(self, e: dict) -> None:
        player = self._player(e)
        if self.phase not in ("registering", "running"):
            raise TournamentError("not_running")
        player.dropped, player.dropped_after = True, len(self.rounds)

    def _on_started(self, e: dict) -> None:
        if self.phase != "registering":
            raise TournamentError("already_started")
        able = {p.id for p in self.players.values() if not p.dropped and (p.checked_in or not self.spec.check_in_ms)}
        if len(able) < 2:
            raise TournamentError("not_enough_players")
        for p in self.players.values():
            if not p.dropped and p.id not in able:
                p.dropped, p.dropped_after = True, 0  # did not check in
            p.checked_in = p.checked_in or not p.dropped
        self.phase = "running"
        self.planned_rounds = self.spec.rounds or plan.default_rounds(len(able), self.spec.table_size)

    def _on_paired(self, e: dict) -> None:
        if self.phase != "running":
            raise TournamentError("not_running")
        if _int(e, "round") != len(self.rounds) + 1:
            raise _bad(f"the next round is {len(self.rounds) + 1}")
        if self.rounds and not self.round_over():
            raise TournamentError("round_not_over")
        tables, byes, seen = [], [], set()
        for i, raw in enumerate(e.get("tables") or [], start=1):
            if not isinstance(raw, dict) or raw.get("table") != i or not isinstance(raw.get("players"), list):
                raise _bad(f"table {i} must be {{table: {i}, players: [...]}}")
            tables.append(Table(i, tuple(raw["players"])))
            seen.update(raw["players"])
        for p in e.get("byes") or []:
            byes.append(p)
            seen.add(p)
        if len(seen) != sum(len(t.players) for t in tables) + len(byes):
            raise _bad("a player is paired twice")
        for p in sorted(seen):
            if p not in self.players or self.players[p].dropped:
                raise _bad(f"{p!r} is not an active player")
        extra = {k: v for k, v in e.items() if k not in ("k", "round", "stage", "tables", "byes", "at")}
        self.rounds.append(Round(len(self.rounds) + 1, str(e.get("stage")), tables, tuple(byes), extra=extra))

    def _on_game(self, e: dict) -> None:
        if self.phase != "running":
            raise TournamentError("not_running")
        number, table = _int(e, "round"), self._table(e)
        if number != len(self.rounds) or self.rounds[-1].ended:
            raise _bad("results are for the round being played")
        if _int(e, "game") != len(table.games) + 1 or best_of.decided(self.spec, table):
            raise _bad(f"table {table.table} expects game {len(table.games) + 1}, and only while undecided")
        seats = best_of.seats_for(table, len(table.games) + 1)
        if tuple(e.get("seats") or ()) != seats:
            raise _bad(f"game seats must be {list(seats)}")
        if e.get("draw") is True:
            places: tuple[tuple[str, ...], ...] = (seats,)
        else:
            raw = e.get("places")
            if not isinstance(raw, list) or not all(isinstance(g, list) and g for g in raw):
                raise _bad("places must be a list of lists of players (or draw: true)")
            places = tuple(tuple(g) for g in raw)
            if sorted(p for g in places for p in g) != sorted(seats):
                raise _bad("places must rank every seat once")
        match = e.get("match")
        table.games.append(Game(len(table.games) + 1, match if isinstance(match, str) else None, seats, places))

    def _table(self, e: dict) -> Table:
        number = _int(e, "round")
        rnd = self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None
        table = rnd.table(_int(e, "table")) if rnd else None
        if table is None:
            raise _bad(f"no table {e.get('table')} in round {number}")
        return table

    def _on_round_ended(self, e: dict) -> None:
        if self.phase != "running":
            raise TournamentError("not_running")
        if _int(e, "round") != len(self.rounds) or self.rounds[-1].ended:
            raise _bad("round_ended is for the round being played, once")
        self.rounds[-1].ended = True

    def _on_finished(self, e: dict) -> None:
        if self.phase != "running":
            raise TournamentError("not_running")
        self.phase = "finished"

    def _on_cancelled(self, e: dict) -> None:
        if self.phase not in ("registering", "running"):
            raise TournamentError("not_running")
        self.phase = "cancelled"

    # -- what the state says --------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    def starters(self) -> list[str]:
        """The players who took part from the start (not dropped before it), in registration order."""
        return [p.id for p in self.players.values() if not (p.dropped and p.dropped_after == 0)]

    def active(self) -> set[str]:
        return {p.id for p in self.players.values() if not p.dropped}

    def active_at(self, rounds_paired: int) -> set[str]:
        """The players still in when the event had paired `rounds_paired` rounds (and not the next)."""
        return {p.id for p in self.players.values()
                if not p.dropped or (p.dropped_after is not None and p.dropped_after > rounds_paired)}

    def round_over(self) -> bool:
        if not self.rounds:
            return False
        rnd = self.rounds[-1]
        return rnd.ended or all(best_of.decided(self.spec, t) for t in rnd.tables)

    def pair_next(self, at: int | None = None) -> dict | None:
        """The "paired" entry the next round must get, or None when the event is complete."""
        if self.phase != "running":
            raise TournamentError("not_running")
        if self.rounds and not self.round_over():
            raise TournamentError("round_not_over")
        entry = plan.next_round(self)
        if entry is not None and at is not None:
            entry["at"] = at
        return entry

    @property
    def complete(self) -> bool:
        """Running, the last round over, and nothing left to pair: time for "finished"."""
        return self.phase == "running" and self.round_over() and not plan.has_next(self)

    def table_done(self, round_number: int, table: int) -> bool:
        rnd = self.rounds[round_number - 1]
        t = rnd.table(table)
        if t is None:
            raise TournamentError("bad_entry", f"no table {table} in round {round_number}")
        return rnd.ended or best_of.decided(self.spec, t)

    def games_to_create(self) -> list[GameCall]:
        """The next game of every undecided table of the round being played (the same list until a
        result arrives: create each match once, keyed by round, table and game)."""
        if self.phase != "running" or not self.rounds or self.rounds[-1].ended:
            return []
        rnd = self.rounds[-1]
        return [GameCall(rnd.round, t.table, len(t.games) + 1, best_of.seats_for(t, len(t.games) + 1), rnd.stage)
                for t in rnd.tables if not best_of.decided(self.spec, t)]

    def unfinished_result(self, round_number: int, table: int, match: str | None = None,
                          ranking: list[list[str]] | None = None) -> dict:
        """The "game" entry a round clock gives the game still playing at `table`: a draw, or (when the
        spec says "tiebreak" and the ruleset ranked the seats) `ranking`."""
        t = self.rounds[round_number - 1].table(table)
        if t is None:
            raise TournamentError("bad_entry", f"no table {table} in round {round_number}")
        game = len(t.games) + 1
        entry: dict = {"k": "game", "round": round_number, "table": table, "game": game, "match": match,
                       "seats": list(best_of.seats_for(t, game))}
        if self.spec.unfinished == "tiebreak" and ranking:
            entry["places"] = ranking
        else:
            entry["draw"] = True
        return entry

    def finish_order(self) -> dict[str, int]:
        """How far each player got in an elimination stage (empty without one)."""
        stage = "elimination"
        seeds = plan.stage_seeds(self, stage)
        if not seeds or self.spec.format == "double_elimination":
            return views.double_finish(self) if self.spec.format == "double_elimination" else {}
        return elimination.finish(self.spec, seeds, plan.stage_rounds(self, stage))

    def records(self) -> dict[str, ledger.Record]:
        """Every player's record so far. Only the current round can still change, so the records of
        the rounds before it are kept and the current one is added to them."""
        settled = max(0, len(self.rounds) - 1)
        done, past = self._past
        if done != settled:
            past = ledger.records(self.spec, list(self.players), self.rounds[done:settled], past)
            self._past = (settled, past)
        return ledger.records(self.spec, list(self.players), self.rounds[settled:], past)

    def standings(self, recs: dict[str, ledger.Record] | None = None) -> list[Standing]:
        """The ranking now (kept until the next entry: a page asks for it often, and it is the dear
        part); given the records (the pairing has them), it is computed from those."""
        if recs is not None or self._standings[0] != self.entries:
            self._standings = (self.entries, standings(self.spec, self.players, self.rounds, self.seed,
                                                       self.finish_order(), recs or self.records()))
        return list(self._standings[1])

    def bracket(self) -> list[elimination.BracketRound]:
        return views.bracket(self)

    def public(self) -> dict:
        """Everything the tournament page shows (JSON-able). Kept until the next entry, so its parts
        are shared between calls: read them, copy before changing any (the top level is a copy)."""
        if self._public[0] != self.entries:
            self._public = (self.entries, views.public(self))
        return dict(self._public[1])
