"""An event on a real 3-master Redis Cluster: its keys share one slot, its append and
lease scripts run there, and a round robin is played to its end."""

from __future__ import annotations

import asyncio

import pytest

from battlehall.tournament_client import TournamentClient
from redis_cluster import LocalCluster
from servers import ServerProcess
from tournament_players import make_players

CLOCK = {"prompt_ms": 5000, "bank_ms": 5000, "window_min_ms": 0}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalCluster(tmp_path_factory.mktemp("tcluster")).start()
    yield c
    c.stop()


def test_a_round_robin_on_a_redis_cluster(tmp_path, cluster):
    server = ServerProcess(tmp_path, redis_url=cluster.url, args=("--redis-cluster",),
                           env={"BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0"}).start()
    try:
        players = make_players(server.url, 4, prefix="Slot")

        async def run() -> tuple[dict, dict]:
            async with TournamentClient(server.url) as api:
                made = await api.create({"name": "Cluster Cup", "ruleset": "duel", "clock": CLOCK,
                                         "format": "round_robin"})
                tid = made["tournament"]
                for p in players:
                    await api.register(tid, p.profile, p.secret)
                await api.start(tid, made["organiser_token"])
                await asyncio.gather(*(api.play(tid, p.profile, p.secret, give_up_s=120) for p in players))
                return await api.get(tid), await api.log(tid)
        shown, log = asyncio.run(run())
    finally:
        server.stop()
    assert shown["status"] == "finished"
    assert [e["round"] for e in log["entries"] if e["k"] == "paired"] == [1, 2, 3]
    assert len({e["match"] for e in log["entries"] if e["k"] == "game"}) == 6
