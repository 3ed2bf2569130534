"""Small helpers for talking to a real server over a real WebSocket in tests."""

from __future__ import annotations

import asyncio
import secrets

import msgpack
import orjson
import websockets
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from battlehall.client import JSON, MSGPACK, ws_url


class Raw:
    """A bare protocol connection: send maps, receive maps, nothing automatic."""

    def __init__(self, ws, wire: str):
        self.ws, self.wire = ws, wire

    @classmethod
    async def open(cls, base: str, match_id: str, wire: str = JSON, **kw) -> "Raw":
        # An unbounded queue of received messages: many tests open sockets that read little
        # or nothing (spectators that only count). With websockets' default of 16, a full
        # queue stops the reading of the socket, and closing it then waited out the close
        # timeout (10 s) for a close frame it no longer read.
        kw.setdefault("max_queue", None)
        ws = await websockets.connect(ws_url(base, match_id), subprotocols=[wire] if wire else None, **kw)
        return cls(ws, wire or JSON)

    async def send(self, message: dict) -> None:
        await self.ws.send(msgpack.packb(message) if self.wire == MSGPACK else orjson.dumps(message).decode())

    async def recv(self, timeout: float = 5) -> dict:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        return msgpack.unpackb(frame) if self.wire == MSGPACK else orjson.loads(frame)

    async def recv_until(self, predicate, timeout: float = 5) -> dict:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, end - loop.time()))
            if predicate(message):
                return message

    async def hello(self, token: str, **extra) -> dict:
        await self.send({"t": "hello", "token": token, **extra})
        return await self.recv()

    async def close(self) -> None:
        await self.ws.close()


async def raw_client(url: str, subprotocol: str | None = MSGPACK):
    """websockets' sans-I/O client over a raw connection, past the 101 and nothing more:
    the test writes bytes (frames of its own making included) and sees every frame."""
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    client = ClientProtocol(parse_uri(url), subprotocols=[subprotocol] if subprotocol else None)
    client.send_request(client.connect())
    writer.write(b"".join(client.data_to_send()))
    while not client.events_received():  # the 101
        data = await reader.read(65536)
        if not data:
            raise ConnectionError("closed before the handshake ended")
        client.receive_data(data)
    return client, reader, writer


async def silent_client(url: str, token: str):
    """A socket that says hello and then answers nothing, not even pings: websockets'
    sans-I/O client over a raw connection, so the test sees every frame, pings included."""
    client, reader, writer = await raw_client(url)
    client.send_binary(msgpack.packb({"t": "hello", "token": token}))
    writer.write(b"".join(client.data_to_send()))
    return client, reader, writer


async def guard_turns(base: str, created: dict, answers: int) -> list[dict]:
    """Play `answers` guards of a duel in turn, over one new socket per seat; returns the acks."""
    conns = {}
    for seat, token in created["tokens"].items():
        conns[seat] = ws = await websockets.connect(ws_url(base, created["match"]), subprotocols=[MSGPACK])
        await ws.send(msgpack.packb({"t": "hello", "token": token}))
        welcome = msgpack.unpackb(await ws.recv())
        if welcome["prompts"]:
            prompt = welcome["prompts"][0]
    acks, nonce = [], secrets.token_hex(4)  # act ids of its own, whatever was played before
    for n in range(answers):
        ws = conns[prompt["seat"]]
        await ws.send(msgpack.packb({"t": "act", "id": f"{nonce}-{n}", "prompt": prompt["id"], "option": "guard"}))
        while True:  # this seat's copy of the events, then its ack
            message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
            if message["t"] == "event" and message["kind"] == "prompt":
                prompt = message["data"]
            elif message["t"] == "ack":
                acks.append(message)
                break
    for ws in conns.values():
        await ws.close()
    return acks
