"""What the routes answer of an event (docs/tournaments.md): the event as anyone sees it,
its summary in the listing, a player's own entry, and its log."""

from __future__ import annotations

from battlehall.server.players.profiles import tag
from battlehall.server.tournaments.folding import Folded

ENDED = ("finished", "cancelled")
#: What the listing leaves out of the event.
HEAVY = ("rounds", "standings", "bracket")


def event(folded: Folded, now: int, playing: dict[tuple[int, int], dict] | None = None) -> dict:
    """The event as its page shows it: the core's public view, and the server's fields;
    `playing`: the game in play at each table of the current round, (round, table) ->
    {"game", "match"} (a public event's: its games are public matches)."""
    meta = folded.meta
    shown = dict(folded.public())
    if playing is not None and shown.get("rounds"):
        rounds = list(shown["rounds"])  # the core's nested parts are shared between calls: copies
        last = dict(rounds[-1])
        last["tables"] = [{**t, "playing": playing.get((last["round"], t["table"]))} for t in last["tables"]]
        shown["rounds"] = rounds[:-1] + [last]
    for part in ("players", "standings"):  # names beside a profile carry its tag (docs/protocol.md)
        rows = shown.get(part)
        if isinstance(rows, list):
            shown[part] = [{**r, "tag": tag(r["player"])} if isinstance(r, dict) and "player" in r else r
                           for r in rows]
    shown.update({
        "tournament": folded.tournament_id, "name": folded.spec.name, "status": folded.t.phase,
        "version": folded.version, "created_at": meta["created_at"], "organiser": meta.get("organiser"),
        "seed_commitment": meta["seed_commitment"], "spec": meta["spec"], "round": folded.round, "now": now,
    })
    return shown


def summary(folded: Folded, now: int) -> dict:
    shown = {k: v for k, v in event(folded, now).items() if k not in HEAVY}
    players = shown.pop("players", None)
    shown["players_count"] = len(players) if isinstance(players, list) else 0
    return shown


def entry(folded: Folded, profile: str, table: dict | None, made: int, now: int) -> dict:
    """A player's own entry: registered, checked in, dropped, and the current table with the seat's token."""
    player = folded.t.players.get(profile)
    current = folded.round
    bye = False
    for e in reversed(folded.entries):
        if e.get("k") == "paired" and e.get("round") == current:
            bye = profile in (e.get("byes") or [])
            break
    if table is not None:
        if table.get("round") != current:
            table = None
        else:
            table = {**table, "done": bool(folded.t.table_done(table["round"], table["table"]))}
    return {"tournament": folded.tournament_id, "profile": profile, "registered": player is not None,
            "checked_in": bool(player and player.checked_in), "dropped": bool(player and player.dropped),
            "status": folded.t.phase, "version": folded.version + made, "round": current,
            "table": table, "bye": bye, "now": now}


def log(folded: Folded) -> dict:
    """The log for `battlehall verify`: the spec, every entry, the seed once the event has ended."""
    meta = folded.meta
    ended = folded.t.phase in ENDED
    return {"tournament": folded.tournament_id, "spec": meta["spec"], "seed_commitment": meta["seed_commitment"],
            "seed": meta["seed"] if ended else None, "status": folded.t.phase, "version": folded.version,
            "entries": folded.entries}
