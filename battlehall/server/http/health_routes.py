"""Whether this node is up and ready, for load balancers and orchestrators.

    GET /healthz   200 while the process serves HTTP
    GET /readyz    200 when Redis answers too, else 503 (the node cannot make or load matches);
                   while the startup recovery still loads live matches, `"recovering": true` too
                   (each of them is served all the same: asked for, it is loaded next)
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from battlehall.server.http import state
from battlehall.server.http.responses import ORJSONResponse


async def healthz(request: Request) -> Response:
    return ORJSONResponse({"ok": True})


async def readyz(request: Request) -> Response:
    hub = state.hub(request)
    ready = await hub.store.ping()
    body = {"ready": ready, "recovering": True} if hub.metrics.recovering else {"ready": ready}
    return ORJSONResponse(body, status_code=200 if ready else 503)


routes: list[Route] = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
]
