"""An operator's abort (`Ruleset.abort`): the same for every ruleset, pure like any answer."""

from __future__ import annotations

import msgpack
import pytest

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import MatchOver

# Nobody won, nobody drew: every seat shares the one place.
ABORTED = {"winners": [], "ranking": [["alice", "bob"]], "draw": False, "reason": "aborted", "winner": None}


@pytest.mark.parametrize("name", ruleset_names())
def test_abort_cancels_every_open_prompt_and_ends_without_a_winner(name):
    ruleset = get_ruleset(name)
    state, _ = ruleset.start(["alice", "bob"], 7)
    open_prompts = [p["id"] for p in state["prompts"]]
    assert open_prompts
    events = ruleset.abort(state)
    assert [e["kind"] for e in events] == ["prompt_closed"] * len(open_prompts) + ["match_ended"]
    assert [e["data"]["id"] for e in events[:-1]] == open_prompts
    assert all(e["data"]["reason"] == "cancelled" for e in events[:-1])
    assert events[-1]["data"] == state["result"] == ABORTED
    assert state["prompts"] == [] and ruleset.view(state, "alice")["result"] == state["result"]
    assert msgpack.unpackb(msgpack.packb(state), strict_map_key=False) == state  # still plain data
    with pytest.raises(MatchOver):
        ruleset.abort(state)
    again, _ = ruleset.start(["alice", "bob"], 7)
    assert msgpack.packb(ruleset.abort(again)) == msgpack.packb(events)  # deterministic
