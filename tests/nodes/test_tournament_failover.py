"""An event on three real nodes sharing one real Redis, its node killed (SIGKILL) in the
middle of a round: the event goes on from another node and finishes, every round paired
once, every game made and entered once, and the final standings those a recomputation of
the log gives (`battlehall verify`'s check)."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import orjson
import pytest
from test_nodes import KEY, Cluster

from battlehall.tournaments.verify import verify_log
from tournament_players import make_players, play_event, register_all

PLAYERS = 64
CLOCK = {"prompt_ms": 5000, "bank_ms": 5000, "window_min_ms": 0}


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN", "0")  # every player registers from 127.0.0.1
    c = Cluster(tmp_path)
    yield c
    c.stop()


def log_of(cluster: Cluster, tid: str) -> list[dict]:
    return [orjson.loads(fields[b"e"]) for _, fields in cluster.redis.xrange(f"bh:t:{{{tid}}}:log")]


def runner_of(cluster: Cluster, tid: str) -> str | None:
    value = cluster.redis.get(f"bh:t:{{{tid}}}:owner")
    return value.decode() if value else None


async def test_the_events_node_killed_mid_round_the_event_finishes_elsewhere(cluster):
    r = httpx.post(f"{cluster.urls[0]}/tournaments", headers={"Authorization": f"Bearer {KEY}"}, timeout=10,
                   json={"name": "Failover Swiss", "ruleset": "duel", "clock": CLOCK, "rounds": 6})
    assert r.status_code == 201, r.text
    tid = r.json()["tournament"]
    assert runner_of(cluster, tid) == "1 n0"  # run by the node it was made on
    players = make_players(cluster.urls[1], PLAYERS, prefix="Node")
    register_all(cluster.urls[2], tid, players)
    r = httpx.post(f"{cluster.urls[1]}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {KEY}"},
                   timeout=10)
    assert r.status_code == 200, r.text

    killed_at: list[list[dict]] = []

    async def kill_mid_round() -> None:
        """Kill the event's node once round 2 is paired and some of its results are in, not all."""
        while True:
            entries = log_of(cluster, tid)
            round_2 = [e for e in entries if e["k"] == "game" and e["round"] == 2]
            if any(e["k"] == "paired" and e["round"] == 2 for e in entries) and 1 <= len(round_2) < PLAYERS // 2:
                await asyncio.get_running_loop().run_in_executor(None, cluster.nodes[0].kill)
                killed_at.append(entries)
                return
            assert not any(e["k"] == "paired" and e["round"] == 3 for e in entries), "round 2 passed unseen"
            await asyncio.sleep(0.02)

    killer = asyncio.ensure_future(kill_mid_round())
    ends = await asyncio.gather(*(play_event(cluster.urls, tid, p, give_up_s=300) for p in players))
    await killer
    assert killed_at, "the node was not killed mid-round"
    assert {e["status"] for e in ends} == {"finished"}

    owner = runner_of(cluster, tid)
    assert owner is None or not owner.endswith(" n0")  # (an ended event's lease may have lapsed)
    entries = log_of(cluster, tid)
    assert len(entries) > len(killed_at[0])
    paired = [e["round"] for e in entries if e["k"] == "paired"]
    assert paired == [1, 2, 3, 4, 5, 6], "a round paired twice, or one missing"
    games = [e for e in entries if e["k"] == "game"]
    assert max(Counter((e["round"], e["table"], e["game"]) for e in games).values()) == 1
    assert len(games) == 6 * PLAYERS // 2
    assert len({e["match"] for e in games}) == len(games), "a match entered twice"
    assert entries[-1]["k"] == "finished"
    # every match a player was called to is one of the results: none was made twice, none lost
    assert {m for p in players for m in p.played} == {e["match"] for e in games}

    live = next(u for n, u in zip(cluster.nodes, cluster.urls) if n.proc.poll() is None)
    log = httpx.get(f"{live}/tournaments/{tid}/log", timeout=10).json()
    shown = httpx.get(f"{live}/tournaments/{tid}", timeout=10).json()
    assert verify_log(log["spec"], log["seed"], log["entries"], shown_standings=shown["standings"]) == []


async def test_a_node_stopped_gives_its_events_up_and_another_runs_them(cluster):
    r = httpx.post(f"{cluster.urls[0]}/tournaments", headers={"Authorization": f"Bearer {KEY}"}, timeout=10,
                   json={"name": "Handed on", "ruleset": "duel", "clock": CLOCK, "rounds": 1})
    tid = r.json()["tournament"]
    assert runner_of(cluster, tid) == "1 n0"
    await asyncio.get_running_loop().run_in_executor(None, cluster.nodes[0].stop)  # SIGTERM: a drain
    deadline = asyncio.get_running_loop().time() + 5
    while (owner := runner_of(cluster, tid)) is None or owner.endswith(" n0"):
        assert asyncio.get_running_loop().time() < deadline, owner
        await asyncio.sleep(0.05)
    players = make_players(cluster.urls[1], 2, prefix="Handed")
    register_all(cluster.urls[2], tid, players)
    r = httpx.post(f"{cluster.urls[1]}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {KEY}"},
                   timeout=10)
    assert r.status_code == 200, r.text
    ends = await asyncio.gather(*(play_event(cluster.urls[1:], tid, p, give_up_s=60) for p in players))
    assert {e["status"] for e in ends} == {"finished"}
