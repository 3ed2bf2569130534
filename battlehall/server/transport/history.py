"""A resuming socket's missed events, read from Redis page by page at the pace it reads.

The actor welcomes the socket at some seq S and registers it for the live events after
S, which its connection holds (connection.py). This streams the events up to S: read a
page from the log, queue it, wait until the socket has taken it (its transport under
the low-water mark), read the next. Then what was held follows. So a history of any
length is sent with a bounded amount of it in memory, a client that reads slowly slows
only its own history, and the match's actor never waits for any of it.

The pages of all histories are read one at a time (the hub's `history_gate`): while a
page is read from Redis, the event loop serves the players, and a storm of resumes
gets the loop's time one page at a time, never twenty pages in a row.
"""

from __future__ import annotations

import asyncio

from battlehall.server import codec

PAGE_ENTRIES = 32  # log entries (answers) per page: about a hundred events, a millisecond or two to encode


class HistoryMissing(Exception):
    """The log has no events where the match's seq says there are some."""


async def stream(store, gate: asyncio.Semaphore, match_id: str, conn, message, after: int, upto: int) -> None:
    """Send the events with seq in (after, upto] to `conn`, each as `message(record)`
    makes it, then release what the connection held meanwhile."""
    wire = conn.codec
    while after < upto and not conn.closed:
        async with gate:
            records = await store.events(match_id, after, upto, limit=PAGE_ENTRIES)
            if not records or records[0]["seq"] != after + 1:
                raise HistoryMissing(f"match {match_id}: no event {after + 1} in the log")
            conn.send_history([codec.encode(wire, message(record)) for record in records])
        after = records[-1]["seq"]
        await conn.drained()
    conn.caught_up()
