"""The featured match for TV pages: `GET /tv/featured?ruleset=`, or `?tournament=` for an
event's top table (the lowest-numbered table of its current round still playing: table 1,
the leaders', while it plays).

The featured match is the live public match (spectators allowed, open to anyone, not
full) with the most viewers on every node together: distinct clients, not sockets
(audience.py keeps both counts in Redis, so any node answers the same). Sockets do not
rank at all, not even between equals: one client opening 150 idle spectator sockets on a
match of its own made it the featured match over a real one with 20 spectators. Ties go
to the match created first, which keeps a screen from hopping between equals. Matches
carry no rating yet; a rating would rank before the viewers.

Any node answers from Redis: the live set, the spectator counts, the summaries. Each
node keeps its answer per ruleset for CACHE_S, so many TV pages asking at once cost one
look each second.
"""

from __future__ import annotations

import hmac
import time

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import ruleset_names
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import state, tournament_routes
from battlehall.server.http.auth import bearer
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.node.hub import Hub
from battlehall.server.storage import public
from battlehall.server.storage.listing import listed_later
from battlehall.server.storage.tournaments import organiser_hash

CACHE_S = 1.0
CHUNK = 50  # summaries read at a time, most viewers first, until one is eligible


def eligible(summary: dict, ruleset: str | None) -> bool:
    """A match a TV may show: live, public, watchable by one more spectator."""
    settings = summary["spectator_settings"]
    return (summary["status"] == "live" and (ruleset is None or summary["ruleset"] == ruleset)
            and public.is_public({"spectators": {"allowed": settings.get("allowed", True),
                                                 "public": settings.get("public", False)}})
            and summary["spectators"] < settings.get("max", 10_000))


async def featured(hub: Hub, ruleset: str | None) -> dict | None:
    """The featured match's summary, or None when no live public match is eligible."""
    ids = await hub.store.live_ids()  # oldest first
    viewers = [viewers for _, viewers in await hub.audience.tallies(ids)]
    ranked = [match_id for _, match_id in sorted(zip(viewers, ids), key=lambda pair: -pair[0])]  # stable: ties stay oldest first
    for start in range(0, len(ranked), CHUNK):
        chunk = ranked[start:start + CHUNK]
        # Listed from later (a delayed match's rematch, listing.py): featuring it would tell
        # that the old match ended.
        later = await listed_later(hub.store, chunk, now_ms())
        for summary in await hub.summaries([m for m in chunk if m not in later]):
            # As its spectators see it: a delayed match is live until its end is that old.
            summary = await public.as_of_delay(hub.store, summary, now_ms())
            if eligible(summary, ruleset):
                return summary
    return None


def answer(summary: dict | None) -> dict:
    if summary is None:
        return {"match": None}
    return {"match": summary["match"], "ruleset": summary["ruleset"], "seats": summary["seats"],
            "spectators": summary["spectators"], "viewers": summary["viewers"], "delay_ms": summary["spectator_settings"].get("delay_ms", 0),
            "created_at": summary["created_at"]}


async def top_live(request: Request, playing: dict[tuple[int, int], dict]) -> dict | None:
    """The summary of the lowest-numbered table's live match among `playing`, if any."""
    for place in sorted(playing):
        summaries = await state.hub(request).summaries([playing[place]["match"]])
        if summaries and summaries[0]["status"] == "live":
            return summaries[0]
    return None


async def top_table(request: Request, tournament_id: str) -> dict:
    """The event's top table in play, as `answer` gives a match, with the event's id."""
    folded = await state.tournaments(request).folds.get(tournament_id)
    if folded is None:
        raise errors.NotFound("no such tournament").at("tournament")
    found = await top_live(request, await tournament_routes.in_play(request, folded) or {})
    return {**answer(found), "tournament": tournament_id}


async def event_cast(request: Request) -> Response:
    """GET /tournaments/{id}/cast (the event's caster token as Bearer): its top table in play
    and that match's caster token, for the caster page to follow round after round."""
    folded = await tournament_routes.folded_or_404(request)
    given = bearer(request.headers.get("authorization", ""))
    expected = folded.meta.get("caster_hash")
    if given is None or expected is None or not hmac.compare_digest(organiser_hash(given), expected):
        raise errors.Unauthorized("this needs the event's caster token as Authorization: Bearer",
                                  headers={"WWW-Authenticate": "Bearer"})
    found = await top_live(request, await tournament_routes.games_in_play(request, folded))
    meta = await state.hub(request).meta(found["match"]) if found else None
    return ORJSONResponse({"tournament": folded.tournament_id, "delay_ms": folded.meta["caster"]["delay_ms"],
                           "match": found["match"] if found else None,
                           "caster_token": meta.get("caster_token") if meta else None})


async def get_featured(request: Request) -> Response:
    tournament = request.query_params.get("tournament") or None
    ruleset = request.query_params.get("ruleset") or None
    if tournament is not None:
        if len(tournament) > 64:
            raise errors.BadRequest("tournament must be a tournament's id", path="tournament")
        key: str | None = "tournament " + tournament
    else:
        if ruleset is not None and ruleset not in ruleset_names():
            raise errors.BadRequest(f"no ruleset {ruleset!r} on this server (one of {', '.join(ruleset_names())})",
                                    path="ruleset")
        key = ruleset
    cache = state.featured(request)
    cached = cache.get(key)
    if cached is not None and time.monotonic() - cached[0] < CACHE_S:
        return ORJSONResponse(cached[1])
    if tournament is not None:
        found = await top_table(request, tournament)
    else:
        found = answer(await featured(state.hub(request), ruleset))
    cache[key] = (time.monotonic(), found)
    return ORJSONResponse(found)


routes: list[Route] = [Route("/tv/featured", get_featured, methods=["GET"]),
                       Route("/tournaments/{tournament_id}/cast", event_cast, methods=["GET"])]
