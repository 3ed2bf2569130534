"""Resuming long matches over real sockets: a history longer than a socket's send queue
arrives whole, once, in order, then the live events; many resumes at once do not hold
up the players."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest
import websockets

from battlehall.client import JSON, MSGPACK, Client, decode, encode, ws_url
from servers import ServerProcess
from wsutil import guard_turns

QUEUE_LIMIT = 200


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # A small send queue, so that a history of a thousand events is five times too long
    # for it; a high rate limit, so that the players make long matches quickly.
    env = {"BATTLEHALL_SEND_QUEUE_LIMIT": str(QUEUE_LIMIT), "BATTLEHALL_RATE_PER_S": "5000"}
    srv = ServerProcess(tmp_path_factory.mktemp("resume"), env=env).start()
    yield srv
    srv.stop()


def guard(prompt: dict) -> tuple[str, dict]:
    return "guard", {}


def metric(server, name: str) -> int:
    text = httpx.get(server.url + "/metrics").text
    return int(float(next(line.split()[1] for line in text.splitlines() if line.startswith(name + " "))))


@contextlib.asynccontextmanager
async def players(server, created, think_s: float = 0.0):
    """Both seats guarding forever (a duel that never ends) until the block exits.

    While a resumed socket is sent its history, its live events wait, at most as many
    as its send queue holds: players that think a little keep the live stream slow
    enough for that."""
    clients = [Client(server.url, created["match"], token, choose=guard, seed=i, think_s=think_s)
               for i, token in enumerate(created["tokens"].values())]
    tasks = [asyncio.get_running_loop().create_task(c.run()) for c in clients]
    try:
        yield clients
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def played_until(clients, seq: int) -> None:
    while min((c.last_seq or 0) for c in clients) < seq:
        await asyncio.sleep(0.05)


async def long_match(server, events: int, **body) -> dict:
    """A duel with more than `events` events, its players gone."""
    created = server.create(ruleset="duel", seed=1, clock={"prompt_ms": None}, **body)
    async with players(server, created) as clients:
        await played_until(clients, events)
    return created


class Resumer:
    """A raw socket that says hello with `resume` and records everything it receives."""

    def __init__(self, ws, wire):
        self.ws, self.wire = ws, wire
        self.welcome: dict | None = None
        self.seqs: list[int] = []
        self.messages: list[dict] = []

    @classmethod
    async def open(cls, server, match_id, token, resume, wire=MSGPACK, batch=False, sock=None):
        ws = await websockets.connect(ws_url(server.url, match_id), subprotocols=[wire], sock=sock,
                                      max_size=2**24, compression=None)
        self = cls(ws, wire)
        hello = {"t": "hello", "token": token, "resume": resume}
        if batch:
            hello["batch"] = True
        await ws.send(encode(wire, hello))
        return self

    async def read_until(self, seq: int, timeout: float = 60) -> None:
        """Receive until the event `seq` has come."""
        async with asyncio.timeout(timeout):
            while not self.seqs or self.seqs[-1] < seq:
                received = decode(self.wire, await self.ws.recv())
                for message in received["messages"] if received["t"] == "batch" else [received]:
                    self.messages.append(message)
                    if message["t"] == "welcome":
                        assert self.welcome is None
                        self.welcome = message
                    elif message["t"] == "event":
                        self.seqs.append(message["seq"])
                    elif message["t"] == "error":
                        raise AssertionError(message)

    def assert_every_event_once_in_order(self, first: int) -> None:
        assert self.seqs == list(range(first, self.seqs[-1] + 1))


async def test_a_history_longer_than_the_send_queue_arrives_whole_then_the_live_events(server):
    created = await long_match(server, 5 * QUEUE_LIMIT)
    seq = httpx.get(f"{server.url}/matches/{created['match']}").json()["seq"]
    resumers = [await Resumer.open(server, created["match"], token, 0, wire, batch)
                for token, wire, batch in ((created["tokens"]["alice"], MSGPACK, False),
                                           (created["spectator_token"], JSON, False),
                                           (created["tokens"]["bob"], JSON, True))]
    for r in resumers:
        await r.read_until(seq)
        assert r.welcome["seq"] == seq and r.messages[0] is r.welcome
        r.assert_every_event_once_in_order(1)
    assert resumers[0].messages[1]["kind"] == "match_started"
    # The match goes on: the live events follow the history, with no gap.
    async with players(server, created, think_s=0.01):
        for r in resumers:
            await r.read_until(seq + 3 * QUEUE_LIMIT)
            r.assert_every_event_once_in_order(1)
    for r in resumers:
        await r.ws.close()


async def test_resuming_while_the_match_is_played_misses_nothing_and_repeats_nothing(server):
    created = await long_match(server, 3 * QUEUE_LIMIT)
    starts = (0, 0, 100, 100, 2 * QUEUE_LIMIT + 1, 2 * QUEUE_LIMIT + 1)
    async with players(server, created, think_s=0.01) as clients:
        await played_until(clients, 4 * QUEUE_LIMIT)
        resumers = [await Resumer.open(server, created["match"], created["tokens"]["alice"], after, wire, batch)
                    for after, (wire, batch) in zip(starts, [(MSGPACK, False), (JSON, True)] * 3)]
        end = max(c.last_seq for c in clients) + 60
        await asyncio.gather(*(r.read_until(end) for r in resumers))
    for r, after in zip(resumers, starts):
        r.assert_every_event_once_in_order(after + 1)
        assert r.welcome["seq"] > after
        await r.ws.close()


async def test_a_delayed_spectator_resumes_the_history_then_the_delayed_stream(server):
    delay = 300
    created = await long_match(server, 4 * QUEUE_LIMIT, spectators={"delay_ms": delay})
    async with players(server, created, think_s=0.01) as clients:
        watcher = await Resumer.open(server, created["match"], created["spectator_token"], 0)
        await watcher.read_until(5 * QUEUE_LIMIT)
        assert watcher.welcome["delay_ms"] == delay
        watcher.assert_every_event_once_in_order(1)
        live = max(c.last_seq for c in clients)
        await watcher.read_until(live + 30)
        watcher.assert_every_event_once_in_order(1)
        assert "options" not in str(watcher.messages)  # the public copy, nothing hidden
    await watcher.ws.close()


async def test_players_are_answered_while_many_clients_resume_long_histories(server):
    created = await long_match(server, 10 * QUEUE_LIMIT)
    seq = httpx.get(f"{server.url}/matches/{created['match']}").json()["seq"]
    # Twenty clients ask for the whole history at once, and the players go on meanwhile.
    resumers = [await Resumer.open(server, created["match"], created["spectator_token"], 0, JSON)
                for _ in range(20)]
    reading = asyncio.gather(*(r.read_until(seq + 3 * 50) for r in resumers))
    acks = await guard_turns(server.url, created, 50)
    assert [a["seq"] for a in acks] == list(range(seq + 3, seq + 3 + 3 * 50, 3))
    await reading
    for r in resumers:
        assert r.welcome["seq"] >= seq
        r.assert_every_event_once_in_order(1)
        await r.ws.close()
    assert metric(server, "battlehall_history_streams") == 0
