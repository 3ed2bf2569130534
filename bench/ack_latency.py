#!/usr/bin/env python
"""Answer-to-ack latency and server CPU per answer of a real server under `battlehall loadtest`.

For each configuration (ruleset x concurrent matches [x seats]) it starts a fresh server
(`python -m battlehall serve` on a free port, its own private Redis in a temporary
folder), runs `python -m battlehall loadtest` against it for a warm-up and a measured
window, and records answers/s, answer-to-ack p50/p99, and the server's CPU time per
answer: utime+stime from /proc/<pid>/stat of the server and its redis-server child,
read by the load tester at the start and the end of the measured window.

With --pin the server (and so its Redis, which inherits the affinity) is pinned to
CPU 0 and the load tester to CPU 1, so they do not steal each other's core (the split
of bench/compare/run.sh). It is off by default: on a shared machine other people's
work on CPU 0 then starves the server while CPU 1 idles. The report gives how busy
the whole machine was during the window (`machine_cpu`), so contention shows. Everything listens on 127.0.0.1; everything started
is stopped (process group SIGTERM, then SIGKILL) whatever happens.

    python bench/ack_latency.py                                  # duel 100, duel 1000, spellfire 100
    python bench/ack_latency.py --runs duel:100 --seconds 5 --warmup 2
    python bench/ack_latency.py --runs duel:100,duel:1000 --fsync always,everysec --rounds 3
    python bench/ack_latency.py --runs spellfire:100:2,spellfire:100:6 --rounds 3 --clock '{"window_min_ms": 0}'

With --fsync the private Redis runs with each `appendfsync` setting in turn, run after
run (alternating, so drift in the machine's load hits both alike), `--rounds` times.
A run is `ruleset:matches` or `ruleset:matches:seats` (seats: `battlehall loadtest
--seats`, by default the fewest the ruleset takes); `--clock` is the created matches'
clock (with `{"window_min_ms": 0}` Spellfire's windows are not held, so the server's own
cost shows in the latency, not the 300 ms minimum hold). When several runs are given,
the summary ends with each run's median over the rounds and its ratio to the first run.

With --trees A,B the servers of several source trees are alternated the same way (each
its own checkout, e.g. `git clone` of a revision with a change, built with `make compile`
where the compiled build is measured): a change measured against its base in one run.

    python bench/ack_latency.py --client node --pin --runs spellfire:100:6 --rounds 3 --trees /tmp/base,.

With --client node the load comes from the Node load generator of the Colyseus
comparison (bench/compare/loadgen.mjs, its `ws` and msgpack packages installed into
bench/.scratch/compare the first time), which answers the same way (random legal
options) at a fraction of the Python tool's CPU per frame: with six seats every answer
sends each socket its events, and the Python tool, not the server, then sets the
latency. With --busy K, K processes spin on the CPUs during every run: a busy machine.

    python bench/ack_latency.py --client node --pin --runs spellfire:100:2,spellfire:100:6 --rounds 3 --clock '{"window_min_ms": 0}'
    python bench/ack_latency.py --client node --pin --busy 2 --runs spellfire:100:2,spellfire:100:6 --rounds 3 --clock '{"window_min_ms": 0}'
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from server_histogram import Scraper

ROOT = Path(__file__).resolve().parent.parent
COMPARE = ROOT / "bench" / "compare"
SCRATCH = ROOT / "bench" / ".scratch" / "compare"  # node_modules for the Node load generator (run.sh's too)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpu: int | None):
    """A preexec_fn that pins the child (and everything it starts) to one CPU."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def revision(tree: Path = ROOT) -> str:
    """The commit benchmarked, and whether the server's code differs from it ("unknown": not a clone)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        if not head:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "battlehall"], cwd=tree, capture_output=True,
                               text=True, timeout=10).stdout.strip()
        return head + ("+uncommitted" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class Server:
    def __init__(self, cpu: int | None, fsync: str | None = None, tree: Path = ROOT):
        self.fsync = fsync
        self.tree = tree  # `python -m` imports the package (and a compiled build) from its working directory
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = Path(tempfile.mkdtemp(prefix="bh-ack-latency-"))
        self.cpu = cpu
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30) -> "Server":
        self.log = open(self.data / "server.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "battlehall", "serve", "--port", str(self.port), "--data-dir",
             str(self.data), "--log-level", "warning"],
            # No cap per address: thousands of sockets from 127.0.0.1.
            env={**os.environ, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", "BATTLEHALL_CREATE_PER_MIN": "0",
                 **({"BATTLEHALL_FSYNC": self.fsync} if self.fsync else {})},
            cwd=self.tree, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=pinned(self.cpu))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {(self.data / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1, trust_env=False).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not become ready in time")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        if self.proc:  # the private Redis is in the same process group: make sure it is gone too
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


def busy_cores(seconds: float = 2.0) -> float:
    """How many cores the whole machine kept busy over the next `seconds` (from /proc/stat)."""
    from battlehall.loadtest import machine_busy

    a = machine_busy()
    time.sleep(seconds)
    b = machine_busy()
    return (b[0] - a[0]) / seconds if a and b else 0.0


def wait_for_quiet(limit_s: float, threshold: float = 0.5) -> float:
    """Wait (at most `limit_s`) until other work on the machine leaves it nearly idle."""
    deadline = time.monotonic() + limit_s
    busy = busy_cores()
    while busy > threshold and time.monotonic() < deadline:
        print(f"   the machine is busy ({busy:.2f} cores): waiting for it to calm down", flush=True)
        time.sleep(5)
        busy = busy_cores()
    return busy


def histogram_summary(metrics: str, name: str) -> dict | None:
    """Mean, and the bucket bounds holding p50 and p99, of one histogram of the server's /metrics."""
    buckets, total, count = [], 0.0, 0
    for line in metrics.splitlines():
        if line.startswith(name + '_bucket{le="'):
            bound = line.split('"')[1]
            buckets.append((float("inf") if bound == "+Inf" else float(bound), float(line.rsplit(" ", 1)[1])))
        elif line.startswith(name + "_sum "):
            total = float(line.split()[1])
        elif line.startswith(name + "_count "):
            count = int(float(line.split()[1]))
    if not count:
        return None

    def upto(q: float) -> float:
        return next(bound for bound, cumulative in buckets if cumulative >= q * count) * 1000

    return {"count": count, "mean_ms": round(total / count * 1000, 3), "p50_le_ms": upto(0.5), "p99_le_ms": upto(0.99)}


def node_loadgen() -> Path:
    """The Node load generator, beside its packages (an ES module finds them from its own folder)."""
    if not (SCRATCH / "node_modules" / "ws").is_dir():
        SCRATCH.mkdir(parents=True, exist_ok=True)
        shutil.copy(COMPARE / "package.json", SCRATCH)
        shutil.copy(COMPARE / "package-lock.json", SCRATCH)
        print(f"== installing the Node load generator's packages into {SCRATCH}", flush=True)
        subprocess.run(["npm", "install", "--prefix", str(SCRATCH), "--no-audit", "--no-fund", "--loglevel=error"],
                       check=True, timeout=600)
    shutil.copy(COMPARE / "loadgen.mjs", SCRATCH)
    return SCRATCH / "loadgen.mjs"


def load_command(ruleset: str, matches: int, seats: int | None, server: "Server", out: Path, args) -> list[str]:
    """The load tool's command line: `battlehall loadtest`, or the Node load generator."""
    common = ["--url", server.url, "--matches", str(matches), "--seconds", str(args.seconds),
              "--warmup", str(args.warmup), "--json-out", str(out)]
    if args.client == "node":
        cmd = ["node", str(node_loadgen()), "--target", "battlehall", "--ruleset", ruleset, *common,
               "--pid", str(server.proc.pid), "--seats", str(seats or 2), "--spectators", str(args.spectators),
               "--match-timeout", str(int(args.warmup + args.seconds + 60))]
        return cmd + (["--clock", args.clock] if args.clock else [])
    cmd = [sys.executable, "-m", "battlehall", "loadtest", "--ruleset", ruleset, *common, "--quiet",
           "--spectators", str(args.spectators), "--seed", "1", "--server-pid", str(server.proc.pid)]
    cmd += ["--seats", str(seats)] if seats else []
    return cmd + (["--clock", args.clock] if args.clock else [])


def from_node(r: dict) -> dict:
    """The Node load generator's result in `battlehall loadtest`'s shape."""
    machine = sum(x for x in (r["server_cpu_util"], r["loadgen_cpu_util"], r["others_cpu_util"]) if x is not None)
    return {"ruleset": r["ruleset"], "seats": r["seats"], "matches": r["matches"], "answers_per_s": r["answers_per_s"],
            "ack_ms": r["ack_ms"], "window_epoch_s": r["window_epoch_s"], "errors": r["error_codes"], "overtaken": r["overtaken"],
            "in_flight_mean": r["in_flight_mean"],
            "match_failures": r["failure_reasons"], "seq_gaps": r["seq_gaps"], "protocol_notes": r["protocol_notes"],
            "loadgen_cpu": r["loadgen_cpu_util"], "machine_cpu": round(machine, 2),
            "server_cpu": {"us_per_answer": r["server_cpu_us_per_answer"],
                           "us_per_answer_with_redis": r["server_cpu_us_per_answer_with_redis"],
                           "cores_busy": r["server_cpu_util"]}}


def spinners(count: int) -> list[subprocess.Popen]:
    """`count` processes that keep a CPU busy each (not pinned): other work on the machine."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(count)]


def run_one(ruleset: str, matches: int, args, fsync: str | None = None, seats: int | None = None,
            tree: Path = ROOT) -> dict:
    server_cpu, loadgen_cpu = (0, 1) if args.pin else (None, None)
    server = Server(server_cpu, fsync, tree)
    out = server.data / "result.jsonl"
    busy: list[subprocess.Popen] = []
    try:
        server.start()
        assert server.proc is not None
        cmd = load_command(ruleset, matches, seats, server, out, args)
        label = (f"{ruleset}{f':{seats} seats' if seats else ''} x {matches}{f' fsync {fsync}' if fsync else ''}"
                 f"{f' ({tree})' if tree != ROOT else ''}")
        print(f"== {label} ({args.warmup}s warm-up, {args.seconds}s measured, {args.client} load tool"
              f"{f', {args.busy} spinning' if args.busy else ''})", flush=True)
        busy = spinners(args.busy)
        # The server's own act-to-ack histogram, scraped through the run and cut to the
        # load tool's measured window afterwards (server_histogram.py).
        with Scraper(server.url, "battlehall_ack_seconds") as scraper:
            # bounded: warm-up + window + drain + generous slack for start-up and shutdown
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, preexec_fn=pinned(loadgen_cpu),
                                  timeout=args.warmup + args.seconds + 180)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"loadtest failed ({proc.returncode}): {proc.stderr[-2000:]}")
        result = json.loads(out.read_text().splitlines()[-1])
        if args.client == "node":
            result = from_node(result)
        window = scraper.window(*result["window_epoch_s"])
        result["server_ack_ms"] = window.summary() if window else None
        # The server's own view over the whole run (warm-up included): how long its Redis
        # took to answer each send of writes, where appendfsync shows first.
        metrics = httpx.get(server.url + "/metrics", timeout=10, trust_env=False).text
        result["redis_write"] = histogram_summary(metrics, "battlehall_redis_write_seconds")
        print(proc.stdout.rsplit("\n{", 1)[0], flush=True)  # the readable report, not the JSON line
        return result
    finally:
        for spinner in busy:
            spinner.kill()
            spinner.wait()
        server.stop()


MEDIAN_FIGURES = [("answers/s", lambda r: r["answers_per_s"]),
                  # the server's own act-to-ack time over the window (battlehall_ack_seconds)
                  ("server p50 ms", lambda r: (r.get("server_ack_ms") or {}).get("p50_ms")),
                  ("server p99 ms", lambda r: (r.get("server_ack_ms") or {}).get("p99_ms")), ("ack p50 ms", lambda r: r["ack_ms"]["p50"]),
                  ("ack p90 ms", lambda r: r["ack_ms"]["p90"]), ("ack p99 ms", lambda r: r["ack_ms"]["p99"]),
                  ("ack mean ms", lambda r: r["ack_ms"].get("mean")),
                  # acts awaiting an answer (Node load tool): at saturation, mean ack = this / answers/s
                  ("in flight", lambda r: r.get("in_flight_mean")),
                  ("µs/answer", lambda r: (r.get("server_cpu") or {}).get("us_per_answer")),
                  ("+redis", lambda r: (r.get("server_cpu") or {}).get("us_per_answer_with_redis"))]


def print_medians(rows: list[dict]) -> None:
    """Each run's (per fsync setting and tree) median over its rounds, and its ratio to the first one's."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["run"], r["fsync"], r["tree"]), []).append(r)
    if len(groups) < 2:
        return
    medians = {}
    for key, group in groups.items():
        values = [[f(r) for r in group] for _, f in MEDIAN_FIGURES]
        medians[key] = [statistics.median(v) if None not in v else None for v in values]
    first = next(iter(medians.values()))
    print(f"\nmedians over the rounds, and the ratio to the first run ({len(next(iter(groups.values())))} rounds)")
    print(f"{'run':<18} {'fsync':>8} {'tree':>16} " + " ".join(f"{name:>16}" for name, _ in MEDIAN_FIGURES))
    for (run, fsync, tree), values in medians.items():
        cells = [("-" if v is None else f"{v:g}" + (f" ({v / b:.2f}x)" if b else "")) for v, b in zip(values, first)]
        print(f"{run:<18} {fsync or '-':>8} {tree[-16:]:>16} " + " ".join(f"{c:>16}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", default="duel:100,duel:1000,spellfire:100", help="ruleset:matches[:seats],...")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--warmup", type=float, default=5)
    p.add_argument("--spectators", type=int, default=0)
    p.add_argument("--pin", action="store_true", help="server and its Redis on CPU 0, load tester on CPU 1")
    p.add_argument("--json-out", default=None, help="append one JSON line per run to this file")
    p.add_argument("--fsync", default=None, help="private Redis appendfsync settings to alternate: always,everysec")
    p.add_argument("--rounds", type=int, default=1, help="times to go through every run and setting")
    p.add_argument("--trees", default=str(ROOT),
                   help="source trees whose servers to alternate (e.g. a `git clone` of a revision, built with `make compile`)")
    p.add_argument("--clock", default=None, metavar="JSON",
                   help='clock of the created matches, e.g. \'{"window_min_ms": 0}\' (default: the server\'s)')
    p.add_argument("--client", choices=("python", "node"), default="python",
                   help="the load tool: battlehall loadtest, or bench/compare/loadgen.mjs (Node)")
    p.add_argument("--busy", type=int, default=0, metavar="K",
                   help="keep K other processes spinning during each run: a busy machine")
    p.add_argument("--wait-quiet", type=float, default=120,
                   help="before each run, wait up to this many seconds for the machine to be nearly idle")
    args = p.parse_args(argv)

    rows = []
    modes = args.fsync.split(",") if args.fsync else [None]
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    for _ in range(args.rounds):
        for spec in args.runs.split(","):
            ruleset, matches, *seats = spec.split(":")
            seats = int(seats[0]) if seats else None
            try:
                from battlehall.engine import get_ruleset

                get_ruleset(ruleset)
            except Exception as exc:  # a ruleset still being written: skip it, say why
                print(f"== {ruleset} x {matches}: skipped, the ruleset does not import yet ({type(exc).__name__}: {exc})")
                continue
            for fsync, tree in [(f, t) for f in modes for t in trees]:
                idle_before = wait_for_quiet(args.wait_quiet)
                result = run_one(ruleset, int(matches), args, fsync, seats, tree)
                result.update(bench="ack_latency", revision=revision(tree), tree=str(tree), python=platform.python_version(),
                              pinned=args.pin, busy_before=round(idle_before, 2), fsync=fsync, client=args.client,
                              spinning=args.busy,
                              load_average=os.getloadavg()[0], run=spec)
                rows.append(result)
                if args.json_out:
                    with open(args.json_out, "a") as f:
                        f.write(json.dumps(result) + "\n")

    print(f"\n{'ruleset':<10} {'seats':>5} {'matches':>7} {'fsync':>8} {'answers/s':>10} {'p50 ms':>8} {'p90 ms':>8} "
          f"{'p99 ms':>8} {'µs/answer':>10} {'+redis':>8} {'errors':>7} {'loadgen':>8} {'machine':>8} {'load':>5} "
          f"{'redis ms':>9} {'server p50':>10} {'server p99':>10}")
    for r in rows:
        cpu = r.get("server_cpu") or {}
        print(f"{r['ruleset']:<10} {r.get('seats', '-')!s:>5} {r['matches']:>7} {r['fsync'] or '-':>8} {r['answers_per_s']:>10} "
              f"{r['ack_ms']['p50']:>8} {r['ack_ms']['p90']:>8} {r['ack_ms']['p99']:>8} {cpu.get('us_per_answer')!s:>10} "
              f"{cpu.get('us_per_answer_with_redis')!s:>8} {sum(r['errors'].values()):>7} {r['loadgen_cpu']:>8} "
              f"{r['machine_cpu']!s:>8} {r['load_average']:>5.2f} {(r.get('redis_write') or {}).get('mean_ms')!s:>9} "
              f"{(r.get('server_ack_ms') or {}).get('p50_ms')!s:>10} {(r.get('server_ack_ms') or {}).get('p99_ms')!s:>10}")
    print_medians(rows)
    for r in rows:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
