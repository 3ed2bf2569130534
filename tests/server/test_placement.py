"""Placement (placement.py): which node a new match goes to, by the nodes' loads as this
node best knows them (nodes.Placements: a burst of creates is spread over the nodes
although their records, published every third of a lease, lag behind), and a proven
binding of seats handed to another node through Redis, once. Hubs as nodes in this
process on a real Redis; tests/nodes/test_placement_nodes.py passes creates between
real nodes."""

import pytest

from battlehall.server.node.nodes import Placements, least_loaded
from battlehall.server.node.placement import BindingGone
from battlehall.server.storage.profiles import PENDING
from hub_parts import duel, hub_on, redis_server, redis_url  # noqa: F401 (fixtures)


def records(at: int, **matches: int) -> dict[str, dict]:
    return {node: {"url": f"ws://{node}", "matches": count, "sockets": 0, "at": at} for node, count in matches.items()}


def test_a_burst_of_creates_goes_round_the_nodes_before_their_records_change():
    placements, own, chosen = Placements(), 0, []
    stale = records(1_000, n0=0, n1=0, n2=0)  # no record changes during the burst
    for at in range(2_000, 2_009):
        node = least_loaded(placements.adjusted(stale, "n0", own))[0]
        chosen.append(node)
        if node == "n0":
            own += 1
        else:
            placements.placed(node, at)
    assert chosen == ["n0", "n1", "n2"] * 3


def test_a_placement_stops_counting_once_the_node_published_a_newer_record():
    placements = Placements()
    placements.placed("n1", 2_000)
    assert placements.adjusted(records(1_999, n0=0, n1=4), "n0", 0)["n1"]["matches"] == 5
    assert placements.adjusted(records(2_001, n0=0, n1=5), "n0", 0)["n1"]["matches"] == 5  # counted in it now
    assert placements.sent == {}


def test_this_node_counts_itself_from_its_own_matches_not_its_record():
    shown = Placements().adjusted(records(1_000, n0=0, n1=2), "n0", 7)
    assert shown["n0"]["matches"] == 7 and least_loaded(shown)[0] == "n1"


async def test_a_new_match_goes_to_a_node_with_fewer_matches_else_stays_here(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        await n1.ownership.publish()
        assert await n0.placement.choose() is None  # as loaded as each other: here
        await n0.create(duel())
        node, record = await n0.placement.choose()
        assert node == "n1" and record["url"] == "ws://n1.test"
        await n1.create(duel())
        await n1.create(duel())
        await n1.ownership.publish()
        assert await n0.placement.choose() is None  # n1 has more now


async def test_a_draining_node_places_every_match_elsewhere_and_local_placement_never(redis_url):
    async with (hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1,
                hub_on(redis_url, "n2", placement="local") as n2):
        for _ in range(3):
            await n1.create(duel())
        await n1.ownership.publish()
        n0.ownership.draining = True
        assert (await n0.placement.choose())[0] == "n1"  # though it has more matches
        await n2.create(duel())
        assert await n2.placement.choose() is None


async def test_a_binding_handed_over_is_taken_once(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        bound = {"profiles": {"alice": "p_1", "bob": "p_2"}, "rated": True}
        name = await n0.placement.hand_over(bound)
        assert await n1.placement.take_over(name) == bound
        for gone in (name, "0" * 32, "not a name"):
            with pytest.raises(BindingGone):
                await n1.placement.take_over(gone)


async def test_a_match_made_here_with_bound_seats_is_pending_settlement(redis_url):
    async with hub_on(redis_url, "n0") as n0:
        bound = {"profiles": {"alice": "p_1"}, "rated": False}
        body = {"ruleset": "duel", "seats": ["alice", "bob"]}
        created = await n0.placement.create(body, duel(), bound)
        assert created["profiles"] == {"alice": "p_1"} and created["rated"] is False
        assert n0.actors[created["match"]].core.meta["profiles"] == {"alice": "p_1"}
        assert await n0.store.client.zscore(PENDING, created["match"]) == 0  # settled at its end (ratings.py)
