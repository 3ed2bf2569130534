"""A replay whose log holds resigns and away marks: `battlehall verify` (verify.py) and the
replay's steps (steps.py) re-run it through apply_entry like any other entry."""

from __future__ import annotations

import random

import orjson
import pytest

from battlehall import steps
from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import apply_entry, random_answer
from battlehall.server.match.seeds import commitment
from battlehall.verify import verify

SEATS = ["alice", "bob", "carol"]


def replay_with_leavers(name: str, seed: int) -> dict:
    """A finished three-seat match, as GET /matches/{id}/replay answers it, in which a
    seat is marked away, comes back, another resigns mid-match, then a third."""
    rs = get_ruleset(name)
    rnd = random.Random(seed)
    state, events = rs.start(SEATS, seed)
    shown = [rs.reveal(e) for e in events]
    log = []
    plan = {5: {"away": "carol"}, 9: {"back": "carol"}, 14: {"resign": "bob"}, 30: {"away": "alice"}}
    k = 0
    while state["result"] is None:
        k += 1
        entry = plan.get(k)
        if entry is None:
            prompt = rnd.choice(state["prompts"])
            option, args = random_answer(rnd, prompt)
            entry = {"seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args}
        if k == 60:
            entry = {"resign": "carol"}
        entry = {**entry, "seq": len(shown) + 1, "at": 1000 * k}
        shown += [rs.reveal(e) for e in apply_entry(rs, state, entry)]
        log.append(entry)
    return {"ruleset": name, "seats": SEATS, "options": rs.resolve_options(None), "setup": None, "seed": seed,
            "seed_commitment": commitment(seed), "log": log, "result": state["result"],
            "events": [{"seq": i + 1, "at": 0, **e} for i, e in enumerate(shown)]}


@pytest.mark.parametrize("name", ["demigod", "hourglass", "spellfire"])
def test_verify_re_runs_resigns_and_away_marks(name):
    replay = replay_with_leavers(name, 11)
    kinds = [e["kind"] for e in replay["events"]]
    assert {"seat_away", "seat_back", "seat_resigned"} <= set(kinds)
    assert replay["result"]["ranking"][-1] == ["bob"]
    assert verify(replay) == []
    # a log that names another seat's resign is not this match's
    forged = {**replay, "log": [{**e, "resign": "alice"} if e.get("resign") == "bob" else e for e in replay["log"]]}
    assert verify(forged) and "differs" in " ".join(verify(forged))


@pytest.mark.parametrize("name", ["demigod", "hourglass", "spellfire"])
def test_verify_checks_the_hidden_parts_too(name):
    """A replay whose cards dealt or drawn (an event's `private`) are not the ones the seed
    gives is not this match's, though every public field matches."""
    replay = replay_with_leavers(name, 13)
    events = [dict(e) for e in replay["events"]]
    hidden = next(e for e in events if e.get("private") and e["kind"] != "prompt")
    seat = sorted(hidden["private"])[0]
    hidden["private"] = {**hidden["private"], seat: {**hidden["private"][seat], "forged": True}}
    assert any(f"event {hidden['seq']} differs" in p for p in verify({**replay, "events": events}))


@pytest.mark.parametrize("name", ["demigod", "hourglass", "spellfire"])
def test_replay_steps_show_who_left_after_each_entry(name):
    replay = replay_with_leavers(name, 12)
    idx = steps.index(replay)
    assert idx.total == len(replay["log"]) + 1
    drawn = [orjson.loads(s) for s in steps.encoded(idx, 0, idx.total)]
    resign_at = next(k for k, e in enumerate(replay["log"], start=1) if e.get("resign") == "bob")
    away_at = next(k for k, e in enumerate(replay["log"], start=1) if e.get("away") == "carol")
    for step in drawn:
        k = step["step"]
        for view in step["views"].values():
            assert view["resigned"][:1] == (["bob"] if k >= resign_at else [])
            if k in (away_at, away_at + 1):
                assert view["away"] == ["carol"]
        if k >= resign_at:
            assert step["prompts"]["bob"] == []
    assert drawn[resign_at]["entry"]["resign"] == "bob"
