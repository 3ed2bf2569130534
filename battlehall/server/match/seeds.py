"""The seed a match's engine runs on: secret until the match ends, committed to from the start.

The engine's generator (engine/rng.py) turns the seed into every hidden card, so whoever
knows the seed knows the cards. Unless the request says the seed is public, the engine
seed is 256 fresh bits from `secrets` (mixed, by HMAC-SHA256, with the seed the request
gave, if any): nothing a seat sees or was told can rebuild it. The match publishes a
commitment to it at creation, and its replay reveals it, so anyone can re-run the match
(`battlehall verify`) and check that the cards were not chosen.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SECRET_BYTES = 32


def engine_seed(given: int | None, public: bool) -> int:
    """The integer the engine is seeded with; `given` itself only when it is public."""
    if public:
        assert given is not None
        return given
    secret = secrets.token_bytes(SECRET_BYTES)
    if given is not None:
        secret = hmac.new(secret, str(given).encode(), hashlib.sha256).digest()
    return int.from_bytes(secret, "big")


def commitment(seed: int) -> str:
    """SHA-256, in lowercase hex, of the seed's decimal digits in ASCII."""
    return hashlib.sha256(str(int(seed)).encode()).hexdigest()


def as_data(seed: int) -> int | str:
    """The seed as JSON and MessagePack carry it: a number up to 2**63 - 1, else its
    decimal digits in a string (a secret seed is 256 bits); `int()` reads both."""
    return seed if seed < 2**63 else str(seed)
