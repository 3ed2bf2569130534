"""The HTTP routes of quick play (docs/protocol.md "Quick play"): join, wait, leave.

`POST /queue` answers a ticket (with a `profile`, proven by its secret or a player
token as Bearer, the match's seat is bound to it); `GET /queue` with the ticket as Bearer
waits (long poll) until the ticket is matched or `wait_ms` passes, and counts as its
heartbeat all the while; `DELETE /queue` with it leaves. A ticket not heard from for
`queue.TICKET_EXPIRY_MS` leaves the queue by itself. Any node answers for any ticket.

The ticket is a secret (it gets its holder the seat token), so it goes in the
`Authorization` header, which proxies and access logs leave out, not in the path. The
first form, `GET /queue/{ticket}` and `DELETE /queue/{ticket}`, is still answered: the
protocol promised it (docs/protocol.md "Quick play").
"""

from __future__ import annotations

import re
import time

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import state
from battlehall.server.http.bodies import json_body
from battlehall.server.http.player_api import bearer, prove_profile
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match.validate import MAX_SEATS, SEAT_NAME
from battlehall.server.players import queue
from battlehall.server.players.player_rating import rating
from battlehall.server.players.profiles import Profiles

#: How long `GET /queue` waits at most (`wait_ms`), and by default.
MAX_WAIT_MS = 25_000
DEFAULT_WAIT_MS = 20_000
#: The seat name of a player who gives none.
DEFAULT_NAME = "player"
MAX_PROFILE = 128
#: How often a waiting request renews its ticket's heartbeat (well within its expiry).
HEARTBEAT_S = 2.0
TICKET = re.compile(r"^q_[0-9a-f]{32}$")


def join_request(body) -> tuple[str, int, str | None, str]:
    """(ruleset, seats, profile, name) of a `POST /queue` body; errors.BadRequest naming the field."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    for name in sorted(body):
        if name not in ("ruleset", "seats", "profile", "name"):
            raise errors.BadRequest(f"unknown field {name!r}", path=name)
    ruleset = body.get("ruleset")
    if ruleset not in ruleset_names():
        raise errors.BadRequest(f"must be one of {ruleset_names()}", path="ruleset")
    rules = get_ruleset(ruleset)
    most = min(MAX_SEATS, rules.max_seats)
    seats = body.get("seats", rules.min_seats)
    if not isinstance(seats, int) or isinstance(seats, bool) or not rules.min_seats <= seats <= most:
        raise errors.BadRequest(f"{ruleset} is played by {rules.min_seats} to {most} seats: an integer in that range",
                                path="seats")
    profile = body.get("profile")
    if profile is not None and (not isinstance(profile, str) or not 1 <= len(profile) <= MAX_PROFILE):
        raise errors.BadRequest(f"a profile id is a string of 1 to {MAX_PROFILE} characters", path="profile")
    name = body.get("name")
    if name is None:
        name = DEFAULT_NAME
    elif not isinstance(name, str) or not SEAT_NAME.match(name):
        raise errors.BadRequest("a name is 1-32 letters, digits, '_', '-' or '.'", path="name")
    return ruleset, seats, profile, name


def wait_param(request: Request) -> int:
    raw = request.query_params.get("wait_ms")
    if raw is None:
        return DEFAULT_WAIT_MS
    if not raw.isdigit() or int(raw) > MAX_WAIT_MS:
        raise errors.BadRequest(f"must be an integer from 0 to {MAX_WAIT_MS}", path="wait_ms")
    return int(raw)


def shown(ticket: str, status: dict[str, str], now: int) -> dict:
    """A ticket as its holder sees it."""
    ruleset, seats = status["pool"].rsplit(":", 1)
    out = {"ticket": ticket, "state": status["state"], "ruleset": ruleset, "seats": int(seats),
           "joined": int(status["joined"]), "waited_ms": max(0, now - int(status["joined"]))}
    if "result" in status:
        out.update(orjson.loads(status["result"]))
    return out


FINAL = (queue.MATCHED, queue.LEFT, queue.EXPIRED, queue.FAILED)


def ticket_of(request: Request) -> str:
    """The ticket a wait or a leave names: in the path (the first form), else as Bearer;
    errors.Unauthorized without one. Unknown() is raised by the caller for one not issued."""
    ticket = request.path_params.get("ticket") or bearer(request)
    if ticket is None:
        raise errors.Unauthorized("the ticket goes in the Authorization header: Bearer q_...", path="ticket")
    return ticket


def unknown() -> errors.NotFound:
    return errors.NotFound("no such ticket (never issued, or its answer is no longer kept)")


async def join(request: Request) -> Response:
    state.budgets(request).queue_joins.spend(request.client and request.client.host, "joined the queue too often")
    ruleset, seats, profile, name = join_request(await json_body(request))
    qp = state.quick_play(request)
    if profile is not None:  # the seat will be bound to it: the caller must prove it is theirs
        jwt_key = state.player_settings(request).jwt_key
        profile = await prove_profile(Profiles(qp.queue.profiles), jwt_key, profile, bearer(request))
    now = now_ms()
    pool = queue.pool_name(ruleset, seats)
    ticket = await qp.queue.join(pool, await rating(qp.queue.profiles, profile, ruleset), name, now, profile)
    qp.matcher.wake.set()  # if this node holds the matcher, it looks at the pools now
    return ORJSONResponse({"ticket": ticket, "state": queue.WAITING, "ruleset": ruleset, "seats": seats,
                           "joined": now, "waited_ms": 0, "expires_ms": queue.TICKET_EXPIRY_MS}, 201)


async def wait(request: Request) -> Response:
    ticket = ticket_of(request)
    if not TICKET.match(ticket):
        raise unknown()
    wait_ms = wait_param(request)
    qp = state.quick_play(request)
    deadline = time.monotonic() + wait_ms / 1000
    beaten = 0.0
    while True:
        status = await qp.queue.status(ticket)
        if status is None:
            raise unknown()
        if status["state"] in FINAL or time.monotonic() >= deadline or await request.is_disconnected():
            return ORJSONResponse(shown(ticket, status, now_ms()), 200)
        if status["state"] == queue.WAITING and time.monotonic() - beaten >= HEARTBEAT_S:  # still there
            beaten = time.monotonic()
            await qp.queue.heartbeat(status["pool"], ticket, now_ms())
        await qp.wait(ticket, deadline - time.monotonic())


async def leave(request: Request) -> Response:
    ticket = ticket_of(request)
    if not TICKET.match(ticket):
        raise unknown()
    qp = state.quick_play(request)
    status = await qp.queue.status(ticket)
    if status is None:
        raise unknown()
    if status["state"] == queue.WAITING and await qp.queue.leave(status["pool"], ticket):
        status["state"] = queue.LEFT
    else:  # matched or being matched meanwhile: say so
        status = await qp.queue.status(ticket) or status
    return ORJSONResponse(shown(ticket, status, now_ms()), 200)


routes: list[Route] = [
    Route("/queue", join, methods=["POST"]),
    Route("/queue", wait, methods=["GET"]),
    Route("/queue", leave, methods=["DELETE"]),
    Route("/queue/{ticket}", wait, methods=["GET"]),
    Route("/queue/{ticket}", leave, methods=["DELETE"]),
]
