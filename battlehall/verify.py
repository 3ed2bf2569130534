"""Checking a finished match from its replay: the seed it revealed is the one it committed
to at creation, and the engine, re-run from that seed on the replay's log of answers,
gives exactly the replay's events (every log entry: answers, timeouts, aborts, resigns
and away marks, through `apply_entry`). Then no card was chosen by anyone: the deal followed
from a seed fixed (and published as a hash) before the first card was seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from battlehall.server.match.seeds import commitment

from .engine import get_ruleset
from .engine.ruleset import apply_entry

# What the server's clock adds to prompt events (a timed match's deadlines): not the
# engine's, and shifted after a server restart, so they are left out of the comparison.
CLOCK_FIELDS = ("deadline", "bank_ms")


#: What a replay has that the check reads (docs/protocol.md, The replay).
REPLAY_FIELDS = ("ruleset", "seats", "options", "setup", "seed", "seed_commitment", "log", "events")
#: The replay page's own link, /replay/{id}: its data is GET /matches/{id}/replay.
PAGE_PATH = re.compile(r"^(?P<base>.*)/replay/(?P<match>[^/]+)/?$")
FETCH_TIMEOUT_S = 30


class Unreadable(Exception):
    """The replay could not be had (no file, not JSON, no such match, no server): one line."""


def api_url(url: str) -> str:
    """The replay's API URL, from it or from the replay page's link (query and fragment dropped)."""
    parts = urlsplit(url)
    page = PAGE_PATH.match(parts.path)
    if page is None:
        return url
    return urlunsplit((parts.scheme, parts.netloc, f"{page['base']}/matches/{page['match']}/replay", "", ""))


def load(source: str, token: str | None = None) -> dict:
    """The replay saved in the file `source`, or at the URL `source` (the API's, or the
    replay page's link); Unreadable says why not. A private match's replay needs `token`:
    one of its tokens (a seat's or the spectator's) or the API key."""
    if source.startswith(("http://", "https://")):
        try:
            url = api_url(source)
        except ValueError as exc:  # urlsplit: a malformed address
            raise Unreadable(f"bad URL {source!r}: {exc}") from None
        replay = _fetch(url, token)
    else:
        try:
            with open(source, "rb") as f:
                replay = json.load(f)
        except OSError as exc:
            raise Unreadable(f"cannot read {source}: {exc.strerror or exc}") from None
        except ValueError as exc:  # not JSON, or not UTF-8
            raise Unreadable(f"{source} is not JSON: {str(exc)[:200]}") from None
    if not isinstance(replay, dict):
        raise Unreadable(f"{source} is not a replay (GET /matches/{{id}}/replay): not a JSON object")
    missing = [name for name in REPLAY_FIELDS if name not in replay]
    if missing:
        raise Unreadable(f"{source} is not a replay (GET /matches/{{id}}/replay): it has no {', '.join(missing)}")
    return replay


def _fetch(url: str, token: str | None) -> object:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.get(url, headers=headers, timeout=FETCH_TIMEOUT_S, follow_redirects=True)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise Unreadable(f"cannot get {url}: {str(exc) or type(exc).__name__}") from None
    if response.status_code != 200:
        try:
            reason = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            reason = response.reason_phrase
        raise Unreadable(f"{url} answered {response.status_code}: {reason}")
    try:
        return response.json()
    except ValueError:
        raise Unreadable(f"{url} did not answer with JSON: is it a replay's URL (/replay/{{id}} or "
                         f"/matches/{{id}}/replay)?") from None


def _shown(event: Mapping[str, Any]) -> dict:
    """What the check compares: the kind, the data (less the clock's fields) and every
    seat's hidden part (the cards dealt and drawn are what the seed must account for)."""
    data = event["data"]
    if event["kind"] == "prompt":
        data = {k: v for k, v in data.items() if k not in CLOCK_FIELDS}
    return {"kind": event["kind"], "data": data, "private": event.get("private") or None}


def verify(replay: dict) -> list[str]:
    """The problems found in `replay` (GET /matches/{id}/replay); none if it checks out."""
    if "seed" not in replay or "log" not in replay:
        return ["the replay has no seed or log to check (a match from before seeds were revealed?)"]
    try:
        seed = int(replay["seed"])
    except (TypeError, ValueError):
        return [f"the seed {str(replay['seed'])[:80]!r} is not an integer"]
    problems = []
    if replay.get("seed_commitment") is None:
        problems.append("the replay has no seed commitment")
    elif commitment(seed) != replay["seed_commitment"]:
        problems.append(f"the seed does not match its commitment {replay['seed_commitment']}")
    try:
        ruleset = get_ruleset(replay["ruleset"])
        state, events = ruleset.start(replay["seats"], seed, replay["options"], replay["setup"])
    except Exception as exc:  # an unknown ruleset, seats or options it refuses: not this server's match
        return problems + [f"the re-run cannot start the match: {exc!r}"]
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
