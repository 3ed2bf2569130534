"""Every registered ruleset at every seat count it supports: what the generic tests run over.

Registering a ruleset (one line in battlehall/engine/__init__.py) puts it under the
property tests, the redaction audit and the recovery test, with no test to edit.
"""

from __future__ import annotations

import os

from battlehall.engine import get_ruleset, ruleset_names

#: How much random play the engine's property tests do: 1 in the suite; `make properties`
#: runs 3 (BATTLEHALL_PROPERTY_DEPTH). Their seeds and hypothesis examples scale with it.
PROPERTY_DEPTH = int(os.environ.get("BATTLEHALL_PROPERTY_DEPTH", "1"))

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]


def seats(n: int) -> list[str]:
    return NAMES[:n] if n <= len(NAMES) else [f"seat{i + 1}" for i in range(n)]


def cases() -> list[tuple[str, int]]:
    """(ruleset name, seat count) for every registered ruleset and every count it takes."""
    out = []
    for name in ruleset_names():
        ruleset = get_ruleset(name)
        out += [(name, n) for n in range(ruleset.min_seats, ruleset.max_seats + 1)]
    return out


def case_ids() -> list[str]:
    return [f"{name}-{n}" for name, n in cases()]
