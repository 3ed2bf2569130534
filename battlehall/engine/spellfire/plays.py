"""Putting cards into play outside a battle: realms, holdings, champions, attachments.

Phases 2 and 3 and the "play spoils now" prompt offer the same plays, so the options
(each enumerating its legal targets) and their effects live here once. An option's id is
the card's instance id; its args name the target slot or champion.
"""

from __future__ import annotations

from . import formation as fm
from . import zones as z
from .prompts import option as _option


def option(state: dict, seat: str, iid: str, playing: set[str]) -> dict | None:
    """The option that plays this hand card now, or None if it cannot go anywhere.
    `playing` is :func:`zones.in_play`, computed once per prompt."""
    c = z.card(state, iid)
    kind = c["type"]
    player = state["players"][seat]
    if kind in ("realm", "holding", "champion", "artifact") and c["id"] in playing:
        return None  # Rule of the Cosmos
    if kind == "realm":
        slots = fm.placement_slots(player["formation"])
        return _opt(state, seat, iid, f"Play realm {c['name']}", "slot", slots)
    if kind == "holding":
        slots = []
        for s in fm.SLOTS:
            slot = player["formation"][s]
            if slot is not None and not slot["razed"] and slot["holding"] is None \
                    and fm.worlds_match(c["world"], z.card(state, slot["realm"])["world"]):
                slots.append(s)
        return _opt(state, seat, iid, f"Play holding {c['name']} on a realm", "slot", slots)
    if kind == "champion":
        return _option(iid, f"Put {c['name']} (level {c['level']}) into your pool", z.about(state, iid, seat, "hand"))
    if kind == "magical_item":
        champions = [e["champion"] for e in player["pool"]]
        return _opt(state, seat, iid, f"Attach {c['name']} to a champion", "champion", champions)
    if kind == "artifact":
        champions = [e["champion"] for e in player["pool"]
                     if z.artifact_fits(state, iid, e["champion"], e["attached"])]
        return _opt(state, seat, iid, f"Attach artifact {c['name']} to a champion", "champion", champions)
    return None


def _opt(state: dict, seat: str, iid: str, text: str, arg: str, values: list[str]) -> dict | None:
    return _option(iid, text, z.about(state, iid, seat, "hand"), args={arg: values}) if values else None


def play(state: dict, seat: str, iid: str, args: dict, events: list, via: str = "phase") -> None:
    """Play a hand card chosen from :func:`option` (already validated). `via` is `phase`
    (phases 2 and 3: a realm or holding counts as the turn's one) or `spoils`."""
    player = state["players"][seat]
    player["hand"].remove(iid)
    kind = z.card(state, iid)["type"]
    if kind == "realm":
        slot = args["slot"]
        old = player["formation"][slot]
        player["formation"][slot] = {"realm": iid, "razed": False, "holding": None}
        events.append({"kind": "realm_played", "data": {"seat": seat, **z.about(state, iid, seat, "formation", slot),
                                                        "from": "hand", "via": via}})
        if old is not None:  # a new realm goes over a razed one, which is discarded
            z.discard(state, seat, [old["realm"]] + ([old["holding"]] if old["holding"] else []),
                      "replaced", events, slot)
    elif kind == "holding":
        slot = args["slot"]
        player["formation"][slot]["holding"] = iid
        events.append({"kind": "holding_played", "data": {"seat": seat, **z.about(state, iid, seat, "formation", slot),
                                                          "from": "hand", "via": via}})
    elif kind == "champion":
        player["pool"].append({"champion": iid, "attached": []})
        events.append({"kind": "champion_to_pool", "data": {"seat": seat, **z.about(state, iid, seat, "pool"),
                                                            "from": "hand", "via": via}})
    else:
        champion = args["champion"]
        z.pool_entry(state, seat, champion)["attached"].append(iid)
        events.append({"kind": "card_attached", "data": {"seat": seat, **z.about(state, iid, seat, "pool"),
                                                         "champion": champion, "from": "hand", "via": via}})
