"""The names of a match's keys in Redis and how their values are packed (store.py's
docstring says what each key holds)."""

from __future__ import annotations

import functools
from typing import Any

import msgpack

LIVE = "bh:live"  # the matches in play: a sorted set by creation time, outside any match's slot
FENCED_KEYS = ("owner", "log", "snap", "meta", "start", "epoch", "held")  # lease.FENCED_WRITE's KEYS, in order
PARTS = ("meta", "log", "snap", "start", "epoch", "held", "owner")  # the keys of one match

pack = msgpack.Packer().pack  # one packer: packb builds a new one per call


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def key(match_id: str, part: str) -> str:
    return f"bh:{{{match_id}}}:{part}"


@functools.lru_cache(maxsize=65536)
def fenced_keys(match_id: str, ends: bool = False) -> tuple[str, ...]:
    """The KEYS of lease.FENCED_WRITE for a match's write (all of its keys when it ends):
    made once per match, not per answer."""
    return tuple(key(match_id, part) for part in (FENCED_KEYS if ends else FENCED_KEYS[:3]))
