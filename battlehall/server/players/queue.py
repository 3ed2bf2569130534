"""The quick-play queue as the matcher sees it: one pool per (ruleset, seat count), its
waiting tickets as `Entry`s, and how long a group may take to be made into a match.

The queue lives in Redis: its keys, its scripts and the tickets' states are the storage
wing's (storage/queue.py, `QueueRecords`).
"""

from __future__ import annotations

from battlehall.server.storage.queue import (  # the tickets' states
           EXPIRED,
           FAILED,
           LEFT,
           MATCHED,
           TICKET_EXPIRY_MS,
           WAITING,
           Entry,
           QueueRecords,
           pool_name,
)

__all__ = ["EXPIRED", "FAILED", "FORMING_TIMEOUT_MS", "LEFT", "MATCHED", "TICKET_EXPIRY_MS", "WAITING", "Entry",
           "QueueRecords", "pool_name"]

#: A group not made into a match within this time goes back to the queue.
FORMING_TIMEOUT_MS = 20_000
