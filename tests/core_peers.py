"""Who sends the match core its inputs, as the sans-I/O tests stand them in: no socket."""

from __future__ import annotations


class Peer:
    """Whoever sent an input, as the core sees it: a seat and a role, nothing more."""

    def __init__(self, seat: str | None, role: str = "player"):
        self.seat, self.role = seat, role

    @property
    def audience(self) -> str | None:
        return self.seat

    def __repr__(self) -> str:
        return f"Peer({self.seat})"


class Reply:
    """An opaque handle the core hands back in Resolve / Reject."""
