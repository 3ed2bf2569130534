"""One client's session: `hello`, then `act` and `ping` until it leaves (PROTOCOL.md, Session)."""

from __future__ import annotations

import asyncio
import hmac
import logging

from starlette.websockets import WebSocketDisconnect

from . import codec
from .clock import now_ms
from .connection import Connection, RateLimiter
from .store import StoreUnavailable

log = logging.getLogger("battlehall.session")

CLOSE_UNAUTHORIZED = 4001
CLOSE_POLICY = 1008
MAX_ACT_ID = 64
FLOOD_STRIKES = 50  # refusals in a row before a flooding client is closed


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class Session:
    def __init__(self, hub, conn: Connection, match_id: str, limiter: RateLimiter):
        self.hub = hub
        self.conn = conn
        self.match_id = match_id
        self.limiter = limiter
        self.actor = None

    def error(self, code: str, message: str, act_id=None) -> None:
        msg = {"t": "error", "code": code, "message": message}
        if act_id is not None:
            msg["id"] = act_id
        self.conn.send(msg)

    def decode(self, frame: bytes | str, text: bool) -> dict | None:
        """The decoded message; None after sending `bad_message` for an undecodable one."""
        if text and self.conn.codec == codec.MSGPACK:
            self.error("bad_message", "this connection speaks MessagePack: send binary frames")
            return None
        try:
            return codec.decode(self.conn.codec, frame)
        except codec.DecodeError as exc:
            self.error("bad_message", str(exc))
            return None

    def on_frame(self, frame: bytes | str, text: bool) -> None:
        """A message after `hello`: checked, rate limited, and handled before this returns."""
        if self.conn.closed:  # closed by us (flooding, leaving): nothing more is taken
            return
        message = self.decode(frame, text)
        if message is None:
            return
        if not self.limiter.allow():
            self.error("rate_limited", "too many messages; slow down", message.get("id"))
            if self.limiter.strikes >= FLOOD_STRIKES:
                self.conn.close(CLOSE_POLICY)
            return
        try:
            self.dispatch(message)
        except Exception:  # a bug: called from the socket's parser, it would close the socket
            log.exception("match %s: error handling a %r message", self.match_id, message.get("t"))
            self.error("internal", "internal error", message.get("id"))

    async def run(self, receive, deliver_to=None) -> None:
        """Hello, then every message until the socket closes.

        `receive` is the ASGI receive callable. With the server's `deliver_to` extension
        (batched_ws.py), messages after `hello` come straight from the socket to
        `on_frame`, and `receive` only brings what was queued before and the disconnect.
        """
        try:
            async with asyncio.timeout(self.hub.settings.hello_timeout_s):  # no extra task, unlike wait_for
                frame, text = await self._next_frame(receive)
        except asyncio.TimeoutError:
            self.error("bad_message", "send hello first, within the hello timeout")
            self.conn.close(CLOSE_POLICY)
            return
        hello = self.decode(frame, text)
        if hello is None or hello.get("t") != "hello":
            self.error("bad_message", "the first message must be hello")
            self.conn.close(CLOSE_POLICY)
            return
        if not await self.authenticate(hello):
            return
        if deliver_to is not None:
            deliver_to(self.on_frame)
        while not self.conn.closed:
            frame, text = await self._next_frame(receive)
            self.on_frame(frame, text)

    @staticmethod
    async def _next_frame(receive) -> tuple[bytes | str, bool]:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        frame = message.get("bytes")
        if frame is None:
            return message.get("text", ""), True
        return frame, False

    async def authenticate(self, hello: dict) -> bool:
        token, resume, batch = hello.get("token"), hello.get("resume"), hello.get("batch", False)
        if resume is not None and (not isinstance(resume, int) or isinstance(resume, bool) or resume < 0):
            self.error("bad_message", "resume must be the last seq seen, a non-negative integer")
            self.conn.close(CLOSE_POLICY)
            return False
        if not isinstance(batch, bool):
            self.error("bad_message", "batch must be true or false")
            self.conn.close(CLOSE_POLICY)
            return False
        try:
            actor = await self.hub.actor(self.match_id)
        except StoreUnavailable:
            actor = None
        meta = actor.core.meta if actor else None
        seat, role = None, None
        if meta and isinstance(token, str):
            for name, secret in meta["tokens"].items():
                if _same(token, secret):
                    seat, role = name, "player"
            if role is None and meta["spectators"]["allowed"] and _same(token, meta["spectator_token"]):
                role = "spectator"
        if meta and token is None and meta["spectators"]["allowed"] and meta["spectators"].get("public"):
            role = "spectator"  # a public match: anyone may watch
        if role == "spectator" and actor.spectators >= meta["spectators"].get("max", 10_000):
            self.error("full", "this match has as many spectators as it allows")
            self.conn.close(CLOSE_POLICY)
            return False
        if role is None:
            self.error("unauthorized", "no such match, or a bad token" if meta is None else "bad token")
            self.conn.close(CLOSE_UNAUTHORIZED)
            return False
        self.conn.seat, self.conn.role = seat, role
        self.conn.batch = batch
        self.actor = actor
        joined = asyncio.get_running_loop().create_future()
        actor.submit(("join", self.conn, resume, joined))
        try:
            await joined
        except StoreUnavailable:
            self.error("unavailable", "match storage is unreachable; try again")
            self.conn.close(1011)
            return False
        return True

    def dispatch(self, message: dict) -> None:
        kind = message["t"]
        if kind == "ping":
            self.conn.send({"t": "pong", "now": now_ms()})
        elif kind == "act":
            act_id = message.get("id")
            if not isinstance(act_id, (str, int)) or isinstance(act_id, bool) or len(str(act_id)) > MAX_ACT_ID:
                self.error("bad_message", f"act needs an id: a string or integer of at most {MAX_ACT_ID} characters")
                return
            if self.conn.role == "spectator":
                self.error("spectator", "spectators cannot act", act_id)
                return
            prompt, option, args = message.get("prompt"), message.get("option"), message.get("args", {})
            if not isinstance(prompt, str) or not isinstance(option, str):
                self.error("bad_message", "act needs string fields prompt and option", act_id)
                return
            if args is not None and not isinstance(args, dict):
                self.error("bad_args", "args must be a map of argument names to values", act_id)
                return
            self.actor.submit(("act", self.conn, message))
        elif kind == "hello":
            self.error("bad_message", "already said hello")
        else:
            self.error("bad_message", f"unknown message type {kind!r}")

    async def leave(self, disconnected: bool = False) -> None:
        """Leave the match; close the socket unless the client already did (`disconnected`)."""
        if self.actor is not None:
            self.actor.submit(("leave", self.conn))
        if disconnected:  # nothing more can be sent: no close frame, no writer to wait for
            self.conn.gone()
            return
        self.conn.close()
        try:
            async with asyncio.timeout(2):
                await asyncio.shield(self.conn.finished)
        except (asyncio.TimeoutError, Exception):
            if self.conn.writer is not None:
                self.conn.writer.cancel()
