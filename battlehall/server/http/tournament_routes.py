"""The HTTP routes of events (docs/tournaments.md): create, list, read (with a long poll),
register, check in, drop, start, cancel, a player's own entry, the log.

Endpoints read the node's `Events` (server/tournaments/events.py) from `app.state.tournaments`;
every change is one log entry the core's fold checks first (a refusal is a 409 with its
code, and changes nothing). Bad bodies are 400 `bad_request` naming the field.
"""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import SetupError
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.config import MAX_CASTER_DELAY_MS
from battlehall.server.http import state, web
from battlehall.server.http.bodies import json_body
from battlehall.server.http.creation_limit import CreationLimit
from battlehall.server.http.player_api import bearer, prove_profile
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.match import validate
from battlehall.server.players.matcher import QUICK_CLOCK
from battlehall.server.players.player_rating import rating
from battlehall.server.players.profiles import Profiles, tag
from battlehall.server.storage.tournaments import organiser_hash
from battlehall.server.tournaments import views
from battlehall.server.tournaments.events import Events
from battlehall.server.tournaments.folding import Folded
from battlehall.server.tournaments.refusals import ALREADY_FINISHED, Refused
from battlehall.tournaments import Spec, SpecError

MAX_WAIT_MS = 25_000
DEFAULT_WAIT_MS = 20_000
MAX_LIMIT = 100
DEFAULT_LIMIT = 20
MAX_PROFILE = 128
STATUSES = ("upcoming", "running", "finished")


class Limits:
    """The per-address budgets of events' routes (creation_limit.py's buckets)."""

    def __init__(self, events: Events):
        s = events.settings
        self.creates = CreationLimit(s.create_per_min, s.create_burst)
        self.registrations = CreationLimit(s.register_per_min, s.register_burst)


def events_of(request: Request) -> Events:
    return state.tournaments(request)


def limits_of(request: Request) -> Limits:
    held = request.app.state  # made on first use: the events' settings come with the lifespan
    if not hasattr(held, "tournament_limits"):
        held.tournament_limits = Limits(events_of(request))
    return held.tournament_limits


def address(request: Request) -> str | None:
    return request.client.host if request.client else None


def is_operator(request: Request) -> bool:
    key = events_of(request).settings.api_key
    given = bearer(request)
    return bool(key and given and hmac.compare_digest(given.encode(), key.encode()))


def jwt_key(request: Request) -> bytes | None:
    return state.player_settings(request).jwt_key


async def proven(request: Request, profile: object) -> str:
    """The profile the request names, proven by its Bearer (401 otherwise)."""
    if not isinstance(profile, str) or not 1 <= len(profile) <= MAX_PROFILE:
        raise errors.BadRequest(f"a profile id: a string of 1 to {MAX_PROFILE} characters", path="profile")
    return await prove_profile(Profiles(state.hub(request).store.profiles), jwt_key(request), profile, bearer(request))


def profile_body(body) -> object:
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    for name in sorted(body):
        if name != "profile":
            raise errors.BadRequest(f"unknown field {name!r}", path=name)
    if "profile" not in body:
        raise errors.BadRequest("missing: the player's profile id", path="profile")
    return body["profile"]


def wait_ms(request: Request) -> int:
    raw = request.query_params.get("wait_ms")
    if raw is None:
        return DEFAULT_WAIT_MS
    if not raw.isdigit() or int(raw) > MAX_WAIT_MS:
        raise errors.BadRequest(f"must be an integer from 0 to {MAX_WAIT_MS}", path="wait_ms")
    return int(raw)


def wait_since(request: Request) -> int | None:
    raw = request.query_params.get("wait_since")
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 12:
        raise errors.BadRequest("must be the `version` of a previous answer", path="wait_since")
    return int(raw)


async def folded_or_404(request: Request) -> Folded:
    found = await events_of(request).folds.get(request.path_params["tournament_id"])
    if found is None:
        raise errors.NotFound("no such tournament")
    return found


def tournament_id(request: Request) -> str:
    return request.path_params["tournament_id"]


# -- create and list ------------------------------------------------------------------------

async def create(request: Request) -> Response:
    events = events_of(request)
    settings = events.settings
    operator = is_operator(request)
    if settings.api_key and not operator and not settings.player_tournaments:
        raise errors.Unauthorized("creating a tournament needs the API key as Authorization: Bearer",
                                  headers={"WWW-Authenticate": "Bearer"})
    if not operator:
        limits_of(request).creates.spend(address(request), "created too many tournaments")
    body = await json_body(request)
    if not isinstance(body, dict):
        raise errors.BadRequest("the body must be a JSON object", path="")
    body = dict(body)
    organiser_id = body.pop("organiser", None)
    caster = caster_settings(body.pop("caster", None), state.settings(request).caster_min_delay_ms)
    if settings.api_key and not operator and organiser_id is None:
        raise errors.BadRequest("a player's tournament names its organiser's profile", path="organiser")
    ruleset = body.get("ruleset")
    if ruleset not in ruleset_names():
        raise errors.BadRequest(f"must be one of {ruleset_names()}", path="ruleset")
    rules = get_ruleset(ruleset)
    try:
        spec = Spec.parse(body, range(rules.min_seats, rules.max_seats + 1), settings.max_players, now_ms())
    except SpecError as exc:
        raise errors.BadRequest(exc.message, path=exc.path) from None
    check_games(spec)
    if spec.rated and not operator:
        raise errors.BadRequest("a rated tournament is made with the API key", path="rated")
    organiser = None
    if organiser_id is not None:
        try:
            profile = await proven(request, organiser_id)
        except errors.WireError as exc:
            raise exc.at("organiser") from None
        name, = await Profiles(events.hub.store.profiles).names([profile])
        organiser = {"profile": profile, "name": name, "tag": tag(profile)}
    created = await events.create(spec, organiser, "operator" if operator else "player", caster)
    return ORJSONResponse(created, status_code=201)


def caster_settings(given: object, least_ms: int) -> dict | None:
    """The event's `caster` (`{"delay_ms"}`: every game a caster link at that delay), checked."""
    if given is None:
        return None
    delay = given.get("delay_ms", least_ms) if isinstance(given, dict) else None
    if type(delay) is not int or not least_ms <= delay <= MAX_CASTER_DELAY_MS:
        raise errors.BadRequest(f"caster.delay_ms must be {least_ms} to {MAX_CASTER_DELAY_MS} ms", path="caster.delay_ms")
    return {"delay_ms": delay}


def check_games(spec: Spec) -> None:
    """The event's games as the matches will have them: options the ruleset takes, a timed clock."""
    rules = get_ruleset(spec.ruleset)
    seats = [f"seat{i}" for i in range(1, max(rules.min_seats, spec.min_table) + 1)]
    try:
        request = validate.create_request({"ruleset": spec.ruleset, "seats": seats, "options": spec.options,
                                           "clock": spec.clock or QUICK_CLOCK})
        rules.resolve_options(request["options"])
    except SetupError as exc:
        raise errors.BadRequest(exc.message, path=exc.path) from None
    if request["clock"]["prompt_ms"] is None:
        raise errors.BadRequest("an event's games are timed: a number of ms", path="clock.prompt_ms")


def page_of(request: Request) -> tuple[int, int]:
    """`?limit=&cursor=`, checked: the page's offset and size."""
    query = request.query_params
    limit = DEFAULT_LIMIT
    if "limit" in query:
        if not query["limit"].isdigit() or not 1 <= int(query["limit"]) <= MAX_LIMIT:
            raise errors.BadRequest(f"must be an integer from 1 to {MAX_LIMIT}", path="limit")
        limit = int(query["limit"])
    offset = 0
    if "cursor" in query:
        if not query["cursor"].isdigit() or len(query["cursor"]) > 7:
            raise errors.BadRequest("must be the `next` of a previous page", path="cursor")
        offset = int(query["cursor"])
    return offset, limit


async def listing(request: Request) -> Response:
    status = request.query_params.get("status")
    if status is not None and status not in STATUSES:
        raise errors.BadRequest(f"must be one of {', '.join(STATUSES)}", path="status")
    offset, limit = page_of(request)
    events = events_of(request)
    ids, more = await events.storage.listing(status, offset, limit)
    now = now_ms()
    shown, gone = [], []
    for tid in ids:
        folded = await events.folds.get(tid)
        if folded is not None:
            shown.append(views.summary(folded, now))
        else:
            gone.append(tid)
    await events.storage.unlist(gone)
    return ORJSONResponse({"tournaments": shown, "next": str(offset + limit) if more else None})


async def history(request: Request) -> Response:
    """GET /profiles/{id}/tournaments: the events a player entered, the latest first, each
    with where the player stands in it (public: a player page shows it)."""
    profile = request.path_params["profile"]
    offset, limit = page_of(request)
    events = events_of(request)
    ids, more = await events.storage.entered_by(profile, offset, limit)
    now = now_ms()
    shown, gone = [], []
    for tid in ids:
        folded = await events.folds.get(tid)
        if folded is None:
            gone.append(tid)
            continue
        if not folded.spec.public:  # a private event is its players' business: not on a public page
            continue
        standing = next((s for s in folded.public().get("standings") or [] if s.get("player") == profile), None)
        shown.append({**views.summary(folded, now),
                      "standing": {k: standing[k] for k in ("rank", "points", "dropped") if k in standing}
                      if standing else None})
    await events.storage.forget_entered(profile, gone)
    return ORJSONResponse({"profile": profile, "tournaments": shown, "next": str(offset + limit) if more else None})


async def get_event(request: Request) -> Response:
    since = wait_since(request)
    wait = wait_ms(request)
    folded = await folded_or_404(request)
    if since is not None and folded.version <= since:
        await events_of(request).wait_change(tournament_id(request), since, wait / 1000)
        folded = await folded_or_404(request)
    return ORJSONResponse(views.event(folded, now_ms(), await in_play(request, folded)))


async def in_play(request: Request, folded: Folded) -> dict[tuple[int, int], dict] | None:
    """A public event's game in play at each table of the current round (made, no result yet)."""
    if not folded.spec.public:
        return None
    return await games_in_play(request, folded)


async def games_in_play(request: Request, folded: Folded) -> dict[tuple[int, int], dict]:
    """The game in play at each table of the event's current round (made, no result yet)."""
    calls = folded.t.games_to_create()
    tables = await events_of(request).storage.seats_of(folded.tournament_id, [c.seats[0] for c in calls])
    return {(c.round, c.table): {"game": c.game, "match": t["match"]} for c, t in zip(calls, tables)
            if t is not None and (t["round"], t["table"], t["game"]) == (c.round, c.table, c.game)}


async def get_log(request: Request) -> Response:
    return ORJSONResponse(views.log(await folded_or_404(request)))


# -- a player's entries ----------------------------------------------------------------------

async def own_entry(request: Request, folded: Folded, profile: str) -> Response:
    table, made = await events_of(request).storage.seat(folded.tournament_id, profile)
    return ORJSONResponse(views.entry(folded, profile, table, made, now_ms()))


async def changed_by_player(request: Request, make) -> Response:
    """A player's entry (`make(folded, profile, now)`), after proving the profile."""
    profile = await proven(request, profile_body(await json_body(request)))
    return await player_change(request, profile, make)


async def player_change(request: Request, profile: str, make) -> Response:
    folded = await events_of(request).change(tournament_id(request), lambda f: [make(f, profile, now_ms())])
    if folded is None:
        raise errors.NotFound("no such tournament")
    return await own_entry(request, folded, profile)


async def register(request: Request) -> Response:
    limits_of(request).registrations.spend(address(request), "registered too often")
    profile = await proven(request, profile_body(await json_body(request)))
    folded = await folded_or_404(request)
    records = events_of(request).hub.store.profiles
    name, = await Profiles(records).names([profile])
    mu = await rating(records, profile, folded.spec.ruleset)
    answer = await player_change(request, profile, lambda f, p, at: {
        "k": "registered", "player": p, "name": name or p, "rating": mu, "at": at})
    if folded.spec.public:  # the player's public history of events
        await events_of(request).storage.entered(profile, tournament_id(request), now_ms())
    return answer


async def check_in(request: Request) -> Response:
    return await changed_by_player(request, lambda f, p, at: {"k": "checked_in", "player": p, "at": at})


async def drop(request: Request) -> Response:
    return await changed_by_player(request, lambda f, p, at: {"k": "dropped", "player": p, "at": at})


async def mine(request: Request) -> Response:
    profile = await proven(request, request.query_params.get("profile"))
    since = wait_since(request)
    wait = wait_ms(request)
    events = events_of(request)
    folded = await folded_or_404(request)
    if since is not None:
        loop_until = now_ms() + wait
        while now_ms() < loop_until:
            _, made = await events.storage.seat(folded.tournament_id, profile)
            if folded.version + made > since:
                break
            await events.wait_change(folded.tournament_id, folded.version, min(0.5, (loop_until - now_ms()) / 1000))
            folded = await folded_or_404(request)
    return await own_entry(request, folded, profile)


# -- the organiser's ---------------------------------------------------------------------------

def check_organiser(request: Request, folded: Folded) -> None:
    given = bearer(request)
    if is_operator(request):
        return
    if given is None or not hmac.compare_digest(organiser_hash(given), folded.meta["organiser_hash"]):
        raise errors.Unauthorized("this needs the tournament's organiser token (or the API key) as "
                                  "Authorization: Bearer", headers={"WWW-Authenticate": "Bearer"})


async def start(request: Request) -> Response:
    check_organiser(request, await folded_or_404(request))
    folded = await events_of(request).change(tournament_id(request), lambda f: [{"k": "started", "at": now_ms()}])
    if folded is None:
        raise errors.NotFound("no such tournament")
    return ORJSONResponse(views.event(folded, now_ms()))


async def cancel(request: Request) -> Response:
    check_organiser(request, await folded_or_404(request))

    def decide(f: Folded) -> list[dict]:
        if f.t.phase in views.ENDED:
            raise Refused(ALREADY_FINISHED, "the tournament has ended already")
        return [{"k": "cancelled", "at": now_ms()}]
    folded = await events_of(request).change(tournament_id(request), decide)
    if folded is None:
        raise errors.NotFound("no such tournament")
    return ORJSONResponse(views.event(folded, now_ms()))


routes = [
    Route("/tournaments", create, methods=["POST"]),
    Route("/tournaments", web.html_or(listing, "tournaments.html"), methods=["GET", "HEAD"]),
    Route("/tournaments/{tournament_id}", web.html_or(get_event, "tournament.html"), methods=["GET", "HEAD"]),
    Route("/tournaments/{tournament_id}/register", register, methods=["POST"]),
    Route("/tournaments/{tournament_id}/check_in", check_in, methods=["POST"]),
    Route("/tournaments/{tournament_id}/drop", drop, methods=["POST"]),
    Route("/tournaments/{tournament_id}/start", start, methods=["POST"]),
    Route("/tournaments/{tournament_id}/cancel", cancel, methods=["POST"]),
    Route("/tournaments/{tournament_id}/my", mine, methods=["GET"]),
    Route("/tournaments/{tournament_id}/log", get_log, methods=["GET"]),
    Route("/profiles/{profile}/tournaments", history, methods=["GET"]),
]
