#!/usr/bin/env python
"""Answers/s and answer-to-ack latency with 1, 2 and 3 nodes on one machine.

For each node count it starts `deploy/local-cluster --nodes N` (one Redis with its
append-only file, N `battlehall serve` nodes, HAProxy in front; free ports, a temporary
folder) and runs `python -m battlehall loadtest` through HAProxy (or, with --direct,
against node-1, which redirects the sockets of matches it does not hold): M matches in
play at once, every seat answering at once, a warm-up, then a measured window. It
reports answers/s, ack p50/p99, the `not_here` redirects the load tool followed, and the
CPU of the whole cluster over the run (nodes, Redis, HAProxy: utime+stime from /proc),
per answer and in cores. Node counts are alternated, `--rounds` times, so drift in the
machine's load hits each alike; the summary gives each count's medians.

    python bench/nodes.py                       # 1, 2, 3 nodes; 200 duel matches; 2 rounds
    python bench/nodes.py --nodes 1,3 --matches 100 --seconds 10 --rounds 1

Every node, Redis, HAProxy and the load tool share this machine's cores: more nodes
here means more processes on the same cores, not more cores.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds

ROOT = Path(__file__).resolve().parent.parent


def tree_cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            total += cpu_seconds(pid)
        except OSError:
            pass
    return total


def run_one(nodes: int, args: argparse.Namespace) -> dict:
    data = tempfile.mkdtemp(prefix=f"bh-nodes-{nodes}-")
    # A key, so that the load tool aborts the matches it leaves unfinished at the end.
    env = {**os.environ, "BATTLEHALL_API_KEY": secrets.token_urlsafe(16)}
    if args.lease_ms:  # every node inherits it from local-cluster
        env["BATTLEHALL_LEASE_MS"] = str(args.lease_ms)
    cluster = subprocess.Popen(
        [sys.executable, str(ROOT / "deploy/local-cluster"), "--nodes", str(nodes), "--json", "--port", "0",
         "--node-port", "0", "--redis-port", "0", "--client-cap", "0", "--fsync", args.fsync, "--data-dir", data],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True, env=env)
    try:
        line = cluster.stdout.readline()
        if not line:
            raise RuntimeError(f"local-cluster did not start: {cluster.stderr.read()}")
        info = json.loads(line)
        url = info["lb"] if not args.direct else info["nodes"]["node-1"]
        pids = list(info["pids"].values())
        out = Path(data) / "result.json"
        cpu0, t0 = tree_cpu(pids), time.monotonic()
        subprocess.run([sys.executable, "-m", "battlehall", "loadtest", "--url", url, "--ruleset", args.ruleset,
                        "--matches", str(args.matches), "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                        "--quiet", "--json-out", str(out)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=env)
        cpu1, t1 = tree_cpu(pids), time.monotonic()
        result = json.loads(out.read_text().splitlines()[-1])
        answers_all = result["totals"]["acks"]
        return {"nodes": nodes, "answers_per_s": result["answers_per_s"], "ack_p50": result["ack_ms"]["p50"],
                "ack_p99": result["ack_ms"]["p99"], "redirects": result["totals"]["redirects"],
                "errors": result["errors"], "cluster_cores": round((cpu1 - cpu0) / (t1 - t0), 2),
                "cluster_us_per_answer": round((cpu1 - cpu0) / answers_all * 1e6) if answers_all else None,
                "loadgen_cpu": result["loadgen_cpu"], "machine_cpu": result["machine_cpu"]}
    finally:
        if cluster.poll() is None:
            cluster.send_signal(signal.SIGINT)
            try:
                cluster.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(cluster.pid, signal.SIGKILL)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", default="1,2,3", help="node counts, alternated (default 1,2,3)")
    p.add_argument("--matches", type=int, default=200, help="matches in play at once (default 200)")
    p.add_argument("--ruleset", default="duel")
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--fsync", default="always", choices=("always", "everysec"), help="Redis' appendfsync")
    p.add_argument("--lease-ms", type=int, default=None,
                   help="the nodes' BATTLEHALL_LEASE_MS (default theirs: 5000); longer rides out a starved machine")
    p.add_argument("--direct", action="store_true", help="the load tool talks to node-1, not through HAProxy")
    args = p.parse_args()
    counts = [int(n) for n in args.nodes.split(",")]
    print(f"bench/nodes.py: {args.matches} {args.ruleset} matches, {args.seconds:.0f} s after {args.warmup:.0f} s, "
          f"{'node-1 directly' if args.direct else 'through HAProxy'}, appendfsync {args.fsync}, "
          f"lease {args.lease_ms or 'default'} ms, "
          f"{os.cpu_count()} cores", flush=True)
    results: dict[int, list[dict]] = {n: [] for n in counts}
    for round_ in range(args.rounds):
        for n in counts:
            r = run_one(n, args)
            results[n].append(r)
            print(json.dumps({"round": round_ + 1, **r}), flush=True)
    print("\nnodes | answers/s | ack p50 / p99 ms | cluster µs/answer | cluster cores | machine cores busy | redirects (medians)")
    for n in counts:
        rs = results[n]
        med = {k: statistics.median(r[k] for r in rs) for k in
               ("answers_per_s", "ack_p50", "ack_p99", "cluster_us_per_answer", "cluster_cores", "machine_cpu",
                "redirects")}
        print(f"{n} | {med['answers_per_s']:,.0f} | {med['ack_p50']:.1f} / {med['ack_p99']:.1f} | "
              f"{med['cluster_us_per_answer']:.0f} | {med['cluster_cores']:.2f} | {med['machine_cpu']:.2f} | "
              f"{med['redirects']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
