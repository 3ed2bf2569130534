"""The operator's hand on a match's clocks, over the API: pause, resume, add time to a seat
(docs/protocol.md, Operator routes). Each goes to the match's actor as a `Judge` input and
is answered once its log entry is in Redis (match/judging.py); on another node's match it
is passed on to that node, as an abort is."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine.errors import MatchOver
from battlehall.server import errors
from battlehall.server.http.bodies import json_body
from battlehall.server.match import inputs
from battlehall.server.node import nodes
from battlehall.server.node.hub import OPERATOR_TIMEOUT_S, Hub
from battlehall.server.storage.store import StoreUnavailable

#: The most time one action adds to a seat's bank (ms): ten minutes.
MAX_ADD_MS = 600_000


async def judge(hub: Hub, match_id: str, action: dict) -> bool:
    """Apply `action` to the match through its actor; False if there is no such match.
    MatchOver if it has ended; StoreUnavailable if Redis did not take it."""
    actor = hub.actors.get(match_id)
    if actor is None:
        if not await hub.store.is_live(match_id):  # never load an ended match for this
            if await hub.store.exists(match_id):
                raise MatchOver("the match has already ended")
            return False
        actor = await hub.actor(match_id)
        if actor is None:
            return False
    if "seat" in action and action["seat"] not in actor.core.meta["seats"]:
        raise errors.BadRequest(f"no seat {action['seat']!r} in this match", path="seat")
    done = asyncio.get_running_loop().create_future()
    actor.submit(inputs.Judge(done, action))
    try:
        await asyncio.wait_for(done, OPERATOR_TIMEOUT_S)
    except asyncio.TimeoutError:
        raise StoreUnavailable(f"the {action['action']} was not confirmed within {OPERATOR_TIMEOUT_S} s") from None
    return True


async def added_time(request: Request) -> dict:
    """`POST /matches/{id}/time`'s body, `{"seat": seat, "ms": n}`, checked."""
    body = await json_body(request)
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object: {\"seat\", \"ms\"}", path="")
    seat, ms = body.get("seat"), body.get("ms")
    if not isinstance(seat, str):
        raise errors.BadRequest("seat must be the name of one of the match's seats", path="seat")
    if not isinstance(ms, int) or isinstance(ms, bool) or not 1 <= ms <= MAX_ADD_MS:
        raise errors.BadRequest(f"ms must be an integer from 1 to {MAX_ADD_MS}", path="ms")
    return {"action": "add_time", "by": "operator", "seat": seat, "ms": ms}


def routes(hub_of: Callable[[Request], Hub], respond: Callable[..., Response],
           keyed: Callable[..., Callable]) -> list[Route]:
    async def act(request: Request, action: dict) -> Response:
        hub, match_id = hub_of(request), request.path_params["match_id"]
        try:
            if not await judge(hub, match_id, action):
                raise errors.NotFound("no such match")
        except errors.NotHere as exc:  # the owner applies it, in order with the match's answers
            if exc.redirect is None:
                raise errors.Unavailable("the node running this match does not answer; try again") from None
            base = exc.redirect.rsplit("/ws/", 1)[0]
            answer = await nodes.forward(base, "POST", request.url.path, await request.body(),
                                         {"authorization": request.headers.get("authorization", ""),
                                          "content-type": "application/json"})
            return Response(answer.content, status_code=answer.status_code, media_type="application/json")
        except StoreUnavailable as exc:
            raise errors.Unavailable(f"match storage is unreachable, nothing was recorded: {exc}") from exc
        actor = hub.actors.get(match_id)
        clock = actor.core.clock if actor is not None else None
        return respond({"match": match_id, "paused": clock is not None and clock.paused is not None,
                        "banks": dict(clock.data["banks"]) if clock is not None else {}})

    async def pause(request: Request) -> Response:
        return await act(request, {"action": "pause", "by": "operator"})

    async def resume(request: Request) -> Response:
        return await act(request, {"action": "resume", "by": "operator"})

    async def add_time(request: Request) -> Response:
        return await act(request, await added_time(request))

    return [Route("/matches/{match_id}/pause", keyed(pause, operator=True), methods=["POST"]),
            Route("/matches/{match_id}/resume", keyed(resume, operator=True), methods=["POST"]),
            Route("/matches/{match_id}/time", keyed(add_time, operator=True), methods=["POST"])]
