"""What the events take from the server's settings and environment (docs/tournaments.md, Limits)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from battlehall.server.config import Settings


def _number(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    node: str
    api_key: str | None
    lease_ms: int
    retention_s: int
    #: The most players an event may take (its `max_players` is at most this).
    max_players: int = 1024
    #: Players may create events on a server with an API key.
    player_tournaments: bool = False
    create_per_min: float = 2.0
    create_burst: int = 5
    register_per_min: float = 20.0
    register_burst: int = 20
    #: An event nobody starts is cancelled this long after its creation.
    expire_s: int = 86_400
    #: How often each node looks for events whose lease lapsed.
    scan_s: float = 2.0

    @classmethod
    def of(cls, settings: Settings, environ: Mapping[str, str] = os.environ) -> TournamentSettings:
        def number(name: str, default: float) -> float:
            return _number(environ, f"BATTLEHALL_TOURNAMENT_{name}", default)
        return cls(node=settings.node, api_key=settings.api_key, lease_ms=settings.lease_ms,
                   retention_s=settings.retention_s,
                   max_players=max(2, min(1024, int(number("MAX_PLAYERS", 1024)))),
                   player_tournaments=environ.get("BATTLEHALL_PLAYER_TOURNAMENTS", "0") not in ("", "0", "false"),
                   create_per_min=number("CREATE_PER_MIN", 2), create_burst=int(number("CREATE_BURST", 5)),
                   register_per_min=number("REGISTER_PER_MIN", 20), register_burst=int(number("REGISTER_BURST", 20)),
                   expire_s=int(number("EXPIRE_S", 86_400)),
                   scan_s=max(0.05, min(2.0, settings.takeover_scan_ms / 1000 * 2)))
