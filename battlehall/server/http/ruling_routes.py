"""A judge's rulings (docs/protocol.md, Judges; docs/tournaments.md, Judges): a game loss
or win awarded to a seat, or the match voided (`POST /matches/{id}/ruling`), and a player
of an event replaced from its next round (`POST /tournaments/{id}/replace`). A judge of
the event (their token as Bearer) or the operator (the API key) asks, always with a reason.

A ruling ends the live match at once, as an entry of its log in order with its answers
(an `Abort` input naming the ruling, engine/rulings.py); the event's runner enters the
ruling and the game's result (or, for a void, the replay) in the event's log when it
learns the end. A replacement is an entry of the event's log, checked by its fold.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine.rulings import JUDGE_RULING, JUDGE_VOID, RULINGS
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import state, tournament_routes
from battlehall.server.http.auth import bearer
from battlehall.server.http.bodies import json_body
from battlehall.server.http.judge_routes import MAX_JUDGE, judge_name, judge_of
from battlehall.server.http.keyed import check_key
from battlehall.server.http.match_routes import passed_on
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import inputs
from battlehall.server.node.rewind import MAX_NOTE
from battlehall.server.players.profiles import Profiles
from battlehall.server.storage.judges import Judge
from battlehall.server.storage.store import StoreUnavailable
from battlehall.server.tournaments import views

RULING_TIMEOUT_S = 10
MAX_PROFILE = tournament_routes.MAX_PROFILE


def _reason(body: dict) -> str:
    reason = body.get("reason")
    if not isinstance(reason, str) or not 1 <= len(reason) <= MAX_NOTE:
        raise errors.BadRequest(f"reason must be a text of 1 to {MAX_NOTE} characters: why (shown in the log)",
                                path="reason")
    return reason


def _fields(body: object, allowed: tuple[str, ...]) -> dict:
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    for name in sorted(body):
        if name not in allowed:
            raise errors.BadRequest(f"unknown field {name!r}", path=str(name))
    return body


def ruling_body(body: object, judge: Judge | None) -> tuple[str, str | None, str, str]:
    """`{"ruling", "seat"?, "reason", "judge"?}`, checked: BadRequest naming the field."""
    body = _fields(body, ("ruling", "seat", "reason", "judge"))
    ruling, seat = body.get("ruling"), body.get("seat")
    if ruling not in RULINGS:
        raise errors.BadRequest(f"ruling must be one of {', '.join(RULINGS)}", path="ruling")
    if ruling == "void" and seat is not None:
        raise errors.BadRequest("a void is of the whole match: no seat", path="seat")
    if ruling != "void" and not isinstance(seat, str):
        raise errors.BadRequest(f"a {ruling} names the seat it is awarded to", path="seat")
    return ruling, seat, _reason(body), judge_name(body, judge)


async def rule(request: Request) -> Response:
    """POST /matches/{id}/ruling: the live match ends at once with the ruling's result."""
    hub, match_id = state.hub(request), request.path_params["match_id"]
    try:
        judge = await judge_of(request, match_id)  # who asks, before what they ask
        ruling, seat, reason, name = ruling_body(await json_body(request), judge)
        actor = await hub.live_actor(match_id)
        if actor is None:
            raise errors.NotFound("no such match")
        if seat is not None and seat not in actor.core.meta["seats"]:
            raise errors.BadRequest(f"no seat {seat!r} in this match", path="seat")
        await hub.through(actor, lambda done: inputs.Abort(
            done, reason=JUDGE_VOID if ruling == "void" else JUDGE_RULING, by=name, note=reason, ruling=ruling,
            seat=seat), "ruling", RULING_TIMEOUT_S)
    except errors.NotHere as exc:  # the owner ends it, in order with the match's answers
        return await passed_on(request, exc, await request.body())
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"match storage is unreachable, the ruling is not recorded: {exc}") from exc
    return ORJSONResponse({"match": match_id, "result": actor.core.state["result"]})


async def event_judge(request: Request, tournament_id: str) -> Judge | None:
    """The judge of the event whose token the request carries (one of this event's, or of
    any match); else the operator's API key (None), or the request is refused."""
    token = bearer(request.headers.get("authorization", ""))
    judge = await state.hub(request).judges.find(token) if token is not None else None
    if judge is not None:
        if judge.tournament not in (None, tournament_id):
            raise errors.Unauthorized("this judge token opens only its own tournament")
        return judge
    check_key(request, operator=True)
    return None


async def replace(request: Request) -> Response:
    """POST /tournaments/{id}/replace: `replacement` takes `player`'s place and record from
    the event's next round (docs/tournaments.md, Judges)."""
    tid = tournament_routes.tournament_id(request)
    try:
        judge = await event_judge(request, tid)  # who asks, before what they ask
        body = _fields(await json_body(request), ("player", "replacement", "name", "reason", "judge"))
        player, replacement, given = body.get("player"), body.get("replacement"), body.get("name")
        for path, value in (("player", player), ("replacement", replacement)):
            if not isinstance(value, str) or not 1 <= len(value) <= MAX_PROFILE:
                raise errors.BadRequest(f"{path} must be a profile id of 1 to {MAX_PROFILE} characters", path=path)
        if given is not None and (not isinstance(given, str) or not 1 <= len(given) <= MAX_JUDGE * 2):
            raise errors.BadRequest(f"name must be a name of 1 to {MAX_JUDGE * 2} characters", path="name")
        reason, name = _reason(body), judge_name(body, judge)
        before = await tournament_routes.folded_or_404(request)
        known, = await Profiles(state.hub(request).store.profiles).names([str(replacement)])
        entry = {"k": "judged", "action": "replace", "player": player, "player_name": before.names.get(str(player)),
                 "replacement": replacement, "name": given or known or replacement, "judge": name, "reason": reason,
                 "at": now_ms()}
        folded = await tournament_routes.events_of(request).change(tid, lambda f: [entry])
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"storage is unreachable, nothing was recorded: {exc}") from exc
    if folded is None:
        raise errors.NotFound("no such tournament")
    return ORJSONResponse(views.event(folded, now_ms()))


routes = [
    # A judge's token or the API key, checked first (judge_of, event_judge).
    Route("/matches/{match_id}/ruling", rule, methods=["POST"]),
    Route("/tournaments/{tournament_id}/replace", replace, methods=["POST"]),
]
