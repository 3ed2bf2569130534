"""Double elimination (placeholder until written)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlehall.tournaments.elimination import BracketRound

if TYPE_CHECKING:
    from battlehall.tournaments.tournament import Tournament


def next_double(t: Tournament) -> dict | None:
    raise NotImplementedError


def double_bracket(t: Tournament) -> list[BracketRound]:
    return []


def double_finish_order(t: Tournament) -> dict[str, int]:
    return {}
