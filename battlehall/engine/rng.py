"""Deterministic randomness kept inside the match state.

The generator is SplitMix64: its whole state is one integer, so it round-trips through
MessagePack, and the same seed gives the same numbers on every machine and Python.
A ruleset keeps that integer in its state (conventionally `state["rng"]`).
"""

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The generator's state for any non-negative seed, however large. A seed below
    2**64 is the state itself; each further 64 bits are mixed in, so that seeds that
    differ only above bit 64 still give different matches."""
    state = seed & _MASK
    rest = seed >> 64
    while rest > 0:
        state = next_u64({"rng": state ^ (rest & _MASK)})
        rest >>= 64
    return state


def next_u64(state: dict, key: str = "rng") -> int:
    """Advance `state[key]` and return the next 64-bit value."""
    s = (state[key] + 0x9E3779B97F4A7C15) & _MASK
    state[key] = s
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


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
