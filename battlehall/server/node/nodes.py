"""The nodes sharing one Redis: who is alive, how loaded, where clients reach them.

Each node keeps a record in Redis (JSON: its URL, live matches, sockets, whether it is
draining) with a time to live of one lease, rewritten every renewal period (its keys
and commands: storage/nodes.py, `Store.nodes`). A node whose record lapsed is dead to
placement and redirects; its matches are taken over once their leases lapse too
(takeover.py).
"""

from __future__ import annotations

import functools
import logging
import ssl

import certifi
import httpx

FORWARD_TIMEOUT_S = 10
#: How long placement may wait for the nodes' records. A Redis that does not answer this
#: read would not take the match's write either: the create is refused (503) at once,
#: rather than after this wait and the write's own.
PLACEMENT_TIMEOUT_S = 2.0

log = logging.getLogger("battlehall.nodes")
logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per create passed on


def http_url(ws_url: str) -> str:
    """The HTTP base of a node from its advertised ws:// or wss:// URL."""
    if ws_url.startswith("wss://"):
        return "https://" + ws_url[6:]
    if ws_url.startswith("ws://"):
        return "http://" + ws_url[5:]
    return ws_url


def least_loaded(nodes: dict[str, dict], exclude: tuple[str, ...] = ()) -> tuple[str, dict] | None:
    """The live, not draining node with the fewest live matches (then sockets, then id)."""
    fit = [(r.get("matches", 0), r.get("sockets", 0), n) for n, r in nodes.items()
           if n not in exclude and not r.get("draining")]
    if not fit:
        return None
    node = min(fit)[2]
    return node, nodes[node]


class Placements:
    """The creates this node passed on lately, counted on top of each node's record until
    that record is newer. Records are published every third of a lease: without this, a
    burst of creates would all go to the node whose record still says it is the emptiest."""

    def __init__(self):
        self.sent: dict[str, list[int]] = {}

    def placed(self, node: str, at: int) -> None:
        self.sent.setdefault(node, []).append(at)

    def adjusted(self, records: dict[str, dict], own: str, own_matches: int) -> dict[str, dict]:
        """`records` with each node's matches as this node best knows them: its own count
        for itself, and for the others their record plus what was placed there since."""
        shown = {}
        for node, record in records.items():
            pending = [at for at in self.sent.get(node, ()) if at > record.get("at", 0)]
            if pending:
                self.sent[node] = pending
            else:
                self.sent.pop(node, None)
            matches = own_matches if node == own else record.get("matches", 0) + len(pending)
            shown[node] = {**record, "matches": matches}
        return shown


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS settings of requests to other nodes, made once: what httpx makes for each
    new client (certifi's CA bundle), whose loading was over half of a node's CPU when
    every create was passed on (bench/nodes.py --cpu-share)."""
    return ssl.create_default_context(cafile=certifi.where())


async def forward(base_ws_url: str, method: str, path: str, body: bytes, headers: dict) -> httpx.Response:
    """Send an HTTP request on to another node (placement, an operator's abort)."""
    async with httpx.AsyncClient(base_url=http_url(base_ws_url), timeout=FORWARD_TIMEOUT_S, trust_env=False,
                                 verify=tls_context()) as http:
        return await http.request(method, path, content=body, headers=headers)
