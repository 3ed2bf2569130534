"""The HTTP routes of player profiles and leaderboards, and binding a new match's seats
to profiles (docs/protocol.md "Players").

    POST  /profiles                 a guest profile: {"name"} -> {"profile", "name", "secret"};
                                    or, with an operator's token as Bearer, its player's profile
    GET   /profiles/{id}            public: name, ratings, rating history, recent matches
    PATCH /profiles/{id}            rename, with the profile's secret as Bearer
    GET   /leaderboard/{ruleset}    ?limit=&cursor=: the ruleset's players, best rating first
    GET   /leaderboard/{ruleset} and /player/{id} (HTML)  the pages (web/leaderboard.html, player.html)

`POST /matches` takes `"profiles": {seat: {"profile", "secret"} | {"token"}}` and
`"rated": true` (every seat then bound); `bind` checks them.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import ruleset_names
from battlehall.engine.errors import SetupError
from battlehall.server import errors
from battlehall.server.http import state, web
from battlehall.server.http.bodies import json_body
from battlehall.server.http.creation_limit import retry_after
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.players import names, vouch
from battlehall.server.players.profiles import TAKEN, NameTaken, Profiles, tag

BINDING_FIELDS = ("profiles", "rated")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_OFFSET = 1_000_000


def bearer(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def profiles_of(request: Request) -> Profiles:
    """The profiles, on the hub's Redis."""
    hub = state.hub(request)
    return Profiles(hub.store.profiles)


# -- binding seats, for POST /matches -------------------------------------------------

def take_binding(body) -> dict:
    """Take this module's fields out of a create body (validate.py checks the rest)."""
    if not isinstance(body, dict):
        return {}
    return {name: body.pop(name) for name in BINDING_FIELDS if name in body}


async def bind(request: Request, given: dict, seats: list[str], operator: bool) -> dict:
    """`bind_seats` on this request's Redis; `operator`: the request carries the API key."""
    return await bind_seats(profiles_of(request), state.player_settings(request).jwt_key, given, seats, operator)


# -- the routes ------------------------------------------------------------------------

async def create_profile(request: Request) -> Response:
    token = bearer(request)
    profiles = profiles_of(request)
    if token is not None:  # an operator's player: no secret, the token stands for it
        player = vouch.verify(token, state.player_settings(request).jwt_key)
        profile_id = await profiles.vouched(player)
        return ORJSONResponse({"profile": profile_id, "name": player.name, "tag": tag(profile_id), "kind": "vouched"})
    state.budgets(request).profiles.spend(request.client and request.client.host, "created too many profiles")
    name = await name_of(request)
    try:
        profile_id, secret = await profiles.create_guest(name)
    except NameTaken:
        raise errors.BadName(f"a display name {TAKEN}", path="name") from None
    return ORJSONResponse({"profile": profile_id, "name": name, "tag": tag(profile_id), "kind": "guest",
                           "secret": secret}, status_code=201)


async def name_of(request: Request) -> str:
    """The validated `name` of a JSON body; the 400 that refuses it is raised."""
    body = await json_body(request)
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    for field in sorted(body):
        if field != "name":
            raise errors.BadRequest(f"unknown field {field!r}"[:200], path=field[:100])
    try:
        return names.display_name(body.get("name"))
    except names.BadName as exc:
        raise errors.BadName(f"a display name {exc.message}", path="name") from None


async def get_profile(request: Request) -> Response:
    found = await profiles_of(request).public(request.path_params["profile_id"])
    if found is None:
        raise errors.NotFound("no such profile")
    return ORJSONResponse(found)


async def rename(request: Request) -> Response:
    profile_id = request.path_params["profile_id"]
    profiles = profiles_of(request)
    secret = bearer(request)
    if secret is None or not await profiles.check_secret(profile_id, secret):
        if not await profiles.exists(profile_id):
            raise errors.NotFound("no such profile")
        raise errors.Unauthorized("renaming needs the profile's secret as Authorization: Bearer <secret>")
    name = await name_of(request)
    wait_s = state.budgets(request).renames.take(profile_id)  # after the secret: nobody else spends a profile's renames
    if wait_s:
        raise errors.RateLimited("this profile has been renamed too often: "
                                 f"try again in {retry_after(wait_s)} s", retry_after=retry_after(wait_s))
    try:
        await profiles.rename(profile_id, name)
    except NameTaken:
        raise errors.BadName(f"a display name {TAKEN}", path="name") from None
    return ORJSONResponse(await profiles.public(profile_id))


async def leaderboard(request: Request) -> Response:
    ruleset = request.path_params["ruleset"]
    if ruleset not in ruleset_names():
        raise errors.NotFound("no such ruleset")
    limit, offset = _page(request.query_params)
    rows, total = await profiles_of(request).leaderboard(ruleset, offset, limit)
    after = offset + len(rows)
    return ORJSONResponse({"ruleset": ruleset, "players": rows, "total": total,
                           "next": str(after) if after < total and rows else None})


async def leaderboard_or_page(request: Request) -> Response:
    """`/leaderboard/{ruleset}`: the page for a browser (Accept: text/html), JSON otherwise."""
    if "text/html" in request.headers.get("accept", ""):
        response = await web.page("leaderboard.html")(request)
    else:
        try:
            response = await leaderboard(request)
        except errors.WireError as exc:  # a refusal too is the JSON one
            exc.headers["Vary"] = "Accept"
            raise
    response.headers["Vary"] = "Accept"
    return response


async def bind_seats(profiles: Profiles, jwt_key: bytes | None, given: dict, seats: list[str],
                     operator: bool = False) -> dict:
    """`{"profiles": {seat: profile id}, "rated": bool}` for a new match's meta ({} when
    nothing is bound), from the create body's `profiles` and `rated`; SetupError (400) or
    errors.Unauthorized or a TokenRefused (401) naming the field. (Quick play proves each join's profile with
    `prove_profile` instead, and the matcher binds the seats.)

    Only the `operator` (a request with the API key) makes a rated match here: a rated
    match binds every seat, so its caller would hold every seat's secret, and could rate
    one profile of theirs against another as often as it likes."""
    rated = given.get("rated")
    if rated is None:
        rated = False
    if not isinstance(rated, bool):
        raise SetupError("rated", "must be true or false")
    if rated and not operator:
        raise SetupError("rated", "a rated match is made by quick play, or by the operator with the API key: "
                                  "one caller proving every seat's profile does not make one")
    asked = given.get("profiles")
    if asked is None:
        asked = {}
    if not isinstance(asked, dict):
        raise SetupError("profiles", "must be an object of seat names to profiles")
    for seat in sorted(asked):
        if seat not in seats:
            raise SetupError(f"profiles.{seat}"[:100], "is not a seat of this match")
    if rated and set(asked) != set(seats):
        missing = [s for s in seats if s not in asked]
        raise SetupError("profiles", f"a rated match needs every seat bound to a profile; not bound: "
                                     f"{', '.join(missing)}")
    if not asked:
        return {}
    bound: dict[str, str] = {}
    for seat in seats:
        if seat in asked:
            bound[seat] = await _bind_one(profiles, jwt_key, asked[seat], f"profiles.{seat}")
    seen: dict[str, str] = {}
    for seat, profile_id in bound.items():
        if profile_id in seen:
            raise SetupError(f"profiles.{seat}", f"this profile is already bound to seat {seen[profile_id]}")
        seen[profile_id] = seat
    return {"profiles": bound, "rated": rated}


async def _bind_one(profiles: Profiles, jwt_key: bytes | None, given, path: str) -> str:
    if not isinstance(given, dict) or set(given) not in ({"profile", "secret"}, {"token"}):
        raise SetupError(path, 'must be {"profile": id, "secret": secret} or {"token": a player token}')
    if "token" in given:
        try:
            player = vouch.verify(given["token"], jwt_key)
        except errors.TokenRefused as exc:
            raise exc.at(f"{path}.token") from None  # the same error, naming the field
        return await profiles.vouched(player)
    if not await profiles.check_secret(given["profile"], given["secret"]):
        raise errors.Unauthorized("no such profile, or not its secret", path=f"{path}.secret")
    return given["profile"]


async def prove_profile(profiles: Profiles, jwt_key: bytes | None, profile_id: str, proof: str | None) -> str:
    """The profile a quick-play join names, once its Bearer `proof` shows it is the
    caller's: the guest profile's secret, or an operator's player token for that profile.
    errors.Unauthorized (401, path `profile`) otherwise, or the token's own refusal for a bad token."""
    if proof is None:
        raise errors.Unauthorized("a profile needs its secret, or a player token, as Authorization: Bearer",
                                  path="profile")
    if await profiles.check_secret(profile_id, proof):
        return profile_id
    if proof.count(".") == 2:  # a JWT: header.claims.signature
        try:
            player = vouch.verify(proof, jwt_key)
        except errors.TokenRefused as exc:
            raise exc.at("profile") from None  # the same error, naming the field
        if await profiles.vouched(player) == profile_id:
            return profile_id
    raise errors.Unauthorized("no such profile, or not its secret or player token", path="profile")


def _page(query) -> tuple[int, int]:
    limit = DEFAULT_LIMIT
    if "limit" in query:
        text = query["limit"]
        if not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
            raise errors.BadRequest(f"must be an integer from 1 to {MAX_LIMIT}", path="limit")
        limit = int(text)
    offset = 0
    if "cursor" in query:
        text = query["cursor"]
        if not text.isdigit() or len(text) > 7 or int(text) > MAX_OFFSET:
            raise errors.BadRequest("must be the `next` of a previous page", path="cursor")
        offset = int(text)
    return limit, offset


routes: list[Route] = [
    Route("/profiles", create_profile, methods=["POST"]),
    Route("/profiles/{profile_id}", get_profile, methods=["GET"]),
    Route("/profiles/{profile_id}", rename, methods=["PATCH"]),
    Route("/leaderboard/{ruleset}", leaderboard_or_page, methods=["GET", "HEAD"]),
    Route("/player/{profile_id}", web.page("player.html"), methods=["GET", "HEAD"]),
]
