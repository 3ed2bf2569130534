"""The operator's routes (docs/protocol.md "Operator routes"), and the node's metrics.

    GET  /operator/matches   every live match, and the finished ones kept in memory, with their sockets and clocks
    POST /drain              hand every live match this node runs on to the other nodes
    GET  /metrics            Prometheus' text (behind the key when there is one, like POST /matches)

The abort and the delete of one match are match_routes.py's.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.http import state
from battlehall.server.http.keyed import keyed, operator_keyed
from battlehall.server.http.responses import ORJSONResponse
from battlehall.server.node import caster


async def operator_matches(request: Request) -> Response:
    """Live matches, and finished ones this server still keeps, with their sockets and clocks."""
    hub = state.hub(request)
    ids = list(dict.fromkeys([*await hub.store.live_ids(), *hub.in_memory()]))
    out = [{**summary, **hub.operator_details(summary["match"])}
           for summary in await caster.with_tokens(hub, await hub.summaries(ids))]
    out.sort(key=lambda m: (m["status"] != "live", -m["created_at"]))
    return ORJSONResponse({"matches": out, "now": now_ms()})


async def drain(request: Request) -> Response:
    hub = state.hub(request)
    if not hub.leased:
        raise errors.NotLeased("this node runs without persistence: nothing to hand on")
    moved = await hub.drain()
    return ORJSONResponse({"node": state.settings(request).node, "draining": True, "moved": moved})


async def metrics(request: Request) -> Response:
    return PlainTextResponse(state.hub(request).prometheus())


routes: list[Route] = [
    Route("/operator/matches", operator_keyed(operator_matches), methods=["GET"]),
    Route("/drain", operator_keyed(drain), methods=["POST"]),
    Route("/metrics", keyed(metrics), methods=["GET"]),
]
