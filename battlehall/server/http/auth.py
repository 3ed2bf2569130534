"""The operator's API key: `Authorization: Bearer <key>` on the routes that need it,
with wrong keys counted per address (key_guard.py)."""

from __future__ import annotations

import hashlib
import hmac

from battlehall.server import errors
from battlehall.server.http.key_guard import KeyGuard
from battlehall.server.storage import public


def bearer(header: str) -> str | None:
    """The credentials of a Bearer `Authorization` header; the scheme name is
    case-insensitive (RFC 7235), so `bearer KEY` is as good as `Bearer KEY`."""
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


def key_matches(api_key: str, header: str) -> bool:
    """In constant time: the digests compared are of one length whatever the key given,
    so not even the key's length shows in the time taken."""
    given = bearer(header)
    return hmac.compare_digest(_digest(given or ""), _digest(api_key)) and given is not None


class KeyCheck:
    """The API key check of every route that needs it, throttled per client address."""

    def __init__(self, api_key: str | None, guard: KeyGuard):
        self.api_key = api_key
        self.guard = guard

    def refusal(self, address: str | None, header: str | None) -> errors.WireError | None:
        """None when a request from `address` with this `Authorization` header (None:
        none sent) may go on, else why not; the server has a key to check."""
        assert self.api_key
        wait = self.guard.retry_after(address)
        if wait is not None:
            return errors.KeyThrottled(f"too many wrong API keys from this address: try again in {wait} s",
                                       retry_after=wait)
        if header is not None and key_matches(self.api_key, header):
            return None
        if header is not None:  # a guess; a request with no key at all guesses nothing
            self.guard.failed(address)
        return errors.Unauthorized("a valid API key is required (Authorization: Bearer <key>)")


def may_read(meta: dict, authorization: str, api_key: str | None) -> bool:
    """Whether a request with this `Authorization` header may read the match's replay:
    anyone for a public match; for a private one, a Bearer token that is a seat's, the
    spectator token or the server's API key."""
    if public.is_public(meta):
        return True
    given = bearer(authorization or "")
    if given is None:
        return False
    secrets = [*meta["tokens"].values(), meta["spectator_token"], *([api_key] if api_key else [])]
    found = False
    for secret in secrets:  # every one compared, in constant time each
        found |= hmac.compare_digest(given.encode(), secret.encode())
    return found
