"""Tournaments: the pure core (formats, pairings, standings, brackets; no I/O)."""

from battlehall.tournaments.errors import SpecError, TournamentError
from battlehall.tournaments.spec import Spec
from battlehall.tournaments.tournament import GameCall, Tournament
from battlehall.tournaments.verify import verify_log

__all__ = ["GameCall", "Spec", "SpecError", "Tournament", "TournamentError", "verify_log"]
