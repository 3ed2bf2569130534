"""The HTTP routes of docs/protocol.md as a Starlette app, and the uvicorn server for it and the sockets."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import time
from typing import cast
from urllib.parse import urlsplit, urlunsplit

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Match, Route

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import EngineError
from battlehall.engine.ruleset import Event
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.config import Settings
from battlehall.server.http import auth, bot_matches, judge_routes, queue_routes, tv, web
from battlehall.server.http.bodies import json_body
from battlehall.server.http.creation_limit import CreationLimit
from battlehall.server.http.key_guard import KeyGuard
from battlehall.server.http.player_api import PlayerApi
from battlehall.server.http.rematch import Rematches
from battlehall.server.http.replay_steps import ReplaySteps
from battlehall.server.http.responses import ORJSONResponse, error_response
from battlehall.server.match import validate
from battlehall.server.node import abandon, caster, nodes
from battlehall.server.node.hub import Hub
from battlehall.server.node.placement import BINDING_HEADER, PLACED_HEADER, BindingGone
from battlehall.server.players import ratings
from battlehall.server.players.player_settings import PlayerSettings
from battlehall.server.players.quick_play import QuickPlay
from battlehall.server.storage import listing, public
from battlehall.server.storage.store import Store, StoreUnavailable
from battlehall.server.transport.hosts import HostCheck
from battlehall.server.transport.http_protocol import HttpProtocol
from battlehall.server.transport.limits import Limits
from battlehall.server.transport.websocket import WebSockets

log = logging.getLogger("battlehall.app")

DRAIN_TIMEOUT_S = 60  # SIGTERM: how long the drain may take before the sockets are closed anyway


# The exception handlers: every refusal of every route is raised, and answered here in the
# `{"error": ...}` form (responses.py).

async def wire_error(request: Request, exc: Exception) -> Response:
    """A refusal raised by a route: a wire error, or an engine error (`bad_setup`, `match_over`)."""
    return error_response(errors.of(exc))


# Starlette's own errors (no route, wrong method, an unreadable form), by status.
HTTP_ERRORS = {400: errors.BadRequest, 404: errors.NotFound, 405: errors.MethodNotAllowed, 413: errors.TooLarge}


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (404, 405, ...) in the `{"error": ...}` form of every other.

    Registered for HTTPException alone; typed as Starlette types every handler."""
    if not isinstance(exc, HTTPException):
        return await internal_error(request, exc)
    error: errors.WireError
    if exc.status_code == 404:
        error = errors.NotFound(f"no route {request.url.path}")
    elif exc.status_code == 405:
        # Every method of every route of this path (each route has its own methods).
        allowed = sorted({method for route in request.app.router.routes
                          if route.matches(request.scope)[0] != Match.NONE for method in route.methods or ()})
        error = errors.MethodNotAllowed(f"{request.method} is not allowed on {request.url.path} "
                                        f"(allowed: {', '.join(allowed)})", headers={"Allow": ", ".join(allowed)})
    elif exc.status_code in HTTP_ERRORS:
        error = HTTP_ERRORS[exc.status_code](exc.detail, headers=exc.headers)
    else:  # nothing this server serves raises another: a bug
        log.error("unexpected HTTP %d from Starlette on %s: %s", exc.status_code, request.url.path, exc.detail)
        error = errors.Internal()
    return error_response(error)


async def storage_error(request: Request, exc: Exception) -> Response:
    """Redis did not answer a read (a list, a summary, a replay): 503, as for writes."""
    return error_response(errors.Unavailable(f"match storage is unreachable: {exc}"))


async def internal_error(request: Request, exc: Exception) -> Response:
    """A bug: logged by the server (the exception propagates), answered in the error form."""
    return error_response(errors.Internal())


def redacted(url: str) -> str:
    """`url` without its password, for logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)))


async def recover(hub: Hub, attempts: int = 600) -> None:
    """Wait for Redis (it may still be loading its data), then bring back the live matches."""
    for attempt in range(attempts):
        if await hub.store.ping():
            if attempt:
                log.info("Redis at %s answers", redacted(hub.store.url))
            break
        if attempt == 0:  # the server does not listen until Redis answers: say why
            log.warning("waiting for Redis at %s ...", redacted(hub.store.url))
        await asyncio.sleep(0.5)
    else:
        log.error("Redis at %s does not answer; serving without it (/readyz answers 503, matches load "
                  "on first use)", redacted(hub.store.url))
        return
    try:
        started = time.perf_counter()
        recovered = await hub.recover_all()
        hub.metrics.recovery_seconds = time.perf_counter() - started
        if recovered:
            log.info("recovered %d live matches in %.3f s", recovered, hub.metrics.recovery_seconds)
    except Exception:
        log.exception("recovery at startup failed; matches load on first use")


def create_app(settings: Settings) -> Starlette:
    """The HTTP API as an ASGI app; it connects to `settings.redis_url` and recovers live
    matches at startup.

    Its lifespan also makes the `WebSockets` that serve `/ws/{match_id}` (websocket.py)
    and puts them in the lifespan state, where `HttpProtocol` finds them to hand each
    such socket over. Under another server than `uvicorn_config`'s, the HTTP API works
    and those sockets are refused.
    """

    redis_url = settings.redis_url
    if redis_url is None:  # Store(None) failed at startup with a misleading "must specify one of the schemes"
        raise ValueError("create_app needs settings.redis_url (`battlehall serve` starts a private Redis "
                         "when none is given, and sets it)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(redis_url, not settings.bench_no_persist, settings.redis_cluster)
        hub = Hub(settings, store)
        app.state.hub = hub
        await recover(hub)
        try:  # public matches of a version before the listing's index
            await listing.backfill(store)
        except Exception as exc:
            log.warning("could not index the public live matches for GET /matches: %r", exc)
        await store.report_durability()
        # Every answer makes many short-lived containers; with the default thresholds the
        # collector ran often enough to cost ~20% of the CPU per answer under load. Matches
        # hold no reference cycles of their own, so collect rarely, and leave everything
        # loaded at start-up (modules, card data, recovered matches) out of it.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
        beat = asyncio.get_running_loop().create_task(hub.beat())
        watch = asyncio.get_running_loop().create_task(hub.watch())
        abandoned = asyncio.get_running_loop().create_task(abandon.watch(hub))
        settling = asyncio.get_running_loop().create_task(ratings.sweep(hub))  # ratings a dead node left
        hub.loop_lag.start()
        sockets = WebSockets(hub, settings)
        sockets.start()
        app.state.quick_play = QuickPlay(hub, settings)
        app.state.quick_play.start()
        yield {"websockets": sockets}
        await app.state.quick_play.close()
        sockets.close()
        beat.cancel()
        watch.cancel()
        abandoned.cancel()
        settling.cancel()
        if hub.leased:
            with contextlib.suppress(Exception):  # no longer a place for matches or redirects
                await nodes.withdraw(store.redis, settings.node)
        await hub.close()
        await store.close()

    pages = ReplaySteps(settings.replay_cache_bytes)

    def hub_of(request) -> Hub:
        return request.app.state.hub

    keys = auth.KeyCheck(settings.api_key, KeyGuard(settings.key_failures, settings.key_failure_window_s))

    def check_key(request: Request, operator: bool = False) -> None:
        """Raise why the request may not go on, if it may not. Operator routes (abort,
        delete) are refused outright (403) when the server has no API key to check."""
        if not settings.api_key:
            if operator:
                raise errors.Forbidden("this needs the server to have an API key (--api-key or "
                                       "BATTLEHALL_API_KEY), and that key as a Bearer token")
            return
        found = keys.refusal(request.client.host if request.client else None, request.headers.get("authorization"))
        if found is not None:
            raise found

    def keyed(endpoint, operator: bool = False):
        """`endpoint` behind the API key (`check_key`, before anything else): what every
        route that needs the key is wrapped in, in the routes below."""
        async def checked(request: Request) -> Response:
            check_key(request, operator)
            return await endpoint(request)
        return checked

    # One budget per address for every route that makes a match: POST /matches, POST
    # /bot-matches and rematches (quick play's joins have their own).
    creations = CreationLimit(settings.create_per_min, settings.create_burst)
    players = PlayerApi(PlayerSettings.of(settings), hub_of, ORJSONResponse, settings.api_key)

    async def check_creation_limit(request: Request) -> None:
        """429 when the client's address has created its share of matches (creation_limit.py);
        not counted: requests with the API key, and creates another node placed here."""
        if settings.api_key or request.client is None:  # with a key, only its holders create
            return
        address = request.client.host
        if request.headers.get(PLACED_HEADER) and await from_a_node(hub_of(request), address):
            return
        creations.spend(address, "created too many matches")

    async def from_a_node(hub: Hub, address: str) -> bool:
        try:
            records = await nodes.live(hub.store.redis)
        except StoreUnavailable:
            return False
        return any(urlsplit(nodes.http_url(r.get("url", ""))).hostname == address for r in records.values())

    async def create_match(request: Request) -> Response:
        await check_creation_limit(request)
        body = await json_body(request)
        binding = players.take_binding(body)  # seats bound to player profiles (player_api.py)
        # A SetupError is answered 400 bad_setup, a StoreUnavailable 503 (the handlers).
        placement = hub_of(request).placement
        placed = bool(request.headers.get(PLACED_HEADER))  # another node placed it here
        req = validate.create_request(body, settings.caster_min_delay_ms)
        assert isinstance(body, dict)  # create_request refuses any other body
        if placed and request.headers.get(BINDING_HEADER):  # proven on the node that placed it
            try:
                bound = await placement.take_over(request.headers[BINDING_HEADER])
            except BindingGone:
                raise errors.BadRequest(f"{BINDING_HEADER} names no binding a node handed over") from None
        else:
            operator = bool(settings.api_key)  # with a key, check_key let only its holders in
            bound = {**await players.bind(request, binding, req["seats"], operator),
                     "made_by": "operator" if operator else "player",
                     "made_from": request.client and request.client.host}  # bot_turns.py's lanes
        created = await placement.create(body, req, bound, placed)
        return ORJSONResponse(created, status_code=201)

    async def drain(request: Request) -> Response:
        hub = hub_of(request)
        if not hub.leased:
            raise errors.NotLeased("this node runs without persistence: nothing to hand on")
        moved = await hub.drain()
        return ORJSONResponse({"node": settings.node, "draining": True, "moved": moved})

    async def list_matches(request: Request) -> Response:
        query = listing.parse_query(request.query_params)
        return ORJSONResponse(await listing.page(hub_of(request), query))

    async def get_match(request: Request) -> Response:
        hub = hub_of(request)
        found = await hub.summaries([request.path_params["match_id"]])
        if not found:
            raise errors.NotFound("no such match")
        return ORJSONResponse(await public.as_of_delay(hub.store, found[0], now_ms()))

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
        if not auth.may_read(meta, request.headers.get("authorization", ""), settings.api_key):
            raise errors.Unauthorized("the replay of a private match needs one of its tokens (a seat's or the "
                                      "spectator's) or the API key, as Authorization: Bearer <token>")
        shown = await public.as_of_delay(hub.store, found[0], now_ms())
        if shown["status"] != "finished":
            raise errors.MatchLive("the replay opens when the match has ended (plus its stream delay)")
        return found

    async def replay(request: Request) -> Response:
        hub = hub_of(request)
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
        return await replay_pages(request, lambda match_id, summary, read: pages.page(
            match_id, summary, read, request.query_params))

    async def replay_definitions(request: Request) -> Response:
        """What no step repeats: the match's inline definitions (replay_steps.py)."""
        return await replay_pages(request, lambda match_id, summary, read: pages.definitions(match_id, read))

    async def replay_pages(request: Request, answer) -> Response:
        hub = hub_of(request)
        match_id = request.path_params["match_id"]
        found = await finished(hub, request, match_id)

        async def read() -> dict:
            return {**found[0], **await hub.revealed(match_id)}
        answered = await answer(match_id, found[0], read)
        return answered if isinstance(answered, Response) else ORJSONResponse(answered)

    async def operator_matches(request: Request) -> Response:
        """Live matches, and finished ones this server still keeps, with their sockets and clocks."""
        hub = hub_of(request)
        ids = list(dict.fromkeys([*await hub.store.live_ids(), *hub.in_memory()]))
        out = [{**summary, **hub.operator_details(summary["match"])}
               for summary in await caster.with_tokens(hub, await hub.summaries(ids))]
        out.sort(key=lambda m: (m["status"] != "live", -m["created_at"]))
        return ORJSONResponse({"matches": out, "now": now_ms()})

    async def abort_match(request: Request) -> Response:
        hub = hub_of(request)
        match_id = request.path_params["match_id"]
        try:
            if not await hub.abort(match_id):
                raise errors.NotFound("no such match")
        except errors.NotHere as exc:  # the owner applies it, in order with the match's answers
            if exc.redirect is None:
                raise errors.Unavailable("the node running this match does not answer; try again") from None
            base = exc.redirect.rsplit("/ws/", 1)[0]
            answer = await nodes.forward(base, "POST", f"/matches/{match_id}/abort", b"",
                                         {"authorization": request.headers.get("authorization", "")})
            return Response(answer.content, status_code=answer.status_code, media_type="application/json")
        except StoreUnavailable as exc:  # a MatchOver is answered 409 (the handler)
            raise errors.Unavailable(f"match storage is unreachable, the abort is not recorded: {exc}") from exc
        found = await hub.summaries([match_id])
        if not found:
            raise errors.NotFound("no such match")
        return ORJSONResponse(found[0])

    async def delete_match(request: Request) -> Response:
        try:
            if not await hub_of(request).delete(request.path_params["match_id"]):
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

    async def healthz(request: Request) -> Response:
        return ORJSONResponse({"ok": True})

    async def readyz(request: Request) -> Response:
        ready = await hub_of(request).store.ping()
        return ORJSONResponse({"ready": ready}, status_code=200 if ready else 503)

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(hub_of(request).prometheus())

    routes = [
        Route("/matches", keyed(create_match), methods=["POST"]),
        Route("/matches", list_matches, methods=["GET"]),
        Route("/matches/{match_id}", get_match, methods=["GET"]),
        Route("/matches/{match_id}", keyed(delete_match, operator=True), methods=["DELETE"]),
        Route("/matches/{match_id}/abort", keyed(abort_match, operator=True), methods=["POST"]),
        Route("/operator/matches", keyed(operator_matches, operator=True), methods=["GET"]),
        *judge_routes.routes(hub_of, ORJSONResponse, keyed),
        Route("/matches/{match_id}/replay", replay, methods=["GET"]),
        Route("/drain", keyed(drain, operator=True), methods=["POST"]),
        Route("/matches/{match_id}/replay/steps", replay_steps, methods=["GET"]),
        Route("/matches/{match_id}/replay/definitions", replay_definitions, methods=["GET"]),
        Route("/rulesets", rulesets, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", keyed(metrics), methods=["GET"]),  # behind the key, when there is one
        *players.routes(),
        *Rematches(hub_of, settings, ORJSONResponse, creations).routes(),
        *queue_routes.routes(settings, ORJSONResponse),
        *bot_matches.routes(settings, hub_of, ORJSONResponse, creations),
        *tv.routes(),  # before web's /tv/{ruleset} page
        *web.routes(settings.frame_ancestors),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={errors.WireError: wire_error, EngineError: wire_error,
                                         HTTPException: http_error, StoreUnavailable: storage_error,
                                         OSError: storage_error,  # a wait that timed out (TimeoutError), as before
                                         Exception: internal_error})


# How long an idle HTTP connection is kept open. uvicorn's 5 s is about as long as
# clients keep theirs (Node's fetch: 4 s), so under load a client would send its next
# request just as the server closed the connection: 19 of 2,199 POST /matches failed
# that way in one benchmark run at 1,000 matches. Servers should outlast their clients.
HTTP_KEEP_ALIVE_S = 30


def uvicorn_config(settings: Settings, **options) -> uvicorn.Config:
    """uvicorn serving the app on `settings`' address, with `/ws/{match_id}` sockets
    handed to websocket.py; `options` are more of uvicorn.Config's (log_level, loop)."""
    options.setdefault("timeout_keep_alive", HTTP_KEEP_ALIVE_S)
    # one Limits and one HostCheck for all the server's connections
    http = functools.partial(HttpProtocol, limits=Limits(settings), hosts=HostCheck.of(settings))
    # uvicorn calls `http` to make each connection's protocol: a factory, which its annotation
    # (a Protocol class, or a name) does not include.
    return uvicorn.Config(create_app(settings), host=settings.host, port=settings.port,
                          http=http,  # type: ignore[arg-type]
                          ws="websockets-sansio", ws_per_message_deflate=False, lifespan="on",
                          access_log=False, **options)


class Server(uvicorn.Server):
    """uvicorn's server, which first drains the node when told to stop (SIGTERM, SIGINT):
    every live match is handed to another node and its sockets told where to go, before
    the sockets left are closed (1012)."""

    async def shutdown(self, sockets=None) -> None:
        hub = getattr(self.config.app.state, "hub", None) if isinstance(self.config.app, Starlette) else None
        if hub is not None and hub.leased and not hub.draining and not self.force_exit:
            try:
                await asyncio.wait_for(hub.drain(), DRAIN_TIMEOUT_S)
            except Exception:
                log.exception("the drain before stopping failed")
        await super().shutdown(sockets)
