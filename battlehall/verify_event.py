"""Checking an event from its log (docs/tournaments.md, "The log and `battlehall verify`"):
the seed it revealed is the one it committed to, every pairing is the one the log before
it and the seed give, every game is entered once, and the standings the server shows are
the fold's; with `matches`, each game's entered places are its match's result.
"""

from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import urlsplit, urlunsplit

from battlehall.tournaments.verify import verify_log

#: An event's page or API path, with or without /log.
EVENT_PATH = re.compile(r"^(?P<base>.*)/tournaments/(?P<event>t_[0-9a-f]+)(/log)?/?$")
LOG_FIELDS = ("spec", "seed", "seed_commitment", "entries")
FETCH_TIMEOUT_S = 30


class Unreadable(Exception):
    """The log could not be had: one line saying why."""


def is_event(source: str) -> bool:
    """Whether `source` names an event (its URL, or a saved log), not a match's replay."""
    if source.startswith(("http://", "https://")):
        try:
            return EVENT_PATH.match(urlsplit(source).path) is not None
        except ValueError:  # a malformed address: the replay's loader says so
            return False
    try:
        with open(source, "rb") as f:
            found = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(found, dict) and "entries" in found and "spec" in found


def _urls(source: str) -> tuple[str, str]:
    """The event's log URL and its own URL (standings)."""
    parts = urlsplit(source)
    found = EVENT_PATH.match(parts.path)
    assert found is not None
    event = f"{found['base']}/tournaments/{found['event']}"
    return (urlunsplit((parts.scheme, parts.netloc, event + "/log", "", "")),
            urlunsplit((parts.scheme, parts.netloc, event, "", "")))


def _get(url: str) -> dict:
    import httpx

    try:
        response = httpx.get(url, timeout=FETCH_TIMEOUT_S, headers={"Accept": "application/json"})
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise Unreadable(f"cannot get {url}: {str(exc) or type(exc).__name__}") from None
    if response.status_code != 200:
        raise Unreadable(f"{url} answered {response.status_code}")
    try:
        found = response.json()
    except ValueError:
        raise Unreadable(f"{url} did not answer with JSON") from None
    if not isinstance(found, dict):
        raise Unreadable(f"{url} did not answer with a JSON object")
    return found


def load(source: str) -> tuple[dict, list[dict] | None, str | None]:
    """The event's log, the standings its server shows (None from a file) and the server's base URL."""
    if source.startswith(("http://", "https://")):
        log_url, event_url = _urls(source)
        found = _get(log_url)
        shown = _get(event_url).get("standings")
        base = event_url.rsplit("/tournaments/", 1)[0]
    else:
        try:
            with open(source, "rb") as f:
                found = json.load(f)
        except (OSError, ValueError) as exc:
            raise Unreadable(f"cannot read {source}: {exc}") from None
        shown, base = None, None
    missing = [name for name in LOG_FIELDS if name not in found]
    if missing:
        raise Unreadable(f"{source} is not an event's log (GET /tournaments/{{id}}/log): it has no {', '.join(missing)}")
    return found, shown, base


def verify(log: dict, shown: list[dict] | None = None, base: str | None = None, matches: bool = False) -> list[str]:
    """The problems found (empty: the event checks out)."""
    seed = log.get("seed")
    if not isinstance(seed, str):
        return ["the event has not ended: its seed is not revealed yet"]
    if hashlib.sha256(seed.encode()).hexdigest() != log["seed_commitment"]:
        return ["the seed revealed is not the one committed to at the creation"]
    problems = verify_log(log["spec"], seed, log["entries"], shown_standings=shown)
    if matches and base is not None:
        problems += _check_matches(base, log["entries"])
    return problems


def _check_matches(base: str, entries: list[dict]) -> list[str]:
    """Each game's entered places against its match's result, by the matches' seats' profiles."""
    problems = []
    for entry in entries:
        if entry.get("k") != "game" or not isinstance(entry.get("match"), str) or "places" not in entry:
            continue
        try:
            summary = _get(f"{base}/matches/{entry['match']}")
        except Unreadable as exc:
            problems.append(f"game {entry['round']}.{entry['table']}.{entry['game']}: {exc}")
            continue
        result = summary.get("result") or {}
        seat_of = dict(zip(summary.get("seats") or [], entry.get("seats") or []))
        ranking = [[seat_of.get(s) for s in group] for group in result.get("ranking") or []]
        if ranking and ranking != entry["places"] and result.get("reason") not in ("aborted", "abandoned"):
            problems.append(f"game {entry['round']}.{entry['table']}.{entry['game']}: entered {entry['places']}, "
                            f"its match ranked {ranking}")
    return problems
