"""Tokens an operator signs to vouch for one of its players (a JWT, checked with PyJWT).

An operator with accounts of its own need not make its players keep a guest secret: it
signs `{"sub": <its player id>, "name": <display name>, "exp": <unix time>}` with the
server's `BATTLEHALL_JWT_KEY` (HS256), and the token stands for that player's profile
(created on first use, renamed when `name` changes). docs/operations.md has an example.
"""

from __future__ import annotations

from dataclasses import dataclass

import jwt

from . import errors, names

ALGORITHM = "HS256"
MAX_SUB = 128
MAX_TOKEN_CHARS = 4096


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
    sub = claims["sub"]
    if not isinstance(sub, str) or not 1 <= len(sub) <= MAX_SUB or not sub.isprintable():
        raise errors.TokenInvalid(f"the token's sub must be 1-{MAX_SUB} printable characters")
    try:
        name = names.display_name(claims["name"])
    except names.BadName as exc:
        raise errors.TokenInvalid(f"the token's name {exc.message}") from None
    return Vouched(sub, name)
