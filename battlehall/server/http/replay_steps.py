"""GET /matches/{id}/replay/steps and .../replay/definitions: a finished match's steps,
a bounded range at a time, re-run once and kept in a cache bounded in bytes.

Drawing every view of a long match is hundreds of megabytes and seconds of CPU; done
per request, a few dozen requests ended the process. Here the cost is bounded and
shared by everyone who asks:

- A request names a range of at most MAX_COUNT steps (docs/protocol.md, Replay steps).
- The match is re-run once without views (steps.index), then drawn in aligned chunks
  of CHUNK steps; the index and the chunks, encoded and compressed (the views of one
  step repeat each other: 60 to 1), are kept in a least-recently-used cache of at most
  `replay_cache_bytes` (the default, 32 MiB, holds about every step of the longest
  match a default server allows).
- Requests for what is being computed wait for that one computation (single flight).
- The computing runs on the event loop in slices of a few milliseconds (steps.py's
  generators), BUILDERS at a time, so the loop serves everything else between two
  slices (a thread would hold the interpreter lock for as long as it liked: /healthz
  waited up to 65 ms behind one); the compression, which lets go of that lock, runs in a
  thread. Past BUILDERS + WAITING computations started or waiting, a request that needs
  one more is answered 503 `busy`. A request waits for one at a time.
- The answer is streamed, decompressed 64 KiB at a time from the cached bytes, at the
  pace the client reads: however many ask, what each holds is a piece.
"""

from __future__ import annotations

import asyncio
import collections
import zlib
from dataclasses import dataclass
from typing import Awaitable, Callable

import orjson
from starlette.responses import StreamingResponse

from battlehall import steps
from battlehall.server import errors

MAX_COUNT = 32  # steps in one answer
CHUNK = 16  # steps computed and kept together
BUILDERS = 1  # computations running at once
WAITING = 31  # computations waiting for the builder; past that, 503 busy
RETRY_AFTER_S = 1
PIECE = 64 * 1024  # bytes decompressed and written at a time


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


@dataclass(frozen=True)
class Chunk:
    """Steps first..first+len(ends)-1 as JSON, joined by commas and compressed; step
    first+i ends at byte ends[i] of the decompressed text (and starts at ends[i-1] + 1)."""

    compressed: bytes
    ends: list[int]

    def span(self, i: int, j: int) -> tuple[int, int]:
        """The bytes of steps first+i to first+j-1 (with the commas between them)."""
        return (self.ends[i - 1] + 1 if i else 0), self.ends[j - 1]

    def read(self, begin: int, end: int, piece: int = PIECE):
        """Bytes begin..end of the text, decompressed `piece` bytes at a time."""
        inflate, data, at = zlib.decompressobj(), self.compressed, 0
        while at < end:
            out = inflate.decompress(data, piece)
            data = inflate.unconsumed_tail
            if not out:
                return
            if at + len(out) > begin:
                yield out[max(0, begin - at):end - at]
            at += len(out)


def parse_range(query) -> tuple[int, int]:
    """`from` (default 0) and `count` (default MAX_COUNT) of the query string."""
    out = []
    for name, default, low, high in (("from", 0, 0, 10**9), ("count", MAX_COUNT, 1, MAX_COUNT)):
        raw = query.get(name)
        if raw is None:
            out.append(default)
            continue
        value = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 10 else -1  # isdigit alone: "²"
        if not low <= value <= high:
            what = f"an integer from 1 to {MAX_COUNT}" if name == "count" else "a non-negative integer"
            raise errors.BadRequest(f"{name} must be {what}", path=name)
        out.append(value)
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
            raise errors.BadRequest(f"from must be below {idx.total}, the match's number of steps", path="from")
        parts = []  # (chunk, begin, end)
        for number in range(start // CHUNK, (stop - 1) // CHUNK + 1):
            chunk = await self._cached(("chunk", match_id, number), lambda n=number: self._chunk(idx, n))
            first = number * CHUNK
            parts.append((chunk, *chunk.span(max(start, first) - first, min(stop, first + CHUNK) - first)))
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
                raise errors.NotFound("this match has no log to re-run")
            idx = await _sliced(steps.indexing(read))
            return idx, idx.size()
        return await self._cached(("index", match_id), build)

    async def _chunk(self, idx: steps.Index, number: int):
        first = number * CHUNK
        encoded = await _sliced(steps.encoding(idx, first, min(first + CHUNK, idx.total)))
        chunk = Chunk(await asyncio.to_thread(zlib.compress, b",".join(encoded), 6), _ends(encoded))
        return chunk, len(chunk.compressed) + 32 * len(chunk.ends) + 200

    async def _cached(self, key: tuple, build):
        """The cached value of `key`, else the one being built, else build it (a builder
        permitting). `build` is a coroutine function answering (value, size)."""
        found = self.cache.get(key)
        if found is not None:
            return found
        flight = self.flights.get(key)
        if flight is None:
            if len(self.flights) >= BUILDERS + WAITING:
                raise errors.Busy("the server is re-running as many replays as it may at once; "
                                  f"try again in {RETRY_AFTER_S} s", retry_after=RETRY_AFTER_S)
            flight = asyncio.get_running_loop().create_task(self._fly(key, build))
            flight.add_done_callback(_retrieved)  # its error is each waiter's; with none left, nobody's
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


def _retrieved(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()


async def _sliced(work):
    """Run a generator of steps.py on the loop, letting everything else run between its slices."""
    while True:
        try:
            next(work)
        except StopIteration as done:
            return done.value
        await asyncio.sleep(0)


def _ends(encoded: list[bytes]) -> list[int]:
    """Where each step ends in the steps joined by commas."""
    ends, at = [], -1
    for step in encoded:
        at += 1 + len(step)
        ends.append(at)
    return ends


def _streamed(head: bytes, parts: list[tuple[Chunk, int, int]], tail: bytes) -> StreamingResponse:
    """`head`, the parts (each a span of a chunk) separated by commas, `tail`; each part
    decompressed a piece at a time, at the pace the client reads."""

    async def body():
        yield head
        for i, (chunk, begin, end) in enumerate(parts):
            if i:
                yield b","
            for piece in chunk.read(begin, end):
                yield piece
        yield tail

    length = len(head) + sum(end - begin for _, begin, end in parts) + max(0, len(parts) - 1) + len(tail)
    return StreamingResponse(body(), media_type="application/json", headers={"content-length": str(length)})
