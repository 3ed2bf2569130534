"""Soak: many live matches played by bots for a long time; does anything grow?

`battlehall loadtest` (battlehall/loadtest.py) keeps `--matches` matches in play against
a server process: every seat answers each prompt at once with a random legal option,
and each finished match is replaced by a new one. Every `--interval` seconds this script
samples, from /proc and the server's /metrics:

- the server's RSS and its Redis' RSS (the private Redis is the server's child),
- the server's open file descriptors, and how many of them are sockets,
- the server's own gauges: open game sockets, matches in memory,
- the answers acknowledged in the interval, their ack p50 and p99, and the errors,
- the CPU the server and its Redis used, and how busy the whole machine was (on a
  shared machine, other work slows the server too: latency is comparable between
  intervals only where the answers per second are).

At the end it prints one row per sample and a verdict per figure: flat, or growing when
the median of the second half of the samples (after the first `--settle` of them) is
above that of the first half by more than a tolerance (relative and absolute, below).
The samples of the first `--settle-s` seconds are left out: a finished match stays in
memory 60 s for its sockets, so the matches in memory (and the memory they take) rise
to a plateau over the first minute or so.
Redis' RSS is shown but not judged: finished matches stay in Redis for their retention
(7 days by default), so it grows with the matches played, by design.

    .venv/bin/python bench/soak.py                        # 2,000 matches for 30 minutes
    .venv/bin/python bench/soak.py --matches 300 --minutes 3 --interval 15
    .venv/bin/python bench/soak.py --url http://host:8000 --server-pid 1234

Without --url it starts `battlehall serve` with a private Redis in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import benchlib
import httpx

from battlehall import loadtest

# figure -> (relative, absolute) growth that counts as growing
TOLERANCE = {"server_rss_mib": (0.05, 8.0), "fds": (0.05, 50), "sockets": (0.05, 50),
             "conns": (0.05, 50), "in_memory": (0.10, 100), "ack_p99_ms": (0.50, 5.0)}


def rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def fds(pid: int) -> tuple[int, int]:
    """(open file descriptors, of which sockets) of a process."""
    total = sockets = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed between the listing and the read
        total += 1
        sockets += target.startswith("socket:")
    return total, sockets


def redis_pid(server_pid: int) -> int | None:
    for pid, (name, _) in loadtest.process_cpu(server_pid).items():
        if pid != server_pid and name.startswith("redis"):
            return pid
    return None


def gauges(client: httpx.Client) -> dict[str, float]:
    try:
        text = client.get("/metrics", timeout=10).text
    except httpx.HTTPError:
        return {}
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


class Sampler:
    def __init__(self, test: loadtest.LoadTest, url: str, server_pid: int):
        self.test = test
        self.server_pid = server_pid
        self.redis_pid = redis_pid(server_pid)
        self.http = httpx.Client(base_url=url, trust_env=False)
        self.rows: list[dict] = []
        self.taken = 0  # ack samples already counted
        self.errors = 0
        self.started = time.monotonic()
        self.cpu = loadtest.process_cpu(server_pid)
        self.machine = loadtest.machine_busy()

    def sample(self, seconds: float) -> dict:
        # `quiet` load tests never sort ack_ms: it is in arrival order, so the tail is new
        acks = sorted(self.test.ack_ms[self.taken:])
        self.taken += len(acks)
        errors = sum(self.test.errors.values())
        metrics = gauges(self.http)
        total, sockets = fds(self.server_pid)
        cpu, machine = loadtest.process_cpu(self.server_pid), loadtest.machine_busy()
        spent = loadtest.cpu_delta(self.cpu, cpu)
        busy = (machine[0] - self.machine[0]) / seconds if machine and self.machine and seconds else None
        self.cpu, self.machine = cpu, machine
        row = {
            "t_s": round(time.monotonic() - self.started),
            "server_rss_mib": rss_mib(self.server_pid),
            "redis_rss_mib": rss_mib(self.redis_pid) if self.redis_pid else None,
            "fds": total, "sockets": sockets,
            "conns": metrics.get("battlehall_connections"),
            "in_memory": metrics.get("battlehall_matches_in_memory"),
            "answers_per_s": round(len(acks) / seconds) if seconds else None,
            "ack_p50_ms": loadtest.percentile(acks, 50), "ack_p99_ms": loadtest.percentile(acks, 99),
            "errors": errors - self.errors,
            "server_cores": (spent["server_s"] + spent["redis_s"]) / seconds if seconds else None,
            "machine_cores": busy,
        }
        self.errors = errors
        self.rows.append(row)
        return row

    async def run(self, interval: float, until: float) -> None:
        last = time.monotonic()
        self.cpu, self.machine = loadtest.process_cpu(self.server_pid), loadtest.machine_busy()
        while time.monotonic() < until:
            await asyncio.sleep(min(interval, max(0.0, until - time.monotonic())))
            now = time.monotonic()
            row = self.sample(now - last)
            last = now
            print(format_row(row), file=sys.stderr, flush=True)


COLUMNS = [("t_s", "t (s)", "{:.0f}"), ("server_rss_mib", "server RSS MiB", "{:.1f}"),
           ("redis_rss_mib", "Redis RSS MiB", "{:.1f}"), ("fds", "fds", "{:.0f}"), ("sockets", "sockets", "{:.0f}"),
           ("conns", "game sockets", "{:.0f}"), ("in_memory", "matches in memory", "{:.0f}"),
           ("answers_per_s", "answers/s", "{:.0f}"), ("ack_p50_ms", "ack p50 ms", "{:.1f}"),
           ("ack_p99_ms", "ack p99 ms", "{:.1f}"), ("errors", "errors", "{:.0f}"),
           ("server_cores", "server+Redis cores", "{:.2f}"), ("machine_cores", "machine busy cores", "{:.2f}")]


def format_row(row: dict) -> str:
    cells = ["-" if row.get(key) is None else fmt.format(row[key]) for key, _, fmt in COLUMNS]
    return "| " + " | ".join(cells) + " |"


def table(rows: list[dict]) -> str:
    head = "| " + " | ".join(title for _, title, _ in COLUMNS) + " |"
    rule = "|" + "|".join("---:" for _ in COLUMNS) + "|"
    return "\n".join([head, rule, *map(format_row, rows)])


def verdict(rows: list[dict], settle_s: float) -> dict[str, dict]:
    """For each judged figure: the medians of the two halves after settling, and flat/growing."""
    judged = [row for row in rows if row["t_s"] > settle_s]
    out = {}
    if len(judged) < 2:
        return out
    half = len(judged) // 2
    for key, (relative, absolute) in TOLERANCE.items():
        first = [r[key] for r in judged[:half] if r.get(key) is not None]
        second = [r[key] for r in judged[half:] if r.get(key) is not None]
        if not first or not second:
            continue
        a, b = statistics.median(first), statistics.median(second)
        growing = b - a > max(absolute, relative * a)
        out[key] = {"first_half": round(a, 2), "second_half": round(b, 2), "verdict": "growing" if growing else "flat"}
    # On a shared machine latency also grows when others take the CPU: then the server
    # answers fewer per second with the same load, which the verdict says.
    rates = [[r["answers_per_s"] for r in part if r.get("answers_per_s")] for part in (judged[:half], judged[half:])]
    if "ack_p99_ms" in out and out["ack_p99_ms"]["verdict"] == "growing" and all(rates):
        a, b = statistics.median(rates[0]), statistics.median(rates[1])
        if b < 0.8 * a:
            out["ack_p99_ms"]["verdict"] = f"growing, with answers/s down from {a:.0f} to {b:.0f} (a busier machine?)"
    return out


async def soak(args, url: str, server_pid: int) -> dict:
    cfg = loadtest.Config(url=url, ruleset=args.ruleset, matches=args.matches, seconds=args.minutes * 60,
                          warmup=args.warmup, spectators=args.spectators, quiet=True, server_pid=server_pid,
                          seed=args.seed)
    test = loadtest.LoadTest(cfg)
    sampler = Sampler(test, url, server_pid)
    started = time.monotonic()
    print(table([]), file=sys.stderr, flush=True)
    run = asyncio.ensure_future(test.run())
    await asyncio.sleep(args.warmup)  # the load test's warm-up: its ack samples start after it
    await sampler.run(args.interval, started + args.warmup + args.minutes * 60)
    report = await run
    judged = verdict(sampler.rows, args.settle_s)
    growing = [k for k, v in judged.items() if v["verdict"].startswith("growing")]
    return {"matches": args.matches, "minutes": args.minutes, "interval_s": args.interval, "ruleset": args.ruleset,
            "spectators": args.spectators, "settle_s": args.settle_s, "samples": sampler.rows, "judged": judged,
            "verdict": "growing: " + ", ".join(growing) if growing else "flat",
            "loadtest": {k: report[k] for k in ("matches_finished", "answers", "answers_per_s", "ack_ms", "errors",
                                                "totals", "loadgen_cpu", "machine_cpu", "nproc")}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matches", type=int, default=2000, help="matches kept in play at once")
    p.add_argument("--minutes", type=float, default=30, help="how long to play after the warm-up")
    p.add_argument("--interval", type=float, default=30, help="seconds between two samples")
    p.add_argument("--warmup", type=float, default=20, help="seconds of play before the first sample")
    p.add_argument("--settle-s", type=float, default=120, help="seconds of samples left out of the verdict")
    p.add_argument("--ruleset", default="duel")
    p.add_argument("--spectators", type=int, default=0, help="spectator sockets per match")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", default=None, help="a running server (default: start one)")
    p.add_argument("--server-pid", type=int, default=None, help="its process id (needed with --url)")
    p.add_argument("--json-out", default=None, help="append the result as one JSON line to this file")
    args = p.parse_args(argv)
    proc = None
    if args.url is None:
        proc, url = benchlib.start_server()
        benchlib.wait_ready(url)
        server_pid = proc.pid
    elif args.server_pid is None:
        p.error("--url needs --server-pid (RSS and descriptors are read from /proc)")
    else:
        url, server_pid = args.url, args.server_pid
    try:
        result = run_loop(soak(args, url, server_pid))
    finally:
        if proc is not None:
            benchlib.stop_server(proc)
    result["revision"] = revision()
    print(f"battlehall soak: {args.ruleset}, {args.matches} matches for {args.minutes} min, "
          f"a sample every {args.interval} s (revision {result['revision']})")
    print(table(result["samples"]))
    for key, judged in result["judged"].items():
        print(f"  {key:16} {judged['first_half']:>10} -> {judged['second_half']:>10}  {judged['verdict']}")
    lt = result["loadtest"]
    print(f"  whole run: {lt['answers']} answers, {lt['matches_finished']} matches finished, ack p99 "
          f"{lt['ack_ms']['p99']} ms, errors {lt['errors'] or 'none'}, load generator {lt['loadgen_cpu']} cores")
    print(f"verdict: {result['verdict']}")
    if args.json_out:
        with open(args.json_out, "a") as f:
            f.write(json.dumps(result) + "\n")
    return 0


def run_loop(coroutine):
    """On uvloop when installed, as `battlehall loadtest` runs."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
