"""Hourglass's greedy bot: every choice is scored by the wounds and Knights it is
expected to win or lose this Battle Turn, from the seat's view alone.

What is hidden (the others' Battle Hands, the Bandit deck) is guessed the same way every
time: a player holds any card of a deck like the bot's own (every player starts with the
same Battlecards), the Bandits any card of the set that is not in it. Against each guess
an Attack is settled by the ruleset's own `rules.attack`, so the bot counts Misses,
Grazes, Critical Hits and the Tie Breaker exactly as the engine does.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import cast

from ..engine.hourglass import rules
from ..engine.hourglass.rules import BANDITS
from ..engine.ruleset import Prompt, default_answer
from .base import Answer, Seen

# Weights of the evaluation, in Knights: a Knight sent back is worth 1.
KILL = 1.0
WOUND = 0.8  # a Knight one wound short of its Health is worth almost this much
BATTLE = 3.0  # every enemy (or every Knight of ours) leaving the battle: the tile is decided
CUBE = 0.15  # one cube fewer on the Hourglass Board: the next attack comes sooner
KEEP = 0.5  # what keeping a card for later is worth, against using it now

GUESS = "?"  # "the card it may hold": no card kind has this id (ids are letters, digits, - and _)
NO_CARD = {"damage": 0, "precision": 0, "delay2": 0, "defense": 0, "dodge": 0, "wound": 0}


@dataclass(slots=True)
class Battle:
    """The battle being resolved, as the seat sees it, and what each side may hold."""

    seen: Seen
    b: dict  # the view's battle being resolved
    me: str
    tiebreak: dict  # what rules.priority reads of the state
    # Memos for this one answer: the same Attack is settled many times over.
    _wounds: dict = field(default_factory=dict)
    _guesses: dict = field(default_factory=dict)
    _sides: dict = field(default_factory=dict)

    @property
    def attributes(self) -> dict:
        return self.seen.view["attributes"]

    def kind(self, kind: str | None) -> dict:
        return NO_CARD if kind is None else self.seen.view["cards"][kind]

    def knights(self, side: str) -> list[dict]:
        return [k for k in self.b["knights"] if k["owner"] == side]

    def enemies(self, side: str) -> list[dict]:
        return rules.enemies(self.b, side)

    def hand_guess(self, side: str) -> list[str | None]:
        """The kinds `side` may place, equally likely (None: it has no card)."""
        if side not in self._guesses:
            self._guesses[side] = self._hand_guess(side)
        return self._guesses[side]

    def _hand_guess(self, side: str) -> list[str | None]:
        view = self.seen.view
        mine = [c["kind"] for c in view.get("my_hand", []) + view.get("my_discards", [])]
        placed = (view["turn"] or {}).get("placed", {})
        if side == self.me:
            return mine or [None]
        if placed.get(side, "face_down") is None:
            return [None]
        if side == BANDITS:
            if not view["bandit_deck"]:
                return [None]
            others = [k for k in view["cards"] if k not in mine]
            return others or list(view["cards"])
        if not view["hands"].get(side) and not view["discards"].get(side):
            return [None]
        return mine or list(view["cards"])

    def wounds(self, attacker: str, card: str | None, target: str, guard: str | None) -> int:
        """The wounds one Attack of `attacker` with `card` adds to a Knight of `target`
        holding `guard`."""
        key = (attacker, card, target, guard)
        if key not in self._wounds:
            self._wounds[key] = self._settle(attacker, card, target, guard)
        return self._wounds[key]

    def _settle(self, attacker: str, card: str | None, target: str, guard: str | None) -> int:
        a, d = self.attributes[attacker], self.attributes[target]
        off, dfn = self.kind(card), self.kind(guard)
        favoured = rules.attacker_wins_ties(self.tiebreak, self.b, attacker, target)
        return rules.attack(a["precision"] + off["precision"], d["dodge"] + dfn["dodge"],
                            a["damage"] + off["damage"], d["defense"] + dfn["defense"], favoured)["wounds"]

    def side_worth(self, attacker: str, card: str | None, side: str, hit: tuple, guard: str | None) -> tuple[float, float]:
        """`blows_worth` for one side's Knights (`hit`: (Knight, Attacks on it)) holding
        `guard`, or each card it may hold (equally likely) when `guard` is GUESS."""
        key = (attacker, card, side, hit, guard)
        if key not in self._sides:
            self._sides[key] = self._side_worth(attacker, card, side, hit, guard)
        return self._sides[key]

    def _side_worth(self, attacker: str, card: str | None, side: str, hit: tuple, guard: str | None) -> tuple[float, float]:
        health = self.attributes[side]["health"]
        wounds = {k["id"]: k["wounds"] for k in self.knights(side)}
        everyone = len(wounds) == len(hit)
        guesses = self.hand_guess(side) if guard == GUESS else [guard]
        worth, gone_all = 0.0, 0
        for guess in guesses:
            change = self.kind(guess)["wound"]
            each = self.wounds(attacker, card, side, guess)
            all_here = everyone
            for knight, blows in hit:
                gained, gone = struck(wounds[knight], health, change, blows, each)
                worth += gained
                all_here = all_here and gone
            gone_all += all_here
        return worth / len(guesses), gone_all / len(guesses)

    def cubes(self, side: str, card: str | None) -> int:
        return rules.cubes_for(self.attributes[side]["delay2"] + self.kind(card)["delay2"])


def value(wounds: int, health: int) -> float:
    """What a Knight with `wounds` is worth to whoever fights it."""
    return KILL if wounds >= health else WOUND * wounds / health


def struck(start: int, health: int, change: int, blows: int, each: int) -> tuple[float, bool]:
    """A Knight's worth gained by its enemies, and whether it leaves, when its Defender's
    card changes its wounds by `change` and then `blows` Attacks add `each` (the first
    that sends it back makes the others miss it)."""
    wounds = max(0, start + change)
    gone = False
    for _ in range(blows):
        wounds += each
        if wounds >= health:
            gone = True
            break
    return value(wounds, health) - value(start, health), gone


def blows_worth(battle: Battle, attacker: str, card: str | None, targets: dict[str, str],
                guards: dict[str, str | None] | None = None) -> tuple[float, dict[str, float]]:
    """The expected worth to `attacker` playing `card` of `targets` (attacking Knight ->
    target), each Defender's card guessed (or given in `guards`); and for each side
    attacked, the chance that all its Knights leave the battle."""
    blows = Counter(targets.values())
    by_side: dict[str, list[tuple[str, int]]] = {}
    for k in battle.b["knights"]:
        if k["id"] in blows:
            by_side.setdefault(k["owner"], []).append((k["id"], blows[k["id"]]))
    total, wiped = 0.0, {}
    for side, hit in by_side.items():
        guard = guards[side] if guards and side in guards else GUESS
        worth, wiped[side] = battle.side_worth(attacker, card, side, tuple(hit), guard)
        total += worth
    return total, wiped


def turn_worth(battle: Battle, attacker: str, card: str | None, targets: dict[str, str]) -> float:
    """`blows_worth`, plus BATTLE times the chance that every enemy leaves: the tile won."""
    worth, wiped = blows_worth(battle, attacker, card, targets)
    won = 1.0
    for side in {k["owner"] for k in battle.enemies(attacker)}:
        won *= wiped.get(side, 0.0)
    return worth + BATTLE * won


class HourglassBot:
    """Alone in every battle (an Alliance shares the tile, and the ranking), the biggest
    battle first, and at each Battle Turn the targets and the card worth most now. The
    generator is not needed: ties go to the first option listed."""

    level = "greedy"

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        kind = prompt["kind"]
        if kind == "choose_battle":
            return choose_battle(seen, prompt)
        if kind == "alliance":
            return Answer("alone", {})
        battle = current(seen)
        option = cast(dict, prompt["options"][0])  # with hourglass's own fields (about, attacker, ...)
        if kind == "targets":
            return targets(battle, option)
        if kind == "defend":
            return defend(battle, option)
        if kind == "attack_card":
            return attack_card(battle, option)
        return Answer(*default_answer(prompt))  # pragma: no cover - the ruleset opens no other kind


def current(seen: Seen) -> Battle:
    b = next(b for b in seen.view["battles"] if b["tile"] == seen.view["current"])
    return Battle(seen, b, seen.seat, {"priority": seen.view["tie_breaker"]})


def choose_battle(seen: Seen, prompt: Prompt) -> Answer:
    """The battle with the most Knights and Bandits first, while the Battle Hand is full:
    that is where the cards decide most."""
    option = cast(dict, prompt["options"][0])  # with hourglass's own `about`
    tile = max(option["args"]["tile"], key=lambda t: sum(option["about"][t]["knights"].values()))
    return Answer(option["id"], {"tile": tile})


def targets(battle: Battle, option: dict) -> Answer:
    """One Knight after another, the target that adds most to the turn's worth with the
    card the seat would play best with it (or none when no target adds anything)."""
    args = option["args"]
    cards = sorted(set(battle.hand_guess(battle.me)), key=lambda c: (c is None, c or ""))
    best: tuple[float, dict] | None = None
    for card in cards:
        chosen: dict[str, str] = {}
        worth = 0.0
        for knight in args:
            pick, pick_worth = "none", worth
            for target in args[knight]:
                if target == "none":
                    continue
                w = turn_worth(battle, battle.me, card, {**chosen, knight: target})
                if w > pick_worth + 1e-9:
                    pick, pick_worth = target, w
            if pick != "none":
                chosen[knight] = pick
                worth = pick_worth
        if best is None or worth > best[0] + 1e-9:
            best = (worth, chosen)
    chosen = best[1] if best else {}
    return Answer(option["id"], {k: chosen.get(k, "none") for k in args})


def card_kinds(option: dict) -> dict[str, str]:
    return {card: about["kind"] for card, about in option["about"].items() if "kind" in about}


def attack_score(battle: Battle, kind: str | None, targets_now: dict) -> float:
    return turn_worth(battle, battle.me, kind, targets_now) - CUBE * battle.cubes(battle.me, kind)


def defence_score(battle: Battle, kind: str | None, attacker: str, targets_now: dict) -> float:
    """What the seat keeps when it defends with `kind` against the guessed cards of
    `attacker`: its Knights' worth, and BATTLE if they would all leave."""
    mine = {k["id"] for k in battle.knights(battle.me)}
    aimed = {a: t for a, t in targets_now.items() if t in mine}
    guesses = battle.hand_guess(attacker)
    lost = 0.0
    for guess in guesses:
        worth, wiped = blows_worth(battle, attacker, guess, aimed, {battle.me: kind})
        lost += worth + BATTLE * wiped.get(battle.me, 0.0)
    return -lost / len(guesses)


def keep_worth(battle: Battle, kind: str) -> float:
    """What a card is worth to keep: the better of attacking with it and defending with it,
    against a fresh Knight, in this battle."""
    foes = battle.enemies(battle.me)
    if not foes:
        return 0.0
    foe = foes[0]["owner"]
    health = battle.attributes[foe]["health"]
    attack = struck(0, health, 0, 1, battle.wounds(battle.me, kind, foe, None))[0]
    attack -= CUBE * battle.cubes(battle.me, kind)
    my_health = battle.attributes[battle.me]["health"]
    guard = -struck(0, my_health, battle.kind(kind)["wound"], 1, battle.wounds(foe, None, battle.me, kind))[0]
    return max(attack, guard)


def attack_card(battle: Battle, option: dict) -> Answer:
    """The card that makes this turn's attacks worth most (sooner next turn counting too);
    the discard is the card least worth keeping."""
    kinds = card_kinds(option)
    targets_now = (battle.seen.view["turn"] or {}).get("targets", {})
    score = {k: attack_score(battle, k, targets_now) for k in sorted(set(kinds.values()))}
    keep = {k: keep_worth(battle, k) for k in score}
    if "combos" not in option:
        card = max(option["args"]["card"], key=lambda c: score[kinds[c]])
        return Answer(option["id"], {"card": card})
    best: tuple[float, dict] | None = None
    for combo in option["combos"]:
        for card in combo["card"]:
            for discard in combo["discard"]:
                s = score[kinds[card]] - KEEP * keep[kinds[discard]]
                if best is None or s > best[0] + 1e-9:
                    best = (s, {"card": card, "discard": discard})
    assert best is not None  # with_combos makes at least one combo, with a value of each argument
    return Answer(option["id"], best[1])


def defend(battle: Battle, option: dict) -> Answer:
    """The card that saves most of the seat's targeted Knights, a card worth keeping
    counting against it."""
    kinds = card_kinds(option)
    targets_now = (battle.seen.view["turn"] or {}).get("targets", {})
    attacker = option["attacker"]
    score = {k: defence_score(battle, k, attacker, targets_now) - KEEP * keep_worth(battle, k)
             for k in sorted(set(kinds.values()))}
    card = max(option["args"]["card"], key=lambda c: score[kinds[c]])
    return Answer(option["id"], {"card": card})
