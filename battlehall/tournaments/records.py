"""What the fold of an event's log keeps: its players, and each round's tables and games."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Player:
    id: str
    name: str
    rating: float
    order: int  # place in the registration order (the last fallback of every ordering)
    checked_in: bool = False
    dropped: bool = False
    dropped_after: int | None = None  # rounds paired when the player dropped


@dataclass(frozen=True, slots=True)
class Game:
    game: int
    match: str | None
    seats: tuple[str, ...]
    places: tuple[tuple[str, ...], ...]  # ranks, best first; a draw is one place shared by all

    @property
    def winner(self) -> str | None:
        return self.places[0][0] if len(self.places[0]) == 1 else None


@dataclass(slots=True)
class Table:
    table: int
    players: tuple[str, ...]  # in the seat order of its first game
    games: list[Game] = field(default_factory=list)


@dataclass(slots=True)
class Round:
    round: int
    stage: str  # swiss | round_robin | elimination | losers | final
    tables: list[Table]
    byes: tuple[str, ...]
    ended: bool = False  # a round_ended entry closed it (a round clock may close undecided tables)
    extra: dict = field(default_factory=dict)  # what a stage keeps in its first entry (elimination seeds)

    def table(self, number: int) -> Table | None:
        return self.tables[number - 1] if 1 <= number <= len(self.tables) else None
