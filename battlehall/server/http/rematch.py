"""Rematch: once a match has ended, its seats offer and accept a new one (docs/protocol.md "Rematch").

    POST /matches/{id}/rematch   with a seat's token as Bearer: that seat offers (or accepts)
    GET  /matches/{id}/rematch   with a seat's token as Bearer: who has offered, and the new match once made

Offers live in Redis under the match's hash tag, so any node answers: `rematch` is a hash
of seat -> 1 (the offers), `rematch_of` the new match's id (SET NX: however many last
acceptances arrive at once, one makes the match), `rematch_made` the new match with each
old seat's new token. All three expire with the match's retention.

The new match is the old one played again: same ruleset, options, setup, clock, spectator
and caster settings, labels, bots, profile bindings and `rated`, a fresh seed, and the seats'
order rotated by one (the first seat moves to the end), which changes who goes first.
Seat names stay with their players, so each player keeps their name and profile.

A rematch is a creation like any other: the acceptance that makes it takes a token of the
node's creation budget for its address (the one POST /matches and POST /bot-matches
take), and on a server with an API key a match the operator made with it (`made_by`
"operator") is not played again without it: its players are answered 403 `forbidden`
(quick-play and bot matches, which need no key, may be).
"""

from __future__ import annotations

import asyncio
import hmac

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine.errors import SetupError
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.config import Settings
from battlehall.server.http import auth
from battlehall.server.http import state as http_state  # `state` in this module is a match's
from battlehall.server.http.creation_limit import CreationLimit
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import validate
from battlehall.server.node.hub import Hub

#: How long a creation may hold the `rematch_of` claim before another acceptance may try again.
CLAIM_S = 30
#: How long an acceptance that lost the claim waits for the winner's new match before answering.
WAIT_S = 5.0
#: The create request's fields a rematch copies from the old match's meta.
COPIED = ("ruleset", "options", "setup", "clock", "spectators", "label", "caster", "when_away", "bots")


def rotated(seats: list[str]) -> list[str]:
    """The seats' order for the rematch: the first seat moves to the end."""
    return seats[1:] + seats[:1]


#: How a match was made (its meta's `made_by`): the routes that need no API key on a keyed server.
KEYLESS_ORIGINS = ("quick_play", "bot")


def made_by(meta: dict) -> str:
    """`player` (POST /matches without a key), `operator` (with it), `quick_play` or `bot`;
    a match made before the field was recorded: from its label."""
    if "made_by" in meta:
        return meta["made_by"]
    queue = (meta.get("label") or {}).get("queue")
    return {"quick play": "quick_play", "bot": "bot"}.get(str(queue), "player")


def create_body(meta: dict) -> dict:
    """The POST /matches body of the rematch (validated as any other)."""
    return {**{name: meta[name] for name in COPIED if name in meta}, "seats": rotated(meta["seats"])}


async def offer(request: Request) -> Response:
    return await answer(request, offering=True)


async def show(request: Request) -> Response:
    return await answer(request, offering=False)


async def answer(request: Request, offering: bool) -> Response:
    hub = http_state.hub(request)
    settings = http_state.settings(request)
    match_id = request.path_params["match_id"]
    try:
        meta, state = await finished(hub, match_id)
        seat = seat_of(meta, request.headers.get("authorization", ""))
        if offering:
            if not allowed(settings, meta):
                raise errors.Forbidden("this match was made with the server's API key: only its holder "
                                       "makes another (POST /matches)")
            await offer_seat(hub, settings, http_state.budgets(request).matches, match_id, meta, state, seat,
                             request.client and request.client.host)
        return ORJSONResponse(await rematch_state(settings, hub, match_id, meta, state, seat))
    except SetupError as exc:  # the ruleset refuses its own old settings (a changed server)
        raise errors.RematchRefused(f"this match cannot be played again: {exc.message}") from None


async def finished(hub: Hub, match_id: str) -> tuple[dict, dict]:
    """The match's meta and state; 404 for no such match."""
    found = await hub.meta_and_state(match_id)
    if found is None:
        raise errors.NotFound("no such match")
    return found


def seat_of(meta: dict, header: str) -> str:
    """The seat whose token is the Bearer token; 401 otherwise (a spectator's too)."""
    given = auth.bearer(header) or ""
    found = None
    for seat, token in meta["tokens"].items():  # every token compared: the time says nothing
        if hmac.compare_digest(given.encode(), token.encode()):
            found = seat
    if found is None:
        raise errors.Unauthorized("a rematch needs one of the match's seat tokens as "
                                  "Authorization: Bearer <token>")
    return found


def allowed(settings: Settings, meta: dict) -> bool:
    """Whether the server lets the match's players make it again: always without an API
    key; with one, for the matches made without it (quick play, bot matches)."""
    return not settings.api_key or made_by(meta) in KEYLESS_ORIGINS


def needed(meta: dict, state: dict) -> list[str]:
    """The seats whose offers make the rematch: every seat a player plays, one that
    resigned too, as the rematch gives each of them a seat again (a bot's seat is
    always willing)."""
    bots = meta.get("bots") or {}
    return [seat for seat in meta["seats"] if seat not in bots]


async def offer_seat(hub: Hub, settings: Settings, creations: CreationLimit, match_id: str, meta: dict,
                     state: dict, seat: str, address: str | None) -> None:
    if state["result"] is None:
        raise errors.MatchLive("a rematch is offered once the match has ended")
    records = hub.store.rematches
    found = await records.offer(match_id, seat, settings.retention_s)  # Redis errors: 503 (app.py)
    offered, made = found.offered, found.made
    if made or not all(s in offered for s in needed(meta, state)):
        return
    try:  # the acceptance that makes the match spends its address's creation budget
        creations.spend(address, "created too many matches")
    except errors.RateLimited:
        await records.withdraw(match_id, seat)  # not accepted: the seat accepts again after Retry-After
        raise
    if not await records.claim(match_id, CLAIM_S):
        await wait_made(hub, match_id)  # another acceptance makes it
        return
    try:
        await make(hub, settings, match_id, meta)
    except BaseException:  # refused (409, 503): nothing recorded, the next offer tries again
        await records.unclaim(match_id)
        await records.withdraw(match_id, seat)
        raise


async def make(hub: Hub, settings: Settings, match_id: str, meta: dict) -> None:
    request = validate.create_request(create_body(meta), settings.caster_min_delay_ms)
    # The profiles were checked when the old match was made: bound again as they were,
    # and the new match was made the way the old one was (its ratings' rules, its rematch).
    bound = {"profiles": meta["profiles"], "rated": meta.get("rated", False)} if meta.get("profiles") else {}
    bound["made_by"] = made_by(meta)
    bound["made_from"] = meta.get("made_from")  # its bots' turns wait in the same lane (bot_turns.py)
    delay_ms = meta["spectators"]["delay_ms"]
    if delay_ms:  # listed once the old match's end is public: it tells that the old one ended
        bound["listed_from"] = now_ms() + delay_ms
    created = await hub.placement.create(create_body(meta), request, bound)  # on the least loaded node
    made = {"match": created["match"], "ws": created["ws"], "ws_url": created["ws_url"],
            **{f"token:{seat}": token for seat, token in created["tokens"].items()}}
    await hub.store.rematches.made(match_id, created["match"], made, settings.retention_s)


async def wait_made(hub: Hub, match_id: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while asyncio.get_running_loop().time() < deadline:
        if await hub.store.rematches.is_made(match_id):
            return
        await asyncio.sleep(0.05)


async def rematch_state(settings: Settings, hub: Hub, match_id: str, meta: dict, state: dict, seat: str) -> dict:
    found = await hub.store.rematches.offers(match_id)
    offered, made = found.offered, found.made
    rematch = None
    if made:
        rematch = {"match": made["match"], "ws": made["ws"], "ws_url": made["ws_url"], "seat": seat,
                   "token": made[f"token:{seat}"], "seats": rotated(meta["seats"])}
    return {"match": match_id, "seat": seat, "ended": state["result"] is not None, "allowed": allowed(settings, meta),
            "offers": [s for s in meta["seats"] if s in offered],
            "waiting_for": [s for s in needed(meta, state) if s not in offered] if not made else [],
            "rematch": rematch}


routes: list[Route] = [
    Route("/matches/{match_id}/rematch", offer, methods=["POST"]),
    Route("/matches/{match_id}/rematch", show, methods=["GET"]),
]
