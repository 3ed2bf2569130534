"""Tokens an operator signs to vouch for one of its players (a JWT, checked with PyJWT).

An operator with accounts of its own need not make its players keep a guest secret: it
signs `{"sub": <its player id>, "name": <display name>, "exp": <unix time>}` with the
server's `BATTLEHALL_JWT_KEY` (HS256), and the token stands for that player's profile
(created on first use, renamed when `name` changes), until its `exp`, which may be at
most `BATTLEHALL_JWT_MAX_LIFETIME_S` ahead. docs/operations.md has an example.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import jwt

from battlehall.server import errors
from battlehall.server.config import DEFAULT_JWT_MAX_LIFETIME_S
from battlehall.server.players import names

ALGORITHM = "HS256"
MAX_SUB = 128
MAX_TOKEN_CHARS = 4096
#: The longest a token may still be valid when it is checked (its `exp` at most this far
#: ahead), for a key that does not say (the server's say BATTLEHALL_JWT_MAX_LIFETIME_S).
DEFAULT_MAX_LIFETIME_S = DEFAULT_JWT_MAX_LIFETIME_S
#: How far ahead of the server's the signer's clock may be: a token signed for exactly
#: the longest lifetime is not refused for a few seconds of difference.
CLOCK_SKEW_S = 60


class SigningKey(bytes):
    """The server's HS256 key, carrying the longest lifetime it takes tokens for.

    A key, not a second argument: every place a token is checked is handed the key
    (player_settings.py), so each applies the same limit."""

    max_lifetime_s: int

    def __new__(cls, secret: bytes, max_lifetime_s: int = DEFAULT_MAX_LIFETIME_S) -> "SigningKey":
        key = super().__new__(cls, secret)
        key.max_lifetime_s = max_lifetime_s
        return key


@dataclass(frozen=True)
class Vouched:
    sub: str
    name: str


def verify(token: object, key: bytes | None) -> Vouched:
    """The player a token names; errors.TokenRefused (its subclass says why, docs/protocol.md
    "Player tokens") if it is not a valid token signed with `key`."""
    if key is None:
        raise errors.TokenNotAccepted("this server takes no player tokens (BATTLEHALL_JWT_KEY is not set)")
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        raise errors.TokenInvalid(f"a token is a JWT string of at most {MAX_TOKEN_CHARS} characters")
    try:
        claims = jwt.decode(token, key, algorithms=[ALGORITHM], options={"require": ["exp", "sub", "name"]})
    except jwt.ExpiredSignatureError:
        raise errors.TokenExpired("the token has expired (its exp is past)") from None
    except jwt.InvalidAlgorithmError:
        raise errors.TokenAlgorithm(f"the token must be signed with {ALGORITHM}") from None
    except jwt.InvalidSignatureError:
        raise errors.TokenSignature("the token's signature does not match the server's key") from None
    except jwt.InvalidTokenError as exc:
        raise errors.TokenInvalid(f"not a valid token: {exc}") from None
    _check_lifetime(claims["exp"], key.max_lifetime_s if isinstance(key, SigningKey) else DEFAULT_MAX_LIFETIME_S)
    sub = claims["sub"]
    if not isinstance(sub, str) or not 1 <= len(sub) <= MAX_SUB or not sub.isprintable():
        raise errors.TokenInvalid(f"the token's sub must be 1-{MAX_SUB} printable characters")
    try:
        name = names.display_name(claims["name"])
    except names.BadName as exc:
        raise errors.TokenInvalid(f"the token's name {exc.message}") from None
    return Vouched(sub, name)


def _check_lifetime(exp: object, max_lifetime_s: int) -> None:
    """errors.TokenInvalid if the token is good for longer than the server takes: a token
    with `exp` in the year 9999 was a key to that player's profile for ever."""
    try:  # as PyJWT reads it when it checks that exp is not past (it takes "123" too)
        ahead = int(exp) - time.time()  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        raise errors.TokenInvalid("the token's exp must be a number (Unix seconds)") from None
    if ahead > max_lifetime_s + CLOCK_SKEW_S:
        raise errors.TokenInvalid(f"the token is valid for too long: its exp may be at most {max_lifetime_s} s "
                                  "ahead (BATTLEHALL_JWT_MAX_LIFETIME_S)")
