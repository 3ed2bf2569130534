"""The `battlehall` command as the README tells a newcomer to use it."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "battlehall", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_play_local_prints_a_whole_match():
    done = run("play-local", "--ruleset", "spellfire", "--seed", "7")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    events, summary = lines[:-1], lines[-1]
    assert events[0]["kind"] == "match_started" and events[-1]["kind"] == "match_ended"
    assert summary["result"] == events[-1]["data"] and summary["answers"] > 10
    again = run("play-local", "--ruleset", "spellfire", "--seed", "7")
    assert again.stdout == done.stdout  # same seed, same match, byte for byte


def test_two_bots_finish_a_match(server):
    created = server.create(ruleset="spellfire", seed=7)
    bots = [subprocess.Popen([sys.executable, "-m", "battlehall", "bot", "--url", server.url,
                              "--match", created["match"], "--token", token, "--seed", str(i)]
                             + (["--json"] if i else []), stdout=subprocess.PIPE, text=True)
            for i, token in enumerate(created["tokens"].values())]
    outputs = [json.loads(b.communicate(timeout=120)[0].splitlines()[-1]) for b in bots]
    assert all(b.returncode == 0 for b in bots)
    assert {o["seat"] for o in outputs} == {"alice", "bob"}
    assert outputs[0]["result"] == outputs[1]["result"] is not None
    assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "finished"


def test_bot_with_a_bad_token_says_so(server):
    created = server.create(ruleset="duel", seed=1)
    done = run("bot", "--url", server.url, "--match", created["match"], "--token", "nope")
    assert done.returncode == 2 and "unauthorized" in done.stderr
