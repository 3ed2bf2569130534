"""The match generator: every bit of the seed counts, and its state is plain data."""

from __future__ import annotations

import msgpack

from battlehall.engine.rng import below, next_u64, seed_state, shuffle


def test_every_bit_of_a_large_seed_counts():
    # A secret seed is 256 bits: seeds equal in their low 64 bits must not deal alike.
    low = 12345
    decks = []
    for seed in (low, low + 2**64, low + 2**255):
        state = {"rng": seed_state(seed)}
        deck = list(range(55))
        shuffle(state, deck)
        decks.append(deck)
    assert decks[0] != decks[1] and decks[0] != decks[2] and decks[1] != decks[2]


def test_same_seed_same_numbers_and_the_state_round_trips():
    a, b = {"rng": seed_state(7)}, {"rng": seed_state(7)}
    first = [next_u64(a) for _ in range(5)]
    b = msgpack.unpackb(msgpack.packb(b))
    assert [next_u64(b) for _ in range(5)] == first
    assert len(set(first)) == 5 and all(0 <= v < 2**64 for v in first)
    assert msgpack.unpackb(msgpack.packb(a)) == a
    assert all(0 <= below(a, 6) < 6 for _ in range(100))
