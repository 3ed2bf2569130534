"""Everything random in an event, drawn from its committed seed and a label.

Each draw has its own stream (the seed, then labels such as the round number and what the
draw is for), so one draw never shifts another and the same log and seed always give the
same pairings. The generator is the engine's (battlehall.engine.rng).
"""

from __future__ import annotations

import hashlib

from battlehall.engine import rng


def stream(seed: str, *labels: object) -> dict:
    """A generator state (engine.rng's) for this seed and these labels."""
    text = "\x1f".join([seed, *(str(label) for label in labels)])
    digest = hashlib.blake2b(text.encode(), digest_size=32, person=b"bh.tournament").digest()
    return {"rng": rng.seed_state(int.from_bytes(digest, "little"))}


def shuffled(seed: str, items: list, *labels: object) -> list:
    """A copy of `items` in an order drawn from the stream of `labels`."""
    out = list(items)
    rng.shuffle(stream(seed, *labels), out)
    return out


def unit(seed: str, *labels: object) -> float:
    """A number in [0, 1) drawn from the stream of `labels` (a random tie-break's key)."""
    return rng.next_u64(stream(seed, *labels)) / 2**64
