"""Three real `battlehall serve` nodes on one real Redis, bots playing through client.py.

A node killed (SIGKILL) or paused (SIGSTOP) past its leases loses its matches to the
others; a drained node (POST /drain, SIGTERM) hands them on. Afterwards every match
has ended, every acknowledged answer is in its log exactly once, and the fencing tokens
in each log never go back: no node wrote after losing its lease.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import msgpack
import orjson
import pytest
import redis
import websockets

from battlehall.client import JSON, MSGPACK, Client
from battlehall.server.config import Settings
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.lease import FENCED_WRITE
from servers import ServerProcess, bearer, free_port

LEASE_MS = 1000
SCAN_MS = 200
KEY = "nodes-test-key"


class Cluster:
    """N nodes sharing one private Redis, each advertising its own address."""

    env: dict[str, str] = {}  # settings over the ones below, on every node

    def __init__(self, tmp_path, count: int = 3, env: dict[str, str] | None = None):
        self.redis_server = EmbeddedRedis(tmp_path / "redis", port=free_port()).start()
        self.redis = redis.Redis.from_url(self.redis_server.url)
        self.env = env or {}
        self.start_nodes(tmp_path, count)

    def start_nodes(self, tmp_path, count: int, args: tuple[str, ...] = ()) -> None:
        """`count` nodes on `self.redis_server` (anything with a `url` and a `stop()`)."""
        self.nodes = []
        for i in range(count):
            folder = tmp_path / f"node{i}"
            folder.mkdir()
            node = ServerProcess(folder, redis_url=self.redis_server.url, args=("--api-key", KEY, *args))
            node.env = {"BATTLEHALL_NODE_ID": f"n{i}", "BATTLEHALL_NODE_URL": f"ws://127.0.0.1:{node.port}",
                        "BATTLEHALL_LEASE_MS": str(LEASE_MS), "BATTLEHALL_TAKEOVER_SCAN_MS": str(SCAN_MS),
                        "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", **self.env}
            self.nodes.append(node)
        with ThreadPoolExecutor(count) as pool:
            list(pool.map(lambda n: n.start(), self.nodes))
        self.wait_for_records(count)

    def wait_for_records(self, count: int) -> None:
        deadline = time.monotonic() + 10
        while len(self.redis.keys("bh:node:*")) < count:
            assert time.monotonic() < deadline, "the nodes did not publish their records"
            time.sleep(0.05)

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    def create(self, via: int = 0, **body) -> dict:
        body.setdefault("seats", ["alice", "bob"])
        r = httpx.post(self.nodes[via].url + "/matches", json=body, timeout=10,
                       headers={"authorization": f"Bearer {KEY}"})
        assert r.status_code == 201, r.text
        return r.json()

    def owner(self, match_id: str) -> str | None:
        value = self.redis.get(f"bh:{{{match_id}}}:owner")
        return value.decode().split(" ", 1)[1] if value else None

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc and node.proc.poll() is None:
                os.kill(node.proc.pid, signal.SIGCONT)
            node.kill()
        self.redis.close()
        self.redis_server.stop()


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    yield c
    c.stop()


def node_index(cluster: Cluster, created: dict) -> int:
    port = int(created["ws_url"].split(":")[2].split("/")[0])
    return [n.port for n in cluster.nodes].index(port)


async def start_bots(cluster: Cluster, count: int, hp: int = 30, think_s: float = 0.02):
    """`count` duel matches created through node 0 (placed by least load), two bots each
    that know every node's address and follow redirects."""
    games = []
    for i in range(count):
        created = cluster.create(ruleset="duel", seed=i, options={"hp": hp})
        clients = [Client(cluster.urls, created["match"], token, wire=(JSON, MSGPACK)[j], seed=i * 2 + j,
                          think_s=think_s, give_up_s=60, max_backoff_s=0.5)
                   for j, token in enumerate(created["tokens"].values())]
        games.append((created, clients))
    tasks = [asyncio.ensure_future(asyncio.gather(*(c.run() for c in g))) for _, g in games]
    return games, tasks


def check_match(cluster: Cluster, created: dict, clients: list[Client]) -> list[str]:
    """Every acknowledged answer applied exactly once, every client's stream gapless, and
    the fencing tokens of the log in order; returns the lease of each log entry."""
    match_id = created["match"]
    alive = next(n for n in cluster.nodes if n.proc.poll() is None)
    replay = httpx.get(f"{alive.url}/matches/{match_id}/replay", headers=bearer(created), timeout=10).json()
    events = replay["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["kind"] == "match_ended"
    answered = [e["data"]["id"] for e in events if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered"]
    assert len(answered) == len(set(answered)), "an answer was applied twice"
    for client in clients:
        for act_id in client.acked:
            assert client.sent[act_id] in answered, f"acknowledged answer {act_id} was lost"
        seqs = [e["seq"] for e in client.events]
        assert seqs == list(range(seqs[0], seqs[-1] + 1)), "a client missed or repeated an event"
    leases = [fields[b"o"].decode() for _, fields in cluster.redis.xrange(f"bh:{{{match_id}}}:log")]
    tokens = [int(lease.split(" ")[0]) for lease in leases]
    assert tokens == sorted(tokens), f"a write with an older lease came after a newer one: {leases}"
    return leases


async def test_a_killed_node_s_matches_are_taken_over_and_finish(cluster):
    games, tasks = await start_bots(cluster, 18)
    placed = [node_index(cluster, created) for created, _ in games]
    assert len(set(placed)) == 3, f"least-loaded placement spread the matches: {placed}"
    victim = max(range(3), key=placed.count)
    deadline = time.monotonic() + 30
    while sum(len(c.acked) for _, g in games for c in g) < 40:  # play is under way
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    doomed = [created["match"] for created, _ in games if cluster.owner(created["match"]) == f"n{victim}"]
    assert doomed
    cluster.nodes[victim].kill()
    killed_at = time.monotonic()
    while True:  # every live match of the dead node has a new owner
        owners = {m: cluster.owner(m) for m in doomed if cluster.redis.zscore("bh:live", m) is not None}
        if all(o is not None and o != f"n{victim}" for o in owners.values()):
            break
        assert time.monotonic() - killed_at < LEASE_MS / 1000 + 5, f"not taken over: {owners}"
        await asyncio.sleep(0.02)
    takeover_s = time.monotonic() - killed_at
    print(f"takeover of {len(owners)} matches: {takeover_s:.2f} s (lease {LEASE_MS} ms, scan {SCAN_MS} ms)")
    assert takeover_s < LEASE_MS / 1000 + 1.5  # lease + a few scans, documented in docs/operations.md
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(r[0] == r[1] for r in results)
    moved = 0
    for created, clients in games:
        leases = check_match(cluster, created, clients)
        if created["match"] in doomed and len({lease.split(" ")[1] for lease in leases}) > 1:
            moved += 1
    assert moved >= 1, "no match played on after the takeover"


async def test_a_paused_node_writes_nothing_after_losing_its_leases(cluster):
    games, tasks = await start_bots(cluster, 12, think_s=0.02)
    deadline = time.monotonic() + 30
    while sum(len(c.acked) for _, g in games for c in g) < 30:  # play is under way
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    placed = [node_index(cluster, created) for created, _ in games]
    victim = max(range(3), key=placed.count)
    paused = [created["match"] for created, _ in games if cluster.owner(created["match"]) == f"n{victim}"]
    assert paused
    os.kill(cluster.nodes[victim].proc.pid, signal.SIGSTOP)
    deadline = time.monotonic() + 10
    while any(cluster.owner(m) in (None, f"n{victim}") for m in paused if cluster.redis.zscore("bh:live", m)):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    os.kill(cluster.nodes[victim].proc.pid, signal.SIGCONT)  # it still thinks it runs them
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(r[0] == r[1] for r in results)
    taken = 0
    for created, clients in games:
        leases = check_match(cluster, created, clients)
        writers = [lease.split(" ")[1] for lease in leases]
        if created["match"] in paused and writers[-1] != f"n{victim}":
            taken += 1
            last_by_victim = max(i for i, w in enumerate(writers) if w == f"n{victim}") if f"n{victim}" in writers else -1
            assert all(w != f"n{victim}" for w in writers[last_by_victim + 1:])
            assert all(w == f"n{victim}" for w in writers[:last_by_victim + 1]), writers
    assert taken >= 1
    # The node came back, learnt it had lost them (at a renewal, or a write Redis refused)
    # and let them go.
    metrics = httpx.get(cluster.nodes[victim].url + "/metrics", headers={"authorization": f"Bearer {KEY}"},
                        timeout=10).text
    lost = int(float(re.search(r"^battlehall_matches_lost_total (\S+)$", metrics, re.M).group(1)))
    assert lost >= taken


async def test_drain_and_sigterm_hand_every_match_on(cluster):
    games, tasks = await start_bots(cluster, 12, think_s=0.03)
    await asyncio.sleep(0.8)
    on = {i: [c["match"] for c, _ in games if cluster.owner(c["match"]) == f"n{i}"] for i in range(3)}
    assert on[1] and on[2]
    r = httpx.post(cluster.nodes[1].url + "/drain", headers={"authorization": f"Bearer {KEY}"}, timeout=30)
    assert r.status_code == 200, r.text
    assert 1 <= r.json()["moved"] <= len(on[1])
    assert all(cluster.owner(m) != "n1" for m in on[1])  # none left behind
    assert httpx.post(cluster.nodes[1].url + "/drain", timeout=10).status_code == 401  # the operator's key
    # SIGTERM drains too: node 2 hands its matches to node 0 (node 1 is draining), then exits.
    cluster.nodes[2].proc.send_signal(signal.SIGTERM)
    cluster.nodes[2].proc.wait(30)  # uvicorn ends by raising the signal it caught again, once stopped
    log = (cluster.nodes[2].data_dir / f"server-{cluster.nodes[2].port}.log").read_text()
    assert "live matches handed on to 1 other nodes" in log, log
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(r[0] == r[1] for r in results)
    for created, clients in games:
        check_match(cluster, created, clients)
    drained = [m for m in on[1] + on[2]]
    for m in drained:
        assert cluster.owner(m) in (None, "n0")
    assert not any(c.errors and any(e.get("code") == "internal" for e in c.errors) for _, g in games for c in g)


async def test_not_here_redirects_to_the_owner_and_a_takeover_stops_the_clock(cluster):
    created = cluster.create(ruleset="duel", seed=3)
    owner = node_index(cluster, created)
    other = cluster.nodes[(owner + 1) % 3]
    url = f"ws://127.0.0.1:{other.port}/ws/{created['match']}"
    async with websockets.connect(url, subprotocols=[JSON]) as ws:
        await ws.send('{"t": "hello", "token": "%s"}' % created["tokens"]["alice"])
        error = orjson.loads(await ws.recv())
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
    assert error["code"] == "not_here"
    assert error["redirect"] == created["ws_url"] == f"ws://127.0.0.1:{cluster.nodes[owner].port}/ws/{created['match']}"
    assert closed.value.rcvd.code == 4009
    # A bad token is refused as on the owner, and never redirected: the redirect is for players.
    async with websockets.connect(url, subprotocols=[JSON]) as ws:
        await ws.send('{"t": "hello", "token": "nope"}')
        assert orjson.loads(await ws.recv())["code"] == "unauthorized"
    # client.py follows it: given the other node only, it plays on the owner.
    client = Client(other.url, created["match"], created["tokens"]["alice"], wire=MSGPACK)
    task = asyncio.ensure_future(client.run())
    deadline = time.monotonic() + 10
    while not client.acked:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    assert client.redirects == 1 and client.url == created["ws_url"]
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    # A write with a lease that is no longer the match's is refused by Redis itself.
    m = created["match"]
    keys = [f"bh:{{{m}}}:{part}" for part in ("owner", "log", "snap", "meta", "start", "epoch", "held")]
    length = cluster.redis.xlen(keys[1])
    with pytest.raises(redis.ResponseError, match="FENCED"):
        cluster.redis.eval(FENCED_WRITE, len(keys), *keys, f"99 n{(owner + 1) % 3}", "999-0",
                           msgpack.packb({}), msgpack.packb([]), "", "", "", "")
    assert cluster.redis.xlen(keys[1]) == length

    # The clock does not run while a match has no owner: kill the owner of a match with
    # an open prompt; on its next node the prompt's deadline is later by that time.
    created = cluster.create(ruleset="duel", seed=1, clock={"prompt_ms": 20_000, "bank_ms": 0})
    owner = node_index(cluster, created)
    token = created["tokens"]["alice"]
    async with websockets.connect(created["ws_url"], subprotocols=[JSON]) as ws:
        await ws.send('{"t": "hello", "token": "%s"}' % token)
        before = orjson.loads(await ws.recv())["prompts"][0]["deadline"]
    renewed = int(cluster.redis.get(f"bh:{{{created['match']}}}:held"))  # its lease's last renewal so far
    cluster.nodes[owner].kill()
    other = cluster.nodes[(owner + 1) % 3]
    while cluster.owner(created["match"]) in (None, f"n{owner}"):
        await asyncio.sleep(0.02)
    client = Client(other.url, created["match"], token, wire=JSON)
    welcome = {}

    async def first(message):
        if message["t"] == "welcome":
            welcome.update(message)
            raise asyncio.CancelledError

    client.on_message = first
    with pytest.raises(asyncio.CancelledError):
        await client.run()
    welcomed_at = time.time()
    after = welcome["prompts"][0]["deadline"]
    # Shifted by the time from the lease's last renewal to the takeover: the player loses
    # none of it. That is a lease at least when the lease lapsed first, and otherwise at
    # least the time for the node's heartbeat to lapse (its last beat came at most a beat
    # before the kill).
    defaults = Settings()
    least = min(LEASE_MS, defaults.node_death_ms - defaults.heartbeat_ms)
    assert least <= after - before <= welcomed_at * 1000 - renewed


@pytest.mark.parametrize("name, value, said", [
    ("BATTLEHALL_PLACEMENT", "nearest", "BATTLEHALL_PLACEMENT must be one of least-loaded, local, not 'nearest'"),
    ("BATTLEHALL_NODE_URL", "http://10.0.0.1:8000", "BATTLEHALL_NODE_URL must be a ws:// or wss:// URL"),
])
def test_serve_names_a_bad_node_setting(tmp_path, name, value, said):
    done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--data-dir", str(tmp_path)],
                          env={**os.environ, name: value}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and said in done.stderr, done.stderr
