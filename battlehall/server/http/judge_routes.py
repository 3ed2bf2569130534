"""Judging (docs/protocol.md, Judges): the operator names judges (`POST /judges`), an
event's organiser names its own, and a judge, with their token as Bearer (or the
operator, with the API key), acts on a live match it may judge: pauses and resumes its
clocks, adds time to a seat, or rewinds it. The owner of the match applies each, in order
with its answers (a clock action as a `Judge` input, match/judging.py); on another node's
match it is passed on to that node, as an abort is."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import state, tournament_routes
from battlehall.server.http.auth import bearer
from battlehall.server.http.bodies import json_body
from battlehall.server.http.keyed import check_key, operator_keyed
from battlehall.server.http.match_routes import passed_on
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import inputs
from battlehall.server.node import rewind
from battlehall.server.node.hub import Hub
from battlehall.server.storage.judges import Judge
from battlehall.server.storage.store import StoreUnavailable

MAX_JUDGE = 32  # characters of a judge's name
JUDGE_TTL_S = (3600, 30 * 24 * 3600, 7 * 24 * 3600)  # how long a judge token lasts: least, most, default


def judge_body(body: object) -> tuple[str, str | None, int]:
    """`{"name", "tournament"?, "ttl_s"?}`, checked: BadRequest naming the field."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    name, tournament, ttl_s = body.get("name"), body.get("tournament"), body.get("ttl_s", JUDGE_TTL_S[2])
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_JUDGE:
        raise errors.BadRequest(f"name must be a judge's name of 1 to {MAX_JUDGE} characters", path="name")
    if tournament is not None and (not isinstance(tournament, str) or not 1 <= len(tournament) <= 64):
        raise errors.BadRequest("tournament must be a tournament's id, or absent for any match", path="tournament")
    if type(ttl_s) is not int or not JUDGE_TTL_S[0] <= ttl_s <= JUDGE_TTL_S[1]:
        raise errors.BadRequest(f"ttl_s must be {JUDGE_TTL_S[0]} to {JUDGE_TTL_S[1]} seconds", path="ttl_s")
    return name, tournament, ttl_s


def named(token: str, judge: Judge) -> Response:
    """The answer naming a judge: the token, who and what it judges, until when."""
    return ORJSONResponse({"name": judge.name, "tournament": judge.tournament, "token": token,
                           "expires_at": judge.expires_at}, status_code=201)


async def name_judge(request: Request) -> Response:
    """POST /judges (the API key): a judge token, for one tournament's matches or any."""
    name, tournament, ttl_s = judge_body(await json_body(request))
    hub = state.hub(request)
    try:
        token, judge = await hub.judges.issue(name, tournament, ttl_s, now_ms())
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"storage is unreachable, no judge was named: {exc}") from exc
    return named(token, judge)


async def judge_of(request: Request, match_id: str) -> Judge | None:
    """The judge whose token the request carries, if it may judge the match; else the
    operator's API key must be there (None: the operator), or the request is refused."""
    hub = state.hub(request)
    token = bearer(request.headers.get("authorization", ""))
    judge = await hub.judges.find(token) if token is not None else None
    if judge is not None:
        meta = await hub.meta(match_id)
        if meta is None:
            raise errors.NotFound("no such match")
        if not judge.may_judge(meta):
            raise errors.Unauthorized("this judge token opens only its tournament's matches")
        return judge
    check_key(request, operator=True)
    return None


def rewind_body(body: object, judge: Judge | None) -> tuple[int, str, str | None]:
    """`{"entry": N, "judge": name, "reason"?: text}`, checked: BadRequest naming the field.
    A judge's token names the judge: `judge` is for the operator's key."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    entry, name, reason = body.get("entry"), judge.name if judge else body.get("judge"), body.get("reason")
    if type(entry) is not int or entry < 1:
        raise errors.BadRequest("entry must be the number of a log entry, from 1", path="entry")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_JUDGE:
        raise errors.BadRequest(f"judge must be a name of 1 to {MAX_JUDGE} characters", path="judge")
    if reason is not None and (not isinstance(reason, str) or len(reason) > rewind.MAX_NOTE):
        raise errors.BadRequest(f"reason must be a text of at most {rewind.MAX_NOTE} characters", path="reason")
    return entry, name, reason


async def rewind_match(request: Request) -> Response:
    """POST /matches/{id}/rewind: the match taken back to before log entry `entry`, as a new
    match (201, its summary, with `rewound_from`); the old one ends as `judge_rewind`."""
    hub = state.hub(request)
    match_id = request.path_params["match_id"]
    raw = await request.body()
    try:
        judge = await judge_of(request, match_id)  # who asks, before what they ask
        entry, name, reason = rewind_body(await json_body(request), judge)
        summary = await rewind.rewind(hub, match_id, entry, name, reason)
    except errors.NotHere as exc:  # the owner rewinds it, in order with the match's answers
        return await passed_on(request, exc, raw)
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"match storage is unreachable, the rewind is not recorded: {exc}") from exc
    return ORJSONResponse({**summary, "rewound_from": {"match": match_id, "entry": entry, "judge": name}},
                          status_code=201)


async def judged_log(request: Request) -> Response:
    """GET /matches/{id}/log: a live match's log as its replay will show it, for a judge of
    it (or the operator), to pick the entry a rewind goes back before. Never its seed: a
    judge sees every hand, not what is still to come."""
    hub = state.hub(request)
    match_id = request.path_params["match_id"]
    try:
        judge = await judge_of(request, match_id)
        if await hub.meta(match_id) is None:
            raise errors.NotFound("no such match")
        log = await hub.shown_log(match_id)
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"match storage is unreachable: {exc}") from exc
    return ORJSONResponse({"match": match_id, "judge": judge.name if judge else None, "log": log})


async def name_event_judge(request: Request) -> Response:
    """POST /tournaments/{id}/judges (the event's organiser token, or the API key): a judge
    token for that event's matches only."""
    folded = await tournament_routes.folded_or_404(request)
    tournament_routes.check_organiser(request, folded)
    body = await json_body(request)
    if isinstance(body, dict) and "tournament" in body:
        raise errors.BadRequest("the tournament is the path's", path="tournament")
    name, _, ttl_s = judge_body(body)
    try:
        token, judge = await state.hub(request).judges.issue(name, tournament_routes.tournament_id(request), ttl_s,
                                                              now_ms())
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"storage is unreachable, no judge was named: {exc}") from exc
    return named(token, judge)



# -- the clocks ------------------------------------------------------------------------------

#: The most time one action adds to a seat's bank (ms): ten minutes.
MAX_ADD_MS = 600_000


async def on_clocks(hub: Hub, match_id: str, action: dict) -> bool:
    """Apply a clock `action` to the match through its actor; False if there is no such
    match. MatchOver if it has ended; StoreUnavailable if Redis did not take it."""
    actor = await hub.live_actor(match_id)
    if actor is None:
        return False
    if "seat" in action and action["seat"] not in actor.core.meta["seats"]:
        raise errors.BadRequest(f"no seat {action['seat']!r} in this match", path="seat")
    await hub.through(actor, lambda done: inputs.Judge(done, action), action["action"])
    return True


def added_time(body: object) -> tuple[str, int]:
    """`POST /matches/{id}/time`'s body, `{"seat": seat, "ms": n}`, checked."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object: {\"seat\", \"ms\"}", path="")
    seat, ms = body.get("seat"), body.get("ms")
    if not isinstance(seat, str):
        raise errors.BadRequest("seat must be the name of one of the match's seats", path="seat")
    if not isinstance(ms, int) or isinstance(ms, bool) or not 1 <= ms <= MAX_ADD_MS:
        raise errors.BadRequest(f"ms must be an integer from 1 to {MAX_ADD_MS}", path="ms")
    return seat, ms


async def clock_action(request: Request, kind: str) -> Response:
    hub, match_id = state.hub(request), request.path_params["match_id"]
    try:
        judge = await judge_of(request, match_id)  # who asks, before what they ask
        action: dict = {"action": kind, "by": judge.name if judge else "operator"}
        if kind == "add_time":
            action["seat"], action["ms"] = added_time(await json_body(request))
        if not await on_clocks(hub, match_id, action):
            raise errors.NotFound("no such match")
    except errors.NotHere as exc:  # the owner applies it, in order with the match's answers
        return await passed_on(request, exc, await request.body())
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"match storage is unreachable, nothing was recorded: {exc}") from exc
    actor = hub.actors.get(match_id)
    clock = actor.core.clock if actor is not None else None
    return ORJSONResponse({"match": match_id, "paused": clock is not None and clock.paused is not None,
                           "banks": dict(clock.data["banks"]) if clock is not None else {}})


async def pause(request: Request) -> Response:
    """POST /matches/{id}/pause: every open deadline frozen until a resume."""
    return await clock_action(request, "pause")


async def resume(request: Request) -> Response:
    """POST /matches/{id}/resume: the clocks run again from where they stood."""
    return await clock_action(request, "resume")


async def add_time(request: Request) -> Response:
    """POST /matches/{id}/time: `ms` more in a seat's bank."""
    return await clock_action(request, "add_time")


routes = [
    Route("/judges", operator_keyed(name_judge), methods=["POST"]),
    Route("/tournaments/{tournament_id}/judges", name_event_judge, methods=["POST"]),  # its organiser's
    # A judge's token or the API key (judge_of): who may judge the match, checked first.
    Route("/matches/{match_id}/rewind", rewind_match, methods=["POST"]),
    Route("/matches/{match_id}/log", judged_log, methods=["GET"]),
    Route("/matches/{match_id}/pause", pause, methods=["POST"]),
    Route("/matches/{match_id}/resume", resume, methods=["POST"]),
    Route("/matches/{match_id}/time", add_time, methods=["POST"]),
]
