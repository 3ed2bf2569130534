"""The routes of a finished match's replay (docs/protocol.md "Replays and verification").

    GET /matches/{id}/replay              the whole replay: summary, seed, log, revealed events
    GET /matches/{id}/replay/steps        every seat's view at a range of steps (replay_steps.py)
    GET /matches/{id}/replay/definitions  what no step repeats: the match's inline definitions

A public match's replay is anyone's; a private one's needs one of its tokens or the API
key. Each opens when the match has ended, plus its stream delay.
"""

from __future__ import annotations

from typing import Awaitable, Callable, cast

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import Event
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import auth, state
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.node.hub import Hub
from battlehall.server.storage import public

#: What a steps route answers from (match id, its summary, a read of its replay).
Answer = Callable[[str, dict, Callable[[], Awaitable[dict]]], Awaitable[Response | dict]]


async def finished(hub: Hub, request: Request, match_id: str) -> list[dict]:
    """The match's summary (in a list, as `summaries` gives it); raises why its replay
    is refused: 404 for no such match, 401 for a private match without one of its
    tokens, 409 while it is live (to spectators: until its end plus its stream delay)."""
    found = await hub.summaries([match_id])
    if not found:
        raise errors.NotFound("no such match")
    meta = await hub.meta(match_id)
    if meta is None:  # deleted since its summary was read
        raise errors.NotFound("no such match")
    if not auth.may_read(meta, request.headers.get("authorization", ""), state.settings(request).api_key):
        raise errors.Unauthorized("the replay of a private match needs one of its tokens (a seat's or the "
                                  "spectator's) or the API key, as Authorization: Bearer <token>")
    shown = await public.as_of_delay(hub.store, found[0], now_ms())
    if shown["status"] != "finished":
        raise errors.MatchLive("the replay opens when the match has ended (plus its stream delay)")
    return found


async def replay(request: Request) -> Response:
    hub = state.hub(request)
    match_id = request.path_params["match_id"]
    found = await finished(hub, request, match_id)
    ruleset = get_ruleset(found[0]["ruleset"])
    events = []
    for record in await hub.store.events(match_id, 0):
        # hidden parts stay apart, per seat, in "private"; a stored record is an Event with its seq and at
        shown = ruleset.reveal(cast(Event, record))
        events.append({"seq": record["seq"], "at": record["at"], **shown})
    return ORJSONResponse({**found[0], **await hub.revealed(match_id), "events": events})


async def replay_steps(request: Request) -> Response:
    """A range of the steps re-run from the replay (replay_steps.py): bounded, cached."""
    pages = state.replay_pages(request)
    return await replay_pages(request, lambda match_id, summary, read: pages.page(
        match_id, summary, read, request.query_params))


async def replay_definitions(request: Request) -> Response:
    """What no step repeats: the match's inline definitions (replay_steps.py)."""
    pages = state.replay_pages(request)
    return await replay_pages(request, lambda match_id, summary, read: pages.definitions(match_id, read))


async def replay_pages(request: Request, answer: Answer) -> Response:
    hub = state.hub(request)
    match_id = request.path_params["match_id"]
    found = await finished(hub, request, match_id)

    async def read() -> dict:
        return {**found[0], **await hub.revealed(match_id)}
    answered = await answer(match_id, found[0], read)
    return answered if isinstance(answered, Response) else ORJSONResponse(answered)


routes: list[Route] = [
    Route("/matches/{match_id}/replay", replay, methods=["GET"]),
    Route("/matches/{match_id}/replay/steps", replay_steps, methods=["GET"]),
    Route("/matches/{match_id}/replay/definitions", replay_definitions, methods=["GET"]),
]
