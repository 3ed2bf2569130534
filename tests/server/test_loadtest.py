"""`battlehall loadtest` as a user runs it, against the real server and its real Redis."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from servers import ServerProcess
from stopping import ENV as HANG_ENV
from stopping import foreground, wait_or_report


def answers_total(url: str) -> int:
    text = httpx.get(url + "/metrics", timeout=5).text
    return int(float(re.search(r"^battlehall_answers_total (\S+)$", text, re.M).group(1)))


@pytest.mark.parametrize("batch", [False, True])
def test_loadtest_plays_duel_matches_and_counts_every_ack(server, tmp_path, batch):
    out = tmp_path / "result.jsonl"
    before = answers_total(server.url)
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", server.url, "--ruleset", "duel",
         "--matches", "10", "--seconds", "2", "--warmup", "0.5", "--spectators", "1", "--seed", "7",
         "--quiet", "--json-out", str(out), "--max-matches", "2000"] + (["--batch"] if batch else []),
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert json.loads(proc.stdout.splitlines()[-1]) == result  # the last stdout line is the same JSON
    assert result["batch"] is batch

    assert result["matches_finished"] > 0
    assert result["answers"] > 0 and result["answers_per_s"] > 0
    ack = result["ack_ms"]
    assert ack["n"] == result["answers"]  # one latency sample per acknowledged answer of the window
    assert 0 < ack["p50"] <= ack["p90"] <= ack["p99"] <= ack["max"] < 10_000

    totals = result["totals"]
    # Every act sent in the whole run was acknowledged: none refused, none lost.
    # (The whole report in the message: an act that went missing must say how.)
    assert totals["acts_sent"] == totals["acks"] > result["answers"], result
    assert totals["refused"] == 0 and totals["unacknowledged"] == 0, result
    # Only retried refusals are tolerated (the server limits each socket to 50 messages/s).
    assert set(result["errors"]) <= {"rate_limited"}, result["errors"]
    # The server applied at least every answer we saw acknowledged (other tests' matches may add timeouts).
    assert answers_total(server.url) - before >= totals["acks"]

    spec = result["spectator_ms"]
    assert 0 < spec["n"] <= result["answers"]
    assert 0 < spec["p50"] <= spec["p99"]


def test_loadtest_stops_once_max_matches_are_played(server, tmp_path):
    out = tmp_path / "result.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", server.url, "--ruleset", "duel",
         "--matches", "2", "--max-matches", "3", "--seconds", "120", "--warmup", "0", "--seed", "11",
         "--quiet", "--json-out", str(out)],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["matches_finished"] == 3 and result["totals"]["matches_created"] == 3
    assert result["seconds"] < 30  # not the 120 asked: there was nothing left to play
    assert result["totals"]["acts_sent"] == result["totals"]["acks"] > 0


def test_loadtest_plays_six_seat_spellfire_to_the_end(server, tmp_path):
    """Six sockets per match; every card played in a battle opens a window to the five other seats."""
    out = tmp_path / "result.jsonl"
    before = answers_total(server.url)
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", server.url, "--ruleset", "spellfire",
         "--seats", "6", "--matches", "2", "--max-matches", "2", "--seconds", "120", "--warmup", "0",
         "--seed", "13", "--quiet", "--clock", '{"window_min_ms": 0}', "--json-out", str(out)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["seats"] == 6  # one socket per seat, each with the token the server made for it
    assert result["matches_finished"] == 2  # match_ended seen
    assert set(result["errors"]) <= {"rate_limited"}, result["errors"]
    totals = result["totals"]
    assert totals["matches_created"] == 2 and totals["matches_left_live"] == 0
    # Every act was acknowledged, or refused because another seat's answer had closed its
    # window prompt first (several seats answer one window at once): nothing else.
    assert totals["refused"] == totals["overtaken"]
    assert totals["acts_sent"] == totals["acks"] + totals["refused"] and totals["unacknowledged"] == 0
    assert totals["acks"] > 2 * 100  # whole matches of six seats, not a few answers
    assert answers_total(server.url) - before >= totals["acks"]


def test_loadtest_reports_a_seat_count_the_ruleset_refuses(server, tmp_path):
    out = tmp_path / "result.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", server.url, "--ruleset", "duel", "--seats", "3",
         "--matches", "1", "--seconds", "0.5", "--warmup", "0", "--quiet", "--json-out", str(out)],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # no answers: a failed run
    result = json.loads(out.read_text().splitlines()[-1])
    assert set(result["errors"]) == {"http_400"} and result["totals"]["matches_created"] == 0


# Reaction windows held a minute: the Spellfire matches are all live when the run stops.
HELD = '{"window_min_ms": 60000}'


def live_matches(url: str) -> list[str]:
    """Every live match (the operator's list: `GET /matches` lists public matches only)."""
    listed = httpx.get(url + "/operator/matches", headers={"Authorization": "Bearer sesame"}).json()["matches"]
    return [m["match"] for m in listed if m["status"] == "live"]


@pytest.fixture
def keyed(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": "sesame"}).start()
    yield srv
    srv.stop()


def test_loadtest_leaves_no_live_match_behind(keyed, tmp_path):
    """Matches it left live were recovered and played on by the server's next start."""
    out = tmp_path / "result.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", keyed.url, "--ruleset", "spellfire",
         "--matches", "3", "--seconds", "1", "--warmup", "0", "--seed", "5", "--quiet", "--clock", HELD,
         "--json-out", str(out), "--api-key", "sesame"],
        capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    totals = json.loads(out.read_text().splitlines()[-1])["totals"]
    assert totals["matches_created"] >= 3 and totals["matches_aborted"] >= 1
    assert totals["matches_left_live"] == 0
    assert live_matches(keyed.url) == []


def test_an_interrupted_loadtest_leaves_no_live_match_behind(keyed, tmp_path):
    env = {**os.environ, "BATTLEHALL_API_KEY": "sesame", **HANG_ENV}  # the key from the environment, as the server's
    proc = subprocess.Popen(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", keyed.url, "--ruleset", "spellfire",
         "--matches", "3", "--seconds", "600", "--warmup", "0", "--quiet", "--clock", HELD],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=foreground)
    try:
        deadline = time.monotonic() + 30
        while len(live_matches(keyed.url)) < 3:
            assert time.monotonic() < deadline, "the load test's matches never all started"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        wait_or_report(proc, 60, logs=[keyed.data_dir / f"server-{keyed.port}.log"])
        err = proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert live_matches(keyed.url) == []


def test_without_the_key_the_loadtest_says_what_it_left_live(server, tmp_path):
    # A fixed seed: with some deals random play ends a two-seat match before its first
    # window (which HELD keeps open a minute), and nothing is left live.
    out = tmp_path / "result.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "battlehall", "loadtest", "--url", server.url, "--ruleset", "spellfire",
         "--matches", "1", "--max-matches", "1", "--seconds", "1", "--warmup", "0", "--quiet", "--seed", "1",
         "--clock", HELD, "--json-out", str(out)],
        capture_output=True, text=True, timeout=90, env={k: v for k, v in os.environ.items() if k != "BATTLEHALL_API_KEY"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["totals"]["matches_left_live"] == 1 and result["abort_errors"] == {"http_403": 1}, (json.dumps(result), proc.stderr)
    assert "left live" in proc.stderr and "--api-key" in proc.stderr


def test_a_refused_create_waits_the_servers_retry_after():
    """A slot whose create was refused 429 waits what Retry-After says (bounded), so a
    load test against a server with a creation limit does not spend the server's CPU on
    refusals; other refusals wait the short default."""
    from battlehall.loadtest import CREATE_RETRY_S, MAX_CREATE_RETRY_S, retry_delay_s
    assert retry_delay_s(httpx.Response(429, headers={"Retry-After": "3"})) == 3.0
    assert retry_delay_s(httpx.Response(429, headers={"Retry-After": "3600"})) == MAX_CREATE_RETRY_S
    assert retry_delay_s(httpx.Response(400)) == CREATE_RETRY_S
    assert retry_delay_s(httpx.Response(429, headers={"Retry-After": "soon"})) == CREATE_RETRY_S


def readme_load_test() -> tuple[dict, list[str], list[str]]:
    """The README's load test, as it tells a newcomer to run it: (the environment it
    exports, `make serve`'s ARGS, the load test's arguments)."""
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if "battlehall loadtest" in b)
    env, serve, load = {}, None, None
    for line in block.splitlines():
        words = shlex.split(line.strip(), comments=True)
        if words[:1] == ["export"]:
            name, _, _ = words[1].partition("=")
            env[name] = "readme-load-test-key"  # the README makes a random one
        elif words[:2] == ["make", "serve"]:
            given = next((w for w in words if w.startswith("ARGS=")), "ARGS=")
            serve = shlex.split(given.removeprefix("ARGS="))
        elif words[:2] == [".venv/bin/battlehall", "loadtest"]:
            load = words[2:]
    assert serve is not None and load is not None, block
    return env, serve, load


def test_the_readmes_load_test_is_not_throttled_by_the_server_the_readme_starts(tmp_path):
    """`loadtest --matches 5 --seconds 5` against `make serve` as the README started it got
    `http_429` past the default creation limit's burst, and half its throughput."""
    from battlehall.server.config import Settings

    env, serve_args, load_args = readme_load_test()
    # Smaller numbers than the README's, and still far past the creation limit's burst of 60.
    load_args = [{"100": "5", "20": "5"}.get(arg, arg) for arg in load_args]
    defaults = Settings()
    server_env = {**env, "BATTLEHALL_CREATE_PER_MIN": f"{defaults.create_per_min:g}",  # not the suite's 0
                  "BATTLEHALL_CREATE_BURST": str(defaults.create_burst)}
    srv = ServerProcess(tmp_path, env=server_env, args=tuple(serve_args)).start()
    out = tmp_path / "result.jsonl"
    try:
        proc = subprocess.run([sys.executable, "-m", "battlehall", "loadtest", *load_args, "--url", srv.url,
                               "--ruleset", "duel", "--warmup", "0", "--quiet", "--json-out", str(out)],
                              capture_output=True, text=True, timeout=90, env={**os.environ, **env})
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text().splitlines()[-1])
    assert result["totals"]["matches_created"] > defaults.create_burst, result  # past the burst
    assert "http_429" not in result["errors"], result["errors"]
    assert result["totals"]["matches_left_live"] == 0, result  # and it could abort what it left


def test_a_throttled_loadtest_without_the_key_says_how_to_pass_the_limit(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_CREATE_PER_MIN": "1", "BATTLEHALL_CREATE_BURST": "1"}).start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "battlehall", "loadtest", "--url", srv.url, "--ruleset", "duel", "--matches", "2",
             "--seconds", "1", "--warmup", "0", "--quiet"],
            capture_output=True, text=True, timeout=60,
            env={k: v for k, v in os.environ.items() if k != "BATTLEHALL_API_KEY"})
    finally:
        srv.stop()
    assert json.loads(proc.stdout.splitlines()[-1])["errors"].get("http_429", 0) > 0, proc.stdout
    assert "refused" in proc.stderr and "creation limit" in proc.stderr and "--api-key" in proc.stderr, proc.stderr
