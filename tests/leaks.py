"""What a message holds, for the tests that check it never holds a viewer's secrets."""

from __future__ import annotations


def atoms(value, out: list) -> list:
    """Every map key, string and integer in `value`, however deeply nested."""
    if isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            atoms(v, out)
    elif isinstance(value, list):
        for v in value:
            atoms(v, out)
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        out.append(value)
    return out
