"""Shared fixtures: a real Battlehall server process on a free port with its own real Redis."""

from __future__ import annotations

import pytest

from compiled import stale_compiled_modules
from servers import ServerProcess


def pytest_sessionstart(session):
    if stale := stale_compiled_modules():
        pytest.exit(f"{', '.join(stale[:3])}{' and more' if len(stale) > 3 else ''} changed since "
                    "`make compile`: run `make compile` again, or `make uncompile` for the pure package", returncode=4)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    # One server for the whole session, reached by every test from 127.0.0.1: like a load
    # test, it runs without the per-address connection cap (tests/server/test_limits.py
    # tests the cap on servers of its own). Sockets a test leaves to the collector would
    # otherwise add up to the cap over a long run.
    srv = ServerProcess(tmp_path_factory.mktemp("server"), env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    yield srv
    srv.stop()
