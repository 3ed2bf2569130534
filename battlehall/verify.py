"""Checking a finished match from its replay: the seed it revealed is the one it committed
to at creation, and the engine, re-run from that seed on the replay's log of answers,
gives exactly the replay's events. Then no card was chosen by anyone: the deal followed
from a seed fixed (and published as a hash) before the first card was seen.
"""

from __future__ import annotations

from .engine import get_ruleset
from .engine.ruleset import apply_entry
from .server.seeds import commitment

# What the server's clock adds to prompt events (a timed match's deadlines): not the
# engine's, and shifted after a server restart, so they are left out of the comparison.
CLOCK_FIELDS = ("deadline", "bank_ms")


def _shown(event: dict) -> dict:
    data = event["data"]
    if event["kind"] == "prompt":
        data = {k: v for k, v in data.items() if k not in CLOCK_FIELDS}
    return {"kind": event["kind"], "data": data}


def verify(replay: dict) -> list[str]:
    """The problems found in `replay` (GET /matches/{id}/replay); none if it checks out."""
    if "seed" not in replay or "log" not in replay:
        return ["the replay has no seed or log to check (a match from before seeds were revealed?)"]
    seed = int(replay["seed"])
    problems = []
    if replay.get("seed_commitment") is None:
        problems.append("the replay has no seed commitment")
    elif commitment(seed) != replay["seed_commitment"]:
        problems.append(f"the seed does not match its commitment {replay['seed_commitment']}")
    ruleset = get_ruleset(replay["ruleset"])
    state, events = ruleset.start(replay["seats"], seed, replay["options"], replay["setup"])
    produced = [ruleset.reveal(e) for e in events]
    for entry in replay["log"]:
        if entry["seq"] != len(produced) + 1:
            problems.append(f"log entry at seq {entry['seq']}, the re-run is at seq {len(produced) + 1}")
            break
        try:
            events = apply_entry(ruleset, state, entry)
        except Exception as exc:  # an answer the re-run refuses: the log is not this match's
            problems.append(f"log entry at seq {entry['seq']} is refused by the re-run: {exc!r}")
            break
        produced += [ruleset.reveal(e) for e in events]
    recorded = replay["events"]
    for i, (ours, theirs) in enumerate(zip(produced, recorded)):
        if theirs.get("seq") != i + 1 or _shown(ours) != _shown(theirs):
            problems.append(f"event {i + 1} differs: replay {theirs}, re-run {ours}")
            break
    if len(produced) != len(recorded):
        problems.append(f"the re-run gives {len(produced)} events, the replay has {len(recorded)}")
    if state["result"] != replay.get("result"):
        problems.append(f"the re-run ends with {state['result']}, the replay with {replay.get('result')}")
    return problems
