"""Demigod's greedy bot: every choice is scored by the damage and the defeats it is expected
to cause or spare this turn, from the seat's view alone, one ply deep.

What is hidden (the others' hands, every deck) is guessed the same way every time: a
defender holds cards like its Demigod's deck (the shipped decks are public; a Demigod of
a setup, any card of the set), and defends with one of them, any (none with an empty hand). Against that guess
an attack is settled by the ruleset's own functions (`combat.attack_value`,
`take_damage`, `effects.bonus`, `grid.in_range`), so the bot counts AV and DV, Damage
Reduction, barriers, Armor and Health, Poison and Disease exactly as the engine does.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import cast

from ..engine.demigod import grid
from ..engine.demigod.combat import TICKS_TO_DEFEAT, attack_value, take_damage
from ..engine.demigod.data import cards as shipped_cards
from ..engine.demigod.data import units as shipped_units
from ..engine.demigod.effects import add_effect, bonus
from ..engine.ruleset import Prompt, default_answer
from .base import Answer, Seen

# Weights of the evaluation, in Health Points of a Minion: one HP taken from an enemy Minion is worth 1.
DEMIGOD = 2.0  # a Demigod's Health counts this much more (its fall takes its side out)
LAYER = 0.7  # a point of Armor or barrier, against a point of Health
KILL_MINION = 6.0  # a Minion defeated: one attacker fewer
KILL_DEMIGOD = 60.0  # a Demigod defeated while other sides stay in: its side is out
WIN = 300.0  # the last enemy Demigod defeated (or our own: the match lost)
TICK = 0.25  # a Poison or Disease tick (they grow each turn; 20 defeat)
DRAW = 1.0  # a card drawn
PUSH = 0.1  # a square pushed
DEBUFF = 0.5  # a point of AV, DV or DR taken from an enemy (or given to us), per turn it lasts
BARRIER_USE = 0.6  # the share of a barrier the bot expects to be used
DRAIN = 0.4  # a card an enemy spends to defend
KEEP = 0.5  # what keeping any card is worth, against using it now
KEEP_VALUE = 0.1  # and per point of its attack or defence value
FULL_HAND = 0.3  # the share of that kept when the hand is (nearly) at its limit
APPROACH = 0.6  # per square between a Minion and its nearest enemy (a Demigod: half)
GOD_APPROACH = 0.15  # per square to the nearest enemy Demigod
DANGER = 0.35  # per point of damage the enemies in reach may deal next turn
KILL_RISK = 0.15  # the share of a defeat counted when the enemies in reach could deal it
# With more than two sides in, the sides ranked by the Health they keep: a fight with one
# leaves the others ahead, so the bot stays back and keeps out of reach.
CROWD_DANGER = 2.0
CROWD_APPROACH = 0.0
CROWD_GOD_APPROACH = 0.0
GUESSED_DEFENCES = 1  # a defender plays the best of this many cards of its hand (2 measured worse)
EPS = 1e-9


@lru_cache(maxsize=1)
def decks() -> dict[str, list[str]]:
    """Demigod name -> its deck (card names with repeats), from the shipped units."""
    return {god["name"]: sorted(n for n, k in god["deck"].items() for _ in range(k)) for god in shipped_units()["demigods"]}


def defence_worth(card: dict) -> int | None:
    """What a card is worth as a defence, in DV (None: it cannot defend). A reaction's
    barrier or DV effect counts as DV."""
    if card["type"] == "spell" or card["dv"] is None:
        return None
    extra = 0
    if card["type"] == "reaction":
        extra = (card["barrier"] or 0) + (card["effect"]["value"] if card.get("effect") and card["effect"]["stat"] == "dv" else 0)
        extra += 3 if card["move"] else 0  # a Blink often steps out of reach
    return card["dv"] + extra


class Board:
    """The seat's view, with what the engine's range functions read of a state."""

    def __init__(self, seen: Seen):
        view = seen.view
        self.me = seen.seat
        self.view = view
        self.units: dict[str, dict] = view["units"]
        self.state = {"map": view["map"], "opts": view["options"], "units": self.units, "order": list(self.units)}
        self.defs = {**shipped_cards(), **{c["name"]: c for c in view.get("custom_cards") or []}}
        self.hand = {c["id"]: c["name"] for c in view.get("hand") or []}
        seats = list(view.get("hand_counts", {}))
        self.sides_in = [s for s in seats if s not in view.get("out", [])]
        self._dists: dict[str, list[tuple[int | None, float]]] = {}
        crowd = len(self.sides_in) > 2
        self.danger = CROWD_DANGER if crowd else DANGER
        self.approach = CROWD_APPROACH if crowd else APPROACH
        self.god_approach = CROWD_GOD_APPROACH if crowd else GOD_APPROACH
        self._places: dict[tuple, float] = {}  # memos for this one answer
        self._threats: dict[str, list] = {}

    def card(self, cid: str) -> dict:
        return self.defs[self.hand[cid]]

    def mine(self) -> list[str]:
        return [u for u in self.units if self.units[u]["side"] == self.me]

    def enemies(self) -> list[str]:
        return [u for u in self.units if self.units[u]["side"] != self.me]

    def moved_to(self, uid: str, sq: list) -> dict:
        """The state as the range functions read it, with `uid` standing on `sq`."""
        return {**self.state, "units": {**self.units, uid: {**self.units[uid], "pos": list(sq)}}}

    def weight(self, unit: dict) -> float:
        return DEMIGOD if unit["kind"] == "demigod" else 1.0

    def defeat_worth(self, unit: dict) -> float:
        """What the defeat of `unit` is worth to whoever caused it (the side, its Minions
        with it, when a Demigod falls)."""
        if unit["kind"] == "minion":
            return KILL_MINION
        if unit["side"] == self.me or len(self.sides_in) <= 2:
            return WIN
        return KILL_DEMIGOD

    def sign(self, unit: dict) -> float:
        return -1.0 if unit["side"] == self.me else 1.0

    def defence_guess(self, side: str) -> list[tuple[int | None, float]]:
        """The base DV `side` defends with (None: no card), and its chance: the best of
        GUESSED_DEFENCES cards drawn from a deck like its Demigod's."""
        if side not in self._dists:
            self._dists[side] = self._defence_guess(side)
        return self._dists[side]

    def _defence_guess(self, side: str) -> list[tuple[int | None, float]]:
        held = min(GUESSED_DEFENCES, self.view.get("hand_counts", {}).get(side, 0))
        if held == 0:
            return [(None, 1.0)]
        god = next((u["name"] for u in self.units.values() if u["side"] == side and u["kind"] == "demigod"), None)
        names = (decks().get(god) if god is not None else None) or sorted(self.defs)
        values = [defence_worth(self.defs[n]) for n in names if n in self.defs]
        if not values:
            return [(None, 1.0)]
        ranked = sorted({-1 if v is None else v for v in values})
        out, below = [], 0.0
        for v in ranked:  # P(best of `held` <= v) = F(v) ** held
            at_most = (sum(1 for w in values if (-1 if w is None else w) <= v) / len(values)) ** held
            out.append((None if v < 0 else v, at_most - below))
            below = at_most
        return out

    # -- Worth of one blow --------------------------------------------------------------

    def hit_worth(self, unit: dict, damage: int, card: dict, push_from: list | None = None) -> float:
        """What `damage` (AV - DV) and the card's Step 6 effects on `unit` are worth to
        whoever struck (negative for our own characters)."""
        hurt = {**unit}
        taken = take_damage(hurt, damage)
        w = self.weight(unit)
        worth = w * (taken["hp"] + LAYER * (taken["ap"] + taken["barrier"]))
        if hurt["hp"] <= 0:
            return self.sign(unit) * (worth + self.defeat_worth(unit))
        for kind in ("poison", "disease"):
            if card.get(kind):
                if unit[kind] + card[kind] >= TICKS_TO_DEFEAT:
                    return self.sign(unit) * (worth + self.defeat_worth(unit))
                worth += w * TICK * card[kind]
        effect = card.get("effect")
        if effect:
            worth -= DEBUFF * effect["value"] * effect["turns"] / 2 if effect["stat"] in ("av", "dv", "dr") else 0
        worth += PUSH * (card.get("push") or 0)
        return self.sign(unit) * worth

    def blow_worth(self, attacker: dict, card: dict, uid: str) -> float:
        """The expected worth of `card` played by `attacker` on `uid`, its defence guessed."""
        unit = self.units[uid]
        av = attack_value(card, attacker)
        dv_bonus = bonus(unit, "dv")
        worth = hit_chance = 0.0
        for base, p in self.defence_guess(unit["side"]):
            if base is not None:  # the defender spends a card, even on a miss
                worth += self.sign(unit) * DRAIN * p
            dv = 0 if base is None else max(0, base + dv_bonus)
            if av > dv:
                worth += p * self.hit_worth(unit, av - dv, card)
                hit_chance += p
        if card.get("draw") and unit["side"] != self.me:
            worth += DRAW * card["draw"] * hit_chance
        return worth

    def attack_worth(self, uid: str, card: dict, square: list, state: dict | None = None) -> float:
        """The worth of `uid` playing `card` at `square`: on every character caught, or on
        the caster for a Self card."""
        state = state or self.state
        attacker = state["units"][uid]
        if card["range"] == "self":
            return self.self_worth(attacker, card)
        area = grid.area(state, square, card["area"])
        caught = [u for u in self.units if u != uid and state["units"][u]["pos"] in area]
        return sum(self.blow_worth(attacker, card, u) for u in caught)

    def self_worth(self, unit: dict, card: dict) -> float:
        """A Self card: a barrier (that may be used), an effect (less if it only refreshes one)."""
        w = self.weight(unit)
        worth = BARRIER_USE * LAYER * w * (card.get("barrier") or 0)
        effect = card.get("effect")
        if effect:
            gain = DEBUFF * effect["value"] * (effect["turns"] - 1) * w
            if any(e["title"] == effect["title"] for e in unit["effects"]):
                gain *= 0.3
            worth += gain
        return worth

    def card_attacks(self, uid: str, state: dict) -> dict[str, float]:
        """For each card in hand `uid` could play from where `state` has it, the worth of
        its best aim less the card's keep."""
        unit = state["units"][uid]
        out: dict[str, float] = {}
        shapes: dict[str, list] = {}
        by_name: dict[str, float | None] = {}  # copies of a card are worth the same
        for cid in self.hand:
            card = self.card(cid)
            if not playable(unit, card) or (card["av"] is None and card["range"] != "self"):
                continue
            if card["name"] not in by_name:
                shape = f"{card['range']}/{card['reach']}/{card['area']}"
                if shape not in shapes:
                    shapes[shape] = aims(self, state, uid, card)
                by_name[card["name"]] = max((self.attack_worth(uid, card, sq, state) for sq in shapes[shape]),
                                            default=None)
            worth = by_name[card["name"]]
            if worth is not None:
                out[cid] = worth - self.keep_worth(card)
        return out

    def keep_worth(self, card: dict) -> float:
        """What keeping a card is worth: a little, more for a strong attack or defence;
        little when the hand is full (a card kept then is a card not drawn)."""
        worth = KEEP + KEEP_VALUE * max(card["av"] or 0, defence_worth(card) or 0)
        if len(self.hand) >= self.view["options"].get("hand_limit", 7) - 1:
            worth *= FULL_HAND
        return worth

    # -- Where to stand -------------------------------------------------------------------

    def place_worth(self, uid: str, sq: list) -> float:
        """How good `sq` is for `uid` to end its turn on: near the enemies (a Minion most),
        the enemy Demigod nearer, and out of the reach of what could hurt it badly."""
        key = (uid, sq[0], sq[1])
        if key not in self._places:
            self._places[key] = self._place_worth(uid, sq)
        return self._places[key]

    def _place_worth(self, uid: str, sq: list) -> float:
        unit = self.units[uid]
        if uid not in self._threats:
            # Each enemy: where it stands, how far it steps, the damage its Strike would
            # deal `uid` against a middling defence (at least 1).
            guard = bonus(unit, "dv") + unit["dr"] + bonus(unit, "dr")
            self._threats[uid] = [(f["pos"], f["move"], f["kind"], max(1, 4 + bonus(f, "av") - 2 - guard))
                                  for f in (self.units[e] for e in self.enemies())]
        foes = self._threats[uid]
        if not foes:
            return 0.0
        near = min(grid.distance(sq, pos) for pos, _, _, _ in foes)
        gods = [grid.distance(sq, pos) for pos, _, kind, _ in foes if kind == "demigod"]
        worth = -self.approach * max(0, near - 1) * (0.5 if unit["kind"] == "demigod" else 1.0)
        worth -= self.god_approach * (min(gods) if gods else 0)
        threat = sum(hurt for pos, move, _, hurt in foes if grid.distance(pos, sq) <= move + 1)  # it can step next to sq
        worth -= self.danger * self.weight(unit) * threat
        if threat >= unit["hp"] + unit["ap"] + unit["barrier"]:
            worth -= KILL_RISK * self.defeat_worth(unit)
        return worth


def playable(unit: dict, card: dict) -> bool:
    """Battle Cards by any character; spells by the Demigod alone; reactions only when targeted."""
    return card["type"] == "battle" or (card["type"] == "spell" and unit["kind"] == "demigod")


def aims(board: Board, state: dict, uid: str, card: dict) -> list[list]:
    """The squares `uid` could aim `card` at from where `state` has it: in range, holding an
    enemy or with one in the area (the rule of the turn prompt's combos)."""
    unit = state["units"][uid]
    if card["range"] == "self":
        return [list(unit["pos"])]
    out: list[list] = []
    for other in state["units"].values():
        if other["side"] != unit["side"]:
            for sq in grid.area(state, other["pos"], card["area"]) if card["area"] else [other["pos"]]:
                if sq not in out and grid.in_range(state, card, unit["pos"], sq):
                    out.append(sq)
    return out


def option_of(prompt: Prompt, option_id: str) -> dict | None:
    # An option as a plain dict: Demigod's carry fields of their own (`combos`, `attack`).
    return next((cast(dict, o) for o in prompt["options"] if o["id"] == option_id), None)


class DemigodBot:
    """The best attack first (the most expected damage and defeats, the card's worth to
    keep counted against it), moving first when a better one is a move away; then moves
    toward the enemies, out of reach of a blow that would fell; then the end of the turn.
    A window is answered with the defence that saves most, the card counted against it.
    The generator is not needed: ties go to the first option listed."""

    level = "greedy"

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        if prompt["kind"] == "turn":
            return turn(Board(seen), prompt)
        if prompt["kind"] == "defend":
            return defend(Board(seen), prompt)
        return Answer(*default_answer(prompt))  # a kind it does not know


def turn(board: Board, prompt: Prompt) -> Answer:
    """The attack that, with the best attack each other character could still make with
    the other cards (from where it stands or a move away), is worth most; a character
    moves first when that makes its attack (and where it stands) better. Then moves to
    better squares; then the end of the turn."""
    attack, move = option_of(prompt, "attack"), option_of(prompt, "move")
    tos = {combo["unit"][0]: combo["to"] for combo in move["combos"]} if move else {}
    order = board.state["order"]
    ready = [u for u in board.mine() if not board.units[u]["attacked"]]
    here = {u: board.place_worth(u, board.units[u]["pos"]) for u in tos}
    # unit -> card -> the best worth of that card by that unit, now or after a move, and
    # the move that gets it (None: from where it stands).
    plan: dict[str, dict[str, tuple[float, list | None]]] = {u: {} for u in ready}
    now: dict[tuple[str, str], float] = {}
    if attack:
        for combo in attack["combos"]:
            uid, cid = combo["unit"][0], combo["card"][0]
            card = board.card(cid)
            for square in combo["target"]:
                score = board.attack_worth(uid, card, square) - board.keep_worth(card)
                if score > now.get((uid, cid), float("-inf")) + EPS:
                    now[(uid, cid)] = score
    for (uid, cid), score in now.items():
        plan[uid][cid] = (score, None)
    for uid in ready:
        for to in tos.get(uid, []):
            shift = min(0.0, board.place_worth(uid, to) - here[uid])  # a worse square counts against
            for cid, score in board.card_attacks(uid, board.moved_to(uid, to)).items():
                if score + shift > plan[uid].get(cid, (float("-inf"), None))[0] + EPS:
                    plan[uid][cid] = (score + shift, to)

    def others(uid: str, cid: str) -> float:
        """What the other ready characters may still win with the cards left."""
        return sum(max([0.0] + [s for c, (s, _) in plan[u].items() if c != cid]) for u in ready if u != uid)

    best: tuple[float, Answer] | None = None
    for uid in sorted(plan, key=order.index):
        for cid in plan[uid]:
            score, to = plan[uid][cid]
            if score <= EPS:
                continue
            total = score + others(uid, cid)
            if best is not None and total <= best[0] + EPS:
                continue
            if to is None:
                assert attack is not None  # a plan made without a move is one of its combos
                target = max((sq for c in attack["combos"] if c["unit"] == [uid] and c["card"] == [cid] for sq in c["target"]),
                             key=lambda sq: board.attack_worth(uid, board.card(cid), sq))
                best = (total, Answer("attack", {"unit": uid, "card": cid, "target": target}))
            else:
                best = (total, Answer("move", {"unit": uid, "to": to}))
    if best is not None:
        return best[1]
    reposition: tuple[float, Answer] | None = None
    for uid in sorted(tos, key=order.index):
        for to in tos[uid]:
            gain = board.place_worth(uid, to) - here[uid]
            if gain > EPS and (reposition is None or gain > reposition[0] + EPS):
                reposition = (gain, Answer("move", {"unit": uid, "to": to}))
    if reposition is not None:
        return reposition[1]
    return Answer("end", {})


def defend(board: Board, prompt: Prompt) -> Answer:
    """The answer that loses least: the damage and defeat the attack would cost with each
    card (a reaction's barrier, effect, move or damage first, as the engine resolves it),
    plus the card's worth to keep."""
    about = cast(dict, prompt["options"][0])["attack"]
    attacker_id, uid = about["attacker"]["unit"], about["defender"]["unit"]
    attacker, unit = board.units[attacker_id], board.units[uid]
    card = board.defs[about["card"]["name"]]
    square = board.view["attack"]["square"]
    av = attack_value(card, attacker)

    def loss(defender: dict, dv: int) -> float:
        # The defender is the seat's own: what the blow is worth to the attacker, the seat loses.
        return 0.0 if av <= dv else -board.hit_worth(defender, av - dv, card)

    best: tuple[float, Answer] | None = None

    def consider(cost: float, answer: Answer) -> None:
        nonlocal best
        if best is None or cost < best[0] - EPS:
            best = (cost, answer)

    for option in prompt["options"]:
        if option["id"] == "none":
            consider(loss(unit, 0), Answer("none", {}))
        elif option["id"] in ("defend", "react"):
            for cid in option["args"]["card"]:
                c = board.card(cid)
                cost = board.keep_worth(c)
                defender, hurt = unit, None
                if c["type"] == "reaction":
                    defender, hurt = reacted(unit, c), {**attacker}
                    if c.get("damage"):
                        taken = take_damage(hurt, c["damage"])
                        cost -= board.weight(attacker) * (taken["hp"] + LAYER * (taken["ap"] + taken["barrier"]))
                        if hurt["hp"] <= 0:  # the attacker falls first: its attack never lands
                            consider(cost - board.defeat_worth(attacker), Answer(option["id"], {"card": cid}))
                            continue
                dv = max(0, c["dv"] + bonus(defender, "dv"))
                consider(cost + loss(defender, dv), Answer(option["id"], {"card": cid}))
        elif option["id"] == "react_move":
            for combo in option["combos"]:
                cid = combo["card"][0]
                c = board.card(cid)
                for to in combo["to"]:
                    moved = board.moved_to(uid, to)
                    if card["area"]:
                        safe = to not in grid.area(moved, square, card["area"])
                    else:
                        safe = not grid.in_range(moved, card, attacker["pos"], to)
                    cost = board.keep_worth(c) - 0.1 * board.place_worth(uid, to)
                    if not safe:
                        cost += loss(unit, max(0, c["dv"] + bonus(unit, "dv")))
                    consider(cost, Answer("react_move", {"card": cid, "to": to}))
    return best[1] if best else Answer(*default_answer(prompt))


def reacted(unit: dict, card: dict) -> dict:
    """`unit` after a reaction's own barrier and effect (what resolves before Step 3)."""
    out = {**unit, "effects": [dict(e) for e in unit["effects"]]}
    out["barrier"] += card.get("barrier") or 0
    if card.get("effect"):
        add_effect(out, card["effect"], card["name"])
    return out
