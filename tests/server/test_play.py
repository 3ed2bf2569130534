"""Whole matches over real sockets against the real server and its real Redis."""

from __future__ import annotations

import asyncio
import socket

import httpx
import msgpack
import redis
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from battlehall.client import JSON, MSGPACK, Client
from servers import bearer
from wsutil import Raw


async def play(server, ruleset: str, seed: int, wires=(JSON, MSGPACK), batch=(False, False), **body):
    created = server.create(ruleset=ruleset, seed=seed, **body)
    seats = list(created["tokens"])
    clients = [Client(server.url, created["match"], created["tokens"][s], wire=w, seed=i, batch=b)
               for i, (s, w, b) in enumerate(zip(seats, wires, batch))]
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    return created, clients, results


async def test_duel_json_against_msgpack(server):
    created, clients, results = await play(server, "duel", 5)
    assert results[0] == results[1] and results[0]["winner"] in ("alice", "bob")
    # Both saw the same ordered stream, seq by seq, whatever their encoding.
    a, b = clients[0].events, clients[1].events
    assert [e["seq"] for e in a] == list(range(a[0]["seq"], a[-1]["seq"] + 1))
    common = {e["seq"] for e in a} & {e["seq"] for e in b}
    assert common and all(
        (x["kind"], x["seq"]) == (y["kind"], y["seq"])
        for x in a for y in b if x["seq"] == y["seq"])
    assert a[-1]["kind"] == "match_ended"
    assert not clients[0].errors and not clients[1].errors


async def test_spellfire_json_against_msgpack(server):
    created, clients, results = await play(server, "spellfire", 7)
    assert results[0] == results[1]
    assert clients[0].events[-1]["kind"] == "match_ended"
    summary = httpx.get(f"{server.url}/matches/{created['match']}").json()
    assert summary["status"] == "finished"


async def test_spectator_sees_stream_without_hidden_information(server):
    created = server.create(ruleset="spellfire", seed=11)
    spectator = await Raw.open(server.url, created["match"], MSGPACK)
    welcome = await spectator.hello(created["spectator_token"])
    assert welcome["role"] == "spectator" and welcome["seat"] is None and welcome["prompts"] == []
    players = [Client(server.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
    game = asyncio.gather(*(p.run() for p in players))
    seen = []
    while True:
        message = await spectator.recv(60)
        if message["t"] == "event":
            seen.append(message)
            if message["kind"] == "match_ended":
                break
    await game
    assert [e["seq"] for e in seen] == list(range(welcome["seq"] + 1, seen[-1]["seq"] + 1))
    for event in seen:
        if event["kind"] == "prompt":
            assert "options" not in event["data"] and "default" not in event["data"]
    # Cards named only in a player's own copy: the players' private data never reached the spectator.
    hands = set()
    for p in players:
        for e in p.events:
            if e["kind"] == "prompt" and "options" in e["data"]:
                hands.update(o["id"] for o in e["data"]["options"])
    await spectator.close()
    assert seen[-1]["data"] == players[0].result


async def test_every_ack_is_in_redis_before_it_arrives(server):
    created = server.create(ruleset="duel", seed=2)
    conn = await Raw.open(server.url, created["match"], JSON)
    welcome = await conn.hello(created["tokens"]["alice"])
    prompt = welcome["prompts"][0]
    await conn.send({"t": "act", "id": "x1", "prompt": prompt["id"], "option": "guard"})
    ack = await conn.recv_until(lambda m: m["t"] == "ack")
    r = redis.Redis(unix_socket_path=str(server.data_dir / "redis" / "redis.sock"))
    entries = r.xrange(f"bh:{{{created['match']}}}:log")
    logged = [msgpack.unpackb(fields[b"e"]) for _, fields in entries]
    assert any(e.get("act") == "x1" and e["option"] == "guard" and e["last_seq"] == ack["seq"] for e in logged)
    # ... with the events it produced, in the same stream entry
    events = [msgpack.unpackb(fields[b"v"]) for _, fields in entries]
    assert events[-1][-1]["seq"] >= ack["seq"]
    await conn.close()


async def test_prompt_times_out_to_its_default(server):
    created = server.create(ruleset="duel", seed=3, clock={"prompt_ms": 150, "bank_ms": 100})
    conn = await Raw.open(server.url, created["match"], JSON)
    welcome = await conn.hello(created["tokens"]["bob"])
    first = next(iter(created["tokens"]))
    closed = await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt_closed", timeout=5)
    assert closed["data"]["reason"] == "timeout" and closed["data"]["seat"] == first
    # The default (strike) was applied, 150 ms + the 100 ms bank after the prompt opened.
    strike = await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] in ("strike", "guard"))
    assert strike["kind"] == "strike" and strike["data"]["seat"] == first
    assert strike["at"] - welcome["now"] >= 0
    opened = [p for p in welcome["prompts"]]
    assert opened == []  # bob had nothing open at first
    # The next prompt (bob's) shows that alice's bank is spent: timeouts used it up.
    prompt = await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt")
    assert prompt["data"]["seat"] == "bob" and prompt["data"]["bank_ms"] == 100
    summary = httpx.get(f"{server.url}/matches/{created['match']}").json()
    assert summary["seq"] >= strike["seq"]
    await conn.close()


def metric(server, name: str) -> int:
    line = [row for row in httpx.get(server.url + "/metrics").text.splitlines() if row.startswith(name + " ")][0]
    return int(float(line.split()[1]))


async def test_frames_for_one_socket_go_out_in_one_write(server):
    frames, writes = metric(server, "battlehall_ws_frames_total"), metric(server, "battlehall_ws_writes_total")
    await play(server, "duel", 12)
    frames = metric(server, "battlehall_ws_frames_total") - frames
    writes = metric(server, "battlehall_ws_writes_total") - writes
    # Each answer's events and ack reach the answering socket together: far fewer writes than frames.
    assert frames > 100 and writes < frames * 0.7, (frames, writes)


async def test_batch_messages_carry_the_same_stream_in_fewer_frames(server):
    for wires in ((JSON, MSGPACK), (MSGPACK, JSON)):
        # the first client asks for batches, the second does not; same seeds for both runs
        created, clients, results = await play(server, "spellfire", 3, wires=wires, batch=(True, False))
        batched, plain = clients
        assert results[0] == results[1] and not batched.errors and not plain.errors
        seqs = [e["seq"] for e in batched.events]
        assert seqs == list(range(seqs[0], seqs[-1] + 1))  # gapless, in order
        kinds = {e["seq"]: e["kind"] for e in plain.events}
        assert seqs[-1] == max(kinds) and all(kinds[e["seq"]] == e["kind"] for e in batched.events if e["seq"] in kinds)
        # one frame per server turn: far fewer frames than messages
        assert batched.frames < 0.6 * len(batched.events), (batched.frames, len(batched.events))
        assert plain.frames > len(plain.events)


def test_a_websocket_upgrade_after_http_requests_on_the_same_connection(server):
    # Most sockets are handed to websocket.py on their first bytes; one that asks for the
    # upgrade after a kept-alive HTTP request is handed over from uvicorn's parser.
    created = server.create(ruleset="duel", seed=4)
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        answer = b""
        while not answer.endswith(b'{"ok":true}'):  # headers and body may come in two reads
            answer += sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200")
        client = ClientProtocol(parse_uri(server.url.replace("http", "ws") + created["ws"]),
                                subprotocols=[MSGPACK])
        client.send_request(client.connect())
        replies = []

        def exchange():
            sock.sendall(b"".join(client.data_to_send()))
            while not replies:
                client.receive_data(sock.recv(65536))
                replies.extend(client.events_received())
            return replies.pop(0)

        response = exchange()
        assert response.status_code == 101 and response.headers["Sec-WebSocket-Protocol"] == MSGPACK
        client.send_binary(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
        welcome = msgpack.unpackb(exchange().data)
        assert welcome["t"] == "welcome" and welcome["seat"] == "alice"


async def test_six_seat_spellfire_over_real_sockets(server):
    """Six clients (JSON and MessagePack mixed) and a spectator play a whole 6-seat match;
    windows put several prompts open at once, answered by seats outside the battle too."""
    seats = ["alice", "bob", "carol", "dave", "erin", "frank"]
    created = server.create(ruleset="spellfire", seed=21, seats=seats, clock={"window_min_ms": 0},
                            options={"turn_limit": 60})
    clients = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i % 2], seed=i)
               for i, s in enumerate(seats)]
    watcher = Client(server.url, created["match"], created["spectator_token"], wire=MSGPACK)
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients + [watcher])), 240)
    assert all(r == results[0] for r in results) and sorted(sum(results[0]["ranking"], [])) == sorted(seats)
    # a window prompt cancelled by another seat's card may still be answered: unknown_prompt, nothing else
    assert all(e["code"] == "unknown_prompt" for c in clients for e in c.errors)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    prompts = [e for e in replay["events"] if e["kind"] == "prompt"]
    windows: dict = {}
    for e in prompts:
        if "window" in e["data"]:
            windows.setdefault(e["data"]["window"], set()).add(e["data"]["seat"])
    assert any(len(s) == 5 for s in windows.values())  # every seat but the card's player
    # cards played in a battle by a seat that is neither its attacker nor its defender
    battle, outside = None, 0
    for e in replay["events"]:
        if e["kind"] == "battle_started":
            battle = (e["data"]["attacker"], e["data"]["defender"])
        elif e["kind"] == "battle_ended":
            battle = None
        elif e["kind"] == "card_played" and battle and e["data"]["seat"] not in battle:
            outside += 1
    assert outside > 0 and replay["events"][-1]["kind"] == "match_ended"
