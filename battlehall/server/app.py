"""The HTTP routes of PROTOCOL.md as a Starlette app, and the uvicorn server for it and the sockets."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import logging
import time

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..engine import get_ruleset, ruleset_names
from ..engine.errors import SetupError
from . import validate
from .config import Settings
from .http_protocol import HttpProtocol
from .hub import Hub
from .store import Store, StoreUnavailable
from .websocket import WebSockets

log = logging.getLogger("battlehall.app")


class ORJSONResponse(JSONResponse):
    def render(self, content) -> bytes:
        return orjson.dumps(content)


def error_response(status: int, code: str, message: str, path: str | None = None) -> Response:
    error = {"code": code, "message": message}
    if path is not None:
        error["path"] = path
    return ORJSONResponse({"error": error}, status_code=status)


async def recover(hub: Hub, attempts: int = 600) -> None:
    """Wait for Redis (it may still be loading its data), then bring back the live matches."""
    for _ in range(attempts):
        if await hub.store.ping():
            break
        await asyncio.sleep(0.5)
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

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(settings.redis_url, settings.persist)
        hub = Hub(settings, store)
        app.state.hub = hub
        await recover(hub)
        await store.report_durability()
        # Every answer makes many short-lived containers; with the default thresholds the
        # collector ran often enough to cost ~20% of the CPU per answer under load. Matches
        # hold no reference cycles of their own, so collect rarely, and leave everything
        # loaded at start-up (modules, card data, recovered matches) out of it.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
        beat = asyncio.get_running_loop().create_task(hub.beat())
        hub.loop_lag.start()
        sockets = WebSockets(hub, settings)
        sockets.start()
        yield {"websockets": sockets}
        sockets.close()
        beat.cancel()
        await hub.close()
        await store.close()

    def hub_of(request) -> Hub:
        return request.app.state.hub

    async def create_match(request: Request) -> Response:
        if settings.api_key:
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {settings.api_key}".encode()):
                return error_response(401, "unauthorized", "a valid API key is required")
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            return error_response(400, "bad_request", f"the body is not JSON: {exc}", "")
        try:
            req = validate.create_request(body)
            created = await hub_of(request).create(req)
        except SetupError as exc:
            return error_response(400, exc.code, exc.message, exc.path)
        except StoreUnavailable as exc:
            return error_response(503, "unavailable", f"match storage is unreachable: {exc}")
        return ORJSONResponse(created, status_code=201)

    async def list_matches(request: Request) -> Response:
        hub = hub_of(request)
        ruleset = request.query_params.get("ruleset")
        status = request.query_params.get("status")
        out = []
        for summary in await hub.summaries(await hub.store.live_ids()):
            if ruleset and summary["ruleset"] != ruleset:
                continue
            if status and summary["status"] != status:
                continue
            out.append(summary)
        return ORJSONResponse({"matches": out})

    async def get_match(request: Request) -> Response:
        hub = hub_of(request)
        found = await hub.summaries([request.path_params["match_id"]])
        if not found:
            return error_response(404, "not_found", "no such match")
        return ORJSONResponse(found[0])

    async def replay(request: Request) -> Response:
        hub = hub_of(request)
        match_id = request.path_params["match_id"]
        found = await hub.summaries([match_id])
        if not found:
            return error_response(404, "not_found", "no such match")
        if found[0]["status"] != "finished":
            return error_response(409, "match_live", "the replay opens when the match has ended")
        ruleset = get_ruleset(found[0]["ruleset"])
        events = []
        for record in await hub.store.events(match_id, 0):
            shown = ruleset.reveal(record)  # hidden parts stay apart, per seat, in "private"
            events.append({"seq": record["seq"], "at": record["at"], **shown})
        return ORJSONResponse({**found[0], "events": events})

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
        Route("/matches", create_match, methods=["POST"]),
        Route("/matches", list_matches, methods=["GET"]),
        Route("/matches/{match_id}", get_match, methods=["GET"]),
        Route("/matches/{match_id}/replay", replay, methods=["GET"]),
        Route("/rulesets", rulesets, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


# How long an idle HTTP connection is kept open. uvicorn's 5 s is about as long as
# clients keep theirs (Node's fetch: 4 s), so under load a client would send its next
# request just as the server closed the connection: 19 of 2,199 POST /matches failed
# that way in one benchmark run at 1,000 matches. Servers should outlast their clients.
HTTP_KEEP_ALIVE_S = 30


def uvicorn_config(settings: Settings, **options) -> uvicorn.Config:
    """uvicorn serving the app on `settings`' address, with `/ws/{match_id}` sockets
    handed to websocket.py; `options` are more of uvicorn.Config's (log_level, loop)."""
    options.setdefault("timeout_keep_alive", HTTP_KEEP_ALIVE_S)
    return uvicorn.Config(create_app(settings), host=settings.host, port=settings.port, http=HttpProtocol,
                          ws="websockets-sansio", ws_per_message_deflate=False, lifespan="on",
                          access_log=False, **options)
