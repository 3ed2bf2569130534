"""What a message holds, for the tests that check it never holds a viewer's secrets."""

from __future__ import annotations


def atoms(value, out: list) -> list:
    """Every map key, string and integer in `value`, however deeply nested.

    A loop over a stack rather than recursion: the engine's property tests walk every
    viewer's view at every step, and the recursive walk was most of their time."""
    stack = [value]
    pop, push, extend, add = stack.pop, stack.append, stack.extend, out.append
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for k, v in item.items():
                add(k)
                push(v)
        elif kind is list or kind is tuple:
            extend(item)
        elif kind is str or kind is int:  # not bool: type(True) is bool
            add(item)
    return out

