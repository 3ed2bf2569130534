"""The routes of matches (docs/protocol.md "HTTP API"): make one, list and read them, and the
operator's abort and delete; and the rulesets a match may be of.

    POST   /matches                   a new match (behind the API key when there is one)
    GET    /matches                   the public matches, a page at a time (listing.py)
    GET    /matches/{id}              one match's summary, as its spectators see it
    DELETE /matches/{id}              the operator deletes a match
    POST   /matches/{id}/abort        the operator ends a live match without a result
    GET    /rulesets                  what each ruleset of this server is and takes
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import player_api, state
from battlehall.server.http.bodies import json_body
from battlehall.server.http.keyed import keyed, operator_keyed
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import validate
from battlehall.server.node import nodes
from battlehall.server.node.hub import Hub
from battlehall.server.node.placement import BINDING_HEADER, PLACED_HEADER, BindingGone
from battlehall.server.storage import listing, public
from battlehall.server.storage.store import StoreUnavailable

log = logging.getLogger("battlehall.app")


async def check_creation_limit(request: Request) -> None:
    """429 when the client's address has created its share of matches (creation_limit.py);
    not counted: requests with the API key, and creates another node placed here."""
    if state.settings(request).api_key or request.client is None:  # with a key, only its holders create
        return
    address = request.client.host
    if request.headers.get(PLACED_HEADER) and await from_a_node(state.hub(request), address):
        return
    state.budgets(request).matches.spend(address, "created too many matches")


async def from_a_node(hub: Hub, address: str) -> bool:
    try:
        records = await hub.store.nodes.live()
    except StoreUnavailable:
        return False
    return any(urlsplit(nodes.http_url(r.get("url", ""))).hostname == address for r in records.values())


async def create_match(request: Request) -> Response:
    settings = state.settings(request)
    await check_creation_limit(request)
    body = await json_body(request)
    binding = player_api.take_binding(body)  # seats bound to player profiles (player_api.py)
    # A SetupError is answered 400 bad_setup, a StoreUnavailable 503 (the handlers).
    placement = state.hub(request).placement
    placed = bool(request.headers.get(PLACED_HEADER))  # another node placed it here
    req = validate.create_request(body, settings.caster_min_delay_ms)
    assert isinstance(body, dict)  # create_request refuses any other body
    if placed and request.headers.get(BINDING_HEADER):  # proven on the node that placed it
        try:
            bound = await placement.take_over(request.headers[BINDING_HEADER])
        except BindingGone:
            raise errors.BadRequest(f"{BINDING_HEADER} names no binding a node handed over") from None
    else:
        operator = bool(settings.api_key)  # with a key, the key check let only its holders in
        bound = {**await player_api.bind(request, binding, req["seats"], operator),
                 "made_by": "operator" if operator else "player",
                 "made_from": request.client and request.client.host}  # bot_turns.py's lanes
    created = await placement.create(body, req, bound, placed)
    return ORJSONResponse(created, status_code=201)


async def list_matches(request: Request) -> Response:
    query = listing.parse_query(request.query_params)
    return ORJSONResponse(await listing.page(state.hub(request), query))


async def get_match(request: Request) -> Response:
    hub = state.hub(request)
    found = await hub.summaries([request.path_params["match_id"]])
    if not found:
        raise errors.NotFound("no such match")
    return ORJSONResponse(await public.as_of_delay(hub.store, found[0], now_ms()))


async def passed_on(request: Request, away: errors.NotHere, body: bytes) -> Response:
    """An action on a match another node runs, passed on to that node (which applies it in
    order with the match's answers), and its answer given back as it is."""
    if away.redirect is None:
        raise errors.Unavailable("the node running this match does not answer; try again") from None
    headers = {"authorization": request.headers.get("authorization", "")}
    if body:
        headers["content-type"] = "application/json"
    answer = await nodes.forward(away.redirect.rsplit("/ws/", 1)[0], "POST", request.url.path, body, headers)
    return Response(answer.content, status_code=answer.status_code, media_type="application/json")


async def abort_match(request: Request) -> Response:
    hub = state.hub(request)
    match_id = request.path_params["match_id"]
    try:
        if not await hub.abort(match_id):
            raise errors.NotFound("no such match")
    except errors.NotHere as exc:  # the owner applies it, in order with the match's answers
        return await passed_on(request, exc, b"")
    except StoreUnavailable as exc:  # a MatchOver is answered 409 (the handler)
        raise errors.Unavailable(f"match storage is unreachable, the abort is not recorded: {exc}") from exc
    found = await hub.summaries([match_id])
    if not found:
        raise errors.NotFound("no such match")
    return ORJSONResponse(found[0])


async def delete_match(request: Request) -> Response:
    try:
        if not await state.hub(request).delete(request.path_params["match_id"]):
            raise errors.NotFound("no such match")
    except StoreUnavailable as exc:  # a MatchLive is answered 409 (the handler)
        raise errors.Unavailable(f"match storage is unreachable, nothing was deleted: {exc}") from exc
    return Response(status_code=204)


async def rulesets(request: Request) -> Response:
    described = []
    for name in ruleset_names():
        try:
            described.append(get_ruleset(name).describe())
        except Exception as exc:  # one broken ruleset must not hide the others
            log.error("ruleset %s cannot load: %r", name, exc)
            described.append({"name": name, "error": "this ruleset failed to load on this server"})
    return ORJSONResponse({"rulesets": described})


routes: list[Route] = [
    Route("/matches", keyed(create_match), methods=["POST"]),
    Route("/matches", list_matches, methods=["GET"]),
    Route("/matches/{match_id}", get_match, methods=["GET"]),
    Route("/matches/{match_id}", operator_keyed(delete_match), methods=["DELETE"]),
    Route("/matches/{match_id}/abort", operator_keyed(abort_match), methods=["POST"]),
    Route("/rulesets", rulesets, methods=["GET"]),
]
