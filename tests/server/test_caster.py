"""Casters: every hidden card, never sooner than the caster delay, on every ruleset,
across a reconnect and a server restart; the caster token opens nothing else."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
import websockets

from battlehall.client import JSON, MSGPACK, Client
from battlehall.engine import get_ruleset, ruleset_names
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from servers import ServerProcess, bearer
from wsutil import Raw

MIN_DELAY_MS = 1500  # the servers' BATTLEHALL_CASTER_MIN_DELAY_MS here: small, so tests stay fast
ENV = {"BATTLEHALL_CASTER_MIN_DELAY_MS": str(MIN_DELAY_MS), "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}
CLOCK_FIELDS = ("deadline",)  # moved later by the delay in a caster's copy


@pytest.fixture(scope="module")
def cast_server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("cast"), env=ENV).start()
    yield srv
    srv.stop()


def now_ms() -> int:
    return int(time.time() * 1000)


class Recorder:
    """A caster socket that keeps every message with the time it arrived (epoch ms, the
    server's clock: the same machine), and reconnects with `resume` when told to."""

    def __init__(self, server, created: dict, wire: str = JSON):
        self.server, self.created, self.wire = server, created, wire
        self.got: list[tuple[int, dict]] = []
        self.last_seq = 0
        self.conn: Raw | None = None
        self.task: asyncio.Task | None = None

    async def connect(self) -> dict:
        self.conn = await Raw.open(self.server.url, self.created["match"], self.wire)
        welcome = await self.conn.hello(self.created["caster_token"], resume=self.last_seq, role="caster")
        self.got.append((now_ms(), welcome))
        assert welcome["t"] == "welcome" and welcome["role"] == "caster", welcome
        self.task = asyncio.create_task(self._read(self.conn))
        return welcome

    async def _read(self, conn: Raw) -> None:
        # Its own connection, not `self.conn`: a cancel that asyncio.wait_for swallows (its
        # recv done at the same moment) let the old reader read on, and from the new
        # connection it would race the new reader (websockets' ConcurrencyError).
        try:
            while True:
                message = await conn.recv(timeout=3600)
                self.got.append((now_ms(), message))
                if message["t"] == "event":
                    assert message["seq"] == self.last_seq + 1, (message["seq"], self.last_seq)
                    self.last_seq = message["seq"]
        except (websockets.ConnectionClosed, asyncio.CancelledError):
            pass

    async def drop(self) -> None:
        self.task.cancel()
        await self.conn.close()

    def ended(self) -> bool:
        return any(m["t"] == "event" and m["kind"] == "match_ended" for _, m in self.got)

    async def until_ended(self, timeout: float = 120) -> None:
        end = time.monotonic() + timeout
        while not self.ended():
            assert time.monotonic() < end, "the caster never saw the end"
            await asyncio.sleep(0.05)


def check_delay(got: list[tuple[int, dict]], at_of: dict[int, int], delay: int) -> int:
    """Nothing a caster got is newer than the delay: an event's `at`, and the time of the
    last event a welcome or view includes, are at least `delay` before it arrived; and
    before the start was that old, a welcome or view holds no view at all."""
    checked = 0
    for arrived, message in got:
        if message["t"] == "event":
            assert message["at"] + delay <= arrived, f"event {message['seq']} {arrived - message['at']} ms after it happened"
            checked += 1
        elif message["t"] in ("welcome", "view"):
            if message["seq"] == 0:
                assert message["view"] is None and message["views"] is None
            else:
                assert at_of[message["seq"]] + delay <= arrived, f"{message['t']} at seq {message['seq']} too fresh"
                assert message["views"] is not None
            checked += 1
    return checked


def replay_of(server, created) -> dict:
    return httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created), timeout=30).json()


def without_clock(event: dict) -> dict:
    data = {k: v for k, v in event["data"].items() if k not in CLOCK_FIELDS}
    return {"seq": event["seq"], "kind": event["kind"], "data": data, "private": event.get("private")}


def bots(server, created, think_s: float) -> list[Client]:
    return [Client(server.url, created["match"], token, wire=(JSON, MSGPACK)[i % 2], seed=i, think_s=think_s,
                   on_status=lambda s: None)
            for i, token in enumerate(created["tokens"].values())]


# -- creating ---------------------------------------------------------------------------


def test_the_caster_delay_is_never_below_the_minimum(cast_server):
    url = cast_server.url + "/matches"
    for caster, path in (({"delay_ms": MIN_DELAY_MS - 1}, "caster.delay_ms"), ({"delay_ms": "60000"}, "caster.delay_ms"),
                         ({"delay_ms": 3_600_001}, "caster.delay_ms"), ({"delay": 5000}, "caster.delay"),
                         (5000, "caster")):
        r = httpx.post(url, json={"ruleset": "duel", "seats": ["a", "b"], "caster": caster})
        assert r.status_code == 400 and r.json()["error"]["path"] == path, (caster, r.text)
    plain = cast_server.create(ruleset="duel")
    assert "caster_token" not in plain
    assert httpx.get(f"{url}/{plain['match']}").json()["caster_settings"] is None
    default = cast_server.create(ruleset="duel", caster={})
    assert len(default["caster_token"]) == 32 and default["caster_token"] not in (
        default["spectator_token"], *default["tokens"].values())
    assert httpx.get(f"{url}/{default['match']}").json()["caster_settings"] == {"delay_ms": MIN_DELAY_MS}
    longer = cast_server.create(ruleset="duel", caster={"delay_ms": 90_000})
    assert httpx.get(f"{url}/{longer['match']}").json()["caster_settings"] == {"delay_ms": 90_000}


# -- what a caster gets, and when ---------------------------------------------------------


@pytest.mark.timeout(240)
@pytest.mark.parametrize("name", ruleset_names())
async def test_a_caster_sees_every_hand_only_after_the_delay_across_a_reconnect_and_a_restart(tmp_path, name):
    server = ServerProcess(tmp_path, env=ENV).start()
    try:
        created = server.create(ruleset=name, caster={"delay_ms": MIN_DELAY_MS}, clock={"window_min_ms": 0})
        caster = Recorder(server, created, MSGPACK)
        created_at = httpx.get(f"{server.url}/matches/{created['match']}").json()["created_at"]
        welcome = await caster.connect()
        if caster.got[0][0] < created_at + MIN_DELAY_MS:  # (a busy machine may take longer to get here)
            assert welcome["seq"] == 0 and welcome["views"] is None  # even the deal waits for the delay
        players = bots(server, created, think_s=0.03)
        playing = [asyncio.create_task(p.run()) for p in players]
        await asyncio.sleep(MIN_DELAY_MS / 1000 + 0.5)
        await caster.drop()  # a reconnect: the caster resumes from the last seq it saw
        seen = caster.last_seq
        assert seen > 0
        await asyncio.sleep(0.3)
        await caster.connect()
        await asyncio.sleep(0.7)
        await caster.drop()
        server.kill()  # a restart: the match comes back from Redis, and so does its caster stream
        server.start()
        await caster.connect()
        await caster.conn.send({"t": "view"})
        await caster.conn.send({"t": "act", "id": 1, "prompt": "p1", "option": "x"})
        await asyncio.wait_for(asyncio.gather(*playing), 180)
        await caster.until_ended(MIN_DELAY_MS / 1000 + 30)
        await asyncio.sleep(0.3)
        await caster.drop()
        replay = replay_of(server, created)
        at_of = {e["seq"]: e["at"] for e in replay["events"]}
        assert check_delay(caster.got, at_of, MIN_DELAY_MS) > len(replay["events"])  # every event, and the welcomes
        # Every event, once, in order, each with every seat's hidden part: the replay's own.
        events = [m for _, m in caster.got if m["t"] == "event"]
        assert [without_clock(e) for e in events] == [without_clock(e) for e in replay["events"]]
        shifted = [(e, r) for e, r in zip(events, replay["events"]) if "deadline" in r["data"]]
        assert all(e["data"]["deadline"] == r["data"]["deadline"] + MIN_DELAY_MS for e, r in shifted)
        if get_ruleset(name).declaration.information == "hidden":
            assert any(e.get("private") for e in events)
        views = [m for _, m in caster.got if m["t"] in ("welcome", "view") and m["views"] is not None]
        assert views and all(sorted(m["views"]) == sorted(created["tokens"]) for m in views)
        errors = [m for _, m in caster.got if m["t"] == "error"]
        assert [e["code"] for e in errors] == ["spectator"]  # a caster cannot act
    finally:
        server.stop()


async def test_a_caster_joining_late_is_shown_the_match_as_of_the_delay(cast_server):
    created = cast_server.create(ruleset="duel", seed=3, caster={})
    alice = await Raw.open(cast_server.url, created["match"])
    welcome = await alice.hello(created["tokens"]["alice"])
    await alice.send({"t": "act", "id": 1, "prompt": welcome["prompts"][0]["id"], "option": "guard"})
    await alice.recv_until(lambda m: m["t"] == "ack")
    caster = Recorder(cast_server, created)
    first = await caster.connect()
    assert first["seq"] == 0 and first["views"] is None and first["delay_ms"] == MIN_DELAY_MS
    await asyncio.sleep(MIN_DELAY_MS / 1000 + 0.3)
    await caster.conn.send({"t": "view"})
    await asyncio.sleep(0.3)
    view = caster.got[-1][1]
    assert view["t"] == "view" and view["views"]["alice"]["guarding"]["alice"] is True
    assert view["seq"] == welcome["seq"] + 3  # the answer's events too: it is older than the delay now
    await caster.drop()
    await alice.close()


# -- the caster token opens nothing else, and nothing else opens the caster stream -----------------


async def test_the_caster_link_is_refused_where_another_is_expected_and_the_reverse(cast_server):
    created = cast_server.create(ruleset="spellfire", caster={})
    match = created["match"]
    cases = [(created["caster_token"], "player"), (created["caster_token"], "spectator"),
             (created["tokens"]["alice"], "caster"), (created["spectator_token"], "caster")]
    for token, role in cases:
        conn = await Raw.open(cast_server.url, match)
        refused = await conn.hello(token, role=role)
        assert refused["t"] == "error" and refused["code"] == "wrong_role", (role, refused)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await conn.recv()
        assert closed.value.rcvd.code == 4001
    conn = await Raw.open(cast_server.url, match)
    assert (await conn.hello(created["caster_token"], role="referee"))["code"] == "bad_message"
    conn = await Raw.open(cast_server.url, match)  # a judge's role is a role, but not this token's
    assert (await conn.hello(created["caster_token"], role="judge"))["code"] == "wrong_role"
    # Without `role`, the token decides: a caster token is a caster, never a seat or a spectator.
    conn = await Raw.open(cast_server.url, match)
    welcome = await conn.hello(created["caster_token"])
    assert welcome["role"] == "caster" and welcome["seat"] is None and welcome["prompts"] == []
    await conn.close()
    # Another match's caster token is no token of this one.
    other = cast_server.create(ruleset="spellfire", caster={})
    conn = await Raw.open(cast_server.url, match)
    assert (await conn.hello(other["caster_token"]))["code"] == "unauthorized"
    # A match without a caster link has no caster token: role "caster" is refused.
    plain = cast_server.create(ruleset="spellfire")
    conn = await Raw.open(cast_server.url, plain["match"])
    assert (await conn.hello(plain["spectator_token"], role="caster"))["code"] == "wrong_role"


async def test_the_caster_token_opens_no_get(cast_server):
    created = cast_server.create(ruleset="duel", caster={})
    match = created["match"]
    caster_header = {"Authorization": f"Bearer {created['caster_token']}"}
    alice = await Raw.open(cast_server.url, match)
    await alice.hello(created["tokens"]["alice"])
    url = f"{cast_server.url}/matches/{match}"
    summary = httpx.get(url, headers=caster_header).json()
    assert summary == httpx.get(url).json()  # the summary is the same for everyone, token or not
    assert "caster_token" not in summary
    for path in ("/replay", "/replay/steps"):
        r = httpx.get(url + path, headers=caster_header)
        assert r.status_code == 401, (path, r.text)
    await alice.close()


async def test_casters_on_both_nodes_see_the_same_stream_at_the_delay(tmp_path):
    """Two nodes on one Redis: a caster on each, one of them on the node that does not run
    the match (served from Redis, as spectators are there)."""
    redis = EmbeddedRedis(tmp_path / "redis", fsync="everysec").start()
    nodes = []
    try:
        for name in ("node-a", "node-b"):
            (tmp_path / name).mkdir()
            nodes.append(ServerProcess(tmp_path / name, redis.url,
                                       env={**ENV, "BATTLEHALL_NODE_ID": name, "BATTLEHALL_PLACEMENT": "local"}).start())
        created = nodes[0].create(ruleset="spellfire", caster={}, clock={"window_min_ms": 0})
        casters = [Recorder(node, created) for node in nodes]
        for caster in casters:
            await caster.connect()
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in bots(nodes[0], created, 0.005))), 120)
        for caster in casters:
            await caster.until_ended(MIN_DELAY_MS / 1000 + 30)
        replay = replay_of(nodes[1], created)
        at_of = {e["seq"]: e["at"] for e in replay["events"]}
        streams = []
        for caster in casters:
            await caster.drop()
            assert check_delay(caster.got, at_of, MIN_DELAY_MS) > len(replay["events"])
            streams.append([m for _, m in caster.got if m["t"] == "event"])
        assert streams[0] == streams[1] and len(streams[0]) == len(replay["events"])
    finally:
        for node in nodes:
            node.stop()
        redis.stop()
