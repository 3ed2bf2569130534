"""A judge's rewind (docs/protocol.md, Judging): a live match taken back to before one of
its decisions, as a new match, against the real server, its real Redis and real sockets."""

from __future__ import annotations

import httpx
import pytest

from battlehall.verify import verify
from servers import ServerProcess
from wsutil import Raw

KEY = "sesame"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("judged"), env={"BATTLEHALL_API_KEY": KEY}).start()
    yield srv
    srv.stop()


def create(srv: ServerProcess, **body) -> dict:
    body = {"ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": 60_000}, **body}
    r = httpx.post(srv.url + "/matches", json=body, headers=AUTH, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


async def seated(srv: ServerProcess, match: str, tokens: dict) -> dict[str, tuple[Raw, dict]]:
    """Each seat's socket and its welcome."""
    out = {}
    for seat, token in tokens.items():
        sock = await Raw.open(srv.url, match)
        await sock.send({"t": "hello", "token": token})
        welcome = await sock.recv()
        assert welcome["t"] == "welcome", welcome
        out[seat] = (sock, welcome)
    return out


async def play(sockets: dict[str, tuple[Raw, dict]], answers: list[str]) -> None:
    """Answer the open prompt `len(answers)` times, whoever's it is, with these options."""
    open_prompts = [p for _, welcome in sockets.values() for p in welcome["prompts"]]
    prompt = open_prompts[0]
    for n, option in enumerate(answers):
        sock = sockets[prompt["seat"]][0]
        await sock.send({"t": "act", "id": f"a{n}", "prompt": prompt["id"], "option": option})
        await sock.recv_until(lambda m: m["t"] == "ack")
        if n < len(answers) - 1:
            other = next(s for seat, (s, _) in sockets.items() if seat != prompt["seat"])
            event = await other.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt")
            prompt = event["data"]


def replay(srv: ServerProcess, match: str) -> dict:
    r = httpx.get(f"{srv.url}/matches/{match}/replay", headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()


async def test_a_rewind_goes_on_as_a_new_match_from_before_the_decision(keyed):
    created = create(keyed)
    old = created["match"]
    sockets = await seated(keyed, old, created["tokens"])
    await play(sockets, ["guard", "strike", "strike", "guard"])

    r = httpx.post(f"{keyed.url}/matches/{old}/rewind", json={"entry": 3, "judge": "jo", "reason": "misclick"},
                   headers=AUTH)
    assert r.status_code == 201, r.text
    new = r.json()
    assert new["status"] == "live" and new["match"] != old
    assert new["rewound_from"] == {"match": old, "entry": 3, "judge": "jo"}

    # The old match ends for its sockets, naming the one that goes on.
    for sock, _ in sockets.values():
        ended = await sock.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
        assert ended["data"]["reason"] == "judge_rewind" and ended["data"]["rewound_to"] == new["match"]
    old_replay = replay(keyed, old)
    assert old_replay["log"][-1] == {**old_replay["log"][-1], "abort": True, "reason": "judge_rewind",
                                     "rewound_to": new["match"], "by": "jo", "note": "misclick"}
    assert verify(old_replay) == []  # the judge's entry re-runs like any other

    # The same tokens play the new match, which stands where the old one stood before entry 3.
    again = await seated(keyed, new["match"], created["tokens"])
    await play(again, ["guard", "strike"])
    abort = httpx.post(f"{keyed.url}/matches/{new['match']}/abort", headers=AUTH)
    assert abort.status_code == 200
    new_replay = replay(keyed, new["match"])
    assert verify(new_replay) == []
    assert new_replay["seed"] == old_replay["seed"]
    assert [{k: e[k] for k in ("seat", "prompt", "option")} for e in new_replay["log"][:2]] == \
        [{k: e[k] for k in ("seat", "prompt", "option")} for e in old_replay["log"][:2]]
    # Byte for byte: the events up to the rewind point are the old match's.
    kept = old_replay["log"][2]["seq"] - 1  # the last event before the undone entry
    strip = ("deadline", "bank_ms")  # the clock's, not the rules'

    def rules_of(events: list[dict]) -> list[dict]:
        return [{**e, "at": None, "data": {k: v for k, v in e["data"].items() if k not in strip}}
                for e in events if e["seq"] <= kept]
    assert rules_of(new_replay["events"]) == rules_of(old_replay["events"])
    # Then it went on its own way: the third answer is the new one, a guard where the old had a strike.
    assert new_replay["log"][2]["option"] == "guard" and old_replay["log"][2]["option"] == "strike"
    for sock, _ in [*sockets.values(), *again.values()]:
        await sock.ws.close()


async def test_a_rewound_match_gives_its_prompts_back_their_time(keyed):
    created = create(keyed, clock={"prompt_ms": 60_000, "bank_ms": 0})
    sockets = await seated(keyed, created["match"], created["tokens"])
    await play(sockets, ["guard", "guard"])
    r = httpx.post(f"{keyed.url}/matches/{created['match']}/rewind", json={"entry": 2, "judge": "jo"}, headers=AUTH)
    assert r.status_code == 201, r.text
    again = await seated(keyed, r.json()["match"], created["tokens"])
    prompts = [p for _, welcome in again.values() for p in welcome["prompts"]]
    assert len(prompts) == 1
    welcome = next(w for _, w in again.values())
    # About the whole minute is left, not what was left when the old match ended.
    assert prompts[0]["deadline"] - welcome["now"] > 50_000
    for sock, _ in [*sockets.values(), *again.values()]:
        await sock.ws.close()


def test_a_bad_rewind_is_refused_and_changes_nothing(keyed):
    created = create(keyed)
    match = created["match"]
    url = f"{keyed.url}/matches/{match}/rewind"
    for body, path in (({"entry": 0, "judge": "jo"}, "entry"), ({"entry": "1", "judge": "jo"}, "entry"),
                       ({"entry": 1}, "judge"), ({"entry": 1, "judge": "x" * 33}, "judge"),
                       ({"entry": 1, "judge": "jo", "reason": 7}, "reason"), ([], "")):
        r = httpx.post(url, json=body, headers=AUTH)
        assert r.status_code == 400 and r.json()["error"]["path"] == path, (body, r.text)
    # A match with no entry yet has nothing to take back.
    r = httpx.post(url, json={"entry": 1, "judge": "jo"}, headers=AUTH)
    assert r.status_code == 400 and r.json()["error"]["path"] == "entry"
    assert httpx.post(url, json={"entry": 1, "judge": "jo"}).status_code == 401
    assert httpx.post(f"{keyed.url}/matches/m_0000000000000000/rewind", json={"entry": 1, "judge": "jo"},
                      headers=AUTH).status_code == 404
    assert httpx.get(f"{keyed.url}/matches/{match}").json()["status"] == "live"
    httpx.post(f"{keyed.url}/matches/{match}/abort", headers=AUTH)
    r = httpx.post(url, json={"entry": 1, "judge": "jo"}, headers=AUTH)
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_over"


def test_a_rewind_into_an_open_window_is_refused():
    """The point a match goes on from may not be inside a reaction window: the seats would
    come back knowing how it was answered. Found by random play of the demigod ruleset."""
    import random

    from battlehall.engine import get_ruleset
    from battlehall.engine.ruleset import random_answer
    from battlehall.server.clock import DEFAULT_CLOCK, Clock
    from battlehall.server.match.match_state import MatchState
    from battlehall.server.node.rewind import refusal_of_point

    ruleset = get_ruleset("demigod")
    seats = ["alice", "bob"]
    state, _ = ruleset.start(seats, 7, {}, None)
    match = MatchState({"ruleset": "demigod"}, state, Clock.new(DEFAULT_CLOCK, seats), 0)
    rng = random.Random(3)
    found = {"window": False, "outside": False}
    for _ in range(2_000):
        prompts = ruleset.prompts(match.state)
        if not prompts or match.over:
            break
        reason = refusal_of_point(match)
        windowed = any(p.get("window") for p in prompts)
        assert (reason is not None) == windowed
        found["window" if windowed else "outside"] = True
        option, args = random_answer(rng, prompts[0])
        match.apply({"at": 0, "seat": prompts[0]["seat"], "prompt": prompts[0]["id"], "option": option,
                     "args": args})
    assert found == {"window": True, "outside": True}
