"""Ratings per ruleset, updated once when a match with profiles bound to its seats ends.

The model is OpenSkill's Weng-Lin Plackett-Luce (the `openskill` package): any number of
seats, ties, and teams. A result's `ranking` gives the places; seats in one group tied,
except a group of several seats that all won (a shared victory: an alliance), which is
one team. The rating shown and ranked is the conservative `mu - 3 sigma` (0 for a new
player, who starts at mu 25, sigma 25/3). What players read is `display` (`readable`, rating_view.py):
that same conservative rating on an Elo-like scale, 1500 for a new player, and
`provisional` until PROVISIONAL_MATCHES rated matches.

Settling a match is idempotent: one Lua script checks that the match was not settled
(`done:<match>`), that nobody's rating moved since it was read (two matches of a player
ending at once: the second reads again), then writes the ratings, the leaderboard, the
histories and recent matches, and marks the match done, all at once. So a restart, a
takeover, the hook and the sweep racing each other never rate a match twice. Matches
with profiles are listed in `pending` from their creation until settled; the sweep
settles those whose end was never handled (the node died between the end and the
ratings). Aborted and abandoned matches, and matches created without `"rated": true`,
are recorded in recent matches but not rated.

What makes a result count (`unrated_reason`), as the rating sites players trust decide it:
a match created rated (by quick play, a rematch of a rated match, or the operator: a
caller who proves every seat's profile does not make one, player_api.py), not aborted
or abandoned, in which every bound seat answered at least `MIN_OWN_ANSWERS` prompts
itself (a resign at once, or a seat that never played, rates nobody), and, unless the
operator made it, between profiles no two of which already have `PAIR_LIMIT` rated
results in the ruleset within `PAIR_WINDOW_S` (farming one profile with another stops
moving ratings). A match with a stream delay is settled once its end is public: its
end plus the delay, so a profile or the leaderboard never tells a result before the
stream does.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import orjson
from openskill.models import PlackettLuce

from battlehall.server.clock import now_ms
from battlehall.server.players.rating_view import readable
from battlehall.server.storage.public import as_of_delay
from battlehall.server.storage.ratings import PlayerWrite, RatingRecords, SeatRead, Settlement

log = logging.getLogger("battlehall.ratings")

MODEL = PlackettLuce()
UNRATED_REASONS = ("aborted", "abandoned", "judge_rewind")  # judge_rewind: the match went on as another
SETTLE_ATTEMPTS = 8  # rereads when another match of the same players settled in between
SWEEP_S = 15.0
SWEEP_BATCH = 500
DONE_MARGIN_S = 86_400  # the done mark outlives the match by this much
#: Answers each bound seat must have made itself (not a timeout, an automatic pass or a
#: bot standing in) for the match to be rated: lichess' "two moves each" in any ruleset.
MIN_OWN_ANSWERS = 2
#: Rated results between the same two profiles in a ruleset, per PAIR_WINDOW_S, past
#: which their matches are no longer rated (matches the operator made are not limited).
PAIR_LIMIT = 5
PAIR_WINDOW_S = 86_400
LOG_PAGE = 64  # log entries read at a time while counting own answers


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def shown(self) -> float:
        return round(self.mu - 3 * self.sigma, 2)

    def as_data(self) -> dict:
        return {"mu": self.mu, "sigma": self.sigma, "rating": self.shown, "matches": self.matches}

    @classmethod
    def of(cls, data: dict | None) -> "Rating":
        if data is None:
            fresh = MODEL.rating()
            return cls(fresh.mu, fresh.sigma, 0)
        return cls(data["mu"], data["sigma"], data["matches"])


def teams_of(result: dict) -> tuple[list[list[str]], list[int]]:
    """The result's teams (lists of seats) and their places, 1 first, ties sharing one."""
    winners = set(result["winners"])
    teams: list[list[str]] = []
    places: list[int] = []
    for place, group in enumerate(result["ranking"], 1):
        if len(group) > 1 and winners.issuperset(group):  # a shared victory: allies are one team
            teams.append(list(group))
            places.append(place)
        else:
            for seat in group:
                teams.append([seat])
                places.append(place)
    return teams, places


def rated(meta: dict, result: dict) -> bool:
    """Whether the match was made to be rated and ended in a way that may be: not aborted
    or abandoned, more than one seat (the rest of `unrated_reason` reads Redis)."""
    return bool(meta.get("rated")) and result["reason"] not in UNRATED_REASONS and len(meta["seats"]) > 1


def pairs(profiles: list[str]) -> list[tuple[str, str]]:
    """Every two of the profiles, each pair in one order (the smaller id first)."""
    ordered = sorted(profiles)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]]


async def own_answers(records: RatingRecords, match_id: str, seats: list[str], need: int) -> dict[str, int]:
    """How many prompts each seat answered itself (an act it sent: an entry with the
    client's act id and a prompt, which automatic passes, timeouts, resigns and bots lack),
    counted up to `need` each: the log is read from its start, a page at a time, until
    every seat has `need` or the log ends."""
    counts = dict.fromkeys(seats, 0)
    first = 0
    while True:
        rows = await records.log_page(match_id, first, LOG_PAGE)
        for row in rows:
            entry = row.entry
            seat = entry.get("seat")
            if seat in counts and "prompt" in entry and entry.get("act") is not None and "bot" not in entry:
                counts[seat] += 1
        if len(rows) < LOG_PAGE or all(n >= need for n in counts.values()):
            return counts
        first = rows[-1].seq + 1


async def unrated_reason(records: RatingRecords, match_id: str, meta: dict, result: dict, at: int) -> str | None:
    """None when the match's result moves ratings; else why not (docs/protocol.md "Ratings"):
    `not_rated`, `aborted`, `abandoned`, `too_short` or `repeated_opponents`."""
    if not meta.get("rated") or len(meta["seats"]) < 2:
        return "not_rated"
    if result["reason"] in UNRATED_REASONS:
        return result["reason"]
    bound: dict[str, str] = meta["profiles"]
    seats = [s for s in meta["seats"] if s in bound]
    counts = await own_answers(records, match_id, seats, MIN_OWN_ANSWERS)
    if any(n < MIN_OWN_ANSWERS for n in counts.values()):
        return "too_short"
    if meta.get("made_by") != "operator":
        met = await records.meetings(meta["ruleset"], pairs([bound[s] for s in seats]), at - PAIR_WINDOW_S * 1000)
        if any(n >= PAIR_LIMIT for n in met):
            return "repeated_opponents"
    return None


def rate(result: dict, before: dict[str, Rating]) -> dict[str, Rating]:
    """Every seat's rating after the match, from each seat's rating before it."""
    teams, places = teams_of(result)
    model_teams = [[MODEL.rating(mu=before[s].mu, sigma=before[s].sigma) for s in team] for team in teams]
    ranks: list[float] = list(places)  # openskill takes list[float], and lists are invariant
    after = MODEL.rate(model_teams, ranks=ranks)
    return {seat: Rating(new.mu, new.sigma, before[seat].matches + 1)
            for team, new_team in zip(teams, after) for seat, new in zip(team, new_team)}


def place_of(result: dict, seat: str) -> int:
    for place, group in enumerate(result["ranking"], 1):
        if seat in group:
            return place
    return len(result["ranking"])


async def settle(records: RatingRecords, match_id: str, meta: dict, result: dict, retention_s: int,
                 ended_at: int | None = None) -> bool:
    """Rate the ended match (when its result counts: `unrated_reason`) and record it in its
    players' recent matches, unless that was done already. True if this call did it.
    `ended_at`: when it ended, if known (else now)."""
    bound: dict[str, str] = meta.get("profiles") or {}
    if not bound:
        return False
    if await records.settled(match_id):
        await records.drop_pending(match_id)
        return False
    at = now_ms() if ended_at is None else ended_at
    why = await unrated_reason(records, match_id, meta, result, at)
    seats = [s for s in meta["seats"] if s in bound]
    for _ in range(SETTLE_ATTEMPTS):
        found = await records.seats(meta["ruleset"], [bound[seat] for seat in seats])
        outcome = await records.settle(settlement(match_id, meta, result, retention_s, at, why,
                                                  dict(zip(seats, found))))
        if outcome == 1:
            return True
        if outcome == 0:
            return False
    log.warning("match %s: ratings not settled after %d attempts (its players kept changing); the sweep "
                "will try again", match_id, SETTLE_ATTEMPTS)
    return False


def settlement(match_id: str, meta: dict, result: dict, retention_s: int, at: int, why: str | None,
               read: dict[str, SeatRead]) -> Settlement:
    """What settling writes, from what was read of each bound seat's profile (seat -> its read)."""
    bound: dict[str, str] = meta["profiles"]
    ruleset = meta["ruleset"]
    seats = [s for s in meta["seats"] if s in bound]
    is_rated = why is None
    stored = {seat: read[seat].rating for seat in seats}
    before = {seat: Rating.of(orjson.loads(raw) if raw is not None else None) for seat, raw in stored.items()}
    after = rate(result, before) if is_rated else {}
    players = [{"seat": s, "profile": bound[s], "name": read[s].name} for s in seats]
    writes = []
    for seat in seats:
        profile_id = bound[seat]
        recent = {"match": match_id, "ruleset": ruleset, "ended_at": at, "seat": seat,
                  "place": place_of(result, seat), "places": len(result["ranking"]),
                  "won": seat in result["winners"], "reason": result["reason"], "rated": is_rated,
                  **({} if is_rated else {"unrated_reason": why}), "players": players}
        if is_rated:
            new = after[seat]
            recent["rating_before"], recent["rating_after"] = before[seat].shown, new.shown
            readable(recent)
            history = readable({"match": match_id, "at": at, "place": recent["place"], "before": before[seat].shown,
                                **new.as_data()})
            writes.append(PlayerWrite(profile_id, stored[seat], orjson.dumps(recent), orjson.dumps(new.as_data()),
                                      new.shown, orjson.dumps(history)))
        else:
            writes.append(PlayerWrite(profile_id, stored[seat], orjson.dumps(recent)))
    return Settlement(match_id, ruleset, int(retention_s) + DONE_MARGIN_S, is_rated, at, PAIR_WINDOW_S, writes,
                      pairs([bound[s] for s in seats]) if is_rated else [])


# -- when a match ends, and the sweep -----------------------------------------------------

_settling: set[asyncio.Task] = set()


def match_ended(hub, match_id: str, meta: dict, result: dict) -> None:
    """The hub's end-of-match hook: settle a match with profiles, in the background, once
    its end is public (a failure, or this node's death before then, leaves it pending, for
    the sweep)."""
    if not meta.get("profiles") or not hub.store.persist:
        return
    task = asyncio.get_running_loop().create_task(_settle_logged(hub, match_id, meta, result, now_ms()))
    _settling.add(task)
    task.add_done_callback(_settling.discard)


async def _settle_logged(hub, match_id: str, meta: dict, result: dict, ended_at: int) -> None:
    # Ratings, the leaderboard and recent matches tell the result: not before the stream does.
    delay_ms = meta["spectators"]["delay_ms"]
    if delay_ms:
        await asyncio.sleep(delay_ms / 1000)
    try:
        await settle(hub.store.ratings, match_id, meta, result, hub.settings.retention_s, ended_at)
    except Exception as exc:  # Redis away: the match stays pending, the sweep settles it
        log.warning("match %s: could not settle its ratings yet: %r", match_id, exc)


async def settle_pending(hub) -> int:
    """Settle the pending matches whose end is public (their end plus their stream delay
    has passed); drop those that no longer exist."""
    records: RatingRecords = hub.store.ratings
    ids = await records.pending()
    settled = 0
    for i in range(0, len(ids), SWEEP_BATCH):
        batch = ids[i:i + SWEEP_BATCH]
        ended = await records.not_live(batch)
        if not ended:
            continue
        summaries = {s["match"]: s for s in await hub.summaries(ended)}
        for match_id in ended:
            summary = summaries.get(match_id)
            if summary is None:  # deleted, or past its retention: nothing to rate any more
                await records.drop_pending(match_id)
                continue
            if (await as_of_delay(hub.store, summary, now_ms()))["status"] != "finished":
                continue  # live, or its end still inside its stream delay
            meta = await hub.meta(match_id)
            if meta is not None:
                settled += await settle(records, match_id, meta, summary["result"], hub.settings.retention_s)
    return settled


async def sweep(hub, every_s: float = SWEEP_S) -> None:
    """At start and every `every_s`: settle what a dead node left pending."""
    while True:
        try:
            if hub.store.persist and await hub.store.ping():
                await settle_pending(hub)
        except Exception as exc:
            log.warning("settling pending ratings failed: %r", exc)
        await asyncio.sleep(every_s)
