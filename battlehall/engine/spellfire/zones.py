"""Where cards are, and the small moves between zones every other module shares.

A physical card is an instance id (``"c17"``); ``state["cards"]`` maps it to its card
id, whose definition is in the shipped catalog or in ``state["custom_cards"]`` (inline
cards of a setup). Each player's zones: ``draw`` (top first), ``hand``, ``pool`` (a list
of ``{"champion", "attached"}``), ``formation`` (formation.py) and ``discard`` (top
last). A card in a battle is held by the battle (battle.py) until the round ends.
"""

from __future__ import annotations

from . import formation as fm
from .cards import UNIQUE, shipped


_SHIPPED = shipped().cards  # looked up on every card access: bind it once


def card(state: dict, iid: str) -> dict:
    """The definition of a card instance."""
    cid = state["cards"][iid]
    found = _SHIPPED.get(cid)
    return found if found is not None else state["custom_cards"][cid]


def ref(state: dict, iid: str) -> dict:
    """How an event or a view names a card: instance and card id."""
    return {"card": iid, "def": state["cards"][iid]}


def about(state: dict, iid: str, owner: str, zone: str, slot: str | None = None) -> dict:
    """How an option or an event names the one card it is about: instance, card id, the
    seat that owns it, the zone it is in (`hand`, `pool`, `formation`, `battle`,
    `discard`) and its formation slot (None outside the formation)."""
    return {"card": iid, "def": state["cards"][iid], "owner": owner, "zone": zone, "slot": slot}


#: The same fields on an option that is about no card (`done`, `end`, `pass`, ...).
NO_CARD = {"card": None, "def": None, "owner": None, "zone": None, "slot": None}

#: Where the cards of each discard reason were (cards in a battle are held by the battle).
DISCARDED_FROM = {"replaced": "formation", "realm_razed": "formation", "hand_limit": "hand",
                  "no_realms": "pool"}


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


def discard(state: dict, seat: str, iids: list[str], reason: str, events: list, slot: str | None = None) -> None:
    """Put cards (already taken from wherever they were) on the seat's discard pile; the
    event says where they were (`from`, and the formation `slot` of a realm's cards)."""
    if not iids:
        return
    state["players"][seat]["discard"].extend(iids)
    events.append({"kind": "cards_discarded", "data": {
        "seat": seat, "cards": refs(state, iids), "reason": reason, "owner": seat,
        "from": DISCARDED_FROM.get(reason, "battle"), "slot": slot, "zone": "discard"}})


def in_play(state: dict) -> set[str]:
    """Card ids in play (formation, pools, battle): what the Rule of the Cosmos looks at."""
    ids: set[str] = set()
    cards = state["cards"]
    for seat in state["seats"]:
        player = state["players"][seat]
        for s in fm.SLOTS:
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
    return not has_artifact(state, attached) and fm.worlds_match(card(state, artifact)["world"],
                                                                 card(state, champion)["world"])


def all_card_ids(state: dict) -> list[str]:
    """Every instance in every zone (and the battle): the conservation check of the tests."""
    out: list[str] = []
    for seat in state["seats"]:
        p = state["players"][seat]
        out += p["draw"] + p["hand"] + p["discard"]
        for entry in p["pool"]:
            out += [entry["champion"]] + entry["attached"]
        for s in fm.SLOTS:
            slot = p["formation"][s]
            if slot is not None:
                out.append(slot["realm"])
                if slot["holding"] is not None:
                    out.append(slot["holding"])
    battle = state["battle"]
    if battle is not None:
        for side in battle["sides"].values():
            if side is not None:
                out += [side["champion"]] + side["attached"] + side["played"]
    return out
