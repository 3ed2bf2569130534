"""One-second windows over a real 200 ms delay each way (a delaying TCP proxy the test
starts), against a real server and its Redis: the delayed seat loses no more than 2 % of
its windows where the seat with no delay loses none; a client that holds its pongs back
is credited no more than its true round trip. bench/lag_windows.py is the same code on
more windows, its figures in bench/RESULTS.md."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from battlehall.server.clock import LAG_CAP_MS
from battlehall.server.transport.lag import KERNEL_MARGIN_MS
from servers import ServerProcess

# The benchmark's own code, loaded from its file: bench/ on sys.path would shadow the tests' kit.
_spec = importlib.util.spec_from_file_location("lag_windows", Path(__file__).resolve().parents[2] / "bench" / "lag_windows.py")
assert _spec is not None and _spec.loader is not None
lag_windows = importlib.util.module_from_spec(_spec)
sys.modules["lag_windows"] = lag_windows  # its dataclasses look their module up there
_spec.loader.exec_module(lag_windows)

WINDOWS = 50


@pytest.fixture(scope="module")
def lag_server(tmp_path_factory):
    # The proxy connects from 127.0.0.2, which the server is told is a proxy: the kernel's
    # round trip of its sockets is the proxy's, not the player's.
    srv = ServerProcess(tmp_path_factory.mktemp("lag"), env={"BATTLEHALL_LAG_PROXIES": lag_windows.PROXY_SOURCE,
                                                             "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    yield srv
    srv.stop()


async def test_a_seat_behind_200_ms_each_way_loses_at_most_2_percent_of_one_second_windows(lag_server):
    result = await lag_windows.delayed_windows(lag_server.url, WINDOWS)
    near, far = result["near"], result["far"]
    assert near.answered + near.lost == WINDOWS and near.lost == 0
    assert far.answered + far.lost == WINDOWS and far.lost <= WINDOWS * 0.02
    # What saved them: answers after the deadline, credited the line's lag, never past the cap.
    credited = [c for c in result["far_credits"] if c > 0]
    assert len(credited) >= 5 and max(credited) <= LAG_CAP_MS
    assert not any(result["near_credits"])  # the seat with no delay never needed any


async def test_a_client_that_holds_its_pongs_back_is_credited_no_more_than_its_true_round_trip(lag_server):
    # 300 ms of pongs held back, every answer 100 ms late: credited its "lag", it would
    # lose nothing; its line is a loopback, so it loses every window.
    result = await lag_windows.held_pongs(lag_server.url, 12)
    cheat = result["cheat"]
    assert cheat.answered + cheat.lost == 12 and cheat.lost == 12 and cheat.refused >= 11
    assert max(result["cheat_credits"], default=0) <= KERNEL_MARGIN_MS + 5
    assert result["fair"].lost == 0
