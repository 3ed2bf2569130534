"""The optional compiled build: with BATTLEHALL_COMPILE=1, mypyc compiles the modules an
answer goes through (bench/RESULTS.md, "Instructions per answer", says what it saves).

Without it (the default, and wherever no C compiler is present) the package is the pure
Python one; everything else about the build is in pyproject.toml. The compiled modules
are the same source: mypyc turns the type hints the package already has into C, and the
.py files stay beside the extension modules, which Python imports in their place.

    BATTLEHALL_COMPILE=1 python setup.py build_ext --inplace   # `make compile`
"""

from __future__ import annotations

import os

from setuptools import setup

# The answer path: frames in and out, the codec, the session and its connection, the match
# core and state, fan-out, clocks, and the engine's contract with its rulesets.
COMPILED = [
    "battlehall/server/codec.py",
    "battlehall/server/clock.py",
    "battlehall/server/token_bucket.py",
    "battlehall/server/match/match_state.py",
    "battlehall/server/match/match_core.py",
    "battlehall/server/match/writes.py",
    "battlehall/server/match/holds.py",
    "battlehall/server/match/presence.py",
    "battlehall/server/match/watching.py",
    "battlehall/server/match/expiry.py",
    "battlehall/server/match/judging.py",
    "battlehall/server/match/inputs.py",
    "battlehall/server/match/effects.py",
    "battlehall/server/match/stops.py",
    "battlehall/server/match/fanout.py",
    "battlehall/server/match/connection.py",
    "battlehall/server/transport/session.py",
    "battlehall/engine/ruleset.py",
    "battlehall/engine/duel.py",
]


def extensions() -> list:
    if os.environ.get("BATTLEHALL_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # only the compiled build needs mypy

    # opt_level 3 is mypyc's default; the whole list is one C library (separate=False),
    # so calls between its modules are direct C calls.
    return mypycify(COMPILED, opt_level=os.environ.get("BATTLEHALL_OPT_LEVEL", "3"))


setup(ext_modules=extensions())
