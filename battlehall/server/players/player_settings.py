"""What player profiles and ratings take from the server's settings (config.Settings)."""

from __future__ import annotations

from dataclasses import dataclass

from battlehall.server.config import Settings
from battlehall.server.players.vouch import SigningKey


@dataclass(frozen=True)
class PlayerSettings:
    #: The HS256 key of tokens operators sign to vouch for their players (vouch.py);
    #: None: no token is accepted, guest profiles only. A vouch.SigningKey, which carries
    #: the longest lifetime a token may have.
    jwt_key: bytes | None = None
    #: Guest profiles one address may create per minute, after a burst (POST /profiles).
    profile_per_min: float = 10.0
    profile_burst: int = 20

    @classmethod
    def of(cls, settings: Settings) -> "PlayerSettings":
        key = SigningKey(settings.jwt_key.encode(), settings.jwt_max_lifetime_s) if settings.jwt_key else None
        return cls(jwt_key=key,
                   profile_per_min=settings.profile_per_min, profile_burst=settings.profile_burst)
