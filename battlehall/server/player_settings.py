"""Settings of player profiles and ratings, read from the environment.

Kept apart from config.Settings so that profiles stay one module group; every one is in
the README's configuration table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .config import _env_float, _env_int

MIN_JWT_KEY_BYTES = 32  # RFC 7518 3.2: an HS256 key at least as long as its hash


@dataclass(frozen=True)
class PlayerSettings:
    #: The HS256 key of tokens operators sign to vouch for their players (vouch.py);
    #: None: no token is accepted, guest profiles only.
    jwt_key: bytes | None = None
    #: Guest profiles one address may create per minute, after a burst (POST /profiles).
    profile_per_min: float = 10.0
    profile_burst: int = 20

    @classmethod
    def from_env(cls) -> "PlayerSettings":
        key = os.environ.get("BATTLEHALL_JWT_KEY") or None
        if key is not None and len(key.encode()) < MIN_JWT_KEY_BYTES:
            raise ValueError(f"BATTLEHALL_JWT_KEY must be at least {MIN_JWT_KEY_BYTES} bytes "
                             "(e.g. python3 -c 'import secrets; print(secrets.token_hex(32))')")
        settings = cls(jwt_key=key.encode() if key else None,
                       profile_per_min=_env_float("BATTLEHALL_PROFILE_PER_MIN", cls.profile_per_min),
                       profile_burst=_env_int("BATTLEHALL_PROFILE_BURST", cls.profile_burst))
        if settings.profile_per_min < 0 or settings.profile_burst < 1:
            raise ValueError("BATTLEHALL_PROFILE_PER_MIN must be 0 or more, BATTLEHALL_PROFILE_BURST at least 1")
        return settings
