"""Where cards are, and the small moves between zones every other module shares.

A physical card is an instance id (``"c17"``); ``state["cards"]`` maps it to its card
id, whose definition is in the shipped catalog or in ``state["custom_cards"]`` (inline
cards of a setup). Each player's zones: ``draw`` (top first), ``hand``, ``pool`` (a list
of ``{"champion", "attached"}``), ``formation`` (formation.py) and ``discard`` (top
last); ``limbo`` (entries like the pool's: not in play, they come back), ``abyss`` and
``void`` (out of the game). The rule card and the dungeons in play are the state's
(rulecards.py).
A card in a battle is held by the battle (battle.py) until the round ends.
"""

from __future__ import annotations

from functools import cache
from typing import Callable

from . import formation
from .cards import UNIQUE, shipped

_SHIPPED = shipped().cards  # looked up on every card access: bind it once


def card(state: dict, iid: str) -> dict:
    """The definition of a card instance."""
    cid = state["cards"][iid]
    found = _SHIPPED.get(cid)
    return found if found is not None else state["custom_cards"][cid]


def holds(state: dict, test: Callable[[dict], bool]) -> bool:
    """Whether any card of the match passes `test`, a module-level predicate on a card's
    definition (a rule card, a card with a power).

    A match's cards are fixed at its setup; asked every turn of a six-seat match, a walk
    of its 330 cards cost over 100 µs. The shipped cards that pass are found once per
    test, and the match's card ids are checked against them in one C-level pass."""
    cards = state["cards"].values()
    if not _shipped_passing(test).isdisjoint(cards):
        return True
    custom = state["custom_cards"]
    if not custom:
        return False
    used = set(cards)
    return any(test(definition) for cid, definition in custom.items() if cid in used)


@cache
def _shipped_passing(test: Callable[[dict], bool]) -> frozenset[str]:
    return frozenset(cid for cid, definition in _SHIPPED.items() if test(definition))


def ref(state: dict, iid: str) -> dict:
    """How an event or a view names a card: instance and card id."""
    return {"card": iid, "def": state["cards"][iid]}


def about(state: dict, iid: str, owner: str, zone: str, slot: str | None = None) -> dict:
    """How an option or an event names the one card it is about: instance, card id, the
    seat that owns it, the zone it is in (`hand`, `pool`, `formation`, `battle`,
    `discard`) and its formation slot (None outside the formation)."""
    return {"card": iid, "def": state["cards"][iid], "owner": owner, "zone": zone, "slot": slot}


def locate(state: dict, iid: str) -> tuple[str, str | None]:
    """(zone, formation slot) of a card out of any battle: `pool`, `formation`, `discard`,
    `limbo`, `abyss`, `void`, `hand` or `draw`."""
    for seat in state["seats"]:
        p = state["players"][seat]
        for s in formation.SLOTS:
            slot = p["formation"][s]
            if slot is not None and iid in (slot["realm"], slot["holding"]):
                return "formation", s
        for zone in ("pool", "limbo"):
            if any(iid == e["champion"] or iid in e["attached"] for e in p[zone]):
                return zone, None
        for zone in ("discard", "abyss", "void", "hand", "draw"):
            if iid in p[zone]:
                return zone, None
    return "battle", None


#: The same fields on an option that is about no card (`done`, `end`, `pass`, ...).
NO_CARD = {"card": None, "def": None, "owner": None, "zone": None, "slot": None}

#: Where the cards of each discard reason were (cards in a battle are held by the battle).
DISCARDED_FROM = {"replaced": "formation", "realm_razed": "formation", "realm_discarded": "formation",
                  "hand_limit": "hand", "played": "hand", "no_realms": "pool", "after_combat": "pool",
                  "sacrifice": "pool", "cosmos": "limbo", "rule_discarded": "rule"}


def refs(state: dict, iids: list[str]) -> list[dict]:
    return [{"card": i, "def": state["cards"][i]} for i in iids]


def name(state: dict, iid: str) -> str:
    return card(state, iid)["name"]


def draw(state: dict, seat: str, count: int, reason: str, events: list) -> list[str]:
    """Draw up to `count` from the top of the pile; an empty pile simply gives fewer."""
    player = state["players"][seat]
    drawn = player["draw"][:count]
    del player["draw"][:count]
    player["hand"].extend(drawn)
    events.append({"kind": "cards_drawn",
                   "data": {"seat": seat, "count": len(drawn), "wanted": count, "reason": reason,
                            "draw_size": len(player["draw"]), "owner": seat, "from": "draw", "zone": "hand"},
                   "private": {seat: {"cards": refs(state, drawn)}}})
    return drawn


def discard(state: dict, seat: str, iids: list[str], reason: str, events: list, slot: str | None = None,
            where: str | None = None) -> None:
    """Put cards (already taken from wherever they were) on the seat's discard pile; the
    event says where they were (`from`: `where`, or the reason's usual place; and the
    formation `slot` of a realm's cards)."""
    if not iids:
        return
    state["players"][seat]["discard"].extend(iids)
    events.append({"kind": "cards_discarded", "data": {
        "seat": seat, "cards": refs(state, iids), "reason": reason, "owner": seat,
        "from": where or DISCARDED_FROM.get(reason, "battle"), "slot": slot, "zone": "discard"}})


def banish(state: dict, seat: str, champion: str, attached: list[str], zone: str, reason: str,
           events: list) -> None:
    """Send a champion and what is attached to it to Limbo, the Abyss or the Void
    (rules/NOTES.md: attachments follow their champion)."""
    player = state["players"][seat]
    if zone == "limbo":
        player["limbo"].append({"champion": champion, "attached": list(attached)})
    else:
        player[zone].extend([champion] + list(attached))
    events.append({"kind": "sent_to_zone", "data": {"seat": seat, **about(state, champion, seat, zone),
                                                    "attached": refs(state, attached),
                                                    "from": "battle" if reason == "defeated" else "pool",
                                                    "reason": reason}})


def in_play(state: dict) -> set[str]:
    """Card ids in play (formation, pools, battle): what the Rule of the Cosmos looks at."""
    ids: set[str] = set()
    cards = state["cards"]
    for seat in state["seats"]:
        player = state["players"][seat]
        for s in formation.SLOTS:
            slot = player["formation"][s]
            if slot is not None:
                ids.add(cards[slot["realm"]])
                if slot["holding"] is not None:
                    ids.add(cards[slot["holding"]])
        for entry in player["pool"]:
            ids.add(cards[entry["champion"]])
            ids.update(cards[i] for i in entry["attached"])
    battle = state["battle"]
    if battle is not None:
        for side in battle["sides"].values():
            if side is not None:
                ids.add(cards[side["champion"]])
                ids.update(cards[i] for i in side["attached"])
    return ids


def cosmos_allows(state: dict, iid: str, playing: set[str] | None = None) -> bool:
    """Rule of the Cosmos: one copy of each champion, artifact, realm and holding in play."""
    if card(state, iid)["type"] not in UNIQUE:
        return True
    return state["cards"][iid] not in (playing if playing is not None else in_play(state))


def pool_entry(state: dict, seat: str, champion: str) -> dict | None:
    for entry in state["players"][seat]["pool"]:
        if entry["champion"] == champion:
            return entry
    return None


def has_artifact(state: dict, attached: list[str]) -> bool:
    return any(card(state, i)["type"] == "artifact" for i in attached)


def artifact_fits(state: dict, artifact: str, champion: str, attached: list[str]) -> bool:
    """One artifact per champion, from the champion's world."""
    return not has_artifact(state, attached) and formation.worlds_match(card(state, artifact)["world"],
                                                                 card(state, champion)["world"])


def all_card_ids(state: dict) -> list[str]:
    """Every instance in every zone (and the battle): the conservation check of the tests."""
    out: list[str] = []
    for seat in state["seats"]:
        p = state["players"][seat]
        out += p["draw"] + p["hand"] + p["discard"] + p["abyss"] + p["void"]
        for entry in p["pool"] + p["limbo"]:
            out += [entry["champion"]] + entry["attached"]
        for s in formation.SLOTS:
            slot = p["formation"][s]
            if slot is not None:
                out.append(slot["realm"])
                if slot["holding"] is not None:
                    out.append(slot["holding"])
    battle = state["battle"]
    if battle is not None:
        for side in battle["sides"].values():
            if side is not None and side["from"] != "realm":  # a realm defending itself is in its slot
                out += [side["champion"]]
            if side is not None:
                out += side["attached"] + side["played"]
    if state.get("rule") is not None:
        out.append(state["rule"]["card"])
    out += state.get("dungeons", {}).values()
    return out
