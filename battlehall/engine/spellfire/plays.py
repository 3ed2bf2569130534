"""Putting cards into play outside a battle: realms, holdings, champions, attachments,
rule cards, dungeons, avatars, and the any-time cards that act without a battle.

Phases 2 and 3 and the "play spoils now" prompt offer the same plays, so the options
(each enumerating its legal targets) and their effects live here once. An option's id is
the card's instance id; its args name the target slot or champion (or, for an avatar,
the champion given for it).
"""

from __future__ import annotations

from . import formation, powers, rulecards, zones
from .prompts import option as _option

# Spoils that may be played at once even outside their phase (spellfire-1 J, spellfire-3).
SPOILS_PLACED = ("realm", "holding", "champion", "magical_item", "artifact", "rule", "dungeon")
# Effects a card can have without a battle to act in.
OFF_BATTLE_HOOKS = tuple(powers.OFF_BATTLE_PLAY_HOOKS)


def spoils_option(state: dict, seat: str, iid: str) -> dict | None:
    """How a card drawn as spoils may be played at once, or None (it is kept). Realms,
    holdings, champions, magical items, artifacts, rule cards and dungeons go where they
    would in their phase; an avatar (a champion with a cost) only with its cost met; an
    event, or a card that may be played at any time, if it does something without a battle."""
    c = zones.card(state, iid)
    if c["type"] in SPOILS_PLACED:
        return option(state, seat, iid, zones.in_play(state))
    if (c["type"] == "event" or "any_time" in c["powers"]) and acts_outside_battle(c):
        return _option(iid, f"Play {c['name']} now", zones.about(state, iid, seat, "hand"))
    return None


def acts_outside_battle(c: dict) -> bool:
    return bool(c["draw_cards"]) or c["hook"] in OFF_BATTLE_HOOKS


def option(state: dict, seat: str, iid: str, playing: set[str]) -> dict | None:
    """The option that plays this hand card now, or None if it cannot go anywhere.
    `playing` is :func:`zones.in_play`, computed once per prompt."""
    c = zones.card(state, iid)
    kind = c["type"]
    player = state["players"][seat]
    if kind in ("realm", "holding", "champion", "artifact") and c["id"] in playing:
        return None  # Rule of the Cosmos
    if kind == "realm":
        slots = formation.placement_slots(player["formation"])
        return _opt(state, seat, iid, f"Play realm {c['name']}", "slot", slots)
    if kind == "holding":
        slots = []
        for s in formation.SLOTS:
            slot = player["formation"][s]
            if slot is not None and not slot["razed"] and slot["holding"] is None \
                    and formation.worlds_match(c["world"], zones.card(state, slot["realm"])["world"]):
                slots.append(s)
        return _opt(state, seat, iid, f"Play holding {c['name']} on a realm", "slot", slots)
    if kind == "champion" and c["cost"] is not None:
        return _avatar(state, seat, iid, c)
    if kind == "champion":
        return _option(iid, f"Put {c['name']} (level {c['level']}) into your pool", zones.about(state, iid, seat, "hand"))
    if kind in ("rule", "dungeon"):
        return _option(iid, f"Play {kind} card {c['name']}", zones.about(state, iid, seat, "hand"))
    if kind == "magical_item":
        champions = [e["champion"] for e in player["pool"]]
        return _opt(state, seat, iid, f"Attach {c['name']} to a champion", "champion", champions)
    if kind == "artifact":
        champions = [e["champion"] for e in player["pool"]
                     if zones.artifact_fits(state, iid, e["champion"], e["attached"])]
        return _opt(state, seat, iid, f"Attach artifact {c['name']} to a champion", "champion", champions)
    return None


def cost_met(state: dict, seat: str, c: dict) -> list[str] | None:
    """An avatar's cost: None if it cannot be paid now, else the pool champions that may
    be given for it (empty when nothing is given)."""
    player = state["players"][seat]
    cost = c["cost"]
    if formation.unrazed(player["formation"]) < cost.get("realms", 0):
        return None
    if "sacrifice" not in cost:
        return []
    victims = [e["champion"] for e in player["pool"] if zones.card(state, e["champion"])["class"] == cost["sacrifice"]]
    return victims or None


def _avatar(state: dict, seat: str, iid: str, c: dict) -> dict | None:
    victims = cost_met(state, seat, c)
    if victims is None:
        return None
    text = f"Put avatar {c['name']} (level {c['level']}) into your pool"
    if not victims:
        return _option(iid, text, zones.about(state, iid, seat, "hand"))
    return _opt(state, seat, iid, text + f", giving a {c['cost']['sacrifice']} of your pool for it",
                "sacrifice", victims)


def _opt(state: dict, seat: str, iid: str, text: str, arg: str, values: list[str]) -> dict | None:
    """An option taking one argument; `args_text` says each value in words (a slot by what
    is in it, a champion by its name and level), so that a client need not look them up."""
    if not values:
        return None
    words = {v: target_text(state, seat, iid, arg, v) for v in values}
    return _option(iid, text, zones.about(state, iid, seat, "hand"), args={arg: values}, args_text={arg: words})


def target_text(state: dict, seat: str, iid: str, arg: str, value: str) -> str:
    """One value of a play's argument, in words."""
    if arg == "slot":
        slot = state["players"][seat]["formation"][value]
        if zones.card(state, iid)["type"] == "holding":
            return f"on {zones.name(state, slot['realm'])} (slot {value})"
        if slot is None:
            return f"slot {value} (empty)"
        return f"slot {value}, over the razed {zones.name(state, slot['realm'])}"
    c = zones.card(state, value)
    if arg == "sacrifice":
        return f"giving {c['name']} (level {c['level']}, {c['class']}) from your pool"
    return f"on {c['name']} (level {c['level']}, {c['class']})"


def play(state: dict, seat: str, iid: str, args: dict, events: list, via: str = "phase") -> None:
    """Play a hand card chosen from :func:`option` (already validated). `via` is `phase`
    (phases 2 and 3: a realm or holding counts as the turn's one) or `spoils`."""
    player = state["players"][seat]
    player["hand"].remove(iid)
    kind = zones.card(state, iid)["type"]
    if kind == "realm":
        slot = args["slot"]
        old = player["formation"][slot]
        player["formation"][slot] = {"realm": iid, "razed": False, "holding": None}
        events.append({"kind": "realm_played", "data": {"seat": seat, **zones.about(state, iid, seat, "formation", slot),
                                                        "from": "hand", "via": via}})
        if old is not None:  # a new realm goes over a razed one, which is discarded
            zones.discard(state, seat, [old["realm"]] + ([old["holding"]] if old["holding"] else []),
                      "replaced", events, slot)
    elif kind == "holding":
        slot = args["slot"]
        player["formation"][slot]["holding"] = iid
        events.append({"kind": "holding_played", "data": {"seat": seat, **zones.about(state, iid, seat, "formation", slot),
                                                          "from": "hand", "via": via}})
    elif kind in ("rule", "dungeon"):
        rulecards.play(state, seat, iid, events, via)
    elif kind == "champion":
        if "sacrifice" in args:  # an avatar's cost: the chosen champion leaves the pool
            entry = zones.pool_entry(state, seat, args["sacrifice"])
            assert entry is not None  # the option offers only champions of the pool
            player["pool"].remove(entry)
            zones.discard(state, seat, [entry["champion"]] + entry["attached"], "sacrifice", events)
        player["pool"].append({"champion": iid, "attached": []})
        events.append({"kind": "champion_to_pool", "data": {"seat": seat, **zones.about(state, iid, seat, "pool"),
                                                            "from": "hand", "via": via}})
    elif kind not in ("magical_item", "artifact"):
        _play_off_battle(state, seat, iid, events)
    else:
        champion = args["champion"]
        entry = zones.pool_entry(state, seat, champion)
        assert entry is not None  # the option offers only champions of the pool
        entry["attached"].append(iid)
        events.append({"kind": "card_attached", "data": {"seat": seat, **zones.about(state, iid, seat, "pool"),
                                                         "champion": champion, "attached_to": zones.ref(state, champion),
                                                         "from": "hand", "via": via}})


def _play_off_battle(state: dict, seat: str, iid: str, events: list) -> None:
    """An event or any-time card played with no battle (as spoils): its draw or hook acts
    for its player, and it goes to the discard pile."""
    c = zones.card(state, iid)
    played = {"seat": seat, "side": None, **zones.about(state, iid, seat, "discard"), "from": "hand", "via": "spoils",
              "effects": [], "outcome": None, "totals": None}
    events.append({"kind": "card_played", "data": played})
    if c["draw_cards"]:
        played["effects"].append("draw_cards")
        zones.draw(state, seat, c["draw_cards"], "card", events)
    if c["hook"] in OFF_BATTLE_HOOKS:
        played["effects"].append(c["hook"])
        powers.OFF_BATTLE_PLAY_HOOKS[c["hook"]](state, None, None, seat, events)
    zones.discard(state, seat, [iid], "played", events)
