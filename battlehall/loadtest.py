"""`battlehall loadtest`: keep N matches in play over real WebSockets and time the server.

Each of N slots creates a match (POST /matches; `--seats` seats, by default the fewest
the ruleset is played by), connects its spectators, then one socket per seat; every
seat answers each prompt the moment it arrives with a random legal option (any option,
any listed value of each argument: docs/protocol.md promises that is always legal), so any
ruleset can be driven. When a match ends its slot starts the
next one. After the warm-up, a window of `--seconds` is measured:

- answers: acts sent in the window and acknowledged (the ack may land just after it;
  the run drains in-flight acts before it closes, so nothing is cut off),
- answer-to-ack latency: act sent -> its `ack` received,
- answer-to-spectator latency: act sent -> a spectator receives the event whose seq
  is the ack's seq (every spectator of the match gives one sample),
- errors by code: the server's `error` codes (a `rate_limited` or `unavailable` act is
  sent again, same id), plus the client's own: http_<status>, http_failed_<exception>,
  connect_failed_<exception or status>, unauthorized, connection_lost, connection_closed
  (before match_ended), match_timeout. A failure ends that match; its slot starts another.
- overtaken (in `totals`, not an error): acts refused with `unknown_prompt` because
  another seat's answer closed their prompt first (its `prompt_closed` says `cancelled`),
  as when several seats answer one window at once and one of them plays a card into it.

Everything runs on one asyncio loop (uvloop when installed) in one process, so the
numbers include this process' own overhead; `loadgen_cpu` in the report says how busy
it was: near 1.0 means the load generator, not the server, was the limit.

When it stops (the end of the run, Ctrl-C or SIGTERM), every match it created and did
not see end is aborted (`POST /matches/{id}/abort`, with `--api-key`), so that none is
left live for the server to recover and play on. A server without an API key refuses
aborts: the report counts what was left live, and a warning says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import math
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import httpx
import websockets
from websockets.typing import Subprotocol

from .client import JSON, MAX_REDIRECTS, MSGPACK, decode, encode, ws_url
from .engine.ruleset import Prompt, random_answer

CREATE_RETRY_S = 0.2  # after a refused create: a server that refuses must not make us spin
MAX_CREATE_RETRY_S = 10.0  # the longest Retry-After waited before the next create


def retry_delay_s(resp: httpx.Response) -> float:
    """How long a match slot waits after a refused create: the server's Retry-After (a
    429 from the creation limit) up to MAX_CREATE_RETRY_S, else CREATE_RETRY_S. Retrying
    a 429 every 0.2 s from each slot had the server spend most of its CPU refusing."""
    try:
        return min(MAX_CREATE_RETRY_S, max(CREATE_RETRY_S, float(resp.headers.get("retry-after", 0))))
    except ValueError:
        return CREATE_RETRY_S


RATE_LIMIT_RETRY_S = 0.05  # the server refills 50 tokens/s per socket: retry after about one
# httpcore scans every queued request against every pooled connection each time one
# frees up: with 1,000 slots queued on a pool that is O(n^2) and ate half of this
# process' CPU. So at most this many creates are in flight; the rest wait on a semaphore.
CREATES_IN_FLIGHT = 16


@dataclass
class Config:
    url: str = "http://127.0.0.1:8000"
    ruleset: str = "duel"
    seats: int | None = None  # seats per match; None: the ruleset's minimum
    matches: int = 100
    seconds: float = 20.0
    warmup: float = 3.0
    spectators: int = 0
    wire: str = MSGPACK
    seed: int | None = None
    quiet: bool = False
    server_pid: int | None = None
    match_timeout: float = 60.0
    max_matches: int | None = None  # stop creating matches after this many (a count bound)
    drain_s: float = 5.0  # after the window: how long to wait for in-flight acks
    clock: dict | None = None  # the create request's clock; None: the server's default
    options: dict | None = None  # the create request's ruleset options; None: the ruleset's defaults
    batch: bool = False  # ask for `batch` messages (docs/protocol.md, Batches)
    api_key: str | None = None  # the server's API key: to create matches, and to abort them at the end


async def messages(ws, wire: str, first: Sequence[dict] = ()):
    """Every message the server sends on `ws` (after `first`, already read), with `batch`
    messages unpacked."""
    for message in first:
        yield message
    async for raw in ws:
        message = decode(wire, raw)
        if message["t"] == "batch":
            for inner in message["messages"]:
                yield inner
        else:
            yield message


def percentile(sorted_values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)]


def _r(x: float | None, digits: int = 2) -> float | None:
    return None if x is None else round(x, digits)


# -- server CPU from /proc -------------------------------------------------------------

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def process_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """{pid: (name, utime+stime seconds)} for `pid` and all its descendants."""
    out = {}
    for p in [pid, *_descendants(pid)]:
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # it exited between the listing and the read
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[p] = (name, (int(fields[11]) + int(fields[12])) / _CLK_TCK)  # utime, stime
    return out


def machine_busy() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / _CLK_TCK, sum(fields[:8]) / _CLK_TCK


def cpu_delta(before: dict, after: dict) -> dict:
    """CPU seconds spent between two samples, split into Redis and the rest of the server."""
    server = redis = 0.0
    for pid, (name, seconds) in after.items():
        spent = seconds - before.get(pid, (name, 0.0))[1]
        if name.startswith("redis"):
            redis += spent
        else:
            server += spent
    return {"server_s": server, "redis_s": redis}


# -- one match --------------------------------------------------------------------------


class MatchRun:
    """The shared bookkeeping of one match's sockets."""

    def __init__(self, lt: "LoadTest", created: dict, seed: int):
        self.lt = lt
        self.id = created["match"]
        self.tokens = created["tokens"]
        self.spectator_token = created["spectator_token"]
        self.url = ws_url(lt.cfg.url, self.id)  # where its sockets go: the redirect of the last `not_here`
        self.seed = seed
        self.over = asyncio.Event()  # match_ended seen, or a socket of it failed
        self.failed: str | None = None
        self.acts = itertools.count(1)
        # For answer-to-spectator latency, joined on seq in whichever order things arrive:
        # the actor queues the events before the ack, so a spectator may see seq first.
        self.waiting: dict[int, list] = {}  # seq -> [act sent at, spectators still to see it]
        self.seen: dict[int, list[float]] = {}  # seq -> when spectators saw it (ack not in yet)

    def acked(self, seq: int, sent_at: float) -> None:
        early = self.seen.pop(seq, [])
        for at in early:
            self.lt.spec_ms.append((at - sent_at) * 1000)
        if len(early) < self.lt.cfg.spectators:
            self.waiting[seq] = [sent_at, self.lt.cfg.spectators - len(early)]

    def spectator_saw(self, seq: int, at: float) -> None:
        entry = self.waiting.get(seq)
        if entry is None:
            self.seen.setdefault(seq, []).append(at)
            return
        self.lt.spec_ms.append((at - entry[0]) * 1000)
        entry[1] -= 1
        if entry[1] == 0:
            del self.waiting[seq]

    def fail(self, code: str) -> None:
        if self.failed is None and not self.over.is_set():
            self.failed = code
            self.lt.errors[code] += 1
        self.over.set()


# -- the load test ----------------------------------------------------------------------


class LoadTest:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.wire = cfg.wire
        self.base_seed = cfg.seed if cfg.seed is not None else random.randrange(2**31)
        self.seat_names: list[str] = [f"p{i + 1}" for i in range(cfg.seats or 2)]
        self.stopping = False
        self.measuring = False
        self.match_seq = itertools.count()
        self.closing: set[asyncio.Task] = set()
        self.auth = {"Authorization": f"Bearer {cfg.api_key}"} if cfg.api_key else {}
        self.unfinished: set[str] = set()  # matches created and not seen to end
        self.creates_pending = 0  # POST /matches in flight: each may yet make a match
        self.aborted = 0
        self.redirects = 0  # `not_here` redirects followed (several nodes)
        self.abort_errors: Counter[str] = Counter()  # why matches were left live
        # whole run
        self.created = 0
        self.acts_sent = self.acks = self.refused = 0
        self.overtaken = 0  # refused because another seat's answer closed the prompt first
        self.in_flight = 0
        self.errors: Counter[str] = Counter()
        # measured window only
        self.answers = 0
        self.finished = 0
        self.ack_ms: list[float] = []
        self.spec_ms: list[float] = []
        self.window = (0.0, 0.0)
        self.window_epoch = (0.0, 0.0)  # the same window by the wall clock: to cut the server's metrics by
        self.cpu: dict | None = None
        self.loadgen_cpu: float | None = None
        self.machine_cpu: float | None = None

    # -- sockets ----------------------------------------------------------------------

    def _connect(self, url: str):
        return websockets.connect(
            url, subprotocols=[Subprotocol(self.wire)],
            compression=None,  # the server does not deflate either: no CPU spent on it
            ping_interval=None,  # the server pings; thousands of client timers only add load
            proxy=None, open_timeout=10, close_timeout=2, max_size=2**22)

    @contextlib.asynccontextmanager
    async def _joined(self, run: MatchRun, token: str):
        """A socket that said hello, following `not_here` redirects to the node that runs
        the match (several nodes); yields it and the messages of its first frame."""
        url = run.url
        for _ in range(MAX_REDIRECTS + 1):
            async with self._connect(url) as ws:
                await ws.send(encode(self.wire, self._hello(token)))
                raw = await ws.recv()
                frame = decode(self.wire, raw)
                first = frame["messages"] if frame["t"] == "batch" else [frame]
                if first[0]["t"] == "error" and first[0].get("code") == "not_here":
                    url = run.url = first[0].get("redirect") or ws_url(self.cfg.url, run.id)
                    self.redirects += 1
                    continue
                yield ws, first
                return
        raise websockets.InvalidHandshake("redirected too many times")

    async def _guard(self, run: MatchRun, client, *args) -> None:
        """Run one socket's coroutine; its failure ends the match for this slot."""
        try:
            await client(run, *args)
        except asyncio.CancelledError:
            raise
        except websockets.InvalidStatus as exc:
            run.fail(f"connect_failed_{exc.response.status_code}")
        except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake) as exc:
            run.fail(f"connect_failed_{type(exc).__name__}")
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
            run.fail("unauthorized" if code == 4001 else "connection_lost")

    async def _seat(self, run: MatchRun, seat: str, index: int) -> None:
        rng = random.Random(run.seed * 64 + index)  # each match replays the same way from its seed
        wire = self.wire
        sent: dict[str, tuple[float, bool, object]] = {}  # act id -> (sent at, in window, frame)
        answered: dict[str, str] = {}  # prompt id -> the act that answered it
        overtaken: set[str] = set()  # acts whose prompt another seat's answer closed first
        ended = False
        async with self._joined(run, run.tokens[seat]) as (ws, first):

            async def answer(prompt: dict) -> None:
                if self.stopping or prompt["id"] in answered:
                    return
                option, args = random_answer(rng, cast(Prompt, prompt))  # the engine's, with the clock's fields
                act_id = f"a{next(run.acts)}"
                answered[prompt["id"]] = act_id
                frame = encode(wire, {"t": "act", "id": act_id, "prompt": prompt["id"], "option": option, "args": args})
                sent[act_id] = (time.perf_counter(), self.measuring, frame)
                self.acts_sent += 1
                self.in_flight += 1
                await ws.send(frame)

            async def resend(frame, delay: float) -> None:
                await asyncio.sleep(delay)
                try:
                    await ws.send(frame)
                except websockets.ConnectionClosed:
                    pass  # the seat's own loop reports the lost connection

            async for message in messages(ws, wire, first):
                kind = message["t"]
                if kind == "event":
                    event = message["kind"]
                    if event == "prompt":
                        if "options" in message["data"]:  # only the prompted seat's copy has them
                            await answer(message["data"])
                    elif event == "prompt_closed":
                        data = message["data"]
                        if data.get("reason") == "cancelled" and data.get("id") in answered:
                            overtaken.add(answered[data["id"]])
                    elif event == "match_ended":
                        self.unfinished.discard(run.id)
                        if not run.over.is_set() and self.measuring:
                            self.finished += 1
                        run.over.set()
                        ended = True
                        if not sent:
                            return
                elif kind == "ack":
                    now = time.perf_counter()
                    entry = sent.pop(message["id"], None)
                    if entry is None:
                        continue
                    self.acks += 1
                    self.in_flight -= 1
                    if entry[1]:
                        self.answers += 1
                        self.ack_ms.append((now - entry[0]) * 1000)
                        if self.cfg.spectators:
                            run.acked(message["seq"], entry[0])
                    if ended and not sent:
                        return  # the winning answer's ack comes after match_ended: wait for it
                elif kind == "welcome":
                    for prompt in message["prompts"]:
                        await answer(prompt)
                elif kind == "error":
                    code = message.get("code", "unknown")
                    if code == "unknown_prompt" and message.get("id") in overtaken:
                        self.overtaken += 1  # the server was right to refuse it: not an error
                    else:
                        self.errors[code] += 1
                    entry = sent.get(message.get("id"))
                    if entry is not None and code in ("rate_limited", "unavailable"):
                        # nothing was applied: send the same act (same id) again shortly
                        self._spawn(resend(entry[2], RATE_LIMIT_RETRY_S))
                    elif entry is not None:
                        del sent[message["id"]]
                        self.refused += 1
                        self.in_flight -= 1
                        if ended and not sent:
                            return
        run.fail("connection_closed")  # closed before match_ended (a no-op once the match is over)

    def _hello(self, token: str) -> dict:
        return {"t": "hello", "token": token, "batch": True} if self.cfg.batch else {"t": "hello", "token": token}

    async def _spectator(self, run: MatchRun, ready: asyncio.Event) -> None:
        wire = self.wire
        async with self._joined(run, run.spectator_token) as (ws, first):
            async for message in messages(ws, wire, first):
                at = time.perf_counter()
                kind = message["t"]
                if kind == "event":
                    run.spectator_saw(message["seq"], at)  # samples only for acts sent in the window
                    if message["kind"] == "match_ended":
                        self.unfinished.discard(run.id)
                        return
                elif kind == "welcome":
                    ready.set()
                elif kind == "error":
                    self.errors[message.get("code", "unknown")] += 1
        run.fail("connection_closed")

    # -- slots ----------------------------------------------------------------------------

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)
        return task

    async def _play_one(self, http: httpx.AsyncClient) -> None:
        number = next(self.match_seq)
        seed = self.base_seed + number
        # A public seed: a run with the same --seed deals the same cards again.
        body = {"ruleset": self.cfg.ruleset, "seats": self.seat_names, "seed": seed, "seed_public": True}
        if self.cfg.clock is not None:
            body["clock"] = self.cfg.clock
        if self.cfg.options is not None:
            body["options"] = self.cfg.options
        self.creates_pending += 1
        try:
            async with self.creating:
                resp = await http.post("/matches", json=body, headers=self.auth)
            if resp.status_code == 201:
                self.unfinished.add(resp.json()["match"])
        except httpx.HTTPError as exc:
            self.errors[f"http_failed_{type(exc).__name__}"] += 1
            await asyncio.sleep(0.2)  # a server that is down must not make us spin
            return
        finally:
            self.creates_pending -= 1
        if resp.status_code != 201:
            self.errors[f"http_{resp.status_code}"] += 1
            await asyncio.sleep(retry_delay_s(resp))
            return
        self.created += 1
        if self.stopping:  # created as the run stopped: it is aborted with the rest
            return
        run = MatchRun(self, resp.json(), seed)
        tasks = []
        try:
            # Spectators first, so that they see every event of the seats' play.
            if self.cfg.spectators:
                readies = [asyncio.Event() for _ in range(self.cfg.spectators)]
                tasks += [self._spawn(self._guard(run, self._spectator, r)) for r in readies]
                ready_all = asyncio.gather(*(r.wait() for r in readies))
                over = asyncio.ensure_future(run.over.wait())
                waiting: list[asyncio.Future[Any]] = [ready_all, over]
                await asyncio.wait(waiting, timeout=self.cfg.match_timeout,
                                   return_when=asyncio.FIRST_COMPLETED)
                ready_all.cancel()
                over.cancel()
            if not run.over.is_set():
                tasks += [self._spawn(self._guard(run, self._seat, seat, i))
                          for i, seat in enumerate(self.seat_names)]
                await asyncio.wait_for(run.over.wait(), self.cfg.match_timeout)
        except asyncio.TimeoutError:
            run.fail("match_timeout")
        finally:
            # After match_ended each socket closes by itself, in the background, so the
            # slot starts its next match at once; after a failure, stop them all.
            if run.failed is not None:
                for task in tasks:
                    task.cancel()

    async def _slot(self, http: httpx.AsyncClient, delay: float) -> None:
        await asyncio.sleep(delay)
        while not self.stopping:
            if self.cfg.max_matches is not None and self.created >= self.cfg.max_matches:
                return
            await self._play_one(http)

    # -- the run ----------------------------------------------------------------------

    async def _learn_seats(self, http: httpx.AsyncClient) -> None:
        """As many seats as the ruleset needs at least; two if /rulesets cannot say."""
        if self.cfg.seats is not None:
            return  # asked for: a count the ruleset does not take is the server's 400 to report
        try:
            # Connection: close, so this socket is never reused for a POST: uvicorn closes a
            # keep-alive connection after a 500, and the next request on it would fail.
            resp = await http.get("/rulesets", headers={"connection": "close"})
            for ruleset in resp.json()["rulesets"]:
                if ruleset["name"] == self.cfg.ruleset:
                    self.seat_names = [f"p{i + 1}" for i in range(ruleset["seats"]["min"])]
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            if not self.cfg.quiet:
                print("loadtest: GET /rulesets failed; playing with two seats", file=sys.stderr)

    async def _end_unfinished(self, http: httpx.AsyncClient) -> None:
        """Abort every match this run created and did not see end."""
        deadline = time.perf_counter() + 35  # a create in flight may still make a match
        while self.creates_pending and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.gather(*(self._abort(http, match_id) for match_id in sorted(self.unfinished)))
        if self.unfinished:
            refused = ", ".join(f"{k} {v}" for k, v in sorted(self.abort_errors.items()))
            print(f"loadtest: {len(self.unfinished)} matches it created are left live ({refused}); "
                  "aborting needs the server's API key: start it with --api-key and pass the same "
                  "--api-key here", file=sys.stderr, flush=True)

    async def _abort(self, http: httpx.AsyncClient, match_id: str) -> None:
        try:
            async with self.creating:
                resp = await http.post(f"/matches/{match_id}/abort", headers=self.auth)
        except httpx.HTTPError as exc:
            self.abort_errors[f"failed_{type(exc).__name__}"] += 1
            return
        if resp.status_code == 200:
            self.aborted += 1
        elif resp.status_code not in (404, 409):  # 409: it ended meanwhile; 404: it is gone
            self.abort_errors[f"http_{resp.status_code}"] += 1
            return
        self.unfinished.discard(match_id)

    async def _progress(self) -> None:
        start = time.perf_counter()
        last_acks, last_at = 0, start
        tty = sys.stderr.isatty()
        while True:
            await asyncio.sleep(1)
            now = time.perf_counter()
            rate = (self.acks - last_acks) / (now - last_at)
            last_acks, last_at = self.acks, now
            # sorted in place: the sorted prefix is one run for Timsort, so this costs
            # about the number of new samples, not a full sort each second
            self.ack_ms.sort()
            if self.measuring:
                phase = f"p50 {_fmt(percentile(self.ack_ms, 50))} ms  p99 {_fmt(percentile(self.ack_ms, 99))} ms"
            else:
                phase = "warming up" if not self.stopping else "draining"
            errors = sum(self.errors.values())
            line = (f"loadtest {now - start:5.0f}s  {rate:8.0f} answers/s  {phase}  "
                    f"matches {self.finished}  errors {errors}")
            print(("\r" + line + "   ") if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    async def run(self) -> dict:
        cfg = self.cfg
        # Idle pooled connections expire before uvicorn's 5 s keep-alive timeout: else the
        # server may close one just as a POST goes out on it (a spurious ReadError).
        limits = httpx.Limits(max_connections=CREATES_IN_FLIGHT, max_keepalive_connections=CREATES_IN_FLIGHT,
                              keepalive_expiry=2)
        self.creating = asyncio.Semaphore(CREATES_IN_FLIGHT)
        # SIGTERM stops the run like Ctrl-C does: through the `finally` below.
        loop = asyncio.get_running_loop()
        this = asyncio.current_task()
        assert this is not None  # a coroutine run by asyncio runs in a task
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, this.cancel)
        async with httpx.AsyncClient(base_url=cfg.url.rstrip("/"), timeout=30, limits=limits, trust_env=False) as http:
            await self._learn_seats(http)
            ramp = cfg.warmup / 2  # spread the first matches over half the warm-up: no thundering herd
            slots = [asyncio.create_task(self._slot(http, ramp * i / cfg.matches)) for i in range(cfg.matches)]
            progress = None if cfg.quiet else asyncio.create_task(self._progress())
            try:
                await asyncio.sleep(cfg.warmup)
                cpu0 = process_cpu(cfg.server_pid) if cfg.server_pid else None
                own0 = time.process_time()
                machine0 = machine_busy()
                t0, epoch0 = time.perf_counter(), time.time()
                self.measuring = True
                # the window ends early once every slot is done (--max-matches played)
                await asyncio.wait(slots, timeout=cfg.seconds)
                self.measuring = False
                t1 = time.perf_counter()
                self.loadgen_cpu = (time.process_time() - own0) / (t1 - t0)
                machine1 = machine_busy()
                if machine0 and machine1:  # everything busy on the machine, other people's work included
                    self.machine_cpu = (machine1[0] - machine0[0]) / (t1 - t0)
                if cpu0 is not None and cfg.server_pid:  # cpu0 is measured only with a server_pid
                    self.cpu = cpu_delta(cpu0, process_cpu(cfg.server_pid))
                self.window = (t0, t1)
                self.window_epoch = (epoch0, epoch0 + t1 - t0)
            finally:
                self.measuring = False
                self.stopping = True  # no new answers, no new matches
                drain_until = time.perf_counter() + cfg.drain_s
                while self.in_flight > 0 and time.perf_counter() < drain_until:
                    await asyncio.sleep(0.05)
                await self._end_unfinished(http)  # before the sockets close: they see the end
                for task in [*slots, *self.closing]:
                    task.cancel()
                await asyncio.wait([*slots, *self.closing], timeout=5)
                if progress:
                    progress.cancel()
                    print("", file=sys.stderr, flush=True)
        return self.report()

    def report(self) -> dict:
        cfg = self.cfg
        seconds = self.window[1] - self.window[0]
        ack = sorted(self.ack_ms)
        spec = sorted(self.spec_ms)
        result = {
            "url": cfg.url, "ruleset": cfg.ruleset, "seats": len(self.seat_names), "matches": cfg.matches,
            "spectators": cfg.spectators,
            "clock": cfg.clock, "options": cfg.options,
            "wire": "json" if self.wire == JSON else "msgpack", "batch": self.cfg.batch, "seed": self.base_seed,
            "warmup_s": cfg.warmup, "seconds": _r(seconds),
            "window_epoch_s": [round(t, 3) for t in self.window_epoch],
            "matches_finished": self.finished,
            "answers": self.answers,
            "answers_per_s": _r(self.answers / seconds, 1) if seconds > 0 else None,
            "ack_ms": {"n": len(ack), "p50": _r(percentile(ack, 50)), "p90": _r(percentile(ack, 90)),
                       "p99": _r(percentile(ack, 99)), "max": _r(ack[-1] if ack else None)},
            "errors": dict(sorted(self.errors.items())),
            # what the aborts of unfinished matches at the end met, when some were left live
            "abort_errors": dict(sorted(self.abort_errors.items())),
            # whole run, warm-up and drain included: every act is acked, refused or in flight
            "totals": {"matches_created": self.created, "acts_sent": self.acts_sent, "acks": self.acks,
                       "refused": self.refused, "overtaken": self.overtaken, "unacknowledged": self.in_flight,
                       "matches_aborted": self.aborted, "matches_left_live": len(self.unfinished),
                       "redirects": self.redirects},
            "loadgen_cpu": _r(self.loadgen_cpu),
            "machine_cpu": _r(self.machine_cpu),
            "nproc": os.cpu_count(),
        }
        if cfg.spectators:
            result["spectator_ms"] = {"n": len(spec), "p50": _r(percentile(spec, 50)), "p99": _r(percentile(spec, 99))}
        if self.cpu is not None:
            per = (lambda s: _r(s * 1e6 / self.answers, 1)) if self.answers else (lambda s: None)
            result["server_cpu"] = {
                "server_s": _r(self.cpu["server_s"]), "redis_s": _r(self.cpu["redis_s"]),
                "us_per_answer": per(self.cpu["server_s"]),
                "us_per_answer_with_redis": per(self.cpu["server_s"] + self.cpu["redis_s"]),
                "cores_busy": _r((self.cpu["server_s"] + self.cpu["redis_s"]) / seconds) if seconds > 0 else None,
            }
        return result


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def format_report(r: dict) -> str:
    ack = r["ack_ms"]
    lines = [
        f"battlehall loadtest: {r['ruleset']} with {r['seats']} seats, {r['matches']} concurrent matches, "
        f"{r['spectators']} spectators each, "
        f"{r['wire']}, {r['seconds']} s measured after {r['warmup_s']} s warm-up",
        f"  matches finished            {r['matches_finished']}",
        f"  answers                     {r['answers']}",
        f"  answers/s                   {r['answers_per_s']}",
        f"  answer->ack ms              p50 {_fmt(ack['p50'])}  p90 {_fmt(ack['p90'])}  p99 {_fmt(ack['p99'])}  max {_fmt(ack['max'])}",
    ]
    if "spectator_ms" in r:
        spec = r["spectator_ms"]
        lines.append(f"  answer->spectator ms        p50 {_fmt(spec['p50'])}  p99 {_fmt(spec['p99'])}  (n={spec['n']})")
    if "server_cpu" in r:
        cpu = r["server_cpu"]
        lines.append(f"  server CPU µs/answer        {cpu['us_per_answer']} (with Redis {cpu['us_per_answer_with_redis']}), "
                     f"{cpu['cores_busy']} cores busy")
    lines.append(f"  load generator CPU          {r['loadgen_cpu']} cores "
                 f"(whole machine busy: {r['machine_cpu']} of {r['nproc']} cores)")
    errors = ", ".join(f"{k} {v}" for k, v in r["errors"].items()) or "none"
    lines.append(f"  errors                      {errors}")
    totals = r["totals"]
    if totals["overtaken"]:
        lines.append(f"  overtaken answers           {totals['overtaken']} (another seat's answer closed the prompt first)")
    why = ", ".join(f"{k} {v}" for k, v in r["abort_errors"].items())
    lines.append(f"  unfinished matches          {totals['matches_aborted']} aborted at the end, "
                 f"{totals['matches_left_live']} left live" + (f" ({why})" if why else ""))
    return "\n".join(lines)


# -- command line -----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL")
    parser.add_argument("--ruleset", default="duel", help="the ruleset of the matches (default duel)")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats per match (default: the fewest the ruleset is played by)")
    parser.add_argument("--matches", type=int, default=100, help="matches kept in play at once")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the measured window")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before the window")
    parser.add_argument("--spectators", type=int, default=0, help="spectator sockets per match")
    parser.add_argument("--json-wire", action="store_true", help="speak JSON instead of MessagePack")
    parser.add_argument("--batch", action="store_true",
                        help="ask for batch messages: one frame per server turn (docs/protocol.md, Batches)")
    parser.add_argument("--seed", type=int, default=None, help="base seed: match k gets seed+k")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--json-out", default=None, metavar="FILE", help="append the result as one JSON line")
    parser.add_argument("--server-pid", type=int, default=None,
                        help="also report the CPU time of this process and its children (e.g. redis) per answer")
    parser.add_argument("--match-timeout", type=float, default=60.0, help="give up on a match after this long")
    parser.add_argument("--max-matches", type=int, default=None, help="create at most this many matches; the run ends once they are played")
    parser.add_argument("--api-key", default=os.environ.get("BATTLEHALL_API_KEY") or None,
                        help="the server's API key (default: $BATTLEHALL_API_KEY): sent to create matches, and "
                             "to abort those still live when the run stops")
    parser.add_argument("--clock", type=json.loads, default=None, metavar="JSON",
                        help='clock of the created matches, e.g. \'{"window_min_ms": 0}\' (default: the server\'s)')
    parser.add_argument("--options", type=json.loads, default=None, metavar="JSON",
                        help='ruleset options of the created matches, e.g. \'{"hp": 100}\' for longer duels '
                             '(default: the ruleset\'s)')


def config_from_args(args: argparse.Namespace) -> Config:
    return Config(url=args.url, ruleset=args.ruleset, seats=args.seats, matches=args.matches, seconds=args.seconds,
                  warmup=args.warmup, spectators=args.spectators, wire=JSON if args.json_wire else MSGPACK,
                  seed=args.seed, quiet=args.quiet, server_pid=args.server_pid,
                  match_timeout=args.match_timeout, max_matches=args.max_matches, clock=args.clock,
                  options=args.options, batch=args.batch, api_key=args.api_key)


def run_sync(cfg: Config) -> dict:
    """Run a load test on a fresh event loop (uvloop if installed) and return its report."""
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not one log line per match created
    try:
        import sniffio  # noqa: F401
    except ImportError:
        # httpcore tries `import sniffio` on every request; when it is not installed each
        # try searches sys.path on disk. None in sys.modules makes the miss immediate.
        # (typeshed types sys.modules' values as modules only; None is the import system's own "absent" mark)
        sys.modules["sniffio"] = None  # type: ignore[assignment]
    try:
        import uvloop
    except ImportError:
        return asyncio.run(LoadTest(cfg).run())
    return uvloop.run(LoadTest(cfg).run())


def run_from_args(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    if (cfg.matches < 1 or cfg.seconds <= 0 or cfg.warmup < 0 or cfg.spectators < 0
            or (cfg.seats is not None and cfg.seats < 1)):
        print("loadtest: --matches >= 1, --seconds > 0, --warmup >= 0, --spectators >= 0, --seats >= 1",
              file=sys.stderr)
        return 2
    try:
        result = run_sync(cfg)
    except (KeyboardInterrupt, asyncio.CancelledError):  # its matches were aborted on the way out
        print("loadtest: stopped before the end of the run; no report", file=sys.stderr)
        return 130
    print(format_report(result))
    if result["errors"].get("http_429") and not cfg.api_key:
        print(f"loadtest: the server refused {result['errors']['http_429']} creates (429, its creation limit per "
              "address); creates with its API key are not counted: start it with --api-key and pass the same "
              "key here (--api-key or BATTLEHALL_API_KEY)", file=sys.stderr, flush=True)
    line = json.dumps(result)
    print(line, flush=True)
    if args.json_out:
        with open(args.json_out, "a") as f:
            f.write(line + "\n")
    return 0 if result["answers"] > 0 else 1
