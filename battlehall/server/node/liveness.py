"""Which nodes are alive, by their heartbeats (storage/heartbeat.py), and who takes which of
a dead node's matches.

A node whose beat is older than `node_death_ms` is dead: its matches may be taken at once,
their leases broken (storage/lease.py's ACQUIRE checks the beat again, on Redis' clock),
well before they would lapse. A node that never beat (a version before heartbeats) is
never taken for dead: its matches move when their leases lapse, as they always did.

The matches to take are split among the live nodes by rendezvous hashing: each goes to
the node with the highest hash of (node, match), so every node reading the same beats
takes a disjoint share, and together they take them all, with no round of talk and no
random draw; a match whose taker failed is taken by anyone at the next scan (takeover.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging

from battlehall.server.storage.heartbeat import Beats

log = logging.getLogger("battlehall.hub")


def rank(node: str, match_id: str) -> bytes:
    return hashlib.blake2b(f"{node}\0{match_id}".encode(), digest_size=8).digest()


def taker(match_id: str, nodes: list[str]) -> str:
    """The node of `nodes` that takes `match_id` (rendezvous hashing)."""
    return max(nodes, key=lambda node: rank(node, match_id))


class Liveness:
    """This node's view of the others' heartbeats, updated at each of its own beats."""

    def __init__(self, node: str, death_ms: int):
        self.node = node
        self.death_ms = death_ms
        self.known = False  # a reading of the beats has come
        self.dead: frozenset[str] = frozenset()  # nodes whose beat lapsed
        self.alive: tuple[str, ...] = ()  # nodes beating, this one included, sorted
        self.died = asyncio.Event()  # set when a node is newly seen dead: a scan should run now

    def saw(self, beats: Beats) -> None:
        """A reading of every node's beat (on the event loop, from the heartbeat's thread)."""
        dead = frozenset(n for n, at in beats.last.items() if n != self.node and beats.now_ms - at > self.death_ms)
        newly = dead - self.dead
        self.dead = dead
        self.alive = tuple(sorted({self.node, *(n for n in beats.last if n not in dead)}))
        self.known = True
        if newly:
            log.warning("node(s) %s silent for over %d ms: taking over their matches", ", ".join(sorted(newly)),
                        self.death_ms)
            self.died.set()
