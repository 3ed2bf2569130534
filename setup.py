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
from pathlib import Path

from setuptools import setup

# The answer path: frames in and out, the codec, the session and its connection, the match
# core and state, fan-out, clocks and deadlines, and the metrics it counts.
SERVER = [
    "battlehall/server/codec.py",
    "battlehall/server/clock.py",
    "battlehall/server/token_bucket.py",
    "battlehall/server/metrics.py",
    "battlehall/server/storage/keys.py",
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
    "battlehall/server/match/deadlines.py",
    "battlehall/server/transport/session.py",
    "battlehall/server/transport/frames.py",
    "battlehall/server/transport/lag.py",
    "battlehall/server/transport/websocket.py",
    "battlehall/server/transport/history.py",
]

# The engine and its rulesets, every module but two that mypyc would change: the TypedDicts
# of a Spellfire battle, whose NotRequired keys the tests read at run time (mypyc's
# TypedDicts make every key required), and the errors, whose subclasses each set their wire
# code as a class attribute (compiled, a subclass loses it).
PURE = ("battlehall/engine/spellfire/battle_state.py", "battlehall/engine/errors.py")
ENGINE = sorted(str(path) for path in Path("battlehall/engine").rglob("*.py") if str(path) not in PURE)


# Two C libraries, the server's and the engine's: calls within each are direct C calls,
# and `build_ext -j 2` compiles them side by side (gcc takes most of the build). They are
# top-level modules (battlehall_server__mypyc...so beside setup.py: mypyc finds a module's
# file from its library's place above the package), so the source tree itself is on
# sys.path in the venv (`make install` adds it), not only the package.
GROUPS = [(SERVER, "battlehall_server"), (ENGINE, "battlehall_engine")]


def extensions() -> list:
    if os.environ.get("BATTLEHALL_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # only the compiled build needs mypy

    # opt_level 3 is mypyc's default.
    return mypycify(SERVER + ENGINE, opt_level=os.environ.get("BATTLEHALL_OPT_LEVEL", "3"), separate=GROUPS)


# Guarded so that the suite can read the lists above (tests/deploy/test_compiled_build.py);
# pip's build backend and `python setup.py` both run this file as __main__.
if __name__ == "__main__":
    setup(ext_modules=extensions())
