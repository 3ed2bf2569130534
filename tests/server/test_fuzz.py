"""Fuzzing the wire against a real server: mutated and generated messages, in JSON and
MessagePack, to seats and spectators, as first messages (`hello`) and after them, and
raw frames of every shape (bad opcodes, RSV bits, lengths that lie, unmasked, fragments
out of place, cut short).

What must hold (PROTOCOL, "An error never changes the match"): the server stays up and
answers every message after `hello` with exactly one `ack`, `error`, `pong` or `view`, never
`internal`; the only changes to the matches are those of answers it acknowledged; every
socket it was given is let go; its memory does not grow with the frames.

The suite runs a few thousand frames (about 10 s); `make fuzz` runs many more
(BATTLEHALL_FUZZ_FRAMES), and BATTLEHALL_FUZZ_SEED replays one run.
"""

from __future__ import annotations

import asyncio
import os
import random
import struct

import httpx
import msgpack
import orjson
import pytest
from websockets.frames import Frame, Opcode

from battlehall.client import JSON, MSGPACK, ws_url
from battlehall.server import codec
from servers import ServerProcess
from wsutil import Raw, raw_client

FRAMES = int(os.environ.get("BATTLEHALL_FUZZ_FRAMES", "3000"))
SEED = int(os.environ.get("BATTLEHALL_FUZZ_SEED", "1"))
ANSWERS = ("ack", "error", "pong", "view")
PIPELINE = 16  # messages in flight per socket
MAX_FRAME = 64 * 1024


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    # No rate limit to speak of: the fuzzer sends thousands of messages a second on one
    # socket, and the limit has its own test (test_errors.py).
    srv = ServerProcess(tmp_path_factory.mktemp("fuzz"), env={"BATTLEHALL_RATE_PER_S": "1000000"}).start()
    yield srv
    srv.stop()


# -- what the server process holds ---------------------------------------------------------

def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_fds(pid: int) -> int:
    """The server's open files and sockets, but for its Unix sockets to the private Redis:
    how many of those it keeps is redis-py's pool and the lease, pub/sub and write
    connections, opened as first needed, and none of them is a client's."""
    unix = set()
    with open(f"/proc/{pid}/net/unix") as table:
        for line in table.read().splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 7:
                unix.add(fields[6])  # the socket's inode
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if not (link.startswith("socket:[") and link[8:-1] in unix):
            count += 1
    return count


def gauges(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=10).text
    return {name: float(value) for name, value in
            (line.split() for line in text.splitlines() if line and not line.startswith("#"))}


async def settle(server: ServerProcess, connections: float, fds: int, timeout: float = 10) -> tuple[float, int]:
    """Wait until the server holds no more sockets than before; returns what it holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        now = gauges(server.url)["battlehall_connections"], open_fds(server.proc.pid)
        if (now[0] <= connections and now[1] <= fds) or loop.time() > end:
            return now
        await asyncio.sleep(0.1)


# -- generated values and messages ---------------------------------------------------------

TEXTS = ["", "p1", "strike", "guard", "decline", "hello", "act", "ping", "batch", "t", "\x00", "é",
         "\u202e", "🂡", "a" * 300, "-1", "1e309", "null", "NaN", "__proto__", "m_0", "p" + "9" * 40]


def text(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(TEXTS)
    return "".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0xA0, 0xD7FF), rng.randrange(0xE000, 0x10FFFF))))
                   for _ in range(rng.randrange(0, 12)))


def value(rng: random.Random, binary: bool, depth: int = 0):
    """Any value the encoding can carry; MessagePack also bytes, non-string keys, huge ints."""
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        choices = [None, True, False, 0, -1, 1, 2**31, -2**63, 2**63 - 1, 0.5, -0.0, 1e308,
                   rng.randrange(-10**6, 10**6), text(rng)]
        if binary:
            choices += [2**64 - 1, b"", b"\xff\xfe", text(rng).encode(), float("nan"), float("inf")]
        return rng.choice(choices)
    if roll < 0.7:
        return [value(rng, binary, depth + 1) for _ in range(rng.randrange(0, 5))]
    out = {}
    for _ in range(rng.randrange(0, 5)):
        key = text(rng)
        if binary and rng.random() < 0.3:
            key = rng.choice([key.encode(), rng.randrange(-5, 5), None, True])
        out[key] = value(rng, binary, depth + 1)
    return out


def nested(rng: random.Random):
    """Lists and maps nested deeper than a message may hold (docs/protocol.md, Limits),
    within what the encoders write (orjson stops at 255 levels)."""
    inner = rng.choice((None, 1, "x", [], {}))
    for _ in range(rng.randrange(codec.MAX_DEPTH - 2, 250)):
        inner = [inner] if rng.random() < 0.5 else {rng.choice(("k", "tile", "")): inner}
    return inner


def template(rng: random.Random, prompts: list[dict], token: str, act_ids: list, binary: bool = False) -> dict:
    """A valid message: hello, ping, view, or an act on one of the open prompts (legal, as a rule)."""
    roll = rng.random()
    if roll < 0.1:
        return {"t": "hello", "token": token, "resume": rng.randrange(0, 50), "batch": rng.random() < 0.5}
    if roll < 0.15:
        return {"t": "view"}
    if roll < 0.2 or not prompts:
        return {"t": "ping"}
    prompt = rng.choice(prompts)
    option = rng.choice(prompt.get("options") or [{"id": "strike"}])
    args = {name: rng.choice(values) for name, values in sorted((option.get("args") or {}).items())}
    if rng.random() < 0.15:  # keys of every type an encoding allows, in one map
        args.update(rng.choice(({"n": 1, b"n": 2}, {3: 4}, {None: 1})) if binary else {"n": 1, "": 2})
    act_id = rng.choice(act_ids) if act_ids and rng.random() < 0.2 else f"f{rng.randrange(10**9)}"
    return {"t": "act", "id": act_id, "prompt": prompt["id"], "option": option["id"], "args": args}


def mutate(rng: random.Random, message: dict, binary: bool):
    """The message with a few changes: fields dropped, retyped, added, or the whole replaced."""
    message = dict(message)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        roll = rng.random()
        keys = list(message)
        if roll < 0.2 and keys:
            del message[rng.choice(keys)]
        elif roll < 0.55 and keys:
            message[rng.choice(keys)] = value(rng, binary)
        elif roll < 0.7:
            message[text(rng)] = value(rng, binary)
        elif roll < 0.8:
            message["t"] = rng.choice(["act", "ping", "view", "hello", "batch", "event", "ack", text(rng), 1, None])
        elif roll < 0.9 and "args" in message:
            args = dict(message["args"]) if isinstance(message["args"], dict) else {}
            key = text(rng)
            args[key.encode() if binary and rng.random() < 0.5 else key] = value(rng, binary)
            message["args"] = args
        elif roll < 0.93:  # nested past the limits of a message, in args or any field
            message[rng.choice(keys + ["args", "args"])] = nested(rng)
        elif roll < 0.96:
            return value(rng, binary)  # not a map at all, as a rule
        else:
            return [message]
    return message


def deep_arguments(rng: random.Random, message: dict, binary: bool) -> bytes:
    """The message with one argument nested deeper than the encoders go, short of the
    parsers' own limit (1,024): a 2 KB frame that once made the error text overflow the
    recursion limit."""
    depth = rng.randrange(980, 1_020)
    placeholder = "__deep__"
    args = dict(message["args"])
    args[rng.choice(sorted(a for a in args if isinstance(a, str)) or ["x"])] = placeholder
    whole = {**message, "args": args}
    if binary:
        try:
            return msgpack.packb(whole).replace(msgpack.packb(placeholder), b"\x91" * depth + b"\xc0")
        except (TypeError, ValueError, OverflowError):
            return b"\xc1"
    try:
        return orjson.dumps(whole).replace(orjson.dumps(placeholder), b"[" * depth + b"]" * depth)
    except orjson.JSONEncodeError:
        return b"{"


def encode(rng: random.Random, message, binary: bool) -> bytes | str:
    """The frame payload: the encoded message, or now and then bytes that do not decode."""
    try:
        data = msgpack.packb(message) if binary else orjson.dumps(message)
    except (TypeError, ValueError, OverflowError, orjson.JSONEncodeError):
        data = b"\xc1" if binary else b"{"
    roll = rng.random()
    if roll < 0.05:
        data = data[:rng.randrange(0, len(data) + 1)]  # cut short
    elif roll < 0.1 and data:
        i = rng.randrange(len(data))
        data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]  # one byte changed
    elif roll < 0.11:
        data = (b"\x91" * 2000 + b"\xc0") if binary else (b"[" * 2000 + b"]" * 2000)  # deep nesting
    elif roll < 0.12 and isinstance(message, dict) and isinstance(message.get("args"), dict) and message["args"]:
        data = deep_arguments(rng, message, binary)
    elif roll < 0.14:
        data = rng.choice([b"\xdd\xff\xff\xff\xff", b"\xdf\x7f\xff\xff\xff", b"\xdb\xff\xff\xff\xff"]) if binary \
            else b'"\\ud800"'  # huge containers announced / a lone surrogate
    if binary:
        return bytes(data)
    return data.decode("utf-8", "replace")


# -- a connection that plays, fuzzed -------------------------------------------------------

class Seat:
    """A socket of a seat or a spectator that sends fuzzed messages and counts the answers."""

    def __init__(self, conn: Raw, token: str, welcome: dict):
        self.conn, self.token = conn, token
        self.binary = conn.wire == MSGPACK
        self.seq = welcome["seq"]
        self.prompts = {p["id"]: p for p in welcome["prompts"]}
        self.events: dict[int, dict] = {}
        self.acks: dict = {}  # act id -> seq
        self.codes: dict[str, int] = {}
        self.answers = 0
        self.sent = 0

    def take(self, message: dict) -> None:
        kind = message.get("t")
        if kind == "batch":
            for inner in message["messages"]:
                self.take(inner)
            return
        if kind == "event":
            assert message["seq"] not in self.events or self.events[message["seq"]] == message
            self.events[message["seq"]] = message
            if message["kind"] == "prompt" and "options" in message["data"]:
                self.prompts[message["data"]["id"]] = message["data"]
            elif message["kind"] == "prompt_closed":
                self.prompts.pop(message["data"]["id"], None)
            return
        assert kind in ANSWERS, message
        self.answers += 1
        if kind == "ack":
            assert self.acks.setdefault(message["id"], message["seq"]) == message["seq"], message
        elif kind == "error":
            assert message["message"], message
            self.codes[message["code"]] = self.codes.get(message["code"], 0) + 1

    async def fuzz(self, rng: random.Random, count: int) -> None:
        """Send `count` fuzzed messages, PIPELINE at a time, each answered exactly once."""
        sent = 0
        while sent < count:
            burst = min(PIPELINE, count - sent)
            wanted = self.answers + burst
            for _ in range(burst):
                message = template(rng, list(self.prompts.values()), self.token, list(self.acks), self.binary)
                if rng.random() < 0.85:
                    message = mutate(rng, message, self.binary)
                payload = encode(rng, message, self.binary)
                if rng.random() < 0.03:  # the other frame type than the connection's
                    payload = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload.encode()
                await self.conn.ws.send(payload)
            sent += burst
            self.sent += burst
            while self.answers < wanted:
                self.take(await self.conn.recv(10))

    async def drain(self, seconds: float = 0.3) -> None:
        try:
            while True:
                self.take(await self.conn.recv(seconds))
        except asyncio.TimeoutError:
            pass


async def open_seat(server, match_id: str, token: str, wire: str) -> Seat:
    conn = await Raw.open(server.url, match_id, wire, max_size=None)
    welcome = await conn.hello(token)
    assert welcome["t"] == "welcome", welcome
    return Seat(conn, token, welcome)


# -- first messages: fuzzed hello on fresh sockets -----------------------------------------

async def fuzz_hellos(server, rng: random.Random, match_id: str, tokens: list[str], count: int) -> dict[str, int]:
    """Each a new socket whose first message is a mutated hello: welcome, or one error and a close."""
    codes: dict[str, int] = {}
    for _ in range(count):
        wire = rng.choice((JSON, MSGPACK))
        binary = wire == MSGPACK
        hello = {"t": "hello", "token": rng.choice(tokens)}
        if rng.random() < 0.5:
            hello["resume"] = rng.randrange(0, 40)
        payload = encode(rng, mutate(rng, hello, binary), binary)
        # max_queue=None: the resumed events this socket never reads must not hold up its close
        conn = await Raw.open(server.url, match_id, wire, max_size=None, max_queue=None)
        try:
            await conn.ws.send(payload)
            first = await conn.recv(10)
            if first["t"] == "welcome":
                codes["welcome"] = codes.get("welcome", 0) + 1
            else:
                assert first["t"] == "error", first
                codes[first["code"]] = codes.get(first["code"], 0) + 1
                await asyncio.wait_for(conn.ws.wait_closed(), 10)
                assert conn.ws.close_code in (1008, 4001), (first, conn.ws.close_code)
        finally:
            await conn.close()
    return codes


# -- raw frames ------------------------------------------------------------------------------

def raw_frame(rng: random.Random, payload: bytes) -> bytes:
    """Frame bytes of any shape: mostly legal, often not (RFC 6455, 5.2)."""
    fin = 0x80 if rng.random() < 0.8 else 0
    rsv = rng.choice((0, 0, 0, 0x40, 0x20, 0x10))
    opcode = rng.choice((0x0, 0x1, 0x1, 0x2, 0x2, 0x3, 0x7, 0x8, 0x9, 0xA, 0xA, 0xB, 0xF))
    if opcode >= 0x8 and rng.random() < 0.7:
        payload = payload[:125]
    masked = rng.random() < 0.9
    length = len(payload)
    lie = rng.random()
    if lie < 0.05:
        length = rng.choice((length + 1, length + 1000, 2**63 - 1, 2**64 - 1, MAX_FRAME + 1))
    if length < 126 and lie < 0.95:
        header = struct.pack("!BB", fin | rsv | opcode, (0x80 if masked else 0) | length)
    elif length < 65536 and lie < 0.97:
        header = struct.pack("!BBH", fin | rsv | opcode, (0x80 if masked else 0) | 126, length)
    else:
        header = struct.pack("!BBQ", fin | rsv | opcode, (0x80 if masked else 0) | 127, min(length, 2**64 - 1))
    if not masked:
        return header + payload
    mask = rng.randbytes(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def fuzz_raw(server, rng: random.Random, match_id: str, tokens: list[str], sockets: int, per_socket: int) -> int:
    """Sockets that say hello, then write raw frames, whole or cut across writes; the server
    answers or closes, and nothing else. Returns the number of frames written."""
    url = ws_url(server.url, match_id)
    written = 0
    for _ in range(sockets):
        client, reader, writer = await raw_client(url, MSGPACK)
        client.send_binary(msgpack.packb({"t": "hello", "token": rng.choice(tokens)}))
        writer.write(b"".join(client.data_to_send()))
        data = b""
        for _ in range(per_socket):
            message = mutate(rng, template(rng, [], "", []), True)
            payload = encode(rng, message, True) if rng.random() < 0.7 else rng.randbytes(rng.randrange(0, 200))
            data += raw_frame(rng, payload)
            written += 1
        if rng.random() < 0.3:
            data = data[:rng.randrange(len(data) + 1)]  # cut: the rest never comes
        cut = rng.randrange(len(data) + 1)
        try:
            writer.write(data[:cut])
            await writer.drain()
            writer.write(data[cut:])
            await writer.drain()
            if rng.random() < 0.3:
                writer.write_eof()
            # read until the server closes or has nothing more to say
            while True:
                chunk = await asyncio.wait_for(reader.read(65536), 0.3)
                if not chunk:
                    break
                client.receive_data(chunk)
                for frame in client.events_received():
                    assert isinstance(frame, Frame)
                    if frame.opcode is Opcode.BINARY:
                        msg = msgpack.unpackb(frame.data)
                        assert msg["t"] in ("welcome", "event", "error", "ack", "pong", "view", "batch"), msg
                        assert msg.get("code") != "internal", msg
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
    return written


# -- the tests ---------------------------------------------------------------------------------

async def test_argument_names_of_every_type_are_a_bad_message(fuzz_server):
    """MessagePack maps may have bytes keys: in `args`, next to string keys, the engine could
    not compare them, and the act got `internal` (and the match a rebuild from Redis)."""
    created = fuzz_server.create(ruleset="duel", seed=1)
    alice = await open_seat(fuzz_server, created["match"], created["tokens"]["alice"], MSGPACK)
    prompt = next(iter(alice.prompts))
    for i, args in enumerate(({"n": 1, b"n": 2}, {b"n": 1}, {"n": 1, b"m": 2, "o": 3})):
        await alice.conn.send({"t": "act", "id": i, "prompt": prompt, "option": "guard", "args": args})
        error = await alice.conn.recv_until(lambda m: m["t"] in ANSWERS)
        assert (error["t"], error["code"], error["id"]) == ("error", "bad_message", i), error
    await alice.conn.send({"t": "act", "id": "ok", "prompt": prompt, "option": "guard", "args": {}})
    ack = await alice.conn.recv_until(lambda m: m["t"] in ANSWERS)
    assert ack["t"] == "ack" and ack["seq"] == alice.seq + 3  # closed, guard, the next prompt
    await alice.conn.close()


async def test_fuzzed_frames_change_nothing_but_acknowledged_answers(fuzz_server):
    server = fuzz_server
    rng = random.Random(SEED)
    pid = server.proc.pid
    matches = [server.create(ruleset="duel", seed=3, options={"hp": 1000}, clock={"prompt_ms": None}),
               server.create(ruleset="spellfire", seed=4, clock={"prompt_ms": None})]
    baseline = gauges(server.url)
    fds = open_fds(pid)
    seats: list[Seat] = []
    for created in matches:
        for seat, wire in (("alice", JSON), ("bob", MSGPACK)):
            seats.append(await open_seat(server, created["match"], created["tokens"][seat], wire))
        for wire in (JSON, MSGPACK):
            seats.append(await open_seat(server, created["match"], created["spectator_token"], wire))
    # Shares of the frames: messages after hello, fuzzed hellos, raw frames.
    hellos = max(20, FRAMES // 15)
    raw_sockets, per_socket = max(20, FRAMES // 60), 6
    per_seat = max(50, (FRAMES - hellos - raw_sockets * per_socket) // len(seats))

    rss: list[int] = []
    for round_ in range(4):  # in rounds, to see memory over time
        for seat in seats:
            await seat.fuzz(rng, per_seat // 4)
        created = matches[round_ % 2]
        tokens = [*created["tokens"].values(), created["spectator_token"], "wrong", ""]
        hello_codes = await fuzz_hellos(server, rng, created["match"], tokens, hellos // 4)
        await fuzz_raw(server, rng, created["match"], tokens, raw_sockets // 4, per_socket)
        rss.append(rss_kib(pid))
    print(f"fuzz seed {SEED}: RSS by round (KiB) {rss}")

    assert server.proc.poll() is None, "the server died"
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    for seat in seats:
        await seat.drain()
        assert not seat.codes.get("internal"), seat.codes
        assert seat.answers == seat.sent, "one answer for each message"
    assert hello_codes  # the hellos got answers

    for created, group in zip(matches, (seats[:4], seats[4:])):
        alice, bob, *watchers = group
        summary = httpx.get(f"{server.url}/matches/{created['match']}", timeout=10).json()
        # Every event is one some socket saw, with no gap; each answer applied was acknowledged.
        for seat in group:
            assert max(seat.events, default=summary["seq"]) <= summary["seq"]
        seen = {**alice.events, **bob.events}
        applied = [e for e in seen.values() if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered"]
        acked = {seq for seat in (alice, bob) for seq in seat.acks.values()}
        assert len(applied) == len(acked), (len(applied), sorted(acked))
        for watcher in watchers:
            assert not watcher.acks and set(watcher.events) == set(seen)
        # A new socket of the seat is where the others are, and the match still plays.
        again = await open_seat(server, created["match"], created["tokens"]["alice"], JSON)
        assert again.seq == summary["seq"] == max(seen, default=alice.seq)
        for seat in (alice, bob):
            if seat.prompts and summary["status"] == "live":
                prompt = next(iter(seat.prompts.values()))
                option = prompt["options"][0]
                args = {name: values[0] for name, values in sorted((option.get("args") or {}).items())}
                await seat.conn.send({"t": "act", "id": "final", "prompt": prompt["id"], "option": option["id"],
                                      "args": args})
                ack = await seat.conn.recv_until(lambda m: m.get("t") in ("ack", "error"))
                assert ack == {"t": "ack", "id": "final", "seq": ack["seq"], "clock": ack["clock"]}, ack
                assert ack["seq"] > summary["seq"]
        await again.conn.close()

    for seat in seats:
        await seat.conn.close()
    connections, fds_now = await settle(server, baseline["battlehall_connections"], fds + 2)
    assert connections == baseline["battlehall_connections"], "sockets left open in the server"
    assert fds_now <= fds + 2, f"file descriptors: {fds} before, {fds_now} after"
    assert gauges(server.url)["battlehall_matches_in_memory"] == baseline["battlehall_matches_in_memory"]
    # Memory: what the first round needed (buffers, caches) is not needed again and again.
    growth = rss[-1] - rss[0]
    assert growth < 16 * 1024, f"RSS grew {growth} KiB over the rounds: {rss}"
