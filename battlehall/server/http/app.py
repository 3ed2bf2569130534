"""The Starlette app of every route module's routes, with the lifespan that builds what
they read and the handlers that answer their refusals; and the uvicorn server for it and
the sockets."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import time
from urllib.parse import urlsplit, urlunsplit

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match

from battlehall.engine.errors import EngineError
from battlehall.server import errors
from battlehall.server.config import Settings
from battlehall.server.http import (
    bot_matches,
    health_routes,
    judge_routes,
    match_routes,
    operator_routes,
    player_api,
    queue_routes,
    rematch,
    replay_routes,
    ruling_routes,
    state,
    tournament_routes,
    tv,
    web,
)
from battlehall.server.http.responses import error_response
from battlehall.server.node import abandon
from battlehall.server.node.hub import Hub
from battlehall.server.players import ratings
from battlehall.server.players.quick_play import QuickPlay
from battlehall.server.storage import listing
from battlehall.server.storage.store import Store, StoreUnavailable
from battlehall.server.tournaments.events import Events
from battlehall.server.tournaments.settings import TournamentSettings
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


async def redis_answers(hub: Hub, attempts: int = 3000, every_s: float = 0.1) -> bool:
    """Wait for Redis (it may still be loading its data): whether it answered."""
    for attempt in range(attempts):
        if await hub.store.ping():
            if attempt:
                log.info("Redis at %s answers", redacted(hub.store.url))
            return True
        if attempt == 0:  # the server does not listen until Redis answers: say why
            log.warning("waiting for Redis at %s ...", redacted(hub.store.url))
        await asyncio.sleep(every_s)
    log.error("Redis at %s does not answer; serving without it (/readyz answers 503, matches load "
              "on first use)", redacted(hub.store.url))
    return False


async def recover(hub: Hub, last_beat: int | None) -> None:
    """Bring back the live matches, while the node serves: a match asked for meanwhile is
    loaded next, ahead of the rest (loading.py), so every match is served from the start."""
    hub.metrics.recovering = True
    try:
        started = time.perf_counter()
        recovered = await hub.recover_all(last_beat)
        hub.metrics.recovery_seconds = time.perf_counter() - started
        if recovered:
            log.info("recovered %d live matches in %.3f s", recovered, hub.metrics.recovery_seconds)
    except Exception:
        log.exception("recovery at startup failed; matches load on first use")
    finally:
        hub.metrics.recovering = False
    gc.freeze()  # the matches loaded stay: out of the collector's way, as what was loaded before serving


async def settle_in(hub: Hub, last_beat: int | None) -> None:
    """What a start does once the node serves: bring back the live matches, then index the
    public live matches of a version before the listing's index (a read of every live
    match's meta: not worth holding up the start for)."""
    await recover(hub, last_beat)
    try:
        await listing.backfill(hub.store)
    except Exception as exc:
        log.warning("could not index the public live matches for GET /matches: %r", exc)


async def after(first: asyncio.Task, then) -> None:
    """Run `then()` once the task `first` is over (the scans for matches to take
    over once the recovery's own scan is done, as before the node served)."""
    with contextlib.suppress(Exception):
        await asyncio.shield(first)
    await then()


#: Every route of the server, each module's own (http/__init__.py says the convention).
ROUTES: list[BaseRoute] = [
    *match_routes.routes,
    *replay_routes.routes,
    *operator_routes.routes,
    *judge_routes.routes,
    *ruling_routes.routes,  # a judge's rulings and replacements
    *tournament_routes.routes,  # docs/tournaments.md
    *health_routes.routes,
    *player_api.routes,
    *rematch.routes,
    *queue_routes.routes,
    *bot_matches.routes,
    *tv.routes,  # before web's /tv/{ruleset} page
    *web.routes,
]


def create_app(settings: Settings) -> Starlette:
    """The HTTP API as an ASGI app; it connects to `settings.redis_url` and recovers live
    matches at startup.

    Its lifespan puts on `app.state` what the routes read (state.py), and makes the
    `WebSockets` that serve `/ws/{match_id}` (websocket.py) and puts them in the lifespan
    state, where `HttpProtocol` finds them to hand each such socket over. Under another
    server than `uvicorn_config`'s, the HTTP API works and those sockets are refused.
    """

    redis_url = settings.redis_url
    if redis_url is None:  # Store(None) failed at startup with a misleading "must specify one of the schemes"
        raise ValueError("create_app needs settings.redis_url (`battlehall serve` starts a private Redis "
                         "when none is given, and sets it)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(redis_url, not settings.bench_no_persist, settings.redis_cluster)
        hub = Hub(settings, store)
        state.install(app, settings, hub)
        redis_up = await redis_answers(hub)
        # Read before the node beats again: how long it was away (the clocks of older matches).
        last_beat = None
        with contextlib.suppress(Exception):  # Redis gone again: the recovery reads it itself
            last_beat = await hub.store.heartbeat(settings.node) if redis_up else None
        # Leases are renewed from the start: a recovery longer than a lease lost its first matches.
        beat = asyncio.get_running_loop().create_task(hub.beat())
        await store.report_durability()
        # Every answer makes many short-lived containers; with the default thresholds the
        # collector ran often enough to cost ~20% of the CPU per answer under load. Matches
        # hold no reference cycles of their own, so collect rarely, and leave everything
        # loaded at start-up (modules, card data, recovered matches) out of it.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
        # Last, so that the loads do not hold up the start: the node listens meanwhile.
        recovering = asyncio.get_running_loop().create_task(settle_in(hub, last_beat) if redis_up else asyncio.sleep(0))
        watch = asyncio.get_running_loop().create_task(after(recovering, hub.watch))
        abandoned = asyncio.get_running_loop().create_task(abandon.watch(hub))
        settling = asyncio.get_running_loop().create_task(ratings.sweep(hub))  # ratings a dead node left
        hub.loop_lag.start()
        sockets = WebSockets(hub, settings)
        sockets.start()
        quick_play = app.state.quick_play = QuickPlay(hub, settings)  # state.quick_play(request)
        quick_play.start()
        # The tournaments this node runs, and the sweep taking on those whose lease lapsed.
        events = app.state.tournaments = Events(hub, TournamentSettings.of(settings))  # state.tournaments(request)
        events.start()
        yield {"websockets": sockets}
        await events.close()
        await quick_play.close()
        sockets.close()
        recovering.cancel()
        beat.cancel()
        watch.cancel()
        abandoned.cancel()
        settling.cancel()
        if hub.leased:
            with contextlib.suppress(Exception):  # no longer a place for matches or redirects
                await store.nodes.withdraw(settings.node)
        await hub.close()
        await store.close()

    return Starlette(routes=ROUTES, lifespan=lifespan,
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
