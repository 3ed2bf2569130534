"""Putting cards into play outside a battle: realms, holdings, champions, attachments,
rule cards, dungeons, avatars, and the any-time cards that act without a battle.

Phases 2 and 3 and the "play spoils now" prompt offer the same plays, so the options
(each enumerating its legal targets) and their effects live here once. An option's id is
the card's instance id; its args name the target slot or champion (or, for an avatar,
the champion paid for it).
"""

from __future__ import annotations

from . import formation as fm
from . import powers as pw
from . import zones as z

# Spoils that may be played at once even outside their phase (spellfire-1 J, spellfire-3).
SPOILS_PLACED = ("realm", "holding", "champion", "magical_item", "artifact", "rule", "dungeon", "avatar")
# Effects a card can have without a battle to act in.
OFF_BATTLE_HOOKS = ("scavenge",)


def spoils_option(state: dict, seat: str, iid: str) -> dict | None:
    """How a card drawn as spoils may be played at once, or None (it is kept). Realms,
    holdings, champions, magical items, artifacts, rule cards and dungeons go where they
    would in their phase; an avatar only with its cost met; an event, or a card that may
    be played at any time, if it does something without a battle."""
    c = z.card(state, iid)
    if c["type"] in SPOILS_PLACED:
        return option(state, seat, iid, z.in_play(state))
    if (c["type"] == "event" or "any_time" in c["powers"]) and acts_outside_battle(c):
        return {"id": iid, "text": f"Play {c['name']} now"}
    return None


def acts_outside_battle(c: dict) -> bool:
    return bool(c["draw_cards"]) or c["hook"] in OFF_BATTLE_HOOKS


def avatar_payments(state: dict, seat: str, c: dict) -> list[str] | None:
    """An avatar's cost: the champions of the pool (not avatars) of at least `cost` levels,
    one of which is discarded to bring the avatar in; None when it costs nothing."""
    if not c["cost"]:
        return None
    pool = [e["champion"] for e in state["players"][seat]["pool"]]
    return [i for i in pool if z.card(state, i)["type"] == "champion" and z.card(state, i)["level"] >= c["cost"]]


def option(state: dict, seat: str, iid: str, playing: set[str]) -> dict | None:
    """The option that plays this hand card now, or None if it cannot go anywhere.
    `playing` is :func:`zones.in_play`, computed once per prompt."""
    c = z.card(state, iid)
    kind = c["type"]
    player = state["players"][seat]
    if kind in ("realm", "holding", "champion", "artifact", "avatar") and c["id"] in playing:
        return None  # Rule of the Cosmos
    if kind == "realm":
        slots = fm.placement_slots(player["formation"])
        return _opt(iid, f"Play realm {c['name']}", "slot", slots)
    if kind == "holding":
        slots = []
        for s in fm.SLOTS:
            slot = player["formation"][s]
            if slot is not None and not slot["razed"] and slot["holding"] is None \
                    and fm.worlds_match(c["world"], z.card(state, slot["realm"])["world"]):
                slots.append(s)
        return _opt(iid, f"Play holding {c['name']} on a realm", "slot", slots)
    if kind == "champion":
        return {"id": iid, "text": f"Put {c['name']} (level {c['level']}) into your pool"}
    if kind == "avatar":
        text = f"Put avatar {c['name']} (level {c['level']}) into your pool"
        payments = avatar_payments(state, seat, c)
        if payments is None:
            return {"id": iid, "text": text}
        return _opt(iid, f"{text}, discarding a champion of level {c['cost']} or more", "pay", payments)
    if kind == "rule":
        return {"id": iid, "text": f"Put rule card {c['name']} into play"}
    if kind == "dungeon":
        return {"id": iid, "text": f"Play dungeon {c['name']}" + (" (the one you have is discarded)"
                                                                  if player["dungeon"] is not None else "")}
    if kind == "magical_item":
        champions = [e["champion"] for e in player["pool"]]
        return _opt(iid, f"Attach {c['name']} to a champion", "champion", champions)
    if kind == "artifact":
        champions = [e["champion"] for e in player["pool"]
                     if z.artifact_fits(state, iid, e["champion"], e["attached"])]
        return _opt(iid, f"Attach artifact {c['name']} to a champion", "champion", champions)
    return None


def _opt(iid: str, text: str, arg: str, values: list[str]) -> dict | None:
    return {"id": iid, "text": text, "args": {arg: values}} if values else None


def play(state: dict, seat: str, iid: str, args: dict, events: list) -> None:
    """Play a hand card chosen from :func:`option` (already validated)."""
    player = state["players"][seat]
    player["hand"].remove(iid)
    kind = z.card(state, iid)["type"]
    if kind == "realm":
        slot = args["slot"]
        old = player["formation"][slot]
        player["formation"][slot] = {"realm": iid, "razed": False, "holding": None}
        events.append({"kind": "realm_played", "data": {"seat": seat, **z.ref(state, iid), "slot": slot}})
        if old is not None:  # a new realm goes over a razed one, which is discarded
            z.discard(state, seat, [old["realm"]] + ([old["holding"]] if old["holding"] else []),
                      "replaced", events)
    elif kind == "holding":
        slot = args["slot"]
        player["formation"][slot]["holding"] = iid
        events.append({"kind": "holding_played", "data": {"seat": seat, **z.ref(state, iid), "slot": slot}})
    elif kind in ("champion", "avatar"):
        if args.get("pay") is not None:
            entry = z.pool_entry(state, seat, args["pay"])
            player["pool"].remove(entry)
            z.discard(state, seat, [entry["champion"]] + entry["attached"], "avatar_cost", events)
        player["pool"].append({"champion": iid, "attached": []})
        events.append({"kind": "champion_to_pool", "data": {"seat": seat, **z.ref(state, iid)}})
    elif kind == "rule":
        player["rules"].append(iid)
        events.append({"kind": "rule_played", "data": {"seat": seat, **z.ref(state, iid)}})
    elif kind == "dungeon":
        old, player["dungeon"] = player["dungeon"], iid
        events.append({"kind": "dungeon_played", "data": {"seat": seat, **z.ref(state, iid)}})
        if old is not None:  # one dungeon per player
            z.discard(state, seat, [old], "replaced", events)
    elif kind not in ("magical_item", "artifact"):
        _play_off_battle(state, seat, iid, events)
    else:
        champion = args["champion"]
        z.pool_entry(state, seat, champion)["attached"].append(iid)
        events.append({"kind": "card_attached", "data": {"seat": seat, **z.ref(state, iid), "champion": champion}})


def _play_off_battle(state: dict, seat: str, iid: str, events: list) -> None:
    """An event or any-time card played with no battle (as spoils): its draw or hook acts
    for its player, and it goes to the discard pile."""
    c = z.card(state, iid)
    played = {"seat": seat, "side": None, **z.ref(state, iid), "effects": [], "outcome": None, "totals": None}
    events.append({"kind": "card_played", "data": played})
    if c["draw_cards"]:
        played["effects"].append("draw_cards")
        z.draw(state, seat, c["draw_cards"], "card", events)
    if c["hook"] in OFF_BATTLE_HOOKS:
        played["effects"].append(c["hook"])
        pw.PLAY_HOOKS[c["hook"]](state, None, None, seat, events)
    z.discard(state, seat, [iid], "played", events)
