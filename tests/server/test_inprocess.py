"""The real server (uvicorn with Battlehall's protocols, a real Redis) run in this
process, for what a test can only see from inside: garbage left for the collector, and
a bug in message handling.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import gc
import io

import httpx
import msgpack
import pytest
import uvicorn
import websockets
from websockets.client import ClientProtocol
from websockets.http11 import Request
from websockets.protocol import Protocol, State

from battlehall.server import codec
from battlehall.server.config import Settings
from battlehall.server.empty import EMPTY, EMPTY_LIST
from battlehall.server.http.app import uvicorn_config
from battlehall.server.match.actor import MatchActor
from battlehall.server.match.inputs import Act, AwayDue
from battlehall.server.node import hub as hub_module
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.transport.frames import IDLE_READER, parser_for_frames
from battlehall.server.transport.websocket import WebSocket
from servers import free_port
from wsutil import guard_turns, silent_client


@pytest.fixture
def redis_url(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis").start()
    yield redis.url
    redis.stop()


@contextlib.asynccontextmanager
async def serving(redis_url: str, servers: list | None = None, **settings):
    """The server on a free port in this event loop; yields its base URL (and appends the
    uvicorn Server to `servers`, for a test that looks at its connections)."""
    port = free_port()
    settings = Settings.load(host="127.0.0.1", port=port, redis_url=redis_url, **settings)
    server = uvicorn.Server(uvicorn_config(settings, log_level="warning"))
    if servers is not None:
        servers.append(server)
    task = asyncio.get_running_loop().create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        done, _ = await asyncio.wait({task}, timeout=30)
        if not done:  # say what the shutdown waits on (it was once a cancel that wait_for swallowed)
            stacks = io.StringIO()
            for pending in asyncio.all_tasks():
                pending.print_stack(limit=3, file=stacks)
            server.force_exit = True
            pytest.fail(f"the server's shutdown did not end in 30 s:\n{stacks.getvalue()}")


async def create_duel(base: str) -> dict:
    async with httpx.AsyncClient(base_url=base) as http:
        return (await http.post("/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]})).json()


async def test_sockets_leave_no_reference_cycles(redis_url):
    """With hundreds of new sockets a second, each cycle left behind made the collector
    run often, for tens of milliseconds at a time, stalling every match."""
    async with serving(redis_url) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]

        async def visit(token: str) -> None:
            async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as ws:
                await ws.send(msgpack.packb({"t": "hello", "token": token}))
                assert msgpack.unpackb(await ws.recv())["t"] == "welcome"

        async def drop(token: str) -> None:  # a client that vanishes: no close frame, a reset
            (_, _, writer) = await silent_client(url, token)
            await asyncio.sleep(0.05)
            writer.transport.abort()

        await visit(created["spectator_token"])  # warm up: first-use caches are not garbage
        await drop(created["spectator_token"])
        await asyncio.sleep(0.2)
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for _ in range(20):
                await visit(created["spectator_token"])
                await visit(created["tokens"]["alice"])
                await drop(created["tokens"]["bob"])
            await asyncio.sleep(0.3)  # let the server finish closing them
            gc.collect()
            left = collections.Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        # Whatever the client library leaves is not ours to judge; the server's side must be clean.
        ours = {name: n for name, n in left.items()
                if name in ("HttpProtocol", "HttpToolsProtocol", "WebSocket", "ServerProtocol", "Connection",
                            "Session", "HttpRequestParser", "FlowControl", "Task")}
        assert not ours, ours


async def test_a_bug_in_handling_a_message_answers_internal_and_keeps_the_socket(redis_url, monkeypatch):
    # Messages are handled inside the socket's data_received: an exception escaping
    # there would make the event loop close the connection. The bug is put in the actor
    # (pure Python in either build): a compiled Session's own methods cannot be replaced.
    def broken(self, event):
        if isinstance(event, Act) and event.id == "bug":
            raise RuntimeError("a bug")
        return real(self, event)

    real = MatchActor.submit
    monkeypatch.setattr(MatchActor, "submit", broken)
    async with serving(redis_url) as base:
        created = await create_duel(base)
        async with websockets.connect(base.replace("http", "ws") + created["ws"], subprotocols=["battlehall.v1.msgpack"],
                                      compression=None) as ws:
            await ws.send(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
            welcome = msgpack.unpackb(await ws.recv())
            prompt = welcome["prompts"][0]
            await ws.send(msgpack.packb({"t": "act", "id": "bug", "prompt": prompt["id"], "option": "guard"}))
            assert msgpack.unpackb(await ws.recv())["code"] == "internal"
            await ws.send(msgpack.packb({"t": "act", "id": 1, "prompt": prompt["id"], "option": "guard"}))
            replies = [msgpack.unpackb(await ws.recv()) for _ in range(4)]
            ack = replies[-1]
            assert {"t": "ack", "id": 1, "seq": ack["seq"], "clock": ack["clock"]} == ack  # the socket still plays


async def test_a_socket_that_cannot_take_more_gets_its_frames_once_it_can(redis_url):
    # When the transport is full (a client reading slowly), frames wait in the outbox
    # until the transport drains, then go out in one write.
    servers: list = []
    async with serving(redis_url, servers) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as alice, \
                websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as bob:
            await alice.send(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
            welcome = msgpack.unpackb(await alice.recv())
            await bob.send(msgpack.packb({"t": "hello", "token": created["tokens"]["bob"]}))
            bob_welcome = msgpack.unpackb(await bob.recv())
            sockets = [c for c in servers[0].server_state.connections if isinstance(c, WebSocket)]
            assert len(sockets) == 2
            for protocol in sockets:
                protocol.pause_writing()  # as the transport does when its buffer is full
            prompt = welcome["prompts"][0]
            await alice.send(msgpack.packb({"t": "act", "id": 1, "prompt": prompt["id"], "option": "guard"}))
            await asyncio.sleep(0.2)
            assert all(p.paused and p.conn.outbox for p in sockets)
            with pytest.raises(asyncio.TimeoutError):  # nothing gets through while paused
                await asyncio.wait_for(bob.recv(), 0.2)
            for protocol in sockets:
                protocol.resume_writing()
            got = [msgpack.unpackb(await asyncio.wait_for(bob.recv(), 5)) for _ in range(3)]
            assert [m["seq"] for m in got] == list(range(bob_welcome["seq"] + 1, bob_welcome["seq"] + 4))
            assert got[-1]["kind"] == "prompt" and got[-1]["data"]["seat"] == "bob"
            mine = [msgpack.unpackb(await asyncio.wait_for(alice.recv(), 5)) for _ in range(4)]
            assert mine[-1] == {"t": "ack", "id": 1, "seq": got[-1]["seq"], "clock": mine[-1]["clock"]}


async def frames_within(client: ClientProtocol, reader, seconds: float) -> list:
    """The frames `client` receives within `seconds`."""
    with contextlib.suppress(asyncio.TimeoutError):
        while chunk := await asyncio.wait_for(reader.read(65536), seconds):
            client.receive_data(chunk)
    return client.events_received()


async def test_the_keep_alive_pings_one_slice_of_the_sockets_per_tick(redis_url):
    servers: list = []
    async with serving(redis_url, servers) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        clients = [await silent_client(url, created["tokens"][seat]) for seat in ("alice", "bob")]
        await asyncio.sleep(0.3)
        (first, second) = sorted((c for c in servers[0].server_state.connections if isinstance(c, WebSocket)),
                                 key=lambda s: s.session.conn.seat)
        assert first.ping_slice is not second.ping_slice  # dealt round-robin
        sockets = first.sockets
        assert sorted(len(s) for s in sockets.slices)[-2:] == [1, 1]
        sockets.ping(first.ping_slice)
        (alice, bob) = [await frames_within(c, reader, 0.3) for (c, reader, _) in clients]
        # Its welcome with the ping that measures a player's line (lag.py), then the keep-alive's.
        assert [e.opcode.name for e in alice] == ["BINARY", "PING", "PING"]
        assert len(alice[1].data) == 8 and alice[1].data != alice[2].data  # each its own random payload
        # bob: its welcome and its measuring ping, and maybe already the presence of alice's socket being dropped
        assert [e.opcode.name for e in bob][:2] == ["BINARY", "PING"] and msgpack.unpackb(bob[0].data)["t"] == "welcome"
        assert all(msgpack.unpackb(e.data)["t"] == "presence" for e in bob[2:] if e.opcode.name == "BINARY")
        for ping_slice in sockets.slices:  # a whole interval's ticks: each socket once more
            sockets.ping(ping_slice)
        (alice, bob) = [await frames_within(c, reader, 0.3) for (c, reader, _) in clients]
        told = [msgpack.unpackb(e.data) for e in bob if e.opcode.name == "BINARY"]
        assert [e.opcode.name for e in bob if e.opcode.name != "BINARY"] == ["PING"]
        assert alice == []  # it never answered the first ping: dropped, not pinged again
        # bob may already have heard that alice's seat was left (presence), and nothing else
        assert all(m["t"] == "presence" and m["seat"] == "alice" for m in told)
        assert first.transport.is_closing() and not second.transport.is_closing()
        for (_, _, writer) in clients:
            writer.close()


async def test_keep_alive_drops_a_socket_that_stops_answering_and_keeps_one_that_answers(redis_url):
    servers: list = []
    async with serving(redis_url, servers) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as alive:
            await alive.send(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
            assert msgpack.unpackb(await alive.recv())["t"] == "welcome"
            # A client that went silent: it said hello, and reads nothing more (no pongs).
            (silent, reader, writer) = await silent_client(url, created["tokens"]["bob"])
            await asyncio.sleep(0.3)
            sockets = [c for c in servers[0].server_state.connections if isinstance(c, WebSocket)]
            assert len(sockets) == 2
            for _ in range(2):  # two sweeps of the keep-alive: a ping, then the check
                for socket in sockets:
                    socket.keep_alive()
                await asyncio.sleep(0.3)  # the live client's library answers the ping
            left = [c for c in servers[0].server_state.connections if isinstance(c, WebSocket)]
            assert left == [s for s in sockets if s.session and s.session.conn.seat == "alice"] and len(left) == 1
            received = b""
            while chunk := await asyncio.wait_for(reader.read(65536), 5):  # until the server dropped it
                received += chunk
            silent.receive_data(received)
            got = silent.events_received()  # its welcome, its measuring ping, and the ping it never answered
            assert msgpack.unpackb(got[0].data)["t"] == "welcome"
            assert [e.opcode.name for e in got[1:]] == ["PING", "PING"]
            told = msgpack.unpackb(await alive.recv())  # the other seat's socket is gone: said at once
            assert (told["t"], told["seat"], told["connected"]) == ("presence", "bob", False)
            await alive.send(msgpack.packb({"t": "ping"}))
            assert msgpack.unpackb(await alive.recv())["t"] == "pong"
            writer.close()


async def test_the_connections_gauge_counts_open_game_sockets(redis_url):
    async def gauge(http) -> int:
        text = (await http.get("/metrics")).text
        return int(float(next(line.split()[1] for line in text.splitlines() if line.startswith("battlehall_connections "))))

    async with serving(redis_url) as base, httpx.AsyncClient(base_url=base) as http:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        assert await gauge(http) == 0
        clients = [await silent_client(url, created["tokens"][seat]) for seat in ("alice", "bob")]
        await asyncio.sleep(0.2)
        assert await gauge(http) == 2
        clients[0][2].transport.abort()
        await asyncio.sleep(0.2)
        assert await gauge(http) == 1
        clients[1][2].close()


async def test_stopping_the_server_closes_its_sockets_with_1012(redis_url):
    async with serving(redis_url) as base:
        created = await create_duel(base)
        ws = await websockets.connect(base.replace("http", "ws") + created["ws"],
                                      subprotocols=["battlehall.v1.msgpack"], compression=None)
        await ws.send(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
        assert msgpack.unpackb(await ws.recv())["t"] == "welcome"
    with pytest.raises(websockets.ConnectionClosed) as closed:  # service restart: reconnect elsewhere
        await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd.code == 1012


async def test_a_socket_too_far_behind_is_closed_1008_and_the_match_goes_on(redis_url):
    servers: list = []
    async with serving(redis_url, servers, send_queue_limit=8) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        connect = functools.partial(websockets.connect, url, subprotocols=["battlehall.v1.msgpack"], compression=None)
        async with connect() as alice, connect() as bob, connect() as watcher:
            hands = {}
            for ws, token in ((alice, created["tokens"]["alice"]), (bob, created["tokens"]["bob"]),
                              (watcher, created["spectator_token"])):
                await ws.send(msgpack.packb({"t": "hello", "token": token}))
                hands[ws] = msgpack.unpackb(await ws.recv())
            stuck = [c for c in servers[0].server_state.connections
                     if isinstance(c, WebSocket) and c.session.conn.role == "spectator"][0]
            stuck.pause_writing()  # the watcher's transport is full: its frames pile up
            prompt, players = hands[alice]["prompts"][0]["id"], [alice, bob]
            for n in range(4):  # each answer queues 3 frames for the watcher: the 3rd overflows 8
                await players[n % 2].send(msgpack.packb({"t": "act", "id": n, "prompt": prompt, "option": "guard"}))
                mine = [msgpack.unpackb(await players[n % 2].recv()) for _ in range(4)]
                theirs = [msgpack.unpackb(await players[1 - n % 2].recv()) for _ in range(3)]
                assert mine[-1]["t"] == "ack" and theirs[-1]["kind"] == "prompt"
                prompt = theirs[-1]["data"]["id"]
            assert stuck.session.conn.closed and not stuck.session.conn.outbox
            stuck.resume_writing()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:  # what got through before the transport filled, then the close
                    await asyncio.wait_for(watcher.recv(), 5)
            assert closed.value.rcvd.code == 1008
            await alice.send(msgpack.packb({"t": "ping"}))  # the match and its other sockets go on
            assert msgpack.unpackb(await alice.recv())["t"] == "pong"


async def test_an_idle_socket_keeps_nothing_of_its_upgrade_and_hello(redis_url):
    """Tens of thousands of sockets sit idle on a node: each holds only what it needs to
    go on (bench/RESULTS.md, "Idle memory"), not the upgrade request's headers that
    websockets' parser keeps, nor its finished join task or cancelled hello timer."""
    servers: list = []
    async with serving(redis_url, servers) as base:
        created = await create_duel(base)
        url = base.replace("http", "ws") + created["ws"]
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None,
                                      additional_headers={"X-Padding": "x" * 500}) as ws:
            await ws.send(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
            assert msgpack.unpackb(await ws.recv())["t"] == "welcome"
            await asyncio.sleep(0.05)
            socket = [c for c in servers[0].server_state.connections if isinstance(c, WebSocket)][0]
            assert socket.session.joining is None and socket.session.hello_timer is None
            # Idle between frames it holds no parser at all (the fast path reads its
            # frames), so nothing of the upgrade request either.
            assert socket.protocol.parser is None and socket.at_frame
            assert not hasattr(socket, "__dict__") and not hasattr(socket.session, "__dict__")
            await ws.send(msgpack.packb({"t": "ping"}))  # and it goes on as before
            assert msgpack.unpackb(await ws.recv())["t"] == "pong"
            # A WebSocket ping is websockets' to answer: a frames-only parser is made for it,
            # holding nothing of the upgrade request, and let go again once it is read.
            await asyncio.wait_for(await ws.ping(b"are you there"), 5)
            await asyncio.sleep(0.05)
            assert socket.protocol.parser is None and socket.protocol.state is State.OPEN
            parser_for_frames(socket.protocol)
            parser = socket.protocol.parser
            assert parser.gi_code is Protocol.parse.__code__
            assert not [value for value in parser.gi_frame.f_locals.values() if isinstance(value, Request)]


async def test_idle_matches_share_their_seat_names_and_keep_no_empty_queues_of_their_own(redis_url):
    """Ten thousand idle matches on a node (bench/RESULTS.md, "Idle memory"): their seat
    names are one string each, and while nothing happens a match keeps no inbox, no
    empty `gone_since` table and no outbox per socket of its own."""
    servers: list = []
    async with serving(redis_url, servers) as base:
        hub = hub_of(servers[0])
        created = [await create_duel(base), await create_duel(base)]
        sockets = []
        for match in created:
            for seat in ("alice", "bob"):
                ws = await websockets.connect(base.replace("http", "ws") + match["ws"],
                                              subprotocols=["battlehall.v1.msgpack"], compression=None)
                await ws.send(msgpack.packb({"t": "hello", "token": match["tokens"][seat]}))
                assert msgpack.unpackb(await ws.recv())["t"] == "welcome"
                sockets.append(ws)
        await asyncio.sleep(0.05)
        one, two = (hub.actors[match["match"]] for match in created)
        assert one.core.meta["ruleset"] is two.core.meta["ruleset"]
        assert one.core.meta["made_from"] is two.core.meta["made_from"] and one.core.meta["made_from"]
        assert one.core.away_grace_ms == two.core.away_grace_ms == 60_000
        if hasattr(one.core, "__dict__"):  # compiled (no instance dict), the int is kept unboxed: no object at all
            assert one.core.away_grace_ms is two.core.away_grace_ms  # one int for all, not a cached small one
        for a, b in zip(one.core.state["seats"] + list(one.core.meta["tokens"]),
                        two.core.state["seats"] + list(two.core.meta["tokens"])):
            assert a == b and a is b
        for actor in (one, two):
            assert actor.inbox is None and actor.core.gone_since is EMPTY and len(actor.conns) == 2
            assert actor.core.batch is EMPTY_LIST and actor.core.outbox is EMPTY_LIST and actor.core._out is EMPTY_LIST
            assert all(conn.outbox is EMPTY_LIST for conn in actor.conns)
            # Each socket shares its match's id, its codec's name and an idle reader, and
            # keeps no count of its upgrade's bytes.
            for conn in actor.conns:
                socket = conn.socket
                assert socket.session.match_id is actor.match_id and conn.codec is codec.MSGPACK
                assert socket.protocol.reader is IDLE_READER and socket.upgrade_bytes == 0
        # Both players on: their seats' away graces from the matches' making are not wanted
        # (the node's deadlines drop them once such entries are half its heap).
        assert not any(actor.deadline_wanted(AwayDue(seat), 0) for actor in (one, two) for seat in ("alice", "bob"))
        limiters = [conn.socket.session.limiter for actor in (one, two) for conn in actor.conns]
        if hasattr(one.core, "__dict__"):  # compiled, floats are kept unboxed as well
            assert all(limiter.capacity is limiters[0].capacity for limiter in limiters)
        await guard_turns(base, created[1], 3)  # answered and written: the batch lists are its own for a while
        assert two.core.batch is EMPTY_LIST and two.core.seq > one.core.seq
        await sockets[0].send(msgpack.packb({"t": "ping"}))  # a frame out gives its socket a list for a turn
        assert msgpack.unpackb(await sockets[0].recv())["t"] == "pong"
        await sockets[0].close()  # gone and back: the seat's table is the shared empty one again
        await asyncio.sleep(0.05)
        assert set(one.core.gone_since) == {"alice"}
        ws = await websockets.connect(base.replace("http", "ws") + created[0]["ws"],
                                      subprotocols=["battlehall.v1.msgpack"], compression=None)
        await ws.send(msgpack.packb({"t": "hello", "token": created[0]["tokens"]["alice"]}))
        assert msgpack.unpackb(await ws.recv())["t"] == "welcome"
        assert one.core.gone_since is EMPTY and EMPTY_LIST == [] and EMPTY == {}
        assert not IDLE_READER.buffer and not IDLE_READER.eof  # nothing was fed to the shared reader
        for socket in [ws, *sockets[1:]]:
            await socket.close()


def hub_of(server: uvicorn.Server):
    return server.config.app.state.hub


async def test_a_history_read_that_takes_long_holds_up_nothing_of_the_match(redis_url, monkeypatch):
    servers: list = []
    async with serving(redis_url, servers) as base:
        hub = hub_of(servers[0])
        async with httpx.AsyncClient(base_url=base) as http:
            created = (await http.post("/matches", json={"ruleset": "duel", "seats": ["alice", "bob"],
                                                         "clock": {"prompt_ms": None}})).json()
        played = await guard_turns(base, created, 20)
        # Every read of the history now waits until the test lets it go.
        gate, read = asyncio.Event(), hub.store.events

        async def slow_events(*args, **kwargs):
            await gate.wait()
            return await read(*args, **kwargs)

        monkeypatch.setattr(hub.store, "events", slow_events)
        url = base.replace("http", "ws") + created["ws"]
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as late:
            await late.send(msgpack.packb({"t": "hello", "token": created["spectator_token"], "resume": 0}))
            welcome = msgpack.unpackb(await late.recv())
            assert welcome["seq"] == played[-1]["seq"]
            # While its history is being read, the match goes on: every answer is acked.
            acks = await guard_turns(base, created, 10)
            assert [a["seq"] for a in acks] == list(range(welcome["seq"] + 3, welcome["seq"] + 31, 3))
            assert hub.metrics.history_streams == 1
            gate.set()
            seqs = []
            while not seqs or seqs[-1] < acks[-1]["seq"]:
                message = msgpack.unpackb(await asyncio.wait_for(late.recv(), 5))
                if message["t"] != "presence":  # the players' sockets come and go between turns
                    seqs.append(message["seq"])
            assert seqs == list(range(1, acks[-1]["seq"] + 1))  # the history, then what was held
        assert hub.metrics.history_streams == 0


async def test_refused_hellos_load_no_match_and_a_finished_match_is_let_go(redis_url, monkeypatch):
    monkeypatch.setattr(hub_module, "LINGER_S", 0.3)
    servers: list = []
    # No takeover scan: the live match let go below would be taken back within a second.
    async with serving(redis_url, servers, takeover_scan_ms=3_600_000) as base, httpx.AsyncClient(base_url=base) as http:
        hub = hub_of(servers[0])

        async def in_memory() -> int:
            text = (await http.get("/metrics")).text
            return int(float(next(line.split()[1] for line in text.splitlines()
                                  if line.startswith("battlehall_matches_in_memory "))))

        body = {"ruleset": "duel", "seats": ["alice", "bob"], "options": {"hp": 1}}
        finished, live = [(await http.post("/matches", json=body)).json() for _ in range(2)]
        url = base.replace("http", "ws") + finished["ws"]
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as alice:
            await alice.send(msgpack.packb({"t": "hello", "token": finished["tokens"]["alice"]}))
            prompt = msgpack.unpackb(await alice.recv())["prompts"][0]
            await alice.send(msgpack.packb({"t": "act", "id": 1, "prompt": prompt["id"], "option": "strike"}))
            while msgpack.unpackb(await alice.recv()).get("kind") != "match_ended":
                pass
        while finished["match"] in hub.actors:  # unloaded after the linger
            await asyncio.sleep(0.05)
        await hub.unload(live["match"])  # live, but not in this process's memory
        assert await in_memory() == 0
        for created in (finished, live):
            real = created["tokens"]["alice"]
            near = real[:-1] + ("1" if real.endswith("0") else "0")  # one character off
            for token in ("wrong", None, near):
                async with websockets.connect(base.replace("http", "ws") + created["ws"],
                                              subprotocols=["battlehall.v1.msgpack"]) as ws:
                    await ws.send(msgpack.packb({"t": "hello", "token": token}))
                    assert msgpack.unpackb(await ws.recv())["code"] == "unauthorized"
                    with pytest.raises(websockets.ConnectionClosed):
                        await ws.recv()
        assert await in_memory() == 0
        # A viewer of the finished match loads it; it is let go after the linger, as a
        # match that ends in this process is, and its socket told so (1001).
        async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"]) as viewer:
            await viewer.send(msgpack.packb({"t": "hello", "token": finished["spectator_token"]}))
            assert msgpack.unpackb(await viewer.recv())["view"]["result"] is not None
            assert await in_memory() == 1
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(viewer.recv(), 5)
            assert closed.value.rcvd.code == 1001
        assert await in_memory() == 0
