"""How the server reads client frames, over a raw socket: the common frames it reads
itself (websocket.py, `_common_frames`) and everything else, which websockets reads,
in any mix and however the bytes are split across TCP reads."""

from __future__ import annotations

import asyncio

import msgpack
import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from wsutil import MSGPACK, silent_client


class RawClient:
    """A client that writes frames byte for byte as the test builds them."""

    def __init__(self, url: str):
        self.url = url

    async def open(self, token: str) -> "RawClient":
        self.client, self.reader, self.writer = await silent_client(self.url, token)
        assert (await self.messages(1))[0]["t"] == "welcome"
        return self

    async def frames(self, seconds: float = 0.5) -> list[Frame]:
        """The frames the server sends within `seconds` (or until it closes)."""
        frames: list[Frame] = []
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            try:
                chunk = await asyncio.wait_for(self.reader.read(65536), left)
            except asyncio.TimeoutError:
                break
            if not chunk:
                self.client.receive_eof()
                frames += self._frames()
                break
            self.client.receive_data(chunk)
            frames += self._frames()
        return frames

    def _frames(self) -> list[Frame]:  # the events but a 101 the test did not wait for
        return [event for event in self.client.events_received() if isinstance(event, Frame)]

    async def messages(self, count: int, seconds: float = 5) -> list[dict]:
        out: list[dict] = []
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while len(out) < count and loop.time() < end:
            out += [msgpack.unpackb(f.data) for f in await self.frames(min(0.2, end - loop.time()))
                    if f.opcode is Opcode.BINARY]
        return out

    async def write(self, *chunks: bytes, pause: float = 0.0) -> None:
        for chunk in chunks:
            self.writer.write(chunk)
            await self.writer.drain()
            if pause:
                await asyncio.sleep(pause)

    def close(self) -> None:
        self.writer.close()


def frame(opcode: Opcode, data: bytes, fin: bool = True, rsv1: bool = False) -> bytes:
    """A client's (masked) frame; with RSV1 set if asked (websockets would not build it)."""
    data = Frame(opcode, data, fin=fin).serialize(mask=True, extensions=[])
    return bytes((data[0] | 0x40,)) + data[1:] if rsv1 else data


def act(act_id: int, padding: int = 0) -> bytes:
    """An act for no such prompt: the server answers it with an error carrying its id."""
    return msgpack.packb({"t": "act", "id": act_id, "prompt": "p999" + "x" * padding, "option": "strike"})


def ids(messages: list[dict]) -> list:
    return [m.get("id") for m in messages if m["t"] == "error"]


@pytest.fixture
async def client(server):
    created = server.create(ruleset="duel", seats=["alice", "bob"])
    raw = await RawClient(server.url.replace("http", "ws") + created["ws"]).open(created["tokens"]["alice"])
    yield raw
    raw.close()


async def test_several_frames_in_one_read_and_one_split_across_reads(client):
    first, second, third = frame(Opcode.BINARY, act(1)), frame(Opcode.BINARY, act(2)), frame(Opcode.BINARY, act(3, 200))
    assert third[1] & 0x7F == 126  # a 16-bit length
    await client.write(first + second + third[:5], third[5:], pause=0.05)
    assert ids(await client.messages(3)) == [1, 2, 3]


async def test_a_frame_written_one_byte_at_a_time(client):
    data = frame(Opcode.BINARY, act(7))
    await client.write(*[data[i:i + 1] for i in range(len(data))], pause=0.002)
    assert ids(await client.messages(1)) == [7]


async def test_pings_fragments_and_pongs_mixed_with_common_frames(client):
    await client.write(
        frame(Opcode.BINARY, act(1))
        + frame(Opcode.PING, b"are you there")  # websockets answers it
        + frame(Opcode.BINARY, act(2))
        + frame(Opcode.PONG, b"")  # unsolicited: ignored
        + frame(Opcode.BINARY, act(3)[:4], fin=False) + frame(Opcode.CONT, act(3)[4:])  # one message in two frames
        + frame(Opcode.BINARY, act(4)))
    frames = await client.frames(1.0)
    pongs = [f.data for f in frames if f.opcode is Opcode.PONG]
    assert pongs == [b"are you there"]
    assert ids([msgpack.unpackb(f.data) for f in frames if f.opcode is Opcode.BINARY]) == [1, 2, 3, 4]


@pytest.mark.parametrize("bad, code", [
    (Frame(Opcode.BINARY, act(1)).serialize(mask=False, extensions=[]), 1002),  # a client must mask
    (frame(Opcode.BINARY, act(1), rsv1=True), 1002),  # no extension was negotiated
    (frame(Opcode.CONT, act(1)), 1002),  # a continuation of nothing
    (frame(Opcode.BINARY, b"\x00" * (64 * 1024 + 1)), 1009),  # over max_frame_bytes
], ids=["unmasked", "rsv1", "lone-continuation", "too-large"])  # frames carry random masks
async def test_malformed_frames_after_common_ones_are_refused_by_websockets(client, bad, code):
    await client.write(frame(Opcode.BINARY, act(1)) + bad + frame(Opcode.BINARY, act(2)))
    frames = await client.frames(1.0)
    # What follows the bad frame is never read (what came before may be cut by the close).
    assert 2 not in ids([msgpack.unpackb(f.data) for f in frames if f.opcode is Opcode.BINARY])
    closes = [f for f in frames if f.opcode is Opcode.CLOSE]
    assert closes and int.from_bytes(closes[0].data[:2], "big") == code


BAD_UTF8 = b'{"t": "ping", "x": "\xc3\x28"}'  # 0xC3 must be followed by a continuation byte


@pytest.mark.parametrize("frames", [
    [frame(Opcode.TEXT, BAD_UTF8)],  # one whole frame: read by `_common_frames`
    [frame(Opcode.PING, b"") + frame(Opcode.TEXT, BAD_UTF8)],  # after a ping: read by websockets
    [frame(Opcode.TEXT, BAD_UTF8[:10], fin=False), frame(Opcode.CONT, BAD_UTF8[10:])],  # fragmented
], ids=["whole", "after-ping", "fragmented"])
async def test_text_that_is_not_utf8_closes_with_1007(client, frames):
    await client.write(*frames, frame(Opcode.BINARY, act(2)), pause=0.05)
    got = await client.frames(1.0)
    closes = [f for f in got if f.opcode is Opcode.CLOSE]
    assert closes and int.from_bytes(closes[0].data[:2], "big") == 1007
    assert 2 not in ids([msgpack.unpackb(f.data) for f in got if f.opcode is Opcode.BINARY])


async def test_utf8_split_across_fragments_is_one_valid_text_message(client):
    text = '{"t": "ping", "x": "é"}'.encode()
    cut = text.index(b"\xc3") + 1  # inside the two bytes of é
    await client.write(frame(Opcode.TEXT, text[:cut], fin=False) + frame(Opcode.CONT, text[cut:]))
    # Valid text: this MessagePack connection refuses it as a message, and stays open.
    (error,) = await client.messages(1)
    assert error["code"] == "bad_message"
    await client.write(frame(Opcode.BINARY, act(3)))
    assert ids(await client.messages(1)) == [3]


async def test_a_frame_split_after_its_header_is_read_whole_whatever_its_mask(client):
    """The first two bytes of a frame in one read, the rest in the next: websockets' parser
    has taken the header and waits inside the frame, though its buffer is empty. The rest
    must not be read as a frame of its own, even when the mask's bytes look like one's
    start (a client picks its masks at random: here, one that would read as an empty
    binary frame)."""
    payload = act(5)
    mask = bytes((0x82, 0x80, 0x11, 0x22))
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    await client.write(bytes((0x82, 0x80 | len(payload))), mask + masked, pause=0.05)
    messages = await client.messages(1)
    assert ids(messages) == [5]
    await client.write(frame(Opcode.BINARY, act(6)))
    assert ids(await client.messages(1)) == [6]


async def test_frames_sent_with_the_upgrade_request_are_read_in_order(server):
    """A client that does not wait for the 101: its hello and a frame cut in two arrive
    with the upgrade request, in the same read. The server reads them after answering it,
    then the rest of the cut frame and the next, and answers them all in order."""
    created = server.create(ruleset="duel", seats=["alice", "bob"])
    url = server.url.replace("http", "ws") + created["ws"]
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    raw = RawClient(url)
    raw.client, raw.reader, raw.writer = ClientProtocol(parse_uri(url), subprotocols=[MSGPACK]), reader, writer
    raw.client.send_request(raw.client.connect())
    hello = frame(Opcode.BINARY, msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}))
    cut = frame(Opcode.BINARY, act(4))
    await raw.write(b"".join(raw.client.data_to_send()) + hello + cut[:7], cut[7:] + frame(Opcode.BINARY, act(5)),
                    pause=0.05)
    messages = await raw.messages(3)
    assert messages[0]["t"] == "welcome" and ids(messages[1:]) == [4, 5]
    raw.close()
