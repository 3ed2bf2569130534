"""A judge's rulings on an event's games and a replacement of one of its players
(docs/tournaments.md, Judges; docs/protocol.md, Judges): a game loss, a void, a player
replaced from the next round, the organiser's bound on added time; each in the match's
log and the event's, re-run by `battlehall verify`, and each refusal changing nothing.
Against the real server, its real Redis and real sockets."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import pytest

from servers import ServerProcess
from tournament_players import make_players, register_all
from wsutil import Raw

UNLIMITED = {"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
             "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}
CLOCK = {"prompt_ms": 60_000, "bank_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("judge-rulings"), env=UNLIMITED).start()
    yield srv
    srv.stop()


def event(base: str, players, **spec) -> tuple[str, dict, str]:
    """A started duel event of `players`: its id, its first round's view, a judge token of it."""
    created = httpx.post(f"{base}/tournaments", json={"name": "Judged", "ruleset": "duel", "clock": CLOCK, **spec},
                         timeout=10).json()
    tid = created["tournament"]
    register_all(base, tid, players)
    organiser = {"Authorization": f"Bearer {created['organiser_token']}"}
    assert httpx.post(f"{base}/tournaments/{tid}/start", headers=organiser, timeout=10).status_code == 200
    token = httpx.post(f"{base}/tournaments/{tid}/judges", json={"name": "jo"}, headers=organiser,
                       timeout=10).json()["token"]
    return tid, playing(base, tid, 1), token


def playing(base: str, tid: str, round_number: int, old: set[str] = frozenset()) -> dict:
    """The event once every table of `round_number` has a game in play (none of `old`)."""
    deadline = time.monotonic() + 20
    while True:
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
        tables = shown["rounds"][-1]["tables"] if len(shown["rounds"]) == round_number else []
        if tables and all(t["playing"] and t["playing"]["match"] not in old for t in tables):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.1)


def until(base: str, tid: str, done) -> dict:
    deadline = time.monotonic() + 20
    while True:
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
        if done(shown):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.1)


async def resign(base: str, player, tid: str) -> None:
    """The player resigns the game they are called to."""
    table = httpx.get(f"{base}/tournaments/{tid}/my", params={"profile": player.profile}, headers=player.auth,
                      timeout=10).json()["table"]
    sock = await Raw.open(base, table["match"])
    assert (await sock.hello(table["token"]))["t"] == "welcome"
    await sock.send({"t": "resign", "id": "r"})
    await sock.recv_until(lambda m: m["t"] == "ack")
    await sock.ws.close()


def verified(base: str, tid: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "battlehall", "verify", f"{base}/tournaments/{tid}", "--matches"],
                          capture_output=True, text=True, timeout=60)


def seat_of(base: str, match: str, player) -> str:
    """The seat name of `player` in `match` (the seats are named after the players)."""
    seats = httpx.get(f"{base}/matches/{match}", timeout=10).json()["seats"]
    return next(s for s in seats if s.startswith(player.name.replace(" ", "_")))


async def test_a_game_loss_ends_the_game_at_once_and_the_event_enters_the_ruling(server, tmp_path):
    base = server.url
    players = make_players(base, 2, prefix="Gl")
    tid, shown, token = event(base, players)
    judge = {"Authorization": f"Bearer {token}"}
    match = shown["rounds"][0]["tables"][0]["playing"]["match"]
    loser = seat_of(base, match, players[0])
    url = f"{base}/matches/{match}/ruling"
    for body, path in (({"ruling": "game_loss", "seat": "nobody", "reason": "r"}, "seat"),
                       ({"ruling": "game_loss", "seat": loser}, "reason"),
                       ({"ruling": "forfeit", "seat": loser, "reason": "r"}, "ruling"),
                       ({"ruling": "void", "seat": loser, "reason": "r"}, "seat")):
        r = httpx.post(url, json=body, headers=judge, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["path"] == path, r.text
    assert httpx.get(f"{base}/matches/{match}", timeout=10).json()["result"] is None  # nothing changed
    assert httpx.post(url, json={"ruling": "game_loss", "seat": loser, "reason": "r"}, timeout=10).status_code == 403

    r = httpx.post(url, json={"ruling": "game_loss", "seat": loser, "reason": "marked cards"}, headers=judge,
                   timeout=10)
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["reason"] == "judge_ruling" and result["ranking"][-1] == [loser]
    assert result["ruling"] == {"ruling": "game_loss", "seat": loser, "by": "jo", "note": "marked cards"}
    log = httpx.get(f"{base}/matches/{match}/log", headers=judge, timeout=10).json()["log"]
    assert {k: log[-1][k] for k in ("abort", "reason", "ruling", "seat", "by", "note")} == {
        "abort": True, "reason": "judge_ruling", "ruling": "game_loss", "seat": loser, "by": "jo",
        "note": "marked cards"}

    # A ruling on the ended match is refused, and the match stays as it ended.
    again = httpx.post(url, json={"ruling": "game_win", "seat": loser, "reason": "r"}, headers=judge, timeout=10)
    assert again.status_code == 409 and again.json()["error"]["code"] == "match_over"
    assert httpx.get(f"{base}/matches/{match}", timeout=10).json()["result"]["ranking"][-1] == [loser]

    final = until(base, tid, lambda s: s["status"] == "finished")
    assert [(j["action"], j["judge"], j["reason"], j["player"]) for j in final["judged"]] == [
        ("game_loss", "jo", "marked cards", players[0].profile)]
    entries = httpx.get(f"{base}/tournaments/{tid}/log", timeout=10).json()["entries"]
    game = next(e for e in entries if e["k"] == "game")
    assert game["places"] == [[players[1].profile], [players[0].profile]] and game["match"] == match
    done = verified(base, tid)
    assert done.returncode == 0, done.stderr
    assert "1 judged" in done.stdout

    # The log with the ruled game's places turned round is refused by verify.
    tampered = httpx.get(f"{base}/tournaments/{tid}/log", timeout=10).json()
    next(e for e in tampered["entries"] if e["k"] == "game")["places"].reverse()
    saved = tmp_path / "tampered.json"
    saved.write_text(json.dumps(tampered))
    refused = subprocess.run([sys.executable, "-m", "battlehall", "verify", str(saved)], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 1 and "ruled a game loss" in refused.stderr


async def test_a_voided_game_is_not_counted_and_its_table_plays_it_again(server):
    base = server.url
    players = make_players(base, 2, prefix="Vo")
    tid, shown, token = event(base, players)
    judge = {"Authorization": f"Bearer {token}"}
    voided = shown["rounds"][0]["tables"][0]["playing"]["match"]
    r = httpx.post(f"{base}/matches/{voided}/ruling", json={"ruling": "void", "reason": "wrong deck"},
                   headers=judge, timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["result"]["reason"] == "judge_void" and r.json()["result"]["winners"] == []

    # A new match at the same table, the same players in the same seats.
    again = playing(base, tid, 1, old={voided})
    replay = again["rounds"][0]["tables"][0]["playing"]["match"]
    assert again["rounds"][0]["tables"][0]["games"] == []
    assert httpx.get(f"{base}/matches/{replay}", timeout=10).json()["seats"] == \
        httpx.get(f"{base}/matches/{voided}", timeout=10).json()["seats"]
    assert [(j["action"], j["match"], j["reason"]) for j in again["judged"]] == [("void", voided, "wrong deck")]

    await resign(base, players[0], tid)
    final = until(base, tid, lambda s: s["status"] == "finished")
    games = [g for t in final["rounds"][0]["tables"] for g in t["games"]]
    assert [(g["match"], g["places"]) for g in games] == [(replay, [[players[1].profile], [players[0].profile]])]
    done = verified(base, tid)
    assert done.returncode == 0, done.stderr


async def test_a_replacement_takes_the_player_s_place_and_record_from_the_next_round(server):
    base = server.url
    players = make_players(base, 4, prefix="Rp")
    newcomer, = make_players(base, 1, prefix="Zed")
    tid, shown, token = event(base, players, rounds=2)
    judge = {"Authorization": f"Bearer {token}"}
    url = f"{base}/tournaments/{tid}/replace"
    gone = players[0]
    before = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()["version"]
    for body, code in (({"player": newcomer.profile, "replacement": "p_nobody", "reason": "r"}, "not_registered"),
                       ({"player": gone.profile, "replacement": players[1].profile, "reason": "r"},
                        "already_registered")):
        r = httpx.post(url, json=body, headers=judge, timeout=10)
        assert r.status_code == 409 and r.json()["error"]["code"] == code, r.text
    r = httpx.post(url, json={"player": gone.profile, "replacement": newcomer.profile}, headers=judge, timeout=10)
    assert r.status_code == 400 and r.json()["error"]["path"] == "reason"
    assert httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()["version"] == before  # nothing changed

    r = httpx.post(url, json={"player": gone.profile, "replacement": newcomer.profile, "reason": "fell ill"},
                   headers=judge, timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["replacing"] == [{"player": gone.profile, "replacement": newcomer.profile, "name": newcomer.name}]
    assert gone.profile in [p["player"] for p in r.json()["players"]]  # the round in play is still theirs

    # Round 1 played: the loser of each table resigns (the replaced player wins theirs).
    old = {t["playing"]["match"] for t in shown["rounds"][0]["tables"]}
    for table in shown["rounds"][0]["tables"]:
        loser = next(p for p in players if p.profile in table["players"] and p is not gone)
        await resign(base, loser, tid)
    second = playing(base, tid, 2, old=old)
    ids = [p["player"] for p in second["players"]]
    assert newcomer.profile in ids and gone.profile not in ids and second["replacing"] == []
    standing = next(s for s in second["standings"] if s["player"] == newcomer.profile)
    assert standing["points"] == 3 and standing["match"] == [1, 0, 0]  # the record moved with the place
    assert any(newcomer.profile in t["players"] for t in second["rounds"][1]["tables"])
    mine = httpx.get(f"{base}/tournaments/{tid}/my", params={"profile": newcomer.profile}, headers=newcomer.auth,
                     timeout=10).json()
    assert mine["table"]["round"] == 2

    for table in second["rounds"][1]["tables"]:
        loser = next(p for p in [*players, newcomer] if p.profile == table["players"][0])
        await resign(base, loser, tid)
    until(base, tid, lambda s: s["status"] == "finished")
    late = httpx.post(url, json={"player": newcomer.profile, "replacement": gone.profile, "reason": "r"},
                      headers=judge, timeout=10)
    assert late.status_code == 409 and late.json()["error"]["code"] == "not_running"
    done = verified(base, tid)
    assert done.returncode == 0, done.stderr


async def test_time_added_past_the_organiser_s_bound_is_refused_and_each_clock_action_is_in_the_event_s_log(server):
    base = server.url
    players = make_players(base, 2, prefix="Tb")
    tid, shown, token = event(base, players, judging={"max_added_s": 60})
    judge = {"Authorization": f"Bearer {token}"}
    match = shown["rounds"][0]["tables"][0]["playing"]["match"]
    seat = seat_of(base, match, players[0])
    r = httpx.post(f"{base}/matches/{match}/time", json={"seat": seat, "ms": 50_000, "reason": "a spill"},
                   headers=judge, timeout=10)
    assert r.status_code == 200, r.text
    banks = r.json()["banks"]
    refused = httpx.post(f"{base}/matches/{match}/time", json={"seat": seat, "ms": 20_000}, headers=judge, timeout=10)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "time_bound", refused.text
    log = httpx.get(f"{base}/matches/{match}/log", headers=judge, timeout=10).json()["log"]
    assert [e["judge"]["ms"] for e in log if "judge" in e] == [50_000]  # nothing more was added
    assert httpx.post(f"{base}/matches/{match}/pause", json={"reason": "a dispute"}, headers=judge,
                      timeout=10).status_code == 200
    assert httpx.post(f"{base}/matches/{match}/resume", headers=judge, timeout=10).status_code == 200
    shown = until(base, tid, lambda s: len(s["judged"]) == 3)
    assert [(j["action"], j["reason"], j["match"]) for j in shown["judged"]] == [
        ("add_time", "a spill", match), ("pause", "a dispute", match), ("resume", None, match)]
    assert shown["judged"][0]["seat"] == seat and shown["judged"][0]["ms"] == 50_000
    assert banks[seat] == 50_000
    bad = httpx.post(f"{base}/tournaments", json={"name": "x", "ruleset": "duel", "judging": {"max_added_s": -1}},
                     timeout=10)
    assert bad.status_code == 400 and bad.json()["error"]["path"] == "judging.max_added_s"


async def test_a_judge_token_opens_no_ruling_or_replacement_outside_its_tournament(server):
    base = server.url
    ours = make_players(base, 2, prefix="Oa")
    theirs = make_players(base, 2, prefix="Ob")
    tid, _, token = event(base, ours)
    other, shown, _ = event(base, theirs)
    judge = {"Authorization": f"Bearer {token}"}
    match = shown["rounds"][0]["tables"][0]["playing"]["match"]
    r = httpx.post(f"{base}/matches/{match}/ruling", json={"ruling": "void", "reason": "r"}, headers=judge,
                   timeout=10)
    assert r.status_code == 401
    r = httpx.post(f"{base}/tournaments/{other}/replace",
                   json={"player": theirs[0].profile, "replacement": ours[0].profile, "reason": "r"},
                   headers=judge, timeout=10)
    assert r.status_code == 401
    assert httpx.get(f"{base}/matches/{match}", timeout=10).json()["result"] is None
    assert httpx.get(f"{base}/tournaments/{other}", timeout=10).json()["judged"] == []
