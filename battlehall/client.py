"""A reconnecting Battlehall client: the bot, `battlehall watch` and tests build on it.

It keeps the last `seq` it saw and resumes from it after a dropped connection, with
exponential backoff. It never waits on an answer that will not come:

- an `act` refused for now (`rate_limited`, `unavailable`) is sent again after a
  growing delay, with the same `id`, so it is never applied twice;
- an `act` with no answer after `ack_timeout_s` is sent again, same `id` (the server
  answers a repeated id with the same `ack`);
- an `act` refused for good (`illegal_option`, `unknown_prompt`, ...) is dropped; if its
  prompt is still open it is answered afresh (a bounded number of times);
- a refused `hello` (`unauthorized`, `not_found`) ends the run with `Refused`, and a
  server that stays unreachable for `give_up_s` ends it with `Unreachable`;
- `not_here` (another node runs the match) is followed at once to its `redirect`; when
  that node cannot be reached, or gave no redirect, the client goes back to the
  address(es) it was given, trying each in turn (several nodes: docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
import socket
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, cast
from urllib.parse import urlsplit

import msgpack
import orjson
import websockets
from websockets.typing import Subprotocol

from battlehall.server.match.stops import ASK, Stops

from .engine.ruleset import Prompt, random_answer

JSON = "battlehall.v1.json"
MSGPACK = "battlehall.v1.msgpack"

CLOSE_UNAUTHORIZED = 4001
CLOSE_NOT_FOUND = 4004
CLOSE_NOT_HERE = 4009
# Not applied: the same act may be sent again (`not_here`: to the node that runs the match now).
RETRY_LATER = frozenset({"rate_limited", "unavailable", "not_here"})
MAX_REDIRECTS = 5  # redirects in a row without a welcome before they wait like any reconnect
MAX_FRESH_ANSWERS = 2  # new answers to one prompt after refusals, so a bad `choose` cannot loop

log = logging.getLogger("battlehall.client")


class Refused(Exception):
    """The server refused this client for good (bad token, no such match): retrying cannot help."""


class Unauthorized(Refused, PermissionError):
    pass


class MatchNotFound(Refused):
    pass


class Unreachable(Exception):
    """The server could not be reached for `give_up_s` seconds."""


class _Redirected(Exception):
    """The server said `not_here`: connect to `self.url` (already set) at once."""


class _CallbackFailed(Exception):
    """`on_message` or `choose` raised (its error is the cause): end the run with that error."""


def ws_url(base: str, match_id: str) -> str:
    """The socket URL of a match on the server at `base` (http, https, ws or wss, with
    the path of a server behind a proxy if any, such as a load balancer's /node/<id>);
    ValueError for anything else."""
    parts = urlsplit(base)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not parts.netloc:
        raise ValueError(f"not a server URL: {base!r} (expected e.g. http://127.0.0.1:8000)")
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}/ws/{match_id}"


def encode(wire: str, message: dict):
    return msgpack.packb(message) if wire == MSGPACK else orjson.dumps(message).decode()


def decode(wire: str, frame) -> dict:
    return msgpack.unpackb(frame, raw=False) if wire == MSGPACK else orjson.loads(frame)


def describe(exc: BaseException) -> str:
    """A short, readable reason for a failed or lost connection."""
    if isinstance(exc, ConnectionRefusedError) or "Errno 111" in str(exc):  # 111: refused, every address tried
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return "host not found"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "timed out"
    if isinstance(exc, websockets.InvalidStatus):
        return f"HTTP {exc.response.status_code} instead of a WebSocket"
    if isinstance(exc, websockets.ConnectionClosed):
        code = exc.rcvd.code if exc.rcvd else None
        return f"connection closed (code {code})" if code else "connection lost"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


@dataclass
class Pending:
    """An act sent and not yet answered: sent again at `due` until acked or refused for good."""

    act: dict
    due: float
    refusals: int = 0


class Client:
    """Plays one seat (or watches) until the match ends; `choose(prompt)` picks answers."""

    def __init__(self, base_url: str | list[str], match_id: str, token: str | None, *, wire: str = MSGPACK,
                 choose: Callable[[dict], tuple[str, dict]] | None = None, seed: int | None = None,
                 on_message: Callable[[dict], Awaitable[None] | None] | None = None,
                 on_status: Callable[[str], None] | None = None,
                 think_s: float = 0.0, max_backoff_s: float = 5.0, give_up_s: float = 120.0,
                 ack_timeout_s: float = 10.0, batch: bool = False, resume: int | None = None,
                 stops: str = ASK):
        # The addresses given (one server, a load balancer, or several nodes), tried in turn.
        self.bases = [ws_url(b, match_id) for b in ([base_url] if isinstance(base_url, str) else base_url)]
        self.url = self.bases[0]  # where the next connection goes: a base, or a redirect
        self.redirects = 0  # `not_here` redirects followed
        self._redirect_run = 0  # redirects since the last welcome
        self.match_id = match_id
        self.batch = batch  # ask for `batch` messages: one frame per server turn
        self.token = token
        self.wire = wire
        self.rng = random.Random(seed)  # answers only, so a seed replays the same choices
        self.jitter = random.Random()
        self.choose = choose or self.random_answer
        self.on_message = on_message
        self.on_status = on_status or log.warning  # one readable line per change of connection state
        self.think_s = think_s
        # Which window prompts the server passes for this seat (docs/protocol.md, Stops):
        # sent after every welcome; the prompts they pass are left to the server.
        self.stops = Stops()
        self.stops_mode = stops
        self.max_backoff_s = max_backoff_s
        self.give_up_s = give_up_s
        self.ack_timeout_s = ack_timeout_s
        self.last_seq: int | None = resume  # 0: the whole history first
        self.seat: str | None = None
        self.result: dict | None = None
        self.events: list[dict] = []
        self.prompts: dict[str, dict] = {}  # prompt id -> open prompt of this seat
        self.pending: dict[str, Pending] = {}  # prompt id -> the act answering it, until answered
        self.answered: set[str] = set()  # prompts acked, closed, or given up on
        self.fresh: dict[str, int] = {}  # prompt id -> answers refused for good
        self.errors: list[dict] = []
        self.acked: dict = {}  # act id -> seq of its ack
        self.sent: dict = {}  # act id -> prompt id
        self.answers: dict = {}  # prompt id -> the last act answering it
        self.reconnects = 0
        self.resent = 0  # acts sent again with the same id (refused for now, or no answer in time)
        self.frames = 0  # frames received, over all sessions
        self._welcomed = False  # this session got its welcome
        self._outage = False  # the last connection attempts failed (and on_status said so)
        self._live_from = 0  # events up to this seq are history: their prompts were in the welcome
        self._wake = asyncio.Event()  # each session makes its own (on its loop)
        self._ids = itertools.count(1)
        self._nonce = secrets.token_hex(3)  # act ids stay unique across restarts of a client

    def random_answer(self, prompt: dict) -> tuple[str, dict]:
        """Any option and any listed value of each argument: always a legal answer."""
        return random_answer(self.rng, cast(Prompt, prompt))  # the engine's, with the server's clock fields

    async def run(self) -> dict | None:
        """Play until `match_ended`; its result. Refused, or Unreachable after `give_up_s`."""
        loop = asyncio.get_running_loop()
        backoff = 0.05
        down_since: float | None = None  # start of the current outage
        while self.result is None:
            self._welcomed = False
            try:
                await self._session()
                reason = "the server closed the connection"
            except _Redirected:
                self._redirect_run += 1
                if self._redirect_run <= MAX_REDIRECTS:
                    continue  # straight to the node that runs the match
                reason = "redirected too many times"
            except _CallbackFailed as wrapped:
                assert wrapped.__cause__ is not None  # always raised from the callback's error
                raise wrapped.__cause__ from None
            except Refused:  # Unauthorized is also a PermissionError, an OSError: not one to retry
                raise
            except websockets.ConnectionClosed as exc:
                self._refused_by_close(exc)
                reason = describe(exc)
                if exc.rcvd and exc.rcvd.code == CLOSE_NOT_HERE:
                    self._next_base()  # sent away with no redirect: ask where the match is
            except websockets.InvalidStatus as exc:
                status = exc.response.status_code
                if 400 <= status < 500 and status not in (408, 429):
                    raise Refused(f"{self.url} answered HTTP {status}: is this a Battlehall server?") from exc
                reason = describe(exc)
                self._next_base()
            except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake) as exc:
                reason = describe(exc)
                self._next_base()
            if self.result is not None:
                break
            now = loop.time()
            if self._welcomed:  # it had worked: a new outage starts
                down_since, backoff = None, 0.05
            if down_since is None:
                down_since, self._outage = now, True
                verb = "lost the connection to" if self._welcomed else "cannot reach"
                self.on_status(f"{verb} {self.url}: {reason}; retrying for up to {self.give_up_s:g} s")
            elif now - down_since >= self.give_up_s:
                raise Unreachable(f"cannot reach {self.url}: {reason}; gave up after {self.give_up_s:g} s")
            self.reconnects += 1
            delay = backoff * (0.5 + self.jitter.random())
            await asyncio.sleep(min(delay, down_since + self.give_up_s - now))  # a last try at the bound
            backoff = min(self.max_backoff_s, backoff * 2)
        return self.result

    def _next_base(self) -> None:
        """After a failed connection: back to the given addresses from a redirect, or the
        next of them."""
        if self.url not in self.bases:
            self.url = self.bases[0]
        else:
            self.url = self.bases[(self.bases.index(self.url) + 1) % len(self.bases)]

    def _refused_by_close(self, exc: websockets.ConnectionClosed) -> None:
        code = exc.rcvd.code if exc.rcvd else None
        if code == CLOSE_UNAUTHORIZED:
            raise Unauthorized("bad token") from exc
        if code == CLOSE_NOT_FOUND:
            raise MatchNotFound(f"no such match {self.match_id}") from exc

    async def _session(self) -> None:
        async with websockets.connect(self.url, subprotocols=[Subprotocol(self.wire)], max_size=2**22,
                                      open_timeout=5, ping_interval=10) as ws:
            hello: dict[str, Any] = {"t": "hello", "token": self.token}
            if self.last_seq is not None:
                hello["resume"] = self.last_seq
            if self.batch:
                hello["batch"] = True
            await ws.send(encode(self.wire, hello))
            self._wake = asyncio.Event()
            resender = asyncio.get_running_loop().create_task(self._resend(ws))
            try:
                async for frame in ws:
                    self.frames += 1
                    received = decode(self.wire, frame)
                    for message in received["messages"] if received["t"] == "batch" else [received]:
                        if message["t"] == "event" and self.last_seq is not None and message["seq"] <= self.last_seq:
                            continue  # already seen before a reconnect
                        if self.on_message:
                            try:
                                maybe = self.on_message(message)
                                if asyncio.iscoroutine(maybe):
                                    await maybe
                            except Exception as exc:  # not the connection's fault: no reconnect
                                raise _CallbackFailed() from exc
                        await self._handle(ws, message)
                        if self.result is not None:
                            return
            finally:
                resender.cancel()

    async def _handle(self, ws, message: dict) -> None:
        kind = message["t"]
        if kind == "welcome":
            self._welcome(message)
            if self.stops_mode != ASK and self.seat is not None:
                self.stops.set(self.seat, self.stops_mode)
                await ws.send(encode(self.wire, {"t": "stops", "mode": self.stops_mode}))
            for prompt in message["prompts"]:
                await self._answer(ws, prompt)
        elif kind == "event":
            self.last_seq = message["seq"]
            self.events.append(message)
            data = message["data"]
            if message["kind"] == "prompt":
                # A prompt from the history was open at the welcome (and answered then) or is closed.
                if data.get("seat") == self.seat and "options" in data and message["seq"] > self._live_from:
                    self.prompts[data["id"]] = data
                    self.stops.opened(data)
                    await self._answer(ws, data)
            elif message["kind"] == "prompt_closed":
                self._close_prompt(data["id"])
            elif message["kind"] == "match_ended":
                self.result = data
        elif kind == "stops":  # set here or on another socket of the seat, or pass_until_my_turn ended
            self.stops_mode = message["mode"]
            if self.seat is not None:  # always: the server sends `stops` to a seat (after its welcome)
                self.stops.set(self.seat, message["mode"])
        elif kind == "ack":
            self.acked[message["id"]] = message["seq"]
            self._close_prompt(self.sent.get(message["id"]))
        elif kind == "error":
            self.errors.append(message)
            await self._refusal(ws, message)

    def _welcome(self, message: dict) -> None:
        self._welcomed = True
        self._redirect_run = 0
        if self._outage:
            self._outage = False
            self.on_status(f"connected again to {self.url}")
        self.seat = message["seat"]
        self._live_from = message["seq"]
        if self.last_seq is None:
            self.last_seq = message["seq"]
        if self.last_seq >= message["seq"]:
            result = (message.get("view") or {}).get("result")
            if result is not None:  # over before we came: no match_ended will follow
                self.result = result
        self.prompts = {p["id"]: p for p in message["prompts"]}
        for pending in self.pending.values():
            pending.due = 0  # acts sent before a reconnect: send them again, same id
        self._wake.set()

    def _close_prompt(self, prompt_id: str | None) -> None:
        if prompt_id is not None:
            self.prompts.pop(prompt_id, None)
            self.pending.pop(prompt_id, None)
            self.answered.add(prompt_id)

    async def _refusal(self, ws, error: dict) -> None:
        """An `error`: a refused hello ends the run; a refused act is retried, dropped or re-answered."""
        code, act_id = error.get("code"), error.get("id")
        if act_id is None:
            if code == "not_here":
                redirect = error.get("redirect")
                if isinstance(redirect, str) and redirect.startswith(("ws://", "wss://")):
                    self.url = redirect
                    self.redirects += 1
                    raise _Redirected()
                self._next_base()
                raise _Redirected()
            if code == "unauthorized":
                raise Unauthorized("bad token")
            if code == "not_found":
                raise MatchNotFound(f"no such match {self.match_id}")
            return
        prompt_id = self.sent.get(act_id)
        if prompt_id is None:
            return  # not an act this client sent
        pending = self.pending.get(prompt_id)
        if pending is None or pending.act["id"] != act_id:
            return  # an answer to an act already settled
        if code in RETRY_LATER:
            delay = min(self.max_backoff_s, 0.1 * 2 ** pending.refusals) * (0.5 + self.jitter.random())
            pending.refusals += 1
            pending.due = asyncio.get_running_loop().time() + delay
            self._wake.set()
            return
        del self.pending[prompt_id]
        self.fresh[prompt_id] = self.fresh.get(prompt_id, 0) + 1
        prompt = self.prompts.get(prompt_id)
        if prompt is None or self.fresh[prompt_id] > MAX_FRESH_ANSWERS:
            self.answered.add(prompt_id)  # closed, or left to its deadline
            return
        await self._answer(ws, prompt)

    async def _resend(self, ws) -> None:
        """Send again, same id, every pending act that is due: refused for now, or unanswered."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            for pending in list(self.pending.values()):
                if pending.due <= now:
                    pending.due = now + self.ack_timeout_s
                    self.resent += 1
                    try:
                        await ws.send(encode(self.wire, pending.act))
                    except websockets.ConnectionClosed:
                        return  # the session's reader sees the close and reconnects
            self._wake.clear()
            due = min((p.due for p in self.pending.values()), default=None)
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancel that
            # comes as the event is set, and this loop then outlived its session.
            try:
                async with asyncio.timeout_at(due):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _answer(self, ws, prompt: dict) -> None:
        pending = self.pending.get(prompt["id"])
        if pending is not None:
            return  # sent already: the resender sends it again when it is due
        if prompt["id"] in self.answered or self.stops.passes(prompt):
            return  # the server passes it for us
        if self.think_s:
            await asyncio.sleep(self.think_s)
            if prompt["id"] not in self.prompts:
                return  # closed while we thought
        try:
            option, args = self.choose(prompt)
        except Exception as exc:
            raise _CallbackFailed() from exc
        act = {"t": "act", "id": f"{self.seat}-{self._nonce}-{next(self._ids)}", "prompt": prompt["id"], "option": option, "args": args}
        self.pending[prompt["id"]] = Pending(act, asyncio.get_running_loop().time() + self.ack_timeout_s)
        self.sent[act["id"]] = prompt["id"]
        self.answers[prompt["id"]] = act
        self._wake.set()
        await ws.send(encode(self.wire, act))
