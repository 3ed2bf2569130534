"""An event's refusals on the wire: 409 with the code docs/tournaments.md gives each.

The codes are the tournament core's (TournamentError) and a few of the server's own; the
answer has the protocol's error form (errors.py builds it), the code carried by the
instance, since each refusal of an event is one class with many documented codes.
"""

from __future__ import annotations

from battlehall.server import errors
from battlehall.tournaments.errors import TournamentError

#: The server's own refusals, beside the core's (docs/tournaments.md, Refusals).
ALREADY_FINISHED = "already_finished"


class Refused(errors.WireError):
    """A request the event's state does not allow: nothing changed."""

    status = 409

    def __init__(self, code: str, message: str = ""):
        super().__init__(message or code.replace("_", " "))
        # The code is the instance's: not a class of errors.py's tree, whose every class
        # is one code of docs/protocol.md.
        self.__dict__["code"] = code


def refused(exc: TournamentError) -> Refused:
    """The core's refusal as the server answers it."""
    return Refused(exc.code, exc.message or exc.code.replace("_", " "))
