"""Server instructions per answer, counted by valgrind: a figure the machine's noise does not move.

    /tmp/venv/bin/python bench/instructions.py [SRC_DIR ...]

For each source tree (a folder holding a battlehall/ package, e.g. `git worktree add
/tmp/old REV`; default: this checkout), the server runs under `valgrind
--tool=callgrind` (its Redis outside it) while `battlehall loadtest` plays a fixed
workload against it: duel, 20 matches at a time with 2 spectators each, first 60
matches in all, then 400. The difference between the two runs, divided by the
difference in answers, is the instructions per answer with start-up and shutdown taken
out. The server also works on timers whatever the load, and under valgrind the larger
run lasts minutes longer: two idle runs (5 s and 65 s) give that work's rate, and the
second figure printed takes it out for the runs' difference in length. Timings on this machine drift by up to 30 % within minutes; instruction counts of
the same workload agree within ~1 %, so a change of a few percent shows.

Not CPU time: a cache miss or a system call counts as a few instructions. Confirm a
gain with the wall-clock benchmarks (bench/compare/ab.sh).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import httpx
from benchlib import BENCH_ENV, free_port

# Matches per run; BH_SIZES=40,200 (say) is quicker and less exact.
SIZES = tuple(int(n) for n in os.environ.get("BH_SIZES", "60,400").split(","))
PYTHON = sys.executable


IDLE_S = (5.0, 65.0)  # the two idle runs' lengths


def run(src: str, matches: int, idle_s: float = 0.0) -> tuple[int, int, float]:
    """(server instructions, answers, seconds from ready to stop) for one run of `matches`
    matches; with none, the server left idle for `idle_s`."""
    with tempfile.TemporaryDirectory() as work:
        port = free_port()
        # BENCH_ENV: no creation limit, which would refuse most of the load's creates (429)
        env = {**os.environ, **BENCH_ENV, "PYTHONPATH": src, "BATTLEHALL_DATA_DIR": work}
        out = os.path.join(work, "callgrind.out")
        server = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", PYTHON, "-m", "battlehall",
             "serve", "--port", str(port)],
            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300  # start-up under valgrind takes a while
            while True:
                try:
                    if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server under valgrind did not start")
                time.sleep(0.2)
            ready = time.monotonic()
            time.sleep(idle_s)
            answers = 0
            result = os.path.join(work, "loadtest.json")
            if matches:
                subprocess.run(
                    [PYTHON, "-m", "battlehall", "loadtest", "--url", url, "--ruleset", "duel", "--matches", "20",
                     "--spectators", "2", "--max-matches", str(matches), "--seconds", "900", "--warmup", "0",
                     "--match-timeout", "120", "--quiet", "--json-out", result],
                    env=env, check=True, stdout=subprocess.DEVNULL)
                answers = json.loads(open(result).read().splitlines()[-1])["answers"]
            seconds = time.monotonic() - ready
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(120)
        with open(out) as f:
            total = next(int(m.group(1)) for line in f if (m := re.match(r"(?:totals|summary): (\d+)", line)))
        return total, answers, seconds


def main(sources: list[str]) -> None:
    for src in sources:
        # The server also works on timers, whatever the load (lease upkeep, takeover scans,
        # its node record, the quick-play matcher): under valgrind a run lasts minutes, so
        # that work weighs on the difference too. Two idle runs give its rate per second.
        (short, _, short_s), (long, _, long_s) = (run(src, 0, s) for s in IDLE_S)
        idle_rate = (long - short) / (long_s - short_s)
        (small, small_answers, small_s), (large, large_answers, large_s) = (run(src, n) for n in SIZES)
        answers = large_answers - small_answers
        per_answer = (large - small) / answers
        timers = (large_s - small_s) * idle_rate / answers
        print(f"{src}: {per_answer / 1000:.0f}k instructions per answer, {(per_answer - timers) / 1000:.0f}k less "
              f"the timers' work at idle ({small_answers} and {large_answers} answers in {small_s:.0f} and "
              f"{large_s:.0f} s; {small / 1e9:.2f}G and {large / 1e9:.2f}G in all; idle "
              f"{idle_rate / 1e6:.1f}M a second)")


if __name__ == "__main__":
    main(sys.argv[1:] or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])
