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
    sudo .venv/bin/python bench/nodes.py --nodes 1,3 --cpu-share 0.25 --matches 300

Every node, Redis, HAProxy and the load tool share this machine's cores: more nodes
here means more processes on the same cores, not more cores. `--cpu-share S` simulates
nodes on machines of their own: each node process (and only the nodes: not Redis,
HAProxy nor the load tool) is put in a cgroup of its own capped at S of one core
(bench/cpushare.py: cgroup v2 `cpu.max`, or v1's CFS quota; root needed), so N nodes
have N times the CPU of one, as long as the machine has that much to spare. It then
also reports each node's CPU and how often the cap held it back (the share of 100 ms
periods in which the node ran out of its quota): a node throttled in most periods is
saturated, its answers/s set by its share.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
from cpushare import CpuShares

ROOT = Path(__file__).resolve().parent.parent


def cpu_by_name(pids: dict[str, int]) -> dict[str, float]:
    """utime+stime of each named process (0 once it is gone)."""
    out = {}
    for name, pid in pids.items():
        try:
            out[name] = cpu_seconds(pid)
        except OSError:
            out[name] = 0.0
    return out


def run_one(nodes: int, args: argparse.Namespace) -> dict:
    data = tempfile.mkdtemp(prefix=f"bh-nodes-{nodes}-")
    shares: CpuShares | None = None
    # A key, so that the load tool aborts the matches it leaves unfinished at the end.
    env = {**os.environ, "BATTLEHALL_API_KEY": secrets.token_urlsafe(16)}
    if args.lease_ms:  # every node inherits it from local-cluster
        env["BATTLEHALL_LEASE_MS"] = str(args.lease_ms)
    cluster = subprocess.Popen(
        [sys.executable, str(ROOT / "deploy/local-cluster"), "--nodes", str(nodes), "--json", "--port", "0",
         "--node-port", "0", "--redis-port", "0", "--client-cap", "0", "--fsync", args.fsync, "--data-dir", data]
        # A node saturated at its share answers HAProxy's health check late, but answers:
        # within 1 s it was marked down now and then (503 to every client of a lone node).
        + (["--check-timeout", "5"] if args.cpu_share else []),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True, env=env)
    try:
        line = cluster.stdout.readline()
        if not line:
            raise RuntimeError(f"local-cluster did not start: {cluster.stderr.read()}")
        info = json.loads(line)
        url = info["lb"] if not args.direct else info["nodes"]["node-1"]
        pids = info["pids"]
        if args.cpu_share:
            shares = CpuShares(args.cpu_share)
            for name, pid in pids.items():
                if name.startswith("node-"):
                    shares.cap(name, pid)
        out = Path(data) / "result.json"
        cpu0, caps0, t0 = cpu_by_name(pids), shares.stats() if shares else {}, time.monotonic()
        subprocess.run([sys.executable, "-m", "battlehall", "loadtest", "--url", url, "--ruleset", args.ruleset,
                        "--matches", str(args.matches), "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                        "--quiet", "--json-out", str(out)] + (["--options", args.options] if args.options else []),
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=env)
        cpu1, caps1, t1 = cpu_by_name(pids), shares.stats() if shares else {}, time.monotonic()
        result = json.loads(out.read_text().splitlines()[-1])
        answers_all = result["totals"]["acks"]
        used = {name: (cpu1[name] - cpu0[name]) / (t1 - t0) for name in pids}  # cores, over the whole load run
        cluster_cpu = sum(cpu1.values()) - sum(cpu0.values())
        row = {"nodes": nodes, "answers_per_s": result["answers_per_s"], "ack_p50": result["ack_ms"]["p50"],
               "ack_p99": result["ack_ms"]["p99"], "redirects": result["totals"]["redirects"],
               "matches_created": result["totals"]["matches_created"], "answers": result["totals"]["acks"],
               "errors": result["errors"], "cluster_cores": round(cluster_cpu / (t1 - t0), 2),
               "cluster_us_per_answer": round(cluster_cpu / answers_all * 1e6) if answers_all else None,
               "nodes_cores": round(sum(c for name, c in used.items() if name.startswith("node-")), 2),
               "node_cores": [round(c, 2) for name, c in sorted(used.items()) if name.startswith("node-")],
               "redis_cores": round(used["redis"], 2), "haproxy_cores": round(used["haproxy"], 2),
               "loadgen_cpu": result["loadgen_cpu"], "machine_cpu": result["machine_cpu"],
               "load_avg": round(os.getloadavg()[0], 1)}
        # matches taken over from a node whose lease lapsed (a node stalled past its lease)
        row["taken_over"] = sum(int(m) for log in Path(data).glob("node-*.log")
                                for m in re.findall(r"took over (\d+) live matches", log.read_text()))
        if shares:  # the share of 100 ms periods in which each node used up its quota
            row["throttled"] = [round((caps1[n]["throttled_periods"] - caps0[n]["throttled_periods"])
                                      / max(1, caps1[n]["periods"] - caps0[n]["periods"]), 2) for n in sorted(caps1)]
        return row
    finally:
        if cluster.poll() is None:
            cluster.send_signal(signal.SIGINT)
            try:
                cluster.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(cluster.pid, signal.SIGKILL)
        if shares:
            shares.remove()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", default="1,2,3", help="node counts, alternated (default 1,2,3)")
    p.add_argument("--matches", type=int, default=200, help="matches in play at once (default 200)")
    p.add_argument("--ruleset", default="duel")
    p.add_argument("--options", default=None, metavar="JSON",
                   help='the matches\' ruleset options, e.g. \'{"hp": 200}\': longer duels, fewer creates per answer')
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--fsync", default="always", choices=("always", "everysec"), help="Redis' appendfsync")
    p.add_argument("--lease-ms", type=int, default=None,
                   help="the nodes' BATTLEHALL_LEASE_MS (default theirs: 5000); longer rides out a starved machine")
    p.add_argument("--direct", action="store_true", help="the load tool talks to node-1, not through HAProxy")
    p.add_argument("--cpu-share", type=float, default=None, metavar="S",
                   help="cap each node process at S of one core (0.33: a third), in a cgroup of its own (root)")
    args = p.parse_args()
    counts = [int(n) for n in args.nodes.split(",")]
    print(f"bench/nodes.py: {args.matches} {args.ruleset} matches{' ' + args.options if args.options else ''}, {args.seconds:.0f} s after {args.warmup:.0f} s, "
          f"{'node-1 directly' if args.direct else 'through HAProxy'}, appendfsync {args.fsync}, "
          f"lease {args.lease_ms or 'default'} ms, "
          + (f"each node capped at {args.cpu_share} of a core, " if args.cpu_share else "")
          + f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    results: dict[int, list[dict]] = {n: [] for n in counts}
    for round_ in range(args.rounds):
        for n in counts:
            r = run_one(n, args)
            results[n].append(r)
            print(json.dumps({"round": round_ + 1, **r}), flush=True)
    print("\nnodes | answers/s | ack p50 / p99 ms | cluster µs/answer | cluster cores | nodes / redis / haproxy / "
          "load tool cores | machine cores busy | redirects (medians)")
    for n in counts:
        rs = results[n]
        med = {k: statistics.median(r[k] for r in rs) for k in
               ("answers_per_s", "ack_p50", "ack_p99", "cluster_us_per_answer", "cluster_cores", "machine_cpu",
                "redirects", "nodes_cores", "redis_cores", "haproxy_cores", "loadgen_cpu")}
        print(f"{n} | {med['answers_per_s']:,.0f} | {med['ack_p50']:.1f} / {med['ack_p99']:.1f} | "
              f"{med['cluster_us_per_answer']:.0f} | {med['cluster_cores']:.2f} | {med['nodes_cores']:.2f} / "
              f"{med['redis_cores']:.2f} / {med['haproxy_cores']:.2f} / {med['loadgen_cpu']:.2f} | "
              f"{med['machine_cpu']:.2f} | {med['redirects']:.0f}")
    if len(counts) > 1:  # within each round, so that drift in the machine's speed cancels
        base = counts[0]
        for n in counts[1:]:
            ratios = [results[n][i]["answers_per_s"] / results[base][i]["answers_per_s"] for i in range(args.rounds)]
            print(f"{n} nodes / {base}: answers/s x{statistics.median(ratios):.2f} "
                  f"(rounds: {', '.join(f'x{r:.2f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
