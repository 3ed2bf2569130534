"""A judge's actions asked of a node that does not run the match (docs/protocol.md,
Judges): two real nodes on one real Redis; the pause, the added time, the resume and the
rewind, each posted to the other node with a judge's token, are passed on to the owner,
which applies them in order with the match's answers, and the seats on the owner see
them."""

from __future__ import annotations

import httpx
import pytest
from test_nodes import KEY, Cluster

from battlehall.client import MSGPACK
from battlehall.server.node.placement import PLACED_HEADER
from wsutil import Raw

OPERATOR = {"authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("judging"), count=2)
    yield c
    c.stop()


def made_on(cluster: Cluster, node: int) -> dict:
    """A duel made on `node` itself (as a create another node placed there is)."""
    r = httpx.post(f"{cluster.urls[node]}/matches", timeout=10, headers={**OPERATOR, PLACED_HEADER: "1"},
                   json={"ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": 60_000, "bank_ms": 0}})
    assert r.status_code == 201, r.text
    return r.json()


async def test_a_judges_clock_actions_and_rewind_asked_of_another_node_reach_the_owner(pair):
    owner, other = 0, 1
    created = made_on(pair, owner)
    match = created["match"]
    assert pair.owner(match) == f"n{owner}"
    judge = httpx.post(f"{pair.urls[other]}/judges", json={"name": "jo"}, headers=OPERATOR, timeout=10)
    assert judge.status_code == 201, judge.text
    as_judge = {"authorization": f"Bearer {judge.json()['token']}"}

    alice = await Raw.open(pair.urls[owner], match, MSGPACK)
    welcome = await alice.hello(created["tokens"]["alice"])
    prompt = welcome["prompts"][0]
    async with httpx.AsyncClient(base_url=pair.urls[other], headers=as_judge, timeout=10) as http:
        paused = await http.post(f"/matches/{match}/pause")
        assert paused.status_code == 200, paused.text
        told = await alice.recv_until(lambda m: m["t"] == "event" and m["kind"] == "judge")
        assert told["data"] == {"action": "pause", "by": "jo"}
        again = await http.post(f"/matches/{match}/pause")  # the owner's refusal comes back as it is
        assert again.status_code == 409 and again.json()["error"]["code"] == "match_paused"

        added = await http.post(f"/matches/{match}/time", json={"seat": "alice", "ms": 5000})
        assert added.status_code == 200, added.text
        told = await alice.recv_until(lambda m: m["t"] == "event" and m["kind"] == "judge")
        assert told["data"]["action"] == "add_time" and told["data"]["seat"] == "alice"
        assert (await http.post(f"/matches/{match}/resume")).status_code == 200

        await alice.send({"t": "act", "id": 1, "prompt": prompt["id"], "option": "guard"})
        await alice.recv_until(lambda m: m["t"] == "ack")
        log = await http.get(f"/matches/{match}/log")
        assert log.status_code == 200, log.text
        entries = log.json()["log"]
        assert [e["judge"]["action"] for e in entries if "judge" in e] == ["pause", "add_time", "resume"]
        answered = next(n for n, e in enumerate(entries, 1) if e.get("option") == "guard")

        rewound = await http.post(f"/matches/{match}/rewind", json={"entry": answered, "reason": "misclick"})
        assert rewound.status_code == 201, rewound.text
        new = rewound.json()
        assert new["rewound_from"] == {"match": match, "entry": answered, "judge": "jo"}
    ended = await alice.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    assert ended["data"]["reason"] == "judge_rewind" and ended["data"]["rewound_to"] == new["match"]
    await alice.close()

    # The same token plays the match that goes on, at the decision the judge took back.
    runs_it = pair.owner(new["match"])
    assert runs_it is not None
    again = await Raw.open(pair.urls[int(runs_it[1:])], new["match"], MSGPACK)
    welcome = await again.hello(created["tokens"]["alice"])
    assert [p["seat"] for p in welcome["prompts"]] == ["alice"]
    await again.close()
