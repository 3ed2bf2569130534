"""The HTTP routes of docs/protocol.md against the real server."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from battlehall.client import Client
from battlehall.engine import get_ruleset, ruleset_names
from create_bodies import any_bodies
from servers import ServerProcess, bearer


@pytest.mark.parametrize("body, path", [
    ({"ruleset": "chess", "seats": ["a", "b"]}, "ruleset"),
    ({"ruleset": "duel"}, "seats"),
    ({"ruleset": "duel", "seats": ["a", "a"]}, "seats[1]"),
    ({"ruleset": "duel", "seats": ["a", "b", "c"]}, "seats"),
    ({"ruleset": "spellfire", "seats": ["a"]}, "seats"),
    ({"ruleset": "spellfire", "seats": ["a", "b", "c", "d", "e", "f", "g"]}, "seats"),
    ({"ruleset": "duel", "seats": ["a", "b c"]}, "seats[1]"),
    ({"ruleset": "duel", "seats": ["a", "b"], "seed": -1}, "seed"),
    ({"ruleset": "duel", "seats": ["a", "b"], "seed": "x"}, "seed"),
    ({"ruleset": "duel", "seats": ["a", "b"], "options": {"hp": 0}}, "options.hp"),
    ({"ruleset": "duel", "seats": ["a", "b"], "options": {"speed": 2}}, "options.speed"),
    ({"ruleset": "duel", "seats": ["a", "b"], "clock": {"prompt_ms": "soon"}}, "clock.prompt_ms"),
    ({"ruleset": "duel", "seats": ["a", "b"], "clock": {"turbo": 1}}, "clock.turbo"),
    ({"ruleset": "duel", "seats": ["a", "b"], "spectators": {"delay_ms": -5}}, "spectators.delay_ms"),
    ({"ruleset": "duel", "seats": ["a", "b"], "label": {"x": 1}}, "label.x"),
    ({"ruleset": "duel", "seats": ["a", "b"], "colour": "red"}, "colour"),
    ({"ruleset": "duel", "seats": ["a", "b", "c"]}, "seats"),
    ({"ruleset": "duel", "seats": ["a", "b"], "setup": {"x": 1}}, "setup"),
    ({"ruleset": "duel", "seats": ["a", "b"], "options": []}, "options"),
    ({"ruleset": "duel", "seats": ["a", "b"], "clock": []}, "clock"),
    ({"ruleset": "spellfire", "seats": ["a", "b"], "options": {"decks": [["embers"], "shadows"]}}, "options.decks[0]"),
    ({"ruleset": "spellfire", "seats": ["a", "b"], "options": {"decks": ["embers", {}]}}, "options.decks[1]"),
    ({"ruleset": "spellfire", "seats": ["a", "b"],
      "setup": {"cards": [{"id": "x", "name": "X", "type": "event", "hook": ["lure"]}]}}, "setup.cards[0].hook"),
    ({"ruleset": "spellfire", "seats": ["a", "b"],
      "setup": {"cards": [{"id": "x", "name": "X", "type": "event", "hook": {"a": 1}}]}}, "setup.cards[0].hook"),
    ([1, 2], ""),
])
def test_create_rejects_bad_fields_by_name(server, body, path):
    # By the server's own count: the listing shows public matches only, and those as of
    # their stream delay, which moves on by itself.
    with httpx.Client(base_url=server.url) as http:
        before = matches_created(http)
        r = http.post("/matches", json=body)
        assert r.status_code == 400
        error = r.json()["error"]
        assert error["path"] == path and error["code"] and error["message"]
        assert matches_created(http) == before  # nothing created


@pytest.mark.parametrize("method, path, status, code", [
    ("GET", "/nowhere", 404, "not_found"),
    ("GET", "/matches/m_x/nowhere", 404, "not_found"),
    ("PUT", "/matches", 405, "method_not_allowed"),
    ("DELETE", "/rulesets", 405, "method_not_allowed"),
    ("POST", "/healthz", 405, "method_not_allowed"),
])
def test_unknown_routes_and_methods_answer_in_the_error_form(server, method, path, status, code):
    r = httpx.request(method, server.url + path)
    assert r.status_code == status and r.headers["content-type"] == "application/json"
    error = r.json()["error"]
    assert error["code"] == code and error["message"]


def test_405_lists_every_method_of_the_path(server):
    r = httpx.request("PUT", server.url + "/matches")
    assert set(r.headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}
    r = httpx.request("PUT", server.url + "/matches/m_x")
    assert set(r.headers["allow"].split(", ")) == {"GET", "HEAD", "DELETE"}


async def test_a_huge_seat_list_is_refused_at_once_and_holds_nobody_up(server):
    """40,000 seat names once held the event loop 6.8 s (a quadratic duplicate check)."""
    huge = {"ruleset": "duel", "seats": [f"s{i}" for i in range(40_000)]}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        refused, health = await asyncio.gather(http.post("/matches", json=huge), http.get("/healthz"))
    assert refused.status_code == 400 and refused.json()["error"]["path"] == "seats"
    assert health.status_code == 200


def test_create_rejects_non_json(server):
    r = httpx.post(server.url + "/matches", content=b"{oops")
    assert r.status_code == 400 and r.json()["error"]["path"] == ""


def test_rulesets_health_and_metrics(server):
    described = httpx.get(server.url + "/rulesets").json()["rulesets"]
    names = [r["name"] for r in described]
    seats = {r["name"]: r["seats"] for r in described}
    assert seats["spellfire"] == {"min": 2, "max": 6} and seats["duel"] == {"min": 2, "max": 2}
    assert {"duel", "spellfire"} <= set(names)
    assert httpx.get(server.url + "/healthz").json() == {"ok": True}
    assert httpx.get(server.url + "/readyz").json() == {"ready": True}
    assert "battlehall_answers_total" in httpx.get(server.url + "/metrics").text


def test_rulesets_show_each_declaration(server):
    """GET /rulesets shows what each ruleset declares; its seat range is the declaration's."""
    described = {r["name"]: r for r in httpx.get(server.url + "/rulesets").json()["rulesets"]}
    assert sorted(described) == ruleset_names()
    for name, entry in described.items():
        declared = get_ruleset(name).declaration
        assert entry["seats"] == {"min": declared.min_seats, "max": declared.max_seats}
        assert entry["declaration"] == {"information": declared.information, "moves": declared.moves,
                                        "chance": declared.chance}
    assert described["spellfire"]["declaration"] == {"information": "hidden", "moves": "simultaneous", "chance": "seeded"}
    assert described["duel"]["declaration"]["information"] == "perfect"


def _outside(spec: dict) -> list:
    """Values just outside an option's declared schema."""
    if spec["type"] == "integer":
        return [spec["min"] - 1, spec["max"] + 1, str(spec["min"]), True]
    if spec["type"] == "choice":
        return ["".join(spec["choices"]) + "?", 1, None]
    if spec["type"] == "boolean":
        return ["yes", 0, None]
    assert spec["type"] == "list", spec
    return [[]] if spec.get("nullable") else [None]  # a list of no deck: wrong length or kind


def test_rulesets_declare_each_options_schema_and_validation_follows_it(server):
    """Tests follow the declaration: every option of every ruleset says its type with its
    bounds or choices, a label and help; a value outside them is a 400 naming the option."""
    described = {r["name"]: r for r in httpx.get(server.url + "/rulesets").json()["rulesets"]}
    assert {described[n]["title"] for n in described} >= {"Spellfire", "Heirless", "Demayth", "Duel"}
    turns = described["demigod"]["options"]["turn_limit"]
    assert (turns["type"], turns["min"], turns["max"], turns["label"]) == ("integer", 1, 100, "Turn limit")
    assert described["demigod"]["options"]["map"]["type"] == "choice"
    assert {n for n, r in described.items() if r["windows"]} == {"demigod", "spellfire"}
    with httpx.Client(base_url=server.url) as http:
        for name, entry in described.items():
            seats = [f"s{i}" for i in range(entry["seats"]["min"])]
            for option, spec in entry["options"].items():
                assert "default" in spec and spec["doc"] and spec["label"], (name, option)
                assert spec["type"] in ("integer", "choice", "boolean", "list"), (name, option)
                if spec["type"] == "integer":
                    assert isinstance(spec["min"], int) and spec["min"] <= spec["default"] <= spec["max"]
                elif spec["type"] in ("choice", "list"):
                    assert spec["choices"] and all(isinstance(c, str) for c in spec["choices"])
                    if spec["type"] == "choice":
                        assert spec["default"] in spec["choices"]
                for value in _outside(spec):
                    r = http.post("/matches", json={"ruleset": name, "seats": seats, "options": {option: value}})
                    assert r.status_code == 400, (name, option, value)
                    error = r.json()["error"]
                    assert error["code"] == "bad_setup" and error["path"].startswith(f"options.{option}"), \
                        (name, option, value, error)
                if spec["type"] == "list":
                    r = http.post("/matches", json={"ruleset": name, "seats": seats,
                                                    "options": {option: ["?"] * len(seats)}})
                    assert r.status_code == 400 and r.json()["error"]["path"] == f"options.{option}[0]"


async def test_list_summary_and_replay(server):
    created = server.create(ruleset="duel", seed=4, label={"cup": "friday"}, spectators={"public": True})
    listed = httpx.get(server.url + "/matches", params={"ruleset": "duel", "status": "live"}).json()["matches"]
    mine = [m for m in listed if m["match"] == created["match"]]
    assert mine and mine[0]["label"] == {"cup": "friday"} and mine[0]["status"] == "live"
    assert "tokens" not in mine[0] and created["tokens"]["alice"] not in httpx.get(server.url + "/matches").text
    assert httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).status_code == 409
    assert httpx.get(f"{server.url}/matches/m_nope").status_code == 404
    bots = [Client(server.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
    await asyncio.gather(*(b.run() for b in bots))
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    assert replay["status"] == "finished"
    seqs = [e["seq"] for e in replay["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert replay["events"][-1]["kind"] == "match_ended"
    # Revealed: each prompt event carries its options in its seat's private part, apart
    # from the public data (two seats' fields of one name must not overwrite each other).
    prompts = [e for e in replay["events"] if e["kind"] == "prompt"]
    assert prompts and all("options" not in e["data"] for e in prompts)
    assert all(list(e["private"]) == [e["data"]["seat"]] and "options" in e["private"][e["data"]["seat"]]
               for e in prompts)
    listed = httpx.get(server.url + "/matches").json()["matches"]
    assert created["match"] not in [m["match"] for m in listed]


def test_api_key_required_when_configured(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": "sesame"}).start()
    try:
        body = {"ruleset": "duel", "seats": ["a", "b"]}
        assert httpx.post(srv.url + "/matches", json=body).status_code == 401
        assert httpx.post(srv.url + "/matches", json=body, headers={"Authorization": "Bearer nope"}).status_code == 401
        assert httpx.post(srv.url + "/matches", json=body, headers={"Authorization": "Bearer sesame"}).status_code == 201
        # The scheme name is case-insensitive (RFC 7235); the key is not.
        for scheme in ("bearer", "BEARER", "bEaReR"):
            r = httpx.post(srv.url + "/matches", json=body, headers={"Authorization": f"{scheme} sesame"})
            assert r.status_code == 201, (scheme, r.text)
        r = httpx.post(srv.url + "/matches", json=body, headers={"Authorization": "Bearer SESAME"})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    finally:
        srv.stop()


async def test_an_idle_keep_alive_connection_outlasts_the_clients_idle_timeout(server):
    """Clients keep idle connections ~4-5 s (Node's fetch: 4 s); had the server closed
    them at 5 s too, a request sent at that moment would meet a reset."""
    host, port = server.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    request = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    for pause in (6.5, 0):  # 6.5 s: longer than uvicorn's default keep-alive (5 s)
        writer.write(request)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        await reader.readexactly(length)
        await asyncio.sleep(pause)
    writer.close()


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_bodies)
def test_any_body_gets_201_or_a_400_naming_a_path_and_creates_nothing(http, case):
    body, _ = case
    before = matches_created(http)
    r = http.post("/matches", json=body)
    assert r.status_code in (201, 400), r.text
    if r.status_code == 400:
        error = r.json()["error"]
        assert isinstance(error["path"], str) and error["code"] and error["message"]
        assert matches_created(http) == before
    else:
        assert http.get(f"/matches/{r.json()['match']}").status_code == 200


def matches_created(http: httpx.Client) -> int:
    """Matches created so far, by the server's own count."""
    text = http.get("/metrics").text
    return int(float(re.search(r"^battlehall_matches_created_total (\S+)$", text, re.M).group(1)))
