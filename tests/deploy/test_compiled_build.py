"""The compiled build (setup.py, `make compile`) is what the suite tests when it says so, and
the suite refuses to start on extension modules older than their sources."""

from __future__ import annotations

import importlib
import os
import runpy
import subprocess
import sys
from pathlib import Path

from compiled import stale_compiled_modules

ROOT = Path(__file__).resolve().parents[2]
LISTS = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_lists")  # the lists, not the build


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def test_the_compiled_lists_name_modules_that_exist_and_leave_the_declarations_pure():
    listed = LISTS["SERVER"] + LISTS["ENGINE"]
    assert len(listed) == len(set(listed)) and all((ROOT / path).is_file() for path in listed)
    assert "battlehall/server/match/match_core.py" in listed and "battlehall/engine/spellfire/battle.py" in listed
    assert "battlehall/engine/spellfire/battle_state.py" not in listed  # its TypedDicts are read at run time


def test_the_suite_runs_against_one_whole_build_the_one_make_test_names():
    """Every listed module compiled, or none; and with `make test`, the build it asked for."""
    built = {path: (importlib.import_module(module_name(path)).__file__ or "").endswith(".so")
             for path in LISTS["SERVER"] + LISTS["ENGINE"]}
    assert len(set(built.values())) == 1, sorted(path for path, compiled in built.items() if not compiled)
    asked = os.environ.get("BATTLEHALL_TEST_COMPILED")  # `make test` says which; pytest alone runs either
    if asked is not None:
        assert set(built.values()) == {asked == "1"}


def test_the_build_imports_from_anywhere_as_the_battlehall_command_does(tmp_path):
    """Its C libraries, top-level modules beside setup.py, are found wherever the command
    runs (the venv has the source tree on its path), not only from the tree."""
    assert sorted(name for _, name in LISTS["GROUPS"]) == ["battlehall_engine", "battlehall_server"]
    probe = "import battlehall.server.match.match_core as c, battlehall.engine.spellfire.battle as b; print(c.__file__)"
    done = subprocess.run([sys.executable, "-P", "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    compiled = importlib.import_module("battlehall.server.match.match_core").__file__ or ""
    assert done.stdout.strip() == compiled  # the same build as the suite's


def test_a_source_edited_after_its_build_stops_the_suite(tmp_path):
    package = tmp_path / "battlehall"
    (package / "server").mkdir(parents=True)
    fresh, edited = package / "codec.py", package / "server" / "clock.py"
    for source in (fresh, edited):
        source.write_text("x = 1\n")
    for source, offset in ((fresh, 10), (edited, -10)):  # built after, and before, its source's last edit
        built = source.with_name(source.stem + ".cpython-311-x86_64-linux-gnu.so")
        built.write_bytes(b"")
        os.utime(built, (source.stat().st_mtime + offset,) * 2)
    assert stale_compiled_modules(package) == ["battlehall/server/clock.py"]
    os.utime(edited, (edited.stat().st_mtime - 20,) * 2)
    assert stale_compiled_modules(package) == []
