"""Spectators on any node: two real nodes on one real Redis, a spectator on each.

The node that does not run the match serves its spectators from a copy fed over Redis
(mirror.py): they must see exactly what the owner's spectators see, with the stream
delay, nothing hidden, and the spectator count must be the same on every node.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from battlehall.client import JSON, MSGPACK, Client
from battlehall.engine import get_ruleset
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import key
from leaks import atoms
from servers import ServerProcess, bearer
from wsutil import Raw


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis"), fsync="everysec").start()
    nodes = {}
    for name in ("node-a", "node-b"):
        nodes[name] = ServerProcess(tmp_path_factory.mktemp(name), redis.url,
                                    env={"BATTLEHALL_NODE_ID": name,
                                         "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                         # A dead node's matches are taken within about a second.
                                         "BATTLEHALL_LEASE_MS": "1000", "BATTLEHALL_TAKEOVER_SCAN_MS": "200"}).start()
    yield nodes, redis
    for node in nodes.values():
        node.stop()
    redis.stop()


def owner_and_other(nodes: dict, redis_url: str, match_id: str) -> tuple[ServerProcess, ServerProcess]:
    """The node that holds the match's lease, and the other one."""
    import redis as sync_redis
    value = sync_redis.Redis.from_url(redis_url).get(key(match_id, "owner"))
    owner = value.decode().split(" ", 1)[1]
    other = next(n for n in nodes if n != owner)
    return nodes[owner], nodes[other]


def create(node: ServerProcess, **body) -> dict:
    return node.create(**body)


def spectators(node: ServerProcess, match_id: str) -> int:
    return httpx.get(f"{node.url}/matches/{match_id}", timeout=5).json()["spectators"]


async def counted(nodes: tuple[ServerProcess, ...], match_id: str, expected: int, within: float = 5) -> None:
    """Every node's public count of the match's spectators reaches `expected` (each node
    writes its own count FLUSH_S after a change)."""
    deadline = time.monotonic() + within
    while (counts := [spectators(node, match_id) for node in nodes]) != [expected] * len(nodes):
        assert time.monotonic() < deadline, f"counts {counts}, expected {expected} on every node"
        await asyncio.sleep(0.1)


def metric(node: ServerProcess, name: str) -> float:
    for line in httpx.get(f"{node.url}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


def shown(message: dict) -> dict:
    """What two spectators of the same match must agree on (`now` is each node's clock)."""
    return {k: v for k, v in message.items() if k != "now"}


async def test_a_spectator_on_another_node_sees_what_the_owners_see_and_nothing_hidden(two_nodes):
    nodes, redis = two_nodes
    ruleset = get_ruleset("spellfire")
    created = create(nodes["node-a"], ruleset="spellfire", seed=11, clock={"window_min_ms": 0})
    match_id = created["match"]
    owner, other = owner_and_other(nodes, redis.url, match_id)
    seen: dict[str, list] = {"owner": [], "other": []}
    watchers = {where: Client(node.url, match_id, created["spectator_token"], wire=wire,
                              on_message=seen[where].append)
                for where, node, wire in (("owner", owner, JSON), ("other", other, MSGPACK))}
    watching = [asyncio.create_task(w.run()) for w in watchers.values()]
    deadline = time.monotonic() + 10
    while not all(seen.values()) and time.monotonic() < deadline:  # both welcomed
        await asyncio.sleep(0.05)
    await counted((owner, other), match_id, 2)
    assert metric(other, "battlehall_mirrors") >= 1  # the other node copies the match, it does not run it

    seats = list(created["tokens"])
    bots = [Client(owner.url, match_id, created["tokens"][s], seed=11 + i) for i, s in enumerate(seats)]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots), *watching), 120)

    assert watchers["other"].redirects == 0  # served where it connected
    events = {where: [shown(m) for m in messages if m["t"] == "event"] for where, messages in seen.items()}
    assert events["owner"][-1]["kind"] == "match_ended"
    assert len(events["owner"]) > 100
    assert events["other"] == events["owner"]  # the same public events, in the same order, nothing more
    welcomes = {where: [shown(m) for m in messages if m["t"] == "welcome"] for where, messages in seen.items()}
    assert welcomes["other"][0] == welcomes["owner"][0]

    # Nothing hidden reached the other node's spectator: re-run the match from the seed
    # its replay reveals, and check each message against what was secret at its seq.
    replay = httpx.get(f"{owner.url}/matches/{match_id}/replay", headers=bearer(created), timeout=10).json()
    state, _ = ruleset.start(seats, int(replay["seed"]))
    answers = {pid: (bot.seat, act["option"], act["args"]) for bot in bots for pid, act in bot.answers.items()}
    secret_seed = {str(replay["seed"]), int(replay["seed"])}
    secrets_at = {0: set(ruleset.secrets(state, None)) | secret_seed}
    for event in replay["events"]:
        if event["kind"] != "prompt_closed" or event["data"]["reason"] == "cancelled":
            continue
        if event["data"]["reason"] == "answered":
            seat, option, args = answers[event["data"]["id"]]
            ruleset.answer(state, seat, event["data"]["id"], option, args)
        else:
            ruleset.expire(state, event["data"]["id"])
        secrets_at[event["seq"]] = set(ruleset.secrets(state, None)) | secret_seed
    assert state["result"] == replay["result"]
    marks = sorted(secrets_at)
    assert sum(len(s) for s in secrets_at.values()) > 0
    for message in seen["other"]:
        if "seq" in message:
            secret = secrets_at[max(m for m in marks if m <= message["seq"])]
            leaked = [a for a in atoms(message, []) if a in secret]
            assert not leaked, f"{message['t']} {message['seq']}: {leaked} leaked"
    await counted((owner, other), match_id, 0)


async def test_the_stream_delay_holds_on_another_node(two_nodes):
    nodes, redis = two_nodes
    delay = 1000
    created = create(nodes["node-b"], ruleset="duel", seed=8, spectators={"delay_ms": delay})
    match_id = created["match"]
    owner, other = owner_and_other(nodes, redis.url, match_id)
    alice = await Raw.open(owner.url, match_id, JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    early = await Raw.open(other.url, match_id, JSON)
    early_hello = await early.hello(created["spectator_token"])
    assert early_hello["role"] == "spectator" and early_hello["delay_ms"] == delay
    prompt = welcome["prompts"][0]
    await alice.send({"t": "act", "id": "a1", "prompt": prompt["id"], "option": "guard"})
    ack = await alice.recv_until(lambda m: m["t"] == "ack")
    acked_at = asyncio.get_running_loop().time()
    # A spectator joining the other node now is shown the state before the answer.
    late = await Raw.open(other.url, match_id, JSON)
    late_hello = await late.hello(created["spectator_token"])
    assert late_hello["seq"] < ack["seq"] and late_hello["view"]["guarding"]["alice"] is False
    event = await early.recv_until(lambda m: m["t"] == "event" and m["kind"] == "guard", timeout=5)
    assert asyncio.get_running_loop().time() - acked_at >= (delay - 100) / 1000
    # ...with the prompt deadlines moved by the delay, as on the owner.
    owners = await Raw.open(owner.url, match_id, JSON)
    await owners.hello(created["spectator_token"], resume=0)
    on_owner = await owners.recv_until(lambda m: m["t"] == "event" and m["seq"] == event["seq"], timeout=5)
    assert on_owner == event
    await counted((owner, other), match_id, 3)
    for conn in (alice, early, late, owners):
        await conn.close()


async def test_the_spectator_cap_counts_every_node(two_nodes):
    nodes, redis = two_nodes
    created = create(nodes["node-a"], ruleset="duel", seed=2, spectators={"public": True, "max": 2})
    match_id = created["match"]
    owner, other = owner_and_other(nodes, redis.url, match_id)
    first = await Raw.open(owner.url, match_id, JSON)
    assert (await first.hello(None))["role"] == "spectator"
    second = await Raw.open(other.url, match_id, JSON)
    assert (await second.hello(None))["role"] == "spectator"
    # A node writes its count FLUSH_S (0.2 s) after a change and reads the other's every
    # READ_S (1 s): 2 s leaves a loaded machine some margin.
    await asyncio.sleep(2.0)
    for node in (owner, other):
        third = await Raw.open(node.url, match_id, JSON)
        assert (await third.hello(None))["code"] == "full"
    await second.close()
    await asyncio.sleep(2.0)
    third = await Raw.open(owner.url, match_id, JSON)
    assert (await third.hello(None))["role"] == "spectator"
    for conn in (first, third):
        await conn.close()


async def test_the_other_nodes_spectators_see_the_match_through_a_takeover(two_nodes):
    """The owner is killed mid-match; the other node takes the match over from Redis, and
    its spectator, fed from the log all along, misses nothing and sees nothing twice."""
    nodes, redis = two_nodes
    created = create(nodes["node-a"], ruleset="duel", seed=5, clock={"prompt_ms": 60_000})
    match_id = created["match"]
    owner, other = owner_and_other(nodes, redis.url, match_id)
    seen: list[dict] = []
    watcher = Client(other.url, match_id, created["spectator_token"], on_message=seen.append)
    watching = asyncio.create_task(watcher.run())
    # The players know both nodes: when the owner dies they try the other, which takes the
    # match over (or sends them where it went).
    bots = [Client([owner.url, other.url], match_id, created["tokens"][s], seed=i, think_s=0.1, max_backoff_s=0.5)
            for i, s in enumerate(("alice", "bob"))]
    playing = asyncio.gather(*(b.run() for b in bots))
    deadline = time.monotonic() + 10
    while sum(1 for m in seen if m["t"] == "event") < 8 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    owner.kill()
    try:
        results = await asyncio.wait_for(playing, 60)
        await asyncio.wait_for(watching, 30)
    finally:
        owner.start()
    assert metric(other, "battlehall_matches_taken_over_total") >= 1
    assert all(b.reconnects >= 1 for b in bots)  # the players did lose their node
    seqs = [m["seq"] for m in seen if m["t"] == "event"]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # no gap, nothing twice
    assert seen[-1]["kind"] == "match_ended" and seen[-1]["data"] == results[0] == results[1]
    assert watcher.redirects == 0 and watcher.reconnects == 0  # the same socket throughout


async def test_a_delayed_match_is_public_only_as_of_its_delay_on_every_node(two_nodes):
    """The summary, the listing and the replay of a delayed match tell nothing newer than
    its spectators see, on the node that runs it and on the other alike."""
    nodes, redis = two_nodes
    delay = 4000
    created = create(nodes["node-a"], ruleset="duel", seed=9, spectators={"public": True, "delay_ms": delay})
    match_id = created["match"]
    owner, other = owner_and_other(nodes, redis.url, match_id)
    start_seq = httpx.get(f"{other.url}/matches/{match_id}", timeout=5).json()["seq"]
    bots = [Client(owner.url, match_id, t, seed=i) for i, t in enumerate(created["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)
    ended = time.monotonic()
    for node in (owner, other):
        summary = httpx.get(f"{node.url}/matches/{match_id}", timeout=5).json()
        assert (summary["status"], summary["result"], summary["seq"]) == ("live", None, start_seq), node.url
        listed = httpx.get(f"{node.url}/matches", params={"ruleset": "duel", "limit": 100}, timeout=5).json()
        assert match_id in [m["match"] for m in listed["matches"]]
        assert httpx.get(f"{node.url}/matches/{match_id}/replay", timeout=5).status_code == 409
    assert time.monotonic() - ended < delay / 1000, "the checks took longer than the delay"
    await asyncio.sleep(delay / 1000 + 0.3)
    for node in (owner, other):
        summary = httpx.get(f"{node.url}/matches/{match_id}", timeout=5).json()
        assert summary["status"] == "finished" and summary["result"] is not None
        assert httpx.get(f"{node.url}/matches/{match_id}/replay", timeout=5).status_code == 200


async def test_a_spectator_on_another_node_gets_its_view_when_it_asks(two_nodes):
    """A `view` from a spectator of a mirrored match is answered (it was dropped, and the
    spectator page, which asks after each event, stopped redrawing on such a node)."""
    nodes, redis = two_nodes
    created = create(nodes["node-a"], ruleset="duel", seed=4, spectators={"delay_ms": 500})
    owner, other = owner_and_other(nodes, redis.url, created["match"])
    answers = {}
    for where, node in (("owner", owner), ("other", other)):
        conn = await Raw.open(node.url, created["match"], JSON)
        welcome = await conn.hello(created["spectator_token"])
        await conn.send({"t": "view"})
        answers[where] = await conn.recv_until(lambda m: m["t"] == "view", timeout=5)
        assert answers[where]["seq"] == welcome["seq"] and answers[where]["prompts"] == []
        assert answers[where]["delay_ms"] == 500
        await conn.close()
    assert answers["other"]["view"] == answers["owner"]["view"]
