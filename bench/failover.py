"""Failover behind the load balancer: kill -9 of the busiest of three nodes under play.

deploy/local-cluster starts three nodes, one Redis (`appendfsync always`) and HAProxy on
loopback. N duel matches are created through the balancer and two bots play each
(battlehall/client.py, knowing only the balancer's address, think time --think-s).
Once play is under way the node running the most matches is SIGKILLed; the script
reports:

- `kill to all held`: until every live match of the dead node has a new owner in Redis,
  and `re-owned` the p50, p99 and max of each match's own time to it;
- `kill to all playing`: until each of them has had an ack since the kill (or ended),
  and `playing` the p50, p99 and max of each match's own time to its first ack;
- the ack gap of each bot of those matches: from its last ack before the kill to its
  first after (p50, p99, max), beside the gaps between consecutive acks of the other
  matches' bots over the same run (think time plus latency: the normal rhythm);
- once every match has ended: acknowledged answers missing from their match's log, or in
  it twice (both must be 0), read from every match's replay through the balancer.

    python bench/failover.py [--matches 400] [--lease-ms 5000] [--scan-ms 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from battlehall.client import JSON, MSGPACK, Client  # noqa: E402
from battlehall.server.storage.lease import holder  # noqa: E402
from battlehall.server.storage.store import key  # noqa: E402


class TimedAcks(dict):
    """A client's `acked`, also noting when each ack arrived."""

    def __init__(self):
        super().__init__()
        self.times: list[float] = []

    def __setitem__(self, act_id, seq):
        self.times.append(time.monotonic())
        super().__setitem__(act_id, seq)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def spread(values: list[float]) -> dict | None:
    """p50, p99 and max of per-match times."""
    if not values:
        return None
    return {"p50": round(statistics.median(values), 2), "p99": round(pct(values, 99), 2), "max": round(max(values), 2)}


def owner(r: redis.Redis, match_id: str) -> str | None:
    value = r.get(key(match_id, "owner"))
    return holder(value) if value else None


async def run(args, info: dict) -> dict:
    lb = info["lb"]
    r = redis.Redis.from_url(info["redis"])
    games = []
    async with httpx.AsyncClient(timeout=30) as http:
        for i in range(args.matches):
            created = (await http.post(f"{lb}/matches", json={"ruleset": "duel", "seed": i, "seats": ["a", "b"],
                                                               "options": {"hp": args.hp}})).json()
            clients = [Client(lb, created["match"], token, wire=(JSON, MSGPACK)[j], seed=i * 2 + j,
                              think_s=args.think_s, give_up_s=120, max_backoff_s=0.5, on_status=lambda s: None)
                       for j, token in enumerate(created["tokens"].values())]
            for c in clients:
                c.acked = TimedAcks()
            games.append((created, clients))
    tasks = [asyncio.ensure_future(asyncio.gather(*(c.run() for c in g))) for _, g in games]
    everyone = [c for _, g in games for c in g]
    while sum(len(c.acked) for c in everyone) < 4 * args.matches:
        await asyncio.sleep(0.05)
    owners = {created["match"]: owner(r, created["match"]) for created, _ in games}
    held = Counter(owners.values())
    victim = held.most_common(1)[0][0]
    doomed = {m for m, o in owners.items() if o == victim}
    os.kill(info["pids"][victim], signal.SIGKILL)
    killed = time.monotonic()
    live = {m for m in doomed if r.zscore("bh:live", m) is not None}
    reowned: dict[str, float] = {}
    while True:
        now = time.monotonic() - killed
        waiting = [m for m in live if m not in reowned and r.zscore("bh:live", m) is not None]
        for m in waiting:
            if owner(r, m) not in (None, victim):
                reowned[m] = now
        if all(m in reowned for m in waiting):
            break
        await asyncio.sleep(0.02)
    all_held = time.monotonic() - killed
    moved = {created["match"]: g for created, g in games if created["match"] in live}
    # The dead node's last acks may be read just after it died: a match plays again at its
    # first ack from 0.1 s after the kill.
    while any(not any(c.result for c in g) and not any(t > killed + 0.1 for c in g for t in c.acked.times)
              for g in moved.values()):
        await asyncio.sleep(0.02)
    all_playing = time.monotonic() - killed
    playing = [min([t for c in g for t in c.acked.times if t > killed + 0.1], default=killed + all_playing) - killed
               for g in moved.values()]
    await asyncio.wait_for(asyncio.gather(*tasks), 600)

    gaps, rhythm = [], []
    for created, clients in games:
        for c in clients:
            before = [t for t in c.acked.times if t <= killed]
            after = [t for t in c.acked.times if t > killed]
            if created["match"] in moved:
                if before and after:
                    gaps.append(after[0] - before[-1])
            else:
                rhythm += [b - a for a, b in zip(c.acked.times, c.acked.times[1:])]
    lost = doubled = acked = 0
    async with httpx.AsyncClient(timeout=30) as http:
        for created, clients in games:
            # A private match's replay opens with one of its tokens: here its spectator token.
            replay = await http.get(f"{lb}/matches/{created['match']}/replay",
                                    headers={"Authorization": f"Bearer {created['spectator_token']}"})
            events = replay.json()["events"]
            answered = Counter(e["data"]["id"] for e in events
                               if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered")
            doubled += sum(n - 1 for n in answered.values())
            for c in clients:
                for act_id in c.acked:
                    acked += 1
                    lost += answered[c.sent[act_id]] == 0
    return {"matches": args.matches, "held": dict(held), "victim": victim, "doomed": len(doomed),
            "live_at_kill": len(live), "kill_to_all_held_s": round(all_held, 2),
            "kill_to_all_playing_s": round(all_playing, 2),
            "reowned_s": spread(list(reowned.values())), "playing_s": spread(playing),
            "gap_s": {"n": len(gaps), "p50": round(pct(gaps, 50), 2), "p99": round(pct(gaps, 99), 2),
                      "max": round(max(gaps), 2)} if gaps else None,
            "rhythm_s": {"n": len(rhythm), "p50": round(statistics.median(rhythm), 3),
                         "p99": round(pct(rhythm, 99), 3)},
            "acked": acked, "lost": lost, "doubled": doubled}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=400)
    p.add_argument("--hp", type=int, default=20, help="starting hit points: how long a match lasts")
    p.add_argument("--think-s", type=float, default=0.3, help="each bot's pause before it answers")
    p.add_argument("--lease-ms", type=int, default=5000)
    p.add_argument("--scan-ms", type=int, default=1000)
    args = p.parse_args()
    env = {**os.environ, "BATTLEHALL_LEASE_MS": str(args.lease_ms), "BATTLEHALL_TAKEOVER_SCAN_MS": str(args.scan_ms)}
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.Popen([sys.executable, str(ROOT / "deploy/local-cluster"), "--nodes", "3", "--json",
                                 "--port", "0", "--node-port", "0", "--redis-port", "0", "--client-cap", "0",
                                 "--data-dir", data], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        try:
            info = json.loads(proc.stdout.readline())
            result = asyncio.run(run(args, info))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
    result.update(lease_ms=args.lease_ms, scan_ms=args.scan_ms, hp=args.hp, think_s=args.think_s)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
