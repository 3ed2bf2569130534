"""The operator's API key: `Authorization: Bearer <key>` on the routes that need it."""

from __future__ import annotations

import hmac


def bearer(header: str) -> str | None:
    """The credentials of a Bearer `Authorization` header; the scheme name is
    case-insensitive (RFC 7235), so `bearer KEY` is as good as `Bearer KEY`."""
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


def key_matches(api_key: str, header: str) -> bool:
    given = bearer(header)
    return given is not None and hmac.compare_digest(given.encode(), api_key.encode())
