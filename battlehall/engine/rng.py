"""Deterministic randomness kept inside the match state.

The generator is BLAKE2b in counter mode, keyed with 256 bits derived from the seed:
number n is the first 8 bytes (little-endian) of ``BLAKE2b(n as 8 bytes little-endian,
key=K, digest_size=8)``, and ``K = BLAKE2b(decimal digits of the seed, digest_size=32,
person=b"battlehall.rng")``. Its state is plain data (``{"key": K in hex, "n": numbers
drawn}``) that round-trips through MessagePack, and the same seed gives the same numbers
on every machine and Python.

Why a keyed hash and not a fast generator: the numbers shape hidden information (the
order of every draw pile), and a player sees some of them (its own cards). From a hash
those say nothing about the others or about the key, so a secret seed of 256 bits stays
out of reach of any search; a small-state generator (SplitMix64, 64 bits, its output a
bijection of its state) could be searched or solved from what a player sees.
A ruleset keeps the state in its own state (conventionally `state["rng"]`).
"""

import hashlib

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> dict:
    """The generator's state for `seed` (any integer, of any size)."""
    key = hashlib.blake2b(str(seed).encode(), digest_size=32, person=b"battlehall.rng").hexdigest()
    return {"key": key, "n": 0}


def next_u64(state: dict, key: str = "rng") -> int:
    """Advance `state[key]` and return the next 64-bit value."""
    rng = state[key]
    n = rng["n"]
    rng["n"] = n + 1
    digest = hashlib.blake2b(n.to_bytes(8, "little"), digest_size=8, key=bytes.fromhex(rng["key"])).digest()
    return int.from_bytes(digest, "little")


def below(state: dict, n: int, key: str = "rng") -> int:
    """A uniform integer in [0, n), without modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = _MASK + 1 - ((_MASK + 1) % n)
    while True:
        v = next_u64(state, key)
        if v < limit:
            return v % n


def shuffle(state: dict, items: list, key: str = "rng") -> None:
    """Fisher-Yates shuffle of `items` in place."""
    for i in range(len(items) - 1, 0, -1):
        j = below(state, i + 1, key)
        items[i], items[j] = items[j], items[i]
