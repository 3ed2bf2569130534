"""`GET /matches`: the public matches in play, newest first, a page at a time.

``bh:public`` (a sorted set by creation time, outside any match's slot, like ``bh:live``)
holds the public matches (public.py) from their creation until everyone can see that
they ended: their end plus their stream delay. A match is listed from the time it is
filed under, its creation's, except a rematch of a match with a stream delay, which is
filed under the time the old match's end is public (`listed_from`): listing it before
would tell that the old match ended. The listing reads no score later than now. Private matches are never in it, so a
listing never reads them. A match is added by the create write; it is taken out by the
listing itself once its summary shows it finished (or it is gone), so that whichever
node serves the listing keeps the set short, and a node that died cannot leave one in.

A page is found by reading the set from the cursor down, a batch at a time, and keeping
the matches the filters allow, until the page is full or SCAN_LIMIT matches were read;
then `next` is the cursor after the last match read. So a request costs a bounded
number of reads whatever the filters, and a page may be short while `next` is not null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol

from battlehall.engine import ruleset_names
from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.storage.public import as_of_delay, is_public
from battlehall.server.storage.store import Store, StoreUnavailable, key, unpack

PUBLIC = "bh:public"
DEFAULT_LIMIT = 20
MAX_LIMIT = 100  # matches per page at most
SCAN_LIMIT = 500  # matches read per request at most, however many the filters drop
BATCH = 100  # ids read from the set per round trip
STATUSES = ("live", "finished")


@dataclass
class Query:
    limit: int = DEFAULT_LIMIT
    after: tuple[int, str] | None = None  # (created_at, match id) of the last match of the previous page
    ruleset: str | None = None
    status: str | None = None


def encode_cursor(created_at: int, match_id: str) -> str:
    return f"{created_at}.{match_id}"


def parse_query(params: Mapping[str, str]) -> Query:
    """The listing's query parameters; errors.BadRequest naming the first malformed one."""
    query = Query()
    raw = params.get("limit")
    if raw is not None:
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
            raise errors.BadRequest(f"must be an integer from 1 to {MAX_LIMIT}", path="limit")
        query.limit = int(raw)
    raw = params.get("cursor")
    if raw:
        created_at, _, match_id = raw.partition(".")
        if not created_at.isdigit() or len(created_at) > 16 or not match_id.startswith("m_") or len(match_id) > 64:
            raise errors.BadRequest("must be the `next` of a previous page", path="cursor")
        query.after = (int(created_at), match_id)
    raw = params.get("ruleset")
    if raw:
        if raw not in ruleset_names():
            raise errors.BadRequest(f"must be one of {ruleset_names()}", path="ruleset")
        query.ruleset = raw
    raw = params.get("status")
    if raw:
        if raw not in STATUSES:
            raise errors.BadRequest(f"must be one of {list(STATUSES)}", path="status")
        query.status = raw
    return query


def index_commands(match_id: str, meta: dict) -> list[tuple]:
    """What the create write adds for the listing: a public match goes into `bh:public`."""
    return [("ZADD", PUBLIC, meta.get("listed_from", meta["created_at"]), match_id)] if is_public(meta) else []


class Listed(Protocol):
    """What a page of the listing reads of the node (hub.py): its store, and the summaries of matches."""

    @property
    def store(self) -> Store: ...

    async def summaries(self, match_ids: list[str]) -> list[dict]: ...


async def page(hub: Listed, query: Query) -> dict:
    """`{"matches": [summary, ...], "next": cursor or None}`: public matches not yet seen
    to end, newest first, after `query.after`, as of their stream delay."""
    redis = hub.store.client
    top = min(query.after[0], now_ms()) if query.after else now_ms()  # nothing filed for later
    offset, read = 0, 0
    out: list[dict] = []
    last: tuple[int, str] | None = None
    ended: list[str] = []
    exhausted = False
    while len(out) < query.limit and read < SCAN_LIMIT:
        rows = await redis.zrevrangebyscore(PUBLIC, top, "-inf", start=offset, num=BATCH, withscores=True)
        offset += len(rows)
        if len(rows) < BATCH:
            exhausted = True
        ids = []
        for member, score in rows:
            match_id = member.decode() if isinstance(member, bytes) else member
            if query.after and int(score) == query.after[0] and match_id >= query.after[1]:
                continue  # on or before the cursor (equal times come in reverse id order)
            ids.append((int(score), match_id))
        found = {s["match"]: s for s in await hub.summaries([m for _, m in ids])}
        now = now_ms()
        for score, match_id in ids:
            if len(out) >= query.limit or read >= SCAN_LIMIT:
                exhausted = False
                break
            read += 1
            last = (score, match_id)
            summary = found.get(match_id)
            if summary is not None:
                summary = await as_of_delay(hub.store, summary, now)
            if summary is None or summary["status"] == "finished":
                ended.append(match_id)  # everyone can see it ended (or it is gone): off the list
                continue
            if query.ruleset and summary["ruleset"] != query.ruleset:
                continue
            if query.status and summary["status"] != query.status:
                continue
            out.append(summary)
        if exhausted:
            break
    if ended:
        try:
            await redis.zrem(PUBLIC, *ended)
        except StoreUnavailable:  # the next listing takes them out
            pass
    more = not exhausted and last is not None
    return {"matches": out, "next": encode_cursor(*last) if more and last is not None else None}


async def listed_later(store: Store, match_ids: list[str], now: int) -> set[str]:
    """Those of the matches listed from later than `now` (a delayed match's rematch)."""
    found = await store.client.zmscore(PUBLIC, match_ids)
    return {m for m, at in zip(match_ids, found) if at and at > now}


async def backfill(store: Store) -> int:
    """Put the public live matches of a version before `bh:public` into it (at startup):
    the live ones only, and nothing twice (ZADD NX). Returns how many were added."""
    ids = await store.live_ids()
    added = 0
    for i in range(0, len(ids), BATCH):
        chunk = ids[i:i + BATCH]
        pipe = store.client.pipeline(transaction=False)
        for match_id in chunk:
            pipe.get(key(match_id, "meta"))
        public = {}
        for match_id, raw in zip(chunk, await pipe.execute()):
            meta = unpack(raw) if raw is not None else None
            if meta is not None and is_public(meta):
                public[match_id] = meta["created_at"]
        if public:
            added += await store.client.zadd(PUBLIC, public, nx=True)
    return added
