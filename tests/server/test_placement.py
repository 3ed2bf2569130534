"""Placement's view of the nodes' loads (nodes.Placements): a burst of creates is spread
over the nodes although their records, published every third of a lease, lag behind."""

from battlehall.server.nodes import Placements, least_loaded


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
