"""The two ways the tournament core refuses: a bad spec, and an entry the event does not allow."""

from __future__ import annotations

# The wire codes of TournamentError (the HTTP layer maps them to 409 or 403).
CODES = frozenset({
    "already_registered", "registration_closed", "tournament_full", "not_registered",
    "check_in_closed", "already_dropped", "not_running", "round_not_over", "already_started",
    "not_enough_players",  # a start with fewer than two players able to play
    "bad_entry",  # a log entry that does not fit the event (unknown table, a game twice, ...)
})


class SpecError(ValueError):
    """A tournament body that cannot be run; `path` names the offending field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class TournamentError(Exception):
    """An entry the event's state refuses; `code` is one of CODES."""

    def __init__(self, code: str, message: str = "") -> None:
        assert code in CODES, code
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
