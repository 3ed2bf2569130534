"""A reconnecting Battlehall client: the bot, the load tester and tests build on it.

It keeps the last `seq` it saw and resumes from it after a dropped connection, with
exponential backoff, and re-sends an unacknowledged `act` with the same `id` so that
it is never applied twice.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
from typing import Awaitable, Callable
from urllib.parse import urlsplit

import msgpack
import orjson
import websockets

from .engine.ruleset import random_answer

JSON = "battlehall.v1.json"
MSGPACK = "battlehall.v1.msgpack"


def ws_url(base: str, match_id: str) -> str:
    parts = urlsplit(base)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}/ws/{match_id}"


def encode(wire: str, message: dict):
    return msgpack.packb(message) if wire == MSGPACK else orjson.dumps(message).decode()


def decode(wire: str, frame) -> dict:
    return msgpack.unpackb(frame, raw=False) if wire == MSGPACK else orjson.loads(frame)


class Client:
    """Plays one seat (or watches) until the match ends; `choose(prompt)` picks answers."""

    def __init__(self, base_url: str, match_id: str, token: str, *, wire: str = MSGPACK,
                 choose: Callable[[dict], tuple[str, dict]] | None = None, seed: int | None = None,
                 on_message: Callable[[dict], Awaitable[None] | None] | None = None,
                 think_s: float = 0.0, max_backoff_s: float = 5.0, give_up_s: float = 120.0,
                 batch: bool = False):
        self.url = ws_url(base_url, match_id)
        self.batch = batch  # ask for `batch` messages: one frame per server turn
        self.token = token
        self.wire = wire
        self.rng = random.Random(seed)
        self.choose = choose or self.random_answer
        self.on_message = on_message
        self.think_s = think_s
        self.max_backoff_s = max_backoff_s
        self.give_up_s = give_up_s
        self.last_seq: int | None = None
        self.seat: str | None = None
        self.result: dict | None = None
        self.events: list[dict] = []
        self.acts: dict[str, dict] = {}  # prompt id -> the act sent for it, until acked
        self.answered: set[str] = set()
        self.errors: list[dict] = []
        self.acked: dict = {}  # act id -> seq of its ack
        self.sent: dict = {}  # act id -> prompt id
        self.answers: dict = {}  # prompt id -> the act answering it
        self.reconnects = 0
        self.frames = 0  # frames received, over all sessions
        self._ids = itertools.count(1)
        self._nonce = secrets.token_hex(3)  # act ids stay unique across restarts of a client

    def random_answer(self, prompt: dict) -> tuple[str, dict]:
        """Any option and any listed value of each argument: always a legal answer."""
        return random_answer(self.rng, prompt)

    async def run(self) -> dict | None:
        backoff = 0.05
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self.give_up_s
        while self.result is None:
            try:
                await self._session()
                backoff = 0.05
            except (OSError, websockets.ConnectionClosed, asyncio.TimeoutError, websockets.InvalidHandshake) as exc:
                if isinstance(exc, websockets.ConnectionClosed) and exc.rcvd and exc.rcvd.code == 4001:
                    raise PermissionError("unauthorized") from exc
                if loop.time() > give_up_at:
                    raise
            if self.result is None:
                self.reconnects += 1
                await asyncio.sleep(backoff * (0.5 + self.rng.random()))
                backoff = min(self.max_backoff_s, backoff * 2)
            else:
                give_up_at = loop.time() + self.give_up_s
        return self.result

    async def _session(self) -> None:
        async with websockets.connect(self.url, subprotocols=[self.wire], max_size=2**22,
                                      open_timeout=5, ping_interval=10) as ws:
            hello = {"t": "hello", "token": self.token}
            if self.last_seq is not None:
                hello["resume"] = self.last_seq
            if self.batch:
                hello["batch"] = True
            await ws.send(encode(self.wire, hello))
            async for frame in ws:
                self.frames += 1
                message = decode(self.wire, frame)
                for message in message["messages"] if message["t"] == "batch" else [message]:
                    if self.on_message:
                        maybe = self.on_message(message)
                        if asyncio.iscoroutine(maybe):
                            await maybe
                    await self._handle(ws, message)
                    if self.result is not None:
                        return

    async def _handle(self, ws, message: dict) -> None:
        kind = message["t"]
        if kind == "welcome":
            self.seat = message["seat"]
            if self.last_seq is None:
                self.last_seq = message["seq"]
            for prompt in message["prompts"]:
                await self._answer(ws, prompt)
        elif kind == "event":
            if self.last_seq is not None and message["seq"] <= self.last_seq:
                return  # already seen before a reconnect
            self.last_seq = message["seq"]
            self.events.append(message)
            data = message["data"]
            if message["kind"] == "prompt" and data.get("seat") == self.seat and "options" in data:
                await self._answer(ws, data)
            elif message["kind"] == "prompt_closed":
                self.acts.pop(data["id"], None)
            elif message["kind"] == "match_ended":
                self.result = data
        elif kind == "ack":
            self.acked[message["id"]] = message["seq"]
        elif kind == "error":
            self.errors.append(message)
            if message.get("code") == "unavailable":  # nothing recorded: send the same act again soon
                for act in list(self.acts.values()):
                    if act["id"] == message.get("id"):
                        await asyncio.sleep(0.2)
                        await ws.send(encode(self.wire, act))

    async def _answer(self, ws, prompt: dict) -> None:
        act = self.acts.get(prompt["id"])
        if act is None:
            if prompt["id"] in self.answered:
                return
            if self.think_s:
                await asyncio.sleep(self.think_s)
            option, args = self.choose(prompt)
            act = {"t": "act", "id": f"{self.seat}-{self._nonce}-{next(self._ids)}", "prompt": prompt["id"], "option": option, "args": args}
            self.acts[prompt["id"]] = act
            self.sent[act["id"]] = prompt["id"]
            self.answers[prompt["id"]] = act
            self.answered.add(prompt["id"])
        await ws.send(encode(self.wire, act))
