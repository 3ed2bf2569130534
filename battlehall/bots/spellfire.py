"""Spellfire's greedy bot: each prompt's options are scored from what the seat is shown,
and the best is answered; nothing is searched, so an answer costs the same late in a
match as early.

What it knows: its seat's view, the match's definitions (inline cards of a setup) and
the published card sets (the `card_sets` every client gets), for what a card id does.
How it plays (docs/spellfire.md, "Bots"): a realm every turn where it shields most,
champions into the pool but magical items and artifacts kept in the hand, an attack on
the realm it expects to beat (the leading opponent's first), a defence only when the
battle can be held, in a battle the card that wins outright or the smallest that puts
it ahead, and a pass or a stop whenever nothing it holds would turn the round.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any, cast

from ..engine.ruleset import Prompt
from ..engine.spellfire import formation
from ..engine.spellfire.cards import shipped
from ..engine.spellfire.powers import SAME_WORLD_BONUS, can_use, slays
from .base import Answer, Seen

OTHER = {"attacker": "defender", "defender": "attacker"}
# Kinds a champion's side plays into a battle (powers.playable); events are played by all.
BATTLE_KINDS = ("ally", "magical_item", "artifact", "spell", "psionic_power", "blood_ability", "thief_skill",
                "unarmed_combat")
# Event powers that end the battle or the round, by the side that they make the winner.
WINS = {"attacker": ("raze_realm_event", "discard_realm_event", "discard_defender_event"),
        "defender": ("discard_attacker_event",)}
LOSES = {"attacker": ("discard_attacker_event",), "defender": ("raze_realm_event", "discard_realm_event")}
# A champion in a hand the seat cannot see: what it expects one to add to a defence.
HIDDEN_CHAMPION = 5
# Support cards a side plays in one round, at most, when the bot reckons what a hand adds.
CARDS_PER_ROUND = 3
# The expected margin below which the seat does not attack.
ATTACK_MARGIN = 0
WIN = 1000  # the score of an answer that wins the round or the battle outright

_SHIPPED = shipped().cards


class SpellfireBot:
    level = "greedy"

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        g = _Game(seen)
        handler = _HANDLERS.get(prompt["kind"])
        choice = handler(g, prompt) if handler is not None else None
        if choice is None:
            choice = prompt["default"], {}
        return _legal(prompt, *choice)


def _legal(prompt: Prompt, oid: str, wanted: dict[str, Any]) -> Answer:
    """The answer with `oid`'s arguments: the wanted value where it is listed (within one
    combo when the option has combos), else the first listed one."""
    option = next((o for o in prompt["options"] if o["id"] == oid), None)
    if option is None:  # never expected: fall back on the prompt's default
        option = next(o for o in prompt["options"] if o["id"] == prompt["default"])
    lists = option.get("args") or {}
    if "combos" in option:
        lists = next((c for c in option["combos"] if all(wanted.get(k) in v for k, v in c.items() if k in wanted)),
                     option["combos"][0])
    return Answer(option["id"], {k: (wanted[k] if wanted.get(k) in v else v[0]) for k, v in sorted(lists.items())})


class _Game:
    """What the seat sees, with each card id's definition at hand."""

    def __init__(self, seen: Seen):
        self.me = seen.seat
        self.view = seen.view
        custom = (seen.definitions or {}).get("custom_cards") or ()
        self._custom = {c["id"]: c for c in custom}
        self.players = seen.view["players"]
        self.mine = self.players[self.me]
        self.turn = seen.view["turn"] or {}
        self.battle = seen.view["battle"]
        self.options = seen.view["options"]

    def card(self, cid: str) -> dict:
        found = _SHIPPED.get(cid)
        return found if found is not None else self._custom[cid]

    def hand(self) -> list[tuple[str, dict]]:
        return [(r["card"], self.card(r["def"])) for r in self.mine["hand"] or ()]

    def opponents(self) -> list[str]:
        resigned = self.view.get("resigned") or ()
        return [s for s in self.view["seats"] if s != self.me and s not in resigned]

    def in_play(self) -> set[str]:
        """Card ids in formations, pools and the battle (the Rule of the Cosmos)."""
        ids: set[str] = set()
        for p in self.players.values():
            for slot in p["formation"].values():
                if slot is not None:
                    ids.add(slot["def"])
                    if slot["holding"] is not None:
                        ids.add(slot["holding"]["def"])
            for e in p["pool"]:
                ids.add(e["def"])
                ids.update(a["def"] for a in e["attached"])
        if self.battle is not None:
            for s in self.battle["sides"].values():
                if s is not None:
                    ids.add(s["def"])
                    ids.update(a["def"] for a in s["attached"])
        return ids

    def uses_left(self, seat: str, iid: str, c: dict) -> int:
        limit = 2 if seat == self.turn.get("seat") and "extra_attack" in c["powers"] else 1
        return limit - list(self.turn.get("used") or ()).count(iid)

    def threat(self, seat: str) -> float:
        """How near a seat is to winning on realms: what razing one of its realms is worth."""
        unrazed = self.players[seat]["unrazed"]
        lead = max((self.players[s]["unrazed"] for s in self.opponents()), default=0)
        return unrazed + (3 if unrazed >= self.options["realms_to_win"] - 1 else 0) + (1 if unrazed == lead else 0)


# -- what cards add in a battle -----------------------------------------------------------

def _level(c: dict) -> int:
    return c["level"] if c["type"] == "champion" else (c["defends_as"] or 0)


def _card_bonus(g: _Game, c: dict, side: str, seat: str, opposing: dict | None) -> int:
    """What one card adds to its side (powers.card_bonus, with the hooks it can see)."""
    value = c["bonus"] + (c["attack_bonus"] if side == "attacker" else c["defend_bonus"])
    hook = c["hook"]
    if hook == "mirror" and opposing is not None:
        value += _level(opposing) // 2
    elif hook == "turn_undead" and opposing is not None and "undead" in opposing["powers"]:
        value += 4
    elif hook == "last_stand" and g.players[seat]["unrazed"] <= 2:
        value += 4
    return value


def _ground(g: _Game, side: str, seat: str, realm: dict | None, holding: dict | None,
            realm_slot: str | None) -> int:
    """What a side gets from the cards in play around a battle: the rule card, its seat's
    dungeon and always-active realms and holdings, and for the defender the realm under
    attack and its holding."""
    value = 0
    rule = g.view.get("rule")
    if rule is not None:
        value += _card_bonus(g, g.card(rule["def"]), side, seat, None)
    dungeon = (g.view.get("dungeons") or {}).get(seat)
    if dungeon is not None:
        value += _card_bonus(g, g.card(dungeon["def"]), side, seat, None)
    if side == "defender":
        for c in (realm, holding):
            if c is not None:
                value += _card_bonus(g, c, side, seat, None)
    for s, slot in g.players[seat]["formation"].items():
        if slot is None or slot["razed"] or (side == "defender" and s == realm_slot):
            continue
        for ref in (slot, slot["holding"]):
            if ref is not None and "always_active" in g.card(ref["def"])["powers"]:
                value += _card_bonus(g, g.card(ref["def"]), side, seat, None)
    return value


def _fighter(g: _Game, side: str, seat: str, c: dict, attached: list[dict], realm: dict | None,
             opposing: dict | None) -> int:
    """A champion's total on a side, before the cards of the round (without the ground)."""
    value = _level(c) + _card_bonus(g, c, side, seat, opposing)
    value += sum(_card_bonus(g, a, side, seat, opposing) for a in attached)
    if g.options.get("same_world_bonus") and realm is not None and c["type"] == "champion" \
            and c["world"] == realm["world"]:
        value += SAME_WORLD_BONUS
    return value


def _support(g: _Game, champion: dict, side: str, opposing: dict | None, spare: Collection[str] = frozenset()) -> int:
    """What the seat's hand could add for this champion in one round: the best few cards
    it may play for it (bonus events included)."""
    bonuses = []
    for iid, c in g.hand():
        if iid in spare:
            continue
        if c["type"] == "event" or (c["type"] in BATTLE_KINDS and can_use(champion, c)):
            b = _card_bonus(g, c, side, g.me, opposing)
            if b > 0:
                bonuses.append(b)
    bonuses.sort(reverse=True)
    return sum(bonuses[:CARDS_PER_ROUND])


def _decider(g: _Game, side: str, opposing: dict | None) -> bool:
    """Does the hand hold an event that wins a round for this side whatever the totals?"""
    for _, c in g.hand():
        if c["type"] == "event" and _outcome(c, side, opposing) > 0:
            return True
    return False


def _outcome(c: dict, side: str, opposing: dict | None) -> int:
    """+1: playing the card for `side` wins it the round or the battle; -1: it loses them;
    0: neither."""
    powers = c["powers"]
    if any(p in powers for p in WINS[side]):
        return 1
    if any(p in powers for p in LOSES[side]):
        return -1
    if opposing is not None and (slays(c, opposing) or (c["hook"] == "lure" and opposing["class"] == "monster")):
        return 1
    return 0


def _slain(attacker: list[dict], defender: list[dict]) -> str | None:
    """The side slain at step D by a champion's (or its items') `slays`, the attacker's first."""
    if any(slays(c, defender[0]) for c in attacker):
        return "defender"
    if any(slays(c, attacker[0]) for c in defender):
        return "attacker"
    return None


# -- phases 0, 2, 3 and 5 ------------------------------------------------------------------

def _play_rule(g: _Game, prompt: Prompt):
    """A dungeon works for its owner only: play it. A rule card works for everyone: play
    one that favours the side the seat is on more often (defending when it leads)."""
    leads = g.mine["unrazed"] >= max((g.players[s]["unrazed"] for s in g.opponents()), default=0)
    rule = g.view.get("rule")
    for o in _about(prompt):
        c = g.card(o["def"])
        if c["type"] == "dungeon" and not (g.view.get("dungeons") or {}).get(g.me):
            return o["id"], {}
        if c["type"] == "rule" and not c["negates"] and (rule is None or rule["seat"] != g.me):
            if (c["defend_bonus"] > c["attack_bonus"]) == leads:
                return o["id"], {}
    return "done", {}


def _realm_worth(c: dict) -> float:
    return (c["defend_bonus"] + (c["defends_as"] or 0) / 2 + 2 * ("defeat_twice" in c["powers"])
            + ("sealed" in c["powers"]) + ("always_active" in c["powers"]) * (c["attack_bonus"] + c["defend_bonus"])
            + bool(c["negates"]))


def _exposed_after(slots: dict, slot: str) -> int:
    """Unrazed realms left exposed once a new realm stands in `slot`."""
    after = dict(slots)
    after[slot] = {"razed": False}
    return sum(1 for s in formation.SLOTS if after[s] is not None and not after[s]["razed"] and formation.exposed(after, s))


def _realm_slot(g: _Game, slots: list[str]) -> str:
    mine = g.mine["formation"]
    return min(slots, key=lambda s: (_exposed_after(mine, s), formation.SLOTS.index(s)))


def _holding_slot(g: _Game, slots: list[str]) -> str:
    mine = g.mine["formation"]
    return min(slots, key=lambda s: (not formation.exposed(mine, s), formation.SLOTS.index(s)))


def _play_realm(g: _Game, prompt: Prompt):
    """The best realm where it leaves the fewest realms exposed; then the best holding on
    an exposed realm."""
    realms = [o for o in _about(prompt) if g.card(o["def"])["type"] == "realm"]
    if realms:
        best = max(realms, key=lambda o: _realm_worth(g.card(o["def"])))
        return best["id"], {"slot": _realm_slot(g, best["args"]["slot"])}
    holdings = [o for o in _about(prompt) if g.card(o["def"])["type"] == "holding"]
    if holdings:
        best = max(holdings, key=lambda o: _realm_worth(g.card(o["def"])))
        return best["id"], {"slot": _holding_slot(g, best["args"]["slot"])}
    return "done", {}


def _pool_champion(g: _Game, iid: str) -> tuple[dict, list[dict]] | None:
    for e in g.mine["pool"]:
        if e["card"] == iid:
            return g.card(e["def"]), [g.card(a["def"]) for a in e["attached"]]
    return None


def _strength(g: _Game, iid: str) -> int:
    champion = _pool_champion(g, iid)
    assert champion is not None  # an avatar's sacrifice names a champion of the seat's pool
    c, attached = champion
    return _level(c) + max(c["attack_bonus"], c["defend_bonus"]) + sum(a["bonus"] for a in attached)


def _avatar_pays(g: _Game, o: dict) -> str | None | bool:
    """For an avatar: False if it is not worth its cost, else the pool champion to give
    (None when nothing is given)."""
    victims = (o.get("args") or {}).get("sacrifice")
    if not victims:
        return None
    victim = min(victims, key=lambda v: (_strength(g, v), v))
    return victim if _strength(g, victim) < _level(g.card(o["def"])) else False


def _play_pool(g: _Game, prompt: Prompt):
    """Champions, the highest first (but not into the pool of a seat with no realm, which
    loses it at the end of the turn). Magical items and artifacts stay in the hand: played
    in a battle they serve whichever champion fights, only when its side is behind, and
    stay with it if it wins (a variant that attached them in phase 3 won 178 of 400
    two-seat matches against this bot)."""
    if g.mine["unrazed"] > 0:
        for o in sorted(_about(prompt), key=lambda o: -_level(g.card(o["def"]))):
            c = g.card(o["def"])
            if c["type"] != "champion":
                continue
            if c["cost"] is None:
                return o["id"], {}
            victim = _avatar_pays(g, o)
            if victim is not False:
                return o["id"], ({} if victim is None else {"sacrifice": victim})
    return "done", {}


def _keep_worth(g: _Game, c: dict, playing: set[str], realms_held: int) -> float:
    """How much a hand card is worth keeping (phase 5 discards the least)."""
    kind = c["type"]
    unique_blocked = kind in ("champion", "artifact", "realm", "holding") and c["id"] in playing
    if unique_blocked:
        return 0.5
    if kind == "realm":
        room = g.options["realms_to_win"] - g.mine["unrazed"]
        return (9 if realms_held <= room else 3) + _realm_worth(c)
    if kind == "holding":
        return 2 + c["defend_bonus"]
    if kind == "champion":
        return 3 + _level(c) + ("flyer" in c["powers"]) + bool(c["slays"])
    if kind == "event":
        if any(p in c["powers"] for p in WINS["attacker"] + WINS["defender"]) or c["slays"] or c["hook"] == "lure":
            return 8
        return 2 + c["bonus"] + c["draw_cards"] + bool(c["negates"]) + ("counter_spell" in c["powers"])
    if kind in ("rule", "dungeon"):
        return 1.5 + c["attack_bonus"] + c["defend_bonus"]
    value = c["bonus"] + max(c["attack_bonus"], c["defend_bonus"])
    champions = [g.card(e["def"]) for e in g.mine["pool"]] + [h for _, h in g.hand() if h["type"] == "champion"]
    if kind in BATTLE_KINDS and not any(can_use(ch, c) for ch in champions):
        value /= 2
    return 1 + value


def _discard(g: _Game, prompt: Prompt):
    playing = g.in_play()
    realms_held = sum(1 for _, c in g.hand() if c["type"] == "realm")
    worst = min(_about(prompt), key=lambda o: (_keep_worth(g, g.card(o["def"]), playing, realms_held), o["id"]))
    return worst["id"], {}


def _spoils(g: _Game, prompt: Prompt):
    """Play the spoils at once when they go into play (a realm, above all) or act."""
    played = [o for o in _options(prompt) if o["id"] != "keep"]
    if not played:
        return "keep", {}
    o = played[0]
    c = g.card(o["def"])
    args = o.get("args") or {}
    if c["type"] == "realm":
        return o["id"], {"slot": _realm_slot(g, args["slot"])}
    if c["type"] == "holding":
        return o["id"], {"slot": _holding_slot(g, args["slot"])}
    if c["type"] in ("magical_item", "artifact"):
        return "keep", {}  # for a battle, as in phase 3
    if c["type"] == "champion":
        if c["cost"] is not None:
            victim = _avatar_pays(g, o)
            return ("keep", {}) if victim is False else (o["id"], {} if victim is None else {"sacrifice": victim})
        return (o["id"], {}) if g.mine["unrazed"] > 0 else ("keep", {})
    if c["type"] in ("rule", "dungeon"):
        pick = _play_rule(g, cast(Prompt, {"options": [o]}))  # _play_rule reads the options alone
        return (o["id"], {}) if pick[0] == o["id"] else ("keep", {})
    return o["id"], {}  # an event or any-time card that acts now (draws, scavenges)


# -- phase 4: the attack --------------------------------------------------------------------

def _attackers(g: _Game) -> list[tuple[str, dict, list[dict]]]:
    """The seat's champions that may still attack this turn: (instance, card, attached)."""
    out = []
    for e in g.mine["pool"]:
        c = g.card(e["def"])
        if g.uses_left(g.me, e["card"], c) > 0:
            out.append((e["card"], c, [g.card(a["def"]) for a in e["attached"]]))
    playing = None
    for iid, c in g.hand():
        if c["type"] == "champion" and c["cost"] is None and g.uses_left(g.me, iid, c) > 0:
            playing = g.in_play() if playing is None else playing
            if c["id"] not in playing:
                out.append((iid, c, []))
    # a battle beyond the turn's attacks opens with a champion that attacked and may again
    if g.turn.get("attacks", 0) >= g.options["attacks_per_turn"] and (g.battle is None or g.battle["round"] == 0):
        used = g.turn.get("used") or ()
        out = [a for a in out if "extra_attack" in a[1]["powers"] and a[0] in used]
    return out


def _defence(g: _Game, owner: str, slot: str, realm: dict, holding: dict | None) -> tuple[int, list[dict]]:
    """What the seat expects a realm's owner to defend it with: its best pool champion
    that may still fight (or the realm itself), a hidden one if its hand is large, plus
    the ground and a little for the cards in its hand. Also the champion it expects."""
    ground = _ground(g, "defender", owner, realm, holding, slot)
    best, champion = 0, []
    for e in g.players[owner]["pool"]:
        c = g.card(e["def"])
        if g.uses_left(owner, e["card"], c) > 0:
            value = _fighter(g, "defender", owner, c, [g.card(a["def"]) for a in e["attached"]], realm, None)
            if value > best:
                best, champion = value, [c] + [g.card(a["def"]) for a in e["attached"]]
    if realm["defends_as"]:
        best = max(best, realm["defends_as"])
    hand = g.players[owner]["hand_size"]
    if hand >= 3:
        best = max(best, HIDDEN_CHAMPION)
    return ground + best + min(hand, 6) // 2, champion


def _attack_plan(g: _Game, realm_iid: str, owner: str, slot: str) -> tuple[float, str | None]:
    """(margin, champion): how far the seat's best champion for this realm is expected to
    beat its defence, with the hand's help; the champion to send."""
    ref = g.players[owner]["formation"][slot]
    realm = g.card(ref["def"])
    holding = None if ref["holding"] is None else g.card(ref["holding"]["def"])
    defence, expected = _defence(g, owner, slot, realm, holding)
    reach_all = formation.exposed(g.players[owner]["formation"], slot)
    best, pick = -WIN, None
    for iid, c, attached in _attackers(g):
        if not formation.reaches(c, realm, reach_all):
            continue
        total = _fighter(g, "attacker", g.me, c, attached, realm, expected[0] if expected else None)
        total += _ground(g, "attacker", g.me, None, None, None)
        total += _support(g, c, "attacker", expected[0] if expected else None)
        if expected:
            slain = _slain([c] + attached, expected)
            total += {"defender": WIN, "attacker": -WIN, None: 0}[slain]
        if _decider(g, "attacker", expected[0] if expected else None):
            total += WIN
        if total > best:
            best, pick = total, iid
    return best - defence, pick


def _choose_realm(g: _Game, prompt: Prompt):
    """Attack the realm with the best expected margin, the most threatening owner's
    first; end the phase when no attack is expected to win."""
    best, pick = None, "end"
    for o in _about(prompt):
        margin, champion = _attack_plan(g, o["id"], o["owner"], o["slot"])
        if champion is None or margin < ATTACK_MARGIN:
            continue
        score = min(margin, 6) + 2 * g.threat(o["owner"])
        if best is None or score > best:
            best, pick = score, o["id"]
    return pick, {}


def _choose_attacker(g: _Game, prompt: Prompt):
    """The champion expected to beat the realm's defence by most; in a later round (a
    realm defeated twice) only one expected to win."""
    b = g.battle
    margin, champion = _attack_plan(g, b["card"], b["defender"], b["slot"])
    offered = {o["id"] for o in _about(prompt)}
    if champion in offered and (b["round"] == 0 or margin >= 0):
        return champion, {}
    if b["round"] == 0 and offered:  # the attack is spent either way: send the strongest
        best = max(_about(prompt), key=lambda o: (_level(g.card(o["def"])), o["id"]))
        return best["id"], {}
    return "end", {}


# -- the battle -----------------------------------------------------------------------------

def _side(g: _Game) -> str | None:
    b = g.battle
    if b is None:
        return None
    return "attacker" if b["attacker"] == g.me else "defender" if b["defender"] == g.me else None


def _side_cards(g: _Game, side: str) -> list[dict]:
    """A side's champion, then what is attached and played for it."""
    s = g.battle["sides"][side]
    if s is None:
        return []
    return [g.card(s["def"])] + [g.card(r["def"]) for r in s["attached"] + s["played"]]


def _choose_defender(g: _Game, prompt: Prompt):
    """Defend with the champion that stands best against the attacker, if with the hand's
    cards it can hold; else let the realm defend itself if it can, or decline (a
    champion that cannot win is kept for another battle)."""
    b = g.battle
    attacking = _side_cards(g, "attacker")
    if not attacking:
        return "decline", {}
    threat = g.battle["sides"]["attacker"]["total"]
    realm = g.card(b["def"])
    ref = g.mine["formation"][b["slot"]]
    holding = None if ref is None or ref["holding"] is None else g.card(ref["holding"]["def"])
    ground = _ground(g, "defender", g.me, realm, holding, b["slot"])
    holds = _decider(g, "defender", attacking[0])
    scored = []
    for o in _about(prompt):
        if o["id"] == b["card"]:  # the realm defends itself: its defend_bonus is in the ground
            cards = [realm]
        else:
            found = _pool_champion(g, o["id"])
            cards = [g.card(o["def"])] + (found[1] if found else [])
        total = _fighter(g, "defender", g.me, cards[0], cards[1:], realm, attacking[0]) + ground
        if cards[0]["type"] == "realm":
            total -= _card_bonus(g, realm, "defender", g.me, attacking[0])  # counted once, in the ground
        slain = _slain(attacking, cards)
        if slain == "defender":
            continue
        reach = total + _support(g, cards[0], "defender", attacking[0]) + (WIN if slain == "attacker" or holds else 0)
        scored.append((reach >= threat, total, -_level(cards[0]), o["id"]))
    viable = [s for s in scored if s[0]]
    if viable:
        return max(viable)[3], {}
    if any(o["id"] == b["card"] for o in _about(prompt)):
        return b["card"], {}
    return "decline", {}


def _negated(g: _Game, side: str) -> set[str]:
    """Kinds of card the other side's cards in the round (and the rule card) cancel for `side`."""
    kinds: set[str] = set()
    for entry in g.battle["order"]:
        if entry["side"] in (None, OTHER[side]) and not entry["cancelled"]:
            kinds.update(g.card(entry["def"])["negates"])
    rule = g.view.get("rule")
    if rule is not None:
        kinds.update(g.card(rule["def"])["negates"])
    return kinds


def _need(g: _Game, side: str) -> int:
    """How much `side` must still gain to win the round (ties go to the defender)."""
    sides = g.battle["sides"]
    return sides[OTHER[side]]["total"] - sides[side]["total"] + (side == "attacker")


def _fight(g: _Game, prompt: Prompt, give_up: str):
    """The side behind plays: a card that wins outright; else, if the hand can catch up,
    the smallest card that puts it ahead or the largest that helps; else a card that draws
    more, or one that takes both champions down rather than lose alone; else `give_up`."""
    side = _side(g)
    if side is None or g.battle["sides"][OTHER[side]] is None:
        return give_up, {}
    opposing = g.card(g.battle["sides"][OTHER[side]]["def"])
    negated = _negated(g, side)
    need = _need(g, side)
    helps, draws, both = [], [], []
    for o in _about(prompt):
        c = g.card(o["def"])
        if o["zone"] == "pool":  # a champion called in as an ally adds its level
            if "ally" not in negated:
                helps.append((_level(c), 0, o["id"]))
            continue
        if g.battle["pending"] is None:
            result = _outcome(c, side, opposing)
            if result > 0:
                return o["id"], {}
            if result < 0:
                continue
        if "discard_both_event" in c["powers"]:
            both.append(o["id"])
            continue
        bonus = 0 if c["type"] in negated else _card_bonus(g, c, side, g.me, opposing)
        if c["type"] == "event" and "counter_spell" in c["powers"]:
            # it discards the other side's last spell: what that spell adds is what it gains
            spells = [r for r in g.battle["sides"][OTHER[side]]["played"] if g.card(r["def"])["type"] == "spell"]
            if spells:
                bonus += _card_bonus(g, g.card(spells[-1]["def"]), OTHER[side], g.battle[OTHER[side]], None)
        if bonus > 0:
            stays = c["type"] in ("magical_item", "artifact")
            helps.append((bonus, -stays, o["id"]))
        elif c["draw_cards"] or c["hook"] == "scavenge":
            draws.append(o["id"])
    if need <= 0:
        return give_up, {}
    if sum(h[0] for h in helps) >= need:
        enough = [h for h in helps if h[0] >= need]
        return (min(enough) if enough else max(helps))[2], {}
    if draws:
        return draws[0], {}
    if both and g.battle["pending"] is None:
        return both[0], {}
    return give_up, {}


def _battle_play(g: _Game, prompt: Prompt):
    return _fight(g, prompt, "stop")


def _play_at_once(g: _Game, prompt: Prompt):
    return _fight(g, prompt, "pass")


def _before_battle(g: _Game, prompt: Prompt):
    """Before the battle: the best card that helps, while the side is not ahead."""
    side = _side(g)
    if side is None or _need(g, side) <= 0:
        return "done", {}
    opposing = g.card(g.battle["sides"][OTHER[side]]["def"])
    negated = _negated(g, side)
    best, pick = 0, "done"
    for o in _about(prompt):
        c = g.card(o["def"])
        bonus = 0 if c["type"] in negated else _card_bonus(g, c, side, g.me, opposing)
        if bonus > best:
            best, pick = bonus, o["id"]
    return pick, {}


def _respond(g: _Game, prompt: Prompt):
    """A side of the battle passes: if it is behind when the window closes it plays
    then, with every card at hand. A seat outside the battle draws cards when it can, and
    spends an event only against an opponent close to winning on realms."""
    if _side(g) is not None or g.battle is None or g.battle["sides"]["defender"] is None:
        return "pass", {}
    b = g.battle
    defender_leads = g.threat(b["defender"]) >= g.threat(b["attacker"]) \
        and g.players[b["defender"]]["unrazed"] >= g.options["realms_to_win"] - 2
    attacker_leads = g.threat(b["attacker"]) > g.threat(b["defender"]) \
        and g.players[b["attacker"]]["unrazed"] >= g.options["realms_to_win"] - 2
    for o in _about(prompt):
        c = g.card(o["def"])
        sides = (o.get("args") or {}).get("side")
        if not sides:
            if c["draw_cards"] or c["hook"] == "scavenge":
                return o["id"], {}
            continue
        if b["pending"] is not None:
            continue
        for helped, leads in (("attacker", defender_leads), ("defender", attacker_leads)):
            against = b["sides"][OTHER[helped]]
            if leads and helped in sides and _outcome(c, helped, g.card(against["def"])) > 0:
                return o["id"], {"side": helped}
    return "pass", {}


def _options(prompt: Prompt) -> list[dict]:
    """The options of a prompt, with spellfire's own fields (the card's `def`, ...)."""
    return cast(list[dict], prompt["options"])


def _about(prompt: Prompt) -> list[dict]:
    """The options of a prompt that are about a card."""
    return [o for o in _options(prompt) if o.get("def")]


_HANDLERS = {
    "play_rule": _play_rule,
    "play_realm": _play_realm,
    "play_pool": _play_pool,
    "choose_realm": _choose_realm,
    "choose_attacker": _choose_attacker,
    "choose_defender": _choose_defender,
    "before_battle": _before_battle,
    "battle_play": _battle_play,
    "play_at_once": _play_at_once,
    "respond": _respond,
    "spoils": _spoils,
    "discard": _discard,
}
