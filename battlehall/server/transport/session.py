"""One client's session: `hello`, then `act`, `resign`, `claim_win`, `view` and `ping` until it
leaves (docs/protocol.md, Session)."""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from typing import TYPE_CHECKING, Callable, TypeGuard

from battlehall.server import codec, errors
from battlehall.server.clock import now_ms
from battlehall.server.errors import NotHere
from battlehall.server.match import inputs, stops
from battlehall.server.match.connection import Connection, RateLimiter
from battlehall.server.node import caster
from battlehall.server.node.ownership import send_away
from battlehall.server.storage.store import StoreUnavailable
from battlehall.server.transport import history
from battlehall.server.transport.lag import LagMeter

if TYPE_CHECKING:
    from battlehall.server.node.hub import SessionServices

log = logging.getLogger("battlehall.session")

FLOOD_STRIKES = 50  # refusals in a row before a flooding client is closed
MAX_EARLY = 100  # messages a client may send before its welcome
#: An act's `prompt` and `option` (the engine's errors name them): far longer than any id.
MAX_NAME = 64
#: What a token makes a socket; a `hello` may name the one it expects (`role`).
ROLES = ("player", "spectator", caster.ROLE, caster.JUDGE_ROLE)


def _short_string(value) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) <= MAX_NAME


def _left(frame: bytes | str, text: bool) -> None:
    """What a session receives once its socket left: nothing (the socket reads no more)."""


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class Session:
    # Slots, not an instance dict: one per open socket.
    __slots__ = ("services", "conn", "match_id", "limiter", "actor", "waiting", "early", "joining", "hello_timer")

    def __init__(self, services: SessionServices, conn: Connection, match_id: str, limiter: RateLimiter):
        self.services = services
        self.conn = conn
        self.match_id = match_id
        self.limiter = limiter
        self.actor: inputs.Receiver | None = None
        # What takes each message until the session joined (None from then: `on_frame`):
        # hello first, then `_wait`; nothing once it left. Joined, a session holds no bound
        # method of its own (64 bytes per idle socket, and a reference cycle).
        self.waiting: Callable[[bytes | str, bool], None] | None = self.hello
        self.early: list[tuple[bytes | str, bool]] | None = []  # messages that came while hello was being checked
        self.joining: asyncio.Task | None = None
        self.hello_timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(
            services.settings.hello_timeout_s, self._hello_timed_out)

    def error(self, error: errors.WireError) -> None:
        self.conn.send(errors.ws_message(error))

    def close_with(self, error: errors.WireError) -> None:
        """The error, then the close its code says."""
        self.error(error)
        # Every error a session closes with has a close code; 1011 (internal) if one had not.
        self.conn.close(error.close_code if error.close_code is not None else 1011)

    def decode(self, frame: bytes | str, text: bool) -> dict | None:
        """The decoded message; None after sending `bad_message` for an undecodable one."""
        if text and self.conn.codec == codec.MSGPACK:
            self.error(errors.BadMessage("this connection speaks MessagePack: send binary frames"))
            return None
        try:
            return codec.decode(self.conn.codec, frame)
        except errors.WireError as exc:
            self.error(exc)
            return None

    def on_frame(self, frame: bytes | str, text: bool) -> None:
        """A message after `hello`: checked, rate limited, and handled before this returns."""
        if self.conn.closed:  # closed by us (flooding, leaving): nothing more is taken
            return
        message = self.decode(frame, text)
        if message is None:
            return
        if not self.limiter.allow():
            refused = errors.RateLimited("too many messages; slow down", id=codec.act_id(message))
            if self.limiter.strikes >= FLOOD_STRIKES:
                self.close_with(refused)
            else:
                self.error(refused)
            return
        try:
            self.dispatch(message)
        except Exception:  # a bug: called from the socket's parser, it would close the socket
            log.exception("match %s: error handling a %r message", self.match_id, message.get("t"))
            self.error(errors.Internal(id=codec.act_id(message)))

    def receive(self, frame: bytes | str, text: bool) -> None:
        """What the socket calls with each message (websocket.py calls `on_frame` itself once joined)."""
        waiting = self.waiting
        if waiting is None:
            self.on_frame(frame, text)
        else:
            waiting(frame, text)

    def hello(self, frame: bytes | str, text: bool) -> None:
        """The first message, which must be `hello`; what comes while it is being checked waits."""
        self.waiting = self._wait
        self._stop_hello_timer()
        hello = self.decode(frame, text)
        if hello is None or hello.get("t") != "hello":
            self.close_with(errors.BadMessage("the first message must be hello"))
            return
        self.joining = asyncio.get_running_loop().create_task(self._join(hello))

    def _wait(self, frame: bytes | str, text: bool) -> None:
        early = self.early
        if early is None:  # joined: messages go to on_frame by then, and this is not called
            self.on_frame(frame, text)
            return
        if len(early) >= MAX_EARLY:
            self.close_with(errors.RateLimited("wait for welcome before sending more"))
            return
        early.append((frame, text))

    def _stop_hello_timer(self) -> None:
        # Let go of the handle too: a cancelled timer held for the socket's life is a
        # few hundred bytes per idle socket.
        if self.hello_timer is not None:
            self.hello_timer.cancel()
            self.hello_timer = None

    def _hello_timed_out(self) -> None:
        self.hello_timer = None
        self.close_with(errors.BadMessage("send hello first, within the hello timeout"))

    async def _join(self, hello: dict) -> None:
        try:
            await self._joining(hello)
        finally:
            self.joining = None  # done: a finished task held for the socket's life is most of a KiB

    async def _joining(self, hello: dict) -> None:
        try:
            joined = await self.authenticate(hello)
            if not joined:
                return
        except Exception:
            log.exception("match %s: error joining", self.match_id)
            self.close_with(errors.Internal())
            return
        early, self.early = self.early or [], None
        self.waiting = None
        for frame, text in early:
            self.on_frame(frame, text)
        if isinstance(joined, tuple):  # a resume: the missed events, while the match goes on
            message, after, upto = joined
            services = self.services
            services.metrics.history_streams += 1
            try:
                await history.stream(services.store, services.history_gate, self.match_id, self.conn, message,
                                     after, upto)
            except StoreUnavailable:
                self._refuse(errors.Unavailable())
            except Exception:
                log.exception("match %s: error sending the history", self.match_id)
                self._refuse(errors.Internal())
            finally:
                services.metrics.history_streams -= 1

    def _refuse(self, error: errors.WireError) -> None:
        """An error, then the close; what was queued or held for the socket is dropped."""
        self.conn.discard()
        self.close_with(error)

    async def authenticate(self, hello: dict) -> bool | inputs.CatchUp:
        """Check the hello; join the match if it may. True, or what `history.stream`
        needs when the socket resumes from before the match's current seq; False when
        refused (the socket has been told why and is closing).

        The token is checked against the match's settings alone: a socket that is
        refused never makes this process load a match.
        """
        token, resume, batch = hello.get("token"), hello.get("resume"), hello.get("batch", False)
        if resume is not None and (not isinstance(resume, int) or isinstance(resume, bool) or resume < 0):
            self.close_with(errors.BadMessage("resume must be the last seq seen, a non-negative integer"))
            return False
        if not isinstance(batch, bool):
            self.close_with(errors.BadMessage("batch must be true or false"))
            return False
        if hello.get("role") is not None and hello.get("role") not in ROLES:
            self.close_with(errors.BadMessage("role must be one of " + ", ".join(ROLES)))
            return False
        try:
            meta = await self.services.meta(self.match_id)
        except StoreUnavailable:
            self._refuse(errors.Unavailable())
            return False
        if meta is None:
            # A match id is not a secret (it is in every link to a match): saying that
            # there is no such match tells nothing about any token.
            self._refuse(errors.NotFound("no such match"))
            return False
        seat, role = None, None
        if isinstance(token, str):
            for name, secret in meta["tokens"].items():
                if _same(token, secret):
                    seat, role = name, "player"
            if role is None and meta["spectators"]["allowed"] and _same(token, meta["spectator_token"]):
                role = "spectator"
            if role is None and caster.is_caster_token(meta, token):
                role = caster.ROLE
            if role is None:  # a judge's token, for a match it may judge (storage/judges.py)
                try:
                    judge = await self.services.judges.find(token)
                except StoreUnavailable:
                    self._refuse(errors.Unavailable())
                    return False
                if judge is not None and judge.may_judge(meta):
                    role = caster.JUDGE_ROLE
        if token is None and meta["spectators"]["allowed"] and meta["spectators"].get("public"):
            role = "spectator"  # a public match: anyone may watch
        if role is None:
            self._refuse(errors.Unauthorized("bad token"))
            return False
        expected = hello.get("role")
        if expected is not None and expected != role:  # a page for one kind of link was given another
            self._refuse(errors.WrongRole(f"this token is a {role}'s, not a {expected}'s"))
            return False
        try:
            if role == caster.ROLE:  # always from Redis, at the caster delay (caster.py)
                actor = await self.services.caster(self.match_id)
            elif role == caster.JUDGE_ROLE:  # from Redis too, live
                actor = await self.services.judge(self.match_id)
            elif role == "spectator":  # on any node: a copy of the match if another node runs it
                actor = await self.services.spectator(self.match_id)
            else:
                actor = await self.services.player(self.match_id)
        except NotHere as exc:  # another node runs the match: send the socket there
            send_away(self.conn, exc.redirect)
            return False
        except StoreUnavailable:
            self._refuse(errors.Unavailable())
            return False
        if actor is None:  # gone since its settings were read (its retention ended)
            self._refuse(errors.NotFound("no such match"))
            return False
        audience = self.services.audience
        if role == "spectator" and audience.count(self.match_id) >= meta["spectators"].get("max", 10_000):
            self.close_with(errors.Full("this match has as many spectators as it allows"))
            return False
        self.conn.seat, self.conn.role = seat, role
        self.conn.batch = batch
        if role == "player":  # its seat's late answers are credited the lag measured here (lag.py)
            self.conn.lag = LagMeter()
        self.actor = actor
        self.match_id = actor.match_id  # the match's own string, not one parsed from this socket's path
        joined: asyncio.Future[inputs.CatchUp | None] = asyncio.get_running_loop().create_future()
        actor.submit(inputs.Join(self.conn, resume, joined))
        try:
            catch_up = await joined
        except NotHere as exc:  # the match left this node while the socket joined
            send_away(self.conn, exc.redirect)
            return False
        except (StoreUnavailable, ConnectionResetError):  # ConnectionResetError: a mirror dropped meanwhile
            self._refuse(errors.Unavailable())
            return False
        if role == "spectator":
            self.services.audience.changed(self.match_id)
        return catch_up if catch_up is not None else True

    def dispatch(self, message: dict) -> None:
        kind = message["t"]
        actor = self.actor
        if actor is None:  # set before messages past hello are handled: a bug (on_frame answers internal)
            raise RuntimeError("a message was handled before the session joined its match")
        if kind == "ping":
            self.conn.send({"t": "pong", "now": now_ms()})
        elif kind == "act":
            act_id = codec.act_id(message)
            if act_id is None:
                self.error(errors.BadMessage(
                    f"act needs an id: a string or integer of at most {codec.MAX_ACT_ID} characters"))
                return
            if self.conn.role != "player":
                self.error(errors.Spectator(f"{self.conn.role}s cannot act", id=act_id))
                return
            prompt, option, args = message.get("prompt"), message.get("option"), message.get("args", {})
            if not _short_string(prompt) or not _short_string(option):
                self.error(errors.BadMessage(
                    f"act needs string fields prompt and option of at most {MAX_NAME} characters", id=act_id))
                return
            if args is not None and not isinstance(args, dict):
                self.error(errors.BadArgs("args must be a map of argument names to values", id=act_id))
                return
            # The seat is the socket's; the time it came is for the ack latency metric.
            received = time.monotonic()
            lag = self.conn.lag
            if lag is not None and lag.answered(prompt, received):  # a quick answer bounds the measure
                actor.submit(inputs.Lag(self.conn, lag.rtt_ms))
            actor.submit(inputs.Act(self.conn, self._seat(), act_id, prompt, option, args or {}, received))
        elif kind == "stops":
            self._stops(actor, message)
        elif kind == "resign" or kind == "claim_win":
            act_id = codec.act_id(message)
            if act_id is None:
                self.error(errors.BadMessage(
                    f"{kind} needs an id: a string or integer of at most {codec.MAX_ACT_ID} characters"))
                return
            if self.conn.role != "player":
                self.error(errors.Spectator(
                    f"{self.conn.role}s cannot {'resign' if kind == 'resign' else 'claim a win'}", id=act_id))
                return
            given = inputs.Resign if kind == "resign" else inputs.Claim
            actor.submit(given(self.conn, self._seat(), act_id, time.monotonic()))
        elif kind == "view":  # in order with the match's events, so its seq is exact
            if not self.conn.view_budget().allow():  # each answer is a whole board: counted in bytes
                self.error(errors.RateLimited("views take more bytes per second than this server sends a socket; "
                                              "ask again later"))
                return
            actor.submit(inputs.View(self.conn))
        elif kind == "hello":
            self.error(errors.BadMessage("already said hello"))
        else:
            shown = f" {kind!r}" if len(kind) <= MAX_NAME else ""  # an error never echoes a long value
            self.error(errors.BadMessage(f"unknown message type{shown}: "
                                         "a client sends hello, act, stops, resign, claim_win, ping or view"))

    def _seat(self) -> str:
        """A player's seat: set with its role when the socket joined, before any act."""
        seat = self.conn.seat
        assert seat is not None, "a player's socket has its seat"
        return seat

    def _stops(self, actor: inputs.Receiver, message: dict) -> None:
        """Which window prompts the seat is asked; the server passes the others (stops.py)."""
        mode = message.get("mode")
        if self.conn.role != "player":
            self.error(errors.Spectator(f"{self.conn.role}s have no stops"))
            return
        if mode not in stops.MODES:
            self.error(errors.BadMessage("stops needs a mode: " + ", ".join(stops.MODES)))
            return
        actor.submit(inputs.SetStops(self.conn, self._seat(), mode))

    def lagged(self, rtt_ms: int) -> None:
        """The socket's round trip was measured again (websocket.py): its match is told."""
        if self.actor is not None and self.conn.role == "player":
            self.actor.submit(inputs.Lag(self.conn, rtt_ms))

    def leave(self) -> None:
        """The socket is closed: leave the match (the seat stays; its clock keeps running)."""
        self._stop_hello_timer()
        if self.joining is not None and not self.joining.done():
            self.joining.cancel()  # a join still in progress would add a closed socket
        if self.actor is not None:
            self.actor.submit(inputs.Leave(self.conn))
            if self.conn.role == "spectator":
                self.services.audience.changed(self.match_id)
        self.conn.gone()
        self.waiting = _left  # not a bound method of this session: that is a reference cycle until cleared
