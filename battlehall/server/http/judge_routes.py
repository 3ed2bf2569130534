"""A judge's routes on a live match (docs/protocol.md, Judging): the rewind. They need the
operator's API key; the owner of the match applies them, in order with its answers."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from battlehall.server import errors
from battlehall.server.http.bodies import json_body
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.node import nodes, rewind
from battlehall.server.node.hub import Hub
from battlehall.server.storage.store import StoreUnavailable

MAX_JUDGE = 32  # characters of a judge's name


def rewind_body(body: object) -> tuple[int, str, str | None]:
    """`{"entry": N, "judge": name, "reason"?: text}`, checked: BadRequest naming the field."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    entry, judge, reason = body.get("entry"), body.get("judge"), body.get("reason")
    if type(entry) is not int or entry < 1:
        raise errors.BadRequest("entry must be the number of a log entry, from 1", path="entry")
    if not isinstance(judge, str) or not 1 <= len(judge) <= MAX_JUDGE:
        raise errors.BadRequest(f"judge must be a name of 1 to {MAX_JUDGE} characters", path="judge")
    if reason is not None and (not isinstance(reason, str) or len(reason) > rewind.MAX_NOTE):
        raise errors.BadRequest(f"reason must be a text of at most {rewind.MAX_NOTE} characters", path="reason")
    return entry, judge, reason


async def rewind_match(request: Request) -> Response:
    """POST /matches/{id}/rewind: the match taken back to before log entry `entry`, as a new
    match (201, its summary, with `rewound_from`); the old one ends as `judge_rewind`."""
    hub: Hub = request.app.state.hub
    match_id = request.path_params["match_id"]
    raw = await request.body()
    entry, judge, reason = rewind_body(await json_body(request))
    try:
        summary = await rewind.rewind(hub, match_id, entry, judge, reason)
    except errors.NotHere as exc:  # the owner rewinds it, in order with the match's answers
        if exc.redirect is None:
            raise errors.Unavailable("the node running this match does not answer; try again") from None
        base = exc.redirect.rsplit("/ws/", 1)[0]
        answer = await nodes.forward(base, "POST", f"/matches/{match_id}/rewind", raw,
                                     {"authorization": request.headers.get("authorization", ""),
                                      "content-type": "application/json"})
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")
    except StoreUnavailable as exc:
        raise errors.Unavailable(f"match storage is unreachable, the rewind is not recorded: {exc}") from exc
    return ORJSONResponse({**summary, "rewound_from": {"match": match_id, "entry": entry, "judge": judge}},
                          status_code=201)
