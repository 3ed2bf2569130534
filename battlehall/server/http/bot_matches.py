"""Play a bot (docs/protocol.md "Play a bot"): one request makes a match in which the
server's bots play every seat but the caller's.

    POST /bot-matches   {"ruleset": "spellfire", "seats": 2, "level": "greedy", "name": "ana", "profile": "p_..."}

The match is made like a quick-play match (the ruleset's default options, the quick-play
clock, placed on the least loaded node, private), with `"bots"` naming the bot seats and
`"when_away": "bot"`: if the player leaves, a bot finishes the match for them too. It is
not rated (a bot has no rating); with a proven `profile`, the player's seat is bound to
it, so the match is among the profile's recent matches. No API key is needed; each
request spends the address's creation budget, the one POST /matches and rematches
spend (`BATTLEHALL_CREATE_BURST` at once, then `BATTLEHALL_CREATE_PER_MIN` a minute).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.bots import LEVELS
from battlehall.server import errors
from battlehall.server.http import state
from battlehall.server.http.bodies import json_body
from battlehall.server.http.player_api import bearer, prove_profile
from battlehall.server.http.queue_routes import join_request
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import validate
from battlehall.server.players.matcher import QUICK_CLOCK
from battlehall.server.players.profiles import Profiles

#: The label every bot match carries (in its summary).
BOT_LABEL = {"queue": "bot"}
DEFAULT_LEVEL = "greedy"


def bot_names(count: int, player: str) -> list[str]:
    """The bots' seat names: bot-1, bot-2, ..., none of them the player's."""
    names: list[str] = []
    n = 1
    while len(names) < count:
        if f"bot-{n}" != player:
            names.append(f"bot-{n}")
        n += 1
    return names


def create_body(body) -> tuple[dict, str, str | None]:
    """(the POST /matches body of the bot match, the player's seat, the profile to prove)
    from a `POST /bot-matches` body; errors.BadRequest naming the field."""
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    level = body.get("level", DEFAULT_LEVEL)
    if level not in LEVELS:  # `in` on a tuple of strings: an unhashable value is just not in it
        raise errors.BadRequest(f"must be one of {', '.join(LEVELS)}", path="level")
    ruleset, seats, profile, name = join_request({k: v for k, v in body.items() if k != "level"})
    bots = bot_names(seats - 1, name)
    return ({"ruleset": ruleset, "seats": [name, *bots], "clock": QUICK_CLOCK, "label": BOT_LABEL,
             "when_away": "bot", "bots": {bot: level for bot in bots}}, name, profile)


async def create(request: Request) -> Response:
    settings = state.settings(request)
    jwt_key = state.player_settings(request).jwt_key
    state.budgets(request).matches.spend(request.client and request.client.host, "created too many matches")
    body, seat, profile = create_body(await json_body(request))
    hub = state.hub(request)
    # made_from: the node shares its bots' answers fairly between the addresses that made matches (bot_turns.py).
    bound: dict = {"made_by": "bot", "made_from": request.client and request.client.host}
    if profile is not None:  # the seat will be bound to it: the caller must prove it is theirs
        profile = await prove_profile(Profiles(hub.store.profiles), jwt_key, profile, bearer(request))
        bound.update(profiles={seat: profile}, rated=False)
    # A SetupError is answered 400 bad_setup, a StoreUnavailable 503 (app.py's handlers).
    created = await hub.placement.create(body, validate.create_request(body, settings.caster_min_delay_ms), bound)
    # The player's own token only: the spectator token would show them nothing more.
    shown = {k: v for k, v in created.items() if k not in ("tokens", "spectator_token")}
    return ORJSONResponse({**shown, "seat": seat, "token": created["tokens"][seat]}, 201)


routes: list[Route] = [Route("/bot-matches", create, methods=["POST"])]
