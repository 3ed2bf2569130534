"""The match's core is sans I/O all the way down: importing it (and all it imports) loads
no network, Redis or web library (docs/architecture.md, One actor per match)."""

import subprocess
import sys

IO_LIBRARIES = ("redis", "hiredis", "websockets", "starlette", "uvicorn", "httpx", "httptools", "uvloop")


def test_the_core_imports_no_io_library():
    code = ("import sys\n"
            "import battlehall.server.match.match_core\n"
            f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({IO_LIBRARIES!r}))))\n")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
