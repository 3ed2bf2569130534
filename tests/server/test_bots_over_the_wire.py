"""The server's bots against the real server and its real Redis: a match against bots made
with one request, bot seats of any match, the greedy bot standing in for a quick-play
player who never came, and what a bot answer is in the replay."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from battlehall.client import Client
from queue_client import join, wait_matched
from servers import ServerProcess

FAST = {"BATTLEHALL_BOT_THINK_MS": "0", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
        "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("bots"), env=FAST).start()
    yield server
    server.stop()


def log_of(srv, match: str, token: str) -> list[dict]:
    r = httpx.get(f"{srv.url}/matches/{match}/replay", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return r.json()["log"]


async def play(srv, match: str, token: str, seed: int = 1, within_s: float = 90) -> dict:
    return await asyncio.wait_for(Client(srv.url, match, token, seed=seed).run(), within_s)


async def test_play_a_bot_makes_a_match_where_the_bot_answers_every_prompt_of_its_seat_to_the_end(srv):
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": "duel", "name": "ana"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["seat"] == "ana" and made["bots"] == {"bot-1": "greedy"}
    assert "tokens" not in made and "spectator_token" not in made  # the player's own token only
    summary = httpx.get(f"{srv.url}/matches/{made['match']}").json()
    assert summary["seats"] == ["ana", "bot-1"] and summary["bots"] == {"bot-1": "greedy"}
    assert summary["when_away"] == "bot" and summary["label"] == {"queue": "bot"}
    assert summary["clock"]["prompt_ms"] == 30_000  # a timed match, as quick play's
    result = await play(srv, made["match"], made["token"])
    assert result["reason"] != "aborted" and set(result["ranking"][0]) <= {"ana", "bot-1"}
    log = log_of(srv, made["match"], made["token"])
    answers = [e for e in log if "option" in e]
    assert {e["seat"] for e in answers} == {"ana", "bot-1"}
    assert all(e.get("bot") == "greedy" for e in answers if e["seat"] == "bot-1")
    assert not any("bot" in e for e in answers if e["seat"] == "ana")
    assert not any(e.get("timeout") for e in log)  # the bot answered in time, every time


@pytest.mark.parametrize("ruleset, seats", [("spellfire", 3), ("hourglass", 2), ("demigod", 2)])
async def test_bot_seats_of_a_created_match_play_every_ruleset_to_its_end(srv, ruleset, seats):
    names = ["me"] + [f"b{n}" for n in range(1, seats)]
    created = srv.create(ruleset=ruleset, seats=names, bots={name: "greedy" for name in names[1:]},
                         clock={"window_min_ms": 0}, seed=7, seed_public=True)
    assert list(created["tokens"]) == ["me"]  # nobody is given a bot's seat
    result = await play(srv, created["match"], created["tokens"]["me"], within_s=150)
    assert result["reason"] != "aborted"
    answers = [e for e in log_of(srv, created["match"], created["spectator_token"]) if "option" in e]
    assert all(e.get("bot") == "greedy" for e in answers if e["seat"] != "me")
    assert {e["seat"] for e in answers} - {"me"}, "the bots answered nothing"


async def test_a_quick_play_seat_whose_player_never_comes_is_played_by_the_bot_after_the_grace(tmp_path):
    server = ServerProcess(tmp_path, env={**FAST, "BATTLEHALL_AWAY_GRACE_S": "1"}).start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            a = await join(http, server.url, ruleset="duel", name="here")
            b = await join(http, server.url, ruleset="duel", name="gone")
            here, gone = await asyncio.gather(wait_matched(http, server.url, a["ticket"]),
                                              wait_matched(http, server.url, b["ticket"]))
        summary = httpx.get(f"{server.url}/matches/{here['match']}").json()
        assert summary["when_away"] == "bot"
        result = await play(server, here["match"], here["token"])  # "gone" never connects
        log = log_of(server, here["match"], here["token"])
        assert {"away": "gone"} in [{k: v for k, v in e.items() if k == "away"} for e in log]
        away_at = next(i for i, e in enumerate(log) if e.get("away") == "gone")
        theirs = [e for e in log[away_at:] if e.get("seat") == "gone"]
        assert theirs and all(e["bot"] == "greedy" for e in theirs)
        assert not any(e.get("timeout") for e in log[away_at:])  # the bot answered in time
        assert result["reason"] != "aborted"
    finally:
        server.stop()


async def test_a_player_back_from_away_takes_the_seat_back_from_the_bot(tmp_path):
    server = ServerProcess(tmp_path, env={**FAST, "BATTLEHALL_AWAY_GRACE_S": "1",
                                          "BATTLEHALL_BOT_THINK_MS": "300"}).start()
    try:
        created = server.create(ruleset="duel", when_away="bot", clock={"prompt_ms": 60_000})
        match, tokens = created["match"], created["tokens"]
        seen: list[dict] = []

        async def watch_for_away(message):
            seen.append(message)

        alice = Client(server.url, match, tokens["alice"], seed=1, think_s=0.05, on_message=watch_for_away)
        playing = asyncio.create_task(alice.run())
        for _ in range(200):  # bob is away after his grace, and the bot answers for him
            if any(m.get("kind") == "seat_away" for m in seen) and len(seen) > 40:
                break
            await asyncio.sleep(0.05)
        assert any(m.get("kind") == "seat_away" for m in seen), "bob was never marked away"
        bob = Client(server.url, match, tokens["bob"], seed=2)  # he is back
        result, _ = await asyncio.wait_for(asyncio.gather(bob.run(), playing), 90)
        log = log_of(server, match, tokens["alice"])
        back_at = next(i for i, e in enumerate(log) if e.get("back") == "bob")
        away_at = next(i for i, e in enumerate(log) if e.get("away") == "bob")
        assert away_at < back_at
        bobs = [e for e in log if e.get("seat") == "bob" and "option" in e]
        assert all(e.get("bot") == "greedy" for e in bobs if log.index(e) < back_at)
        assert all("bot" not in e for e in log[back_at:] if e.get("seat") == "bob"), "the bot kept his seat"
        assert result["reason"] != "aborted"
    finally:
        server.stop()


@pytest.mark.parametrize("body, path", [
    ({"ruleset": "duel", "level": "grandmaster"}, "level"),
    ({"ruleset": "duel", "level": ["greedy"]}, "level"),
    ({"ruleset": "chess"}, "ruleset"),
    ({"ruleset": "duel", "seats": 3}, "seats"),
    ({"ruleset": "duel", "name": "<b>"}, "name"),
    ({"ruleset": "duel", "bots": {"x": "greedy"}}, "bots"),
    ([], ""),
])
def test_a_bad_request_is_refused_naming_its_field(srv, body, path):
    r = httpx.post(f"{srv.url}/bot-matches", json=body)
    assert r.status_code == 400 and r.json()["error"]["path"] == path, r.text


def test_a_profile_not_proven_is_refused_and_a_proven_one_binds_the_players_seat_unrated(srv):
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": "duel", "profile": "p_nobody"})
    assert r.status_code == 401 and r.json()["error"]["path"] == "profile"
    profile = httpx.post(f"{srv.url}/profiles", json={"name": "ana"}).json()
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": "duel", "profile": profile["profile"]},
                   headers={"Authorization": f"Bearer {profile['secret']}"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["profiles"] == {"player": profile["profile"]} and made["rated"] is False


def test_bot_answers_are_counted_in_the_metrics(srv):
    created = srv.create(ruleset="duel", bots={"alice": "random", "bob": "random"})
    for _ in range(100):
        summary = httpx.get(f"{srv.url}/matches/{created['match']}").json()
        if summary["status"] == "finished":
            break
        time.sleep(0.1)
    assert summary["status"] == "finished"  # bots alone play a match to its end
    metrics = httpx.get(f"{srv.url}/metrics").text
    counted = next(float(line.split()[1]) for line in metrics.splitlines()
                   if line.startswith("battlehall_bot_answers_total "))
    answers = [e for e in log_of(srv, created["match"], created["spectator_token"]) if "option" in e]
    assert counted >= len(answers) > 0


async def test_a_bot_seat_plays_on_after_the_server_is_killed_and_restarted(tmp_path):
    server = ServerProcess(tmp_path, env=FAST).start()
    try:
        created = server.create(ruleset="duel", seats=["me", "bot"], bots={"bot": "greedy"}, options={"hp": 60})
        seen: list[dict] = []
        me = Client(server.url, created["match"], created["tokens"]["me"], seed=3, think_s=0.02,
                    on_message=seen.append)
        playing = asyncio.create_task(me.run())
        for _ in range(200):
            if len(seen) > 30:
                break
            await asyncio.sleep(0.05)
        assert not playing.done(), "the match ended before the restart: make it longer"
        server.kill()  # SIGKILL, server and Redis: only what was durable remains
        server.start()
        result = await asyncio.wait_for(playing, 90)  # the client reconnects by itself
        assert me.reconnects >= 1 and result["reason"] != "aborted"
        log = log_of(server, created["match"], created["tokens"]["me"])
        bots = [e for e in log if e.get("seat") == "bot"]
        assert len(bots) > 5 and all(e["bot"] == "greedy" for e in bots)
        assert not any(e.get("timeout") for e in log)  # the bot went on at once after the restart
    finally:
        server.stop()
