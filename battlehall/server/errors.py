"""Every error a client can be answered, one class per code of docs/protocol.md, and the
one place each kind of answer is built.

A refusal raises (or hands on) a `WireError`: its class says the stable `code`, the HTTP
status when it answers a request, and the WebSocket close code used when it ends a
session; the instance says the message for people, and where they apply the request
field at fault (`path`), the act it answers (`id`), `Retry-After` and other headers.
Where it is caught it becomes an answer here: `response` (app.py's exception handler,
for every route), `raw_response` (a connection refused by a limit before the app, or a
WebSocket upgrade) and `ws_message` (a socket). The engine's errors carry their codes
already; `of` maps them, and anything else (a bug: `internal`), onto this tree.
"""

from __future__ import annotations

import http
from collections.abc import Mapping
from typing import Any, ClassVar

import orjson

from battlehall.engine.errors import EngineError


# Not wire errors: what the store raises (storage/), here so that the match's core can
# catch them without importing anything that talks to Redis.
class StoreUnavailable(Exception):
    """Redis could not be reached or refused a write; nothing was acknowledged."""


class Fenced(StoreUnavailable):
    """The match's lease is no longer this node's: its write was refused (storage/lease.py)."""


class WireError(Exception):
    """A refusal with a stable code; an abstract base (no `code` of its own)."""

    code: ClassVar[str]
    #: The message when none is given.
    default: ClassVar[str] = "refused"
    #: The HTTP status of this code; None where it is never an HTTP answer.
    status: ClassVar[int | None] = None
    #: The WebSocket close code when this error ends a session; None where it never does.
    close_code: ClassVar[int | None] = None
    #: `Retry-After` (seconds) when none is given.
    default_retry_after: ClassVar[int | None] = None

    def __init__(self, message: str | None = None, *, path: str | None = None, id: str | int | None = None,
                 retry_after: int | None = None, headers: Mapping[str, str] | None = None):
        message = self.default if message is None else message
        super().__init__(message)
        self.message = message
        #: the request field (or query parameter) at fault; "" for the body as a whole
        self.path = path
        #: the `id` of the act (or resign, claim_win) this error answers
        self.id = id
        self.retry_after = self.default_retry_after if retry_after is None else retry_after
        self.headers = dict(headers or {})

    def at(self, path: str) -> "WireError":
        """This error, naming the request field `path` (a token checked for a field)."""
        self.path = path
        return self

    def answering(self, act_id: str | int | None) -> "WireError":
        """A copy of this error answering the act `act_id` (one error may refuse several acts)."""
        answer = Exception.__new__(type(self), self.message)
        answer.__dict__.update(self.__dict__)
        answer.id = act_id
        return answer

    def extra(self) -> dict:
        """Fields a WebSocket error message carries beyond code, message and id."""
        return {}


# -- WebSocket messages, and HTTP codes they share ----------------------------------------

class BadMessage(WireError):
    code = "bad_message"
    default = "bad message"
    close_code = 1008


class NotFound(WireError):
    code = "not_found"
    default = "no such match"
    status = 404
    close_code = 4004


class Unauthorized(WireError):
    code = "unauthorized"
    default = "bad token"
    status = 401
    close_code = 4001


class Full(WireError):
    code = "full"
    default = "this match has as many spectators as it allows"
    close_code = 1008


class WrongRole(WireError):
    code = "wrong_role"
    default = "this token gives another role"
    close_code = 4001


class Spectator(WireError):
    code = "spectator"
    default = "spectators cannot act"


class BadSeat(WireError):
    code = "bad_seat"
    default = "not a seat of the match, or one that has resigned"


class NoClaim(WireError):
    """A claim of the win where the match does not allow it (`when_away` is not "claim")
    or no other seat is away."""
    code = "no_claim"
    default = "no win to claim"


class UnknownPrompt(WireError):
    code = "unknown_prompt"
    default = "no such open prompt"


class NotYourPrompt(WireError):
    code = "not_your_prompt"
    default = "the prompt is another seat's"


class IllegalOption(WireError):
    code = "illegal_option"
    default = "not an option of the prompt"


class BadArgs(WireError):
    code = "bad_args"
    default = "bad arguments"


class MatchOver(WireError):
    code = "match_over"
    default = "the match has already ended"
    status = 409


class RateLimited(WireError):
    code = "rate_limited"
    default = "too many messages; slow down"
    status = 429
    close_code = 1008


class Unavailable(WireError):
    code = "unavailable"
    default = "match storage is unreachable; try again"
    status = 503
    close_code = 1011


class Internal(WireError):
    code = "internal"
    default = "internal error"
    status: ClassVar[int] = 500  # int, not None: the answer of any error that has no status
    close_code = 1011


class TooLarge(WireError):
    """HTTP: a body over the limit. WebSocket: reserved (an oversized message is closed
    with 1009 by the socket itself, without an error message)."""
    code = "too_large"
    default = "the request body is too large"
    status = 413
    close_code = 1009


class NotHere(WireError):
    """Another node runs this live match; `redirect` is its socket URL, when known."""
    code = "not_here"
    default = "this match is run by another node: connect there"
    close_code = 4009

    def __init__(self, redirect: str | None = None, message: str | None = None, **fields):
        super().__init__(message, **fields)
        self.redirect = redirect

    def extra(self) -> dict:
        return {"redirect": self.redirect} if self.redirect else {}


# -- HTTP only -------------------------------------------------------------------------------

class BadRequest(WireError):
    code = "bad_request"
    default = "bad request"
    status = 400


class BadSetup(WireError):
    code = "bad_setup"
    default = "bad create request"
    status = 400


class BadName(WireError):
    code = "bad_name"
    default = "not a display name"
    status = 400


class TokenRefused(WireError):
    """A player token not taken (vouch.py); an abstract base: each reason has its code."""
    status = 401


class TokenExpired(TokenRefused):
    code = "token_expired"
    default = "the token has expired (its exp is past)"


class TokenSignature(TokenRefused):
    code = "token_signature"
    default = "the token's signature does not match the server's key"


class TokenAlgorithm(TokenRefused):
    code = "token_algorithm"
    default = "the token is not signed with the algorithm the server takes"


class TokenInvalid(TokenRefused):
    code = "token_invalid"
    default = "not a valid token"


class TokenNotAccepted(TokenRefused):
    code = "token_not_accepted"
    default = "this server takes no player tokens (BATTLEHALL_JWT_KEY is not set)"


class Forbidden(WireError):
    code = "forbidden"
    default = "forbidden"
    status = 403


class MethodNotAllowed(WireError):
    code = "method_not_allowed"
    default = "method not allowed"
    status = 405


class RequestTimeout(WireError):
    code = "timeout"
    default = "the request did not arrive in full in time"
    status = 408


class MatchPaused(WireError):
    """The match's clocks are paused (a judge's): answers wait for the resume; or a pause
    of a match already paused."""
    code = "match_paused"
    default = "the match's clocks are paused"
    status = 409


class NotPaused(WireError):
    code = "not_paused"
    default = "the match's clocks are not paused"
    status = 409


class MatchLive(WireError):
    """The match has not ended: no replay yet, no delete (abort it first), no rematch."""
    code = "match_live"
    default = "the match is live: abort it first"
    status = 409


class RematchRefused(WireError):
    code = "rematch_refused"
    default = "this match cannot be played again"
    status = 409


class RewindRefused(WireError):
    """A judge's rewind to a point the match cannot go on from (inside an open window)."""
    code = "rewind_refused"
    default = "the match cannot be taken back to there"
    status = 409


class NotLeased(WireError):
    code = "not_leased"
    default = "this node runs without persistence: nothing to hand on"
    status = 409


class HostNotAllowed(WireError):
    code = "host_not_allowed"
    default = ("this server does not answer to that Host name (BATTLEHALL_ALLOWED_HOSTS lists the names "
               "it answers besides loopback ones)")
    status = 421


class KeyThrottled(WireError):
    code = "key_throttled"
    default = "too many wrong API keys from this address"
    status = 429


class TooManyConnections(WireError):
    code = "too_many_connections"
    default = "this address has too many connections open: close some first"
    status = 429


class HeaderTooLarge(WireError):
    code = "header_too_large"
    default = "the request line and headers are too large"
    status = 431


class Busy(WireError):
    code = "busy"
    default = "the server is busy; try again"
    status = 503
    default_retry_after = 1


# -- the tree, and what maps onto it ----------------------------------------------------------

def tree() -> list[type[WireError]]:
    """Every class with a code of its own, each once."""
    found, todo = [], [WireError]
    while todo:
        cls = todo.pop(0)
        if "code" in vars(cls):
            found.append(cls)
        todo += cls.__subclasses__()
    return found


BY_CODE: dict[str, type[WireError]] = {cls.code: cls for cls in tree()}


def of(exc: BaseException) -> WireError:
    """`exc` as a wire error: itself, an engine error as the class of its code (a setup
    error naming its field), anything else `internal` (a bug; its text is not shown)."""
    if isinstance(exc, WireError):
        return exc
    if isinstance(exc, EngineError):
        return BY_CODE.get(exc.code, Internal)(exc.message, path=getattr(exc, "path", None))
    return Internal()


# -- the answers ---------------------------------------------------------------------------------

def ws_message(error: WireError) -> dict:
    """The WebSocket message of an error: `{"t": "error", "code", "message"}`, with the
    `id` of the act it answers and any field of its own (`not_here`'s `redirect`)."""
    message: dict[str, Any] = {"t": "error", "code": error.code, "message": error.message}
    if error.id is not None:
        message["id"] = error.id
    message.update(error.extra())
    return message


def body(error: WireError) -> dict:
    """The body of an HTTP error: `{"error": {"code", "message", "path"?}}`."""
    fields = {"code": error.code, "message": error.message}
    if error.path is not None:
        fields["path"] = error.path
    return {"error": fields}


def http_status(error: WireError) -> tuple[WireError, int]:
    """The error an HTTP answer gives, and its status: a code that is never an HTTP answer
    reaching one is a bug, `internal`."""
    if error.status is not None:
        return error, error.status
    return Internal(), Internal.status


def http_headers(error: WireError) -> dict[str, str]:
    headers = dict(error.headers)
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    if error.status == 401:  # every 401 says how to authenticate (RFC 7235)
        headers["WWW-Authenticate"] = "Bearer"
    return headers


def raw_response(error: WireError) -> bytes:
    """A whole HTTP/1.1 answer of an error, closing the connection: for a refusal at the
    socket, before any app (limits.py)."""
    error, status = http_status(error)
    content = orjson.dumps(body(error))
    head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n" % (
        status, http.HTTPStatus(status).phrase.encode(), len(content))
    for name, value in http_headers(error).items():
        head += b"%s: %s\r\n" % (name.encode("latin-1"), value.encode("latin-1"))
    return head + b"connection: close\r\n\r\n" + content
