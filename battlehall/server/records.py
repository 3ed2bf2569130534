"""The plain records that cross wings: what storage/ reads back and match/ rebuilds from.

Here, apart from the store, so that the match's sans-I/O core imports them without
importing anything that talks to Redis."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LoadedMatch:
    """A match as read back from Redis (storage/store.py) for recovery, mirrors and
    delayed spectators."""
    meta: dict
    snapshot: dict
    log: list[dict]  # log entries after the snapshot, in order
