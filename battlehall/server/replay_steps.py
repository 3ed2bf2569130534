"""GET /matches/{id}/replay/steps and .../replay/definitions: a finished match's steps,
a bounded range at a time, re-run once and kept in a cache bounded in bytes.

Drawing every view of a long match is hundreds of megabytes and seconds of CPU; done
per request, a few dozen requests ended the process. Here the cost is bounded and
shared by everyone who asks:

- A request names a range of at most MAX_COUNT steps (docs/protocol.md, Replay steps).
- The match is re-run once without views (steps.index), then drawn in aligned chunks
  of CHUNK steps; the index and the chunks, encoded, are kept in a least-recently-used
  cache of at most `replay_cache_bytes`.
- Requests for what is being computed wait for that one computation (single flight).
- The computing runs in threads, BUILDERS at a time, in short pieces (one chunk each),
  so the event loop keeps serving; past BUILDERS + WAITING computations started or
  waiting, a request that needs one more is answered 503 `busy`.
- The answer is streamed from the cached bytes: another request for the same range
  costs no copy.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Awaitable, Callable

import orjson
from starlette.responses import StreamingResponse

from .. import steps

MAX_COUNT = 32  # steps in one answer
CHUNK = 16  # steps computed and kept together
BUILDERS = 2  # computations running at once (one per core of a small machine)
WAITING = 16  # computations waiting for a builder; past that, 503 busy
RETRY_AFTER_S = 1


class Refused(Exception):
    """An answer other than 200: `status`, `code` (docs/protocol.md, HTTP errors), and the
    query parameter at fault, if any."""

    def __init__(self, status: int, code: str, message: str, path: str | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.path = status, code, message, path
        self.headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else {}


class ByteCache:
    """Least recently used first out, bounded by the bytes its values hold."""

    def __init__(self, limit: int):
        self.limit = limit
        self.used = 0
        self.entries: collections.OrderedDict = collections.OrderedDict()  # key -> (value, size)

    def get(self, key):
        found = self.entries.get(key)
        if found is None:
            return None
        self.entries.move_to_end(key)
        return found[0]

    def put(self, key, value, size: int) -> None:
        if size > self.limit:  # larger than the whole cache: served, not kept
            return
        if key in self.entries:
            self.used -= self.entries.pop(key)[1]
        self.entries[key] = (value, size)
        self.used += size
        while self.used > self.limit:
            self.used -= self.entries.popitem(last=False)[1][1]


def parse_range(query) -> tuple[int, int]:
    """`from` (default 0) and `count` (default MAX_COUNT) of the query string."""
    out = []
    for name, default, most in (("from", 0, None), ("count", MAX_COUNT, MAX_COUNT)):
        raw = query.get(name)
        if raw is None:
            out.append(default)
            continue
        if not raw.isdigit() or len(raw) > 9 or (most is not None and int(raw) > most) or (name == "count" and int(raw) < 1):
            what = f"an integer from 1 to {MAX_COUNT}" if name == "count" else "a non-negative integer"
            raise Refused(400, "bad_request", f"{name} must be {what}", name)
        out.append(int(raw))
    return out[0], out[1]


class ReplaySteps:
    """The cache, the flights in progress and the builders, for the whole server."""

    def __init__(self, cache_bytes: int):
        self.cache = ByteCache(cache_bytes)
        self.flights: dict[tuple, asyncio.Task] = {}
        self.builders = asyncio.Semaphore(BUILDERS)
        self.builds = 0  # computations run (an index or a chunk), for tests and benchmarks

    async def page(self, match_id: str, summary: dict, replay: Callable[[], Awaitable[dict]],
                   query) -> StreamingResponse:
        """Steps `from` to `from + count - 1` (those that exist) of a finished match;
        `replay()` reads its replay, should the match have to be re-run."""
        start, count = parse_range(query)
        idx = await self.index(match_id, replay)
        stop = min(start + count, idx.total)
        if start >= idx.total:
            raise Refused(400, "bad_request", f"from must be below {idx.total}, the match's number of steps", "from")
        parts = []
        for chunk in range(start // CHUNK, (stop - 1) // CHUNK + 1):
            encoded = await self._cached(("chunk", match_id, chunk),
                                         lambda c=chunk: self._chunk(idx, c))
            first = chunk * CHUNK
            parts += encoded[max(start, first) - first:stop - first]
        head = orjson.dumps({"match": match_id, "ruleset": idx.ruleset, "seats": idx.seats,
                             "result": summary["result"], "total": idx.total, "from": start})
        return _streamed(head[:-1] + b',"steps":[', parts, b"]}")

    async def definitions(self, match_id: str, replay: Callable[[], Awaitable[dict]]) -> dict:
        idx = await self.index(match_id, replay)
        return {"match": match_id, "ruleset": idx.ruleset, "definitions": idx.definitions}

    async def index(self, match_id: str, replay: Callable[[], Awaitable[dict]]) -> steps.Index:
        async def build():
            read = await replay()
            if "log" not in read:
                raise Refused(404, "not_found", "this match has no log to re-run")
            idx = await asyncio.to_thread(steps.index, read)
            return idx, idx.size()
        return await self._cached(("index", match_id), build)

    async def _chunk(self, idx: steps.Index, chunk: int):
        first = chunk * CHUNK
        encoded = await asyncio.to_thread(steps.encoded, idx, first, min(first + CHUNK, idx.total))
        return encoded, sum(map(len, encoded)) + 64 * len(encoded)

    async def _cached(self, key: tuple, build):
        """The cached value of `key`, else the one being built, else build it (a builder
        permitting). `build` is a coroutine function answering (value, size)."""
        found = self.cache.get(key)
        if found is not None:
            return found
        flight = self.flights.get(key)
        if flight is None:
            if len(self.flights) >= BUILDERS + WAITING:
                raise Refused(503, "busy", "the server is re-running as many replays as it may at once; "
                                           f"try again in {RETRY_AFTER_S} s")
            flight = asyncio.get_running_loop().create_task(self._fly(key, build))
            self.flights[key] = flight
        # Shielded: a client that goes away does not cancel what others wait for.
        return await asyncio.shield(flight)

    async def _fly(self, key: tuple, build):
        try:
            async with self.builders:
                self.builds += 1
                value, size = await build()
            self.cache.put(key, value, size)
            return value
        finally:
            del self.flights[key]


def _streamed(head: bytes, parts: list[bytes], tail: bytes) -> StreamingResponse:
    """`head`, the parts separated by commas, `tail`: written from the cached bytes
    themselves, at the pace the client reads."""

    async def body():
        yield head
        for i, part in enumerate(parts):
            yield b"," + part if i else part
        yield tail

    length = len(head) + sum(map(len, parts)) + max(0, len(parts) - 1) + len(tail)
    return StreamingResponse(body(), media_type="application/json", headers={"content-length": str(length)})
