"""The rule sentences of the text as small pure functions, each quoting its sentence.

Sides are the seats and ``"bandits"`` (the Bandit "player"). A battle is
``{"tile", "knights": [{"id", "owner", "wounds"}], "alliances": [[a, b]], "top": {side: n},
"bottom": {side: n}, ...}``; a Bandit is a knight whose owner is ``"bandits"``.
"""

from __future__ import annotations

BANDITS = "bandits"


# -- The Tie Breaker (NOTES: "the players have a strict tie-breaking priority order") ----

def priority(state: dict, battle: dict, side: str) -> int:
    """A side's rank in the Tie Breaker, 0 highest. "An alliance takes the lower
    priority of its two members." """
    order = state["priority"]
    rank = order.index(side)
    for pair in battle["alliances"]:
        if side in pair:
            rank = max(order.index(s) for s in pair)
    return rank


def tie_key(state: dict, battle: dict, side: str) -> tuple[int, int]:
    """Sort key for a tie between sides: the Tie Breaker (alliances at their lower
    priority), then the side's own rank (two allies tied for Attacker)."""
    return priority(state, battle, side), state["priority"].index(side)


def attacker_wins_ties(state: dict, battle: dict, attacker: str, target: str) -> bool:
    """NOTES: "Whenever two values compared in an attack are equal, the comparison goes
    the way that favours whichever of attacker and target has the higher priority." """
    return priority(state, battle, attacker) < priority(state, battle, target)


def less(a: int, b: int, on_tie: bool) -> tuple[bool, bool]:
    """"when checking if a value is greater than or less than another, all cases of
    equality are considered ties, the result of which is determined by the Tie
    Breaker": a < b, or `on_tie` when equal. Returns (result, was it a tie)."""
    return (on_tie, True) if a == b else (a < b, False)


def more(a: int, b: int, on_tie: bool) -> tuple[bool, bool]:
    """a > b, or `on_tie` when equal (see `less`)."""
    return (on_tie, True) if a == b else (a > b, False)


# -- Attack -------------------------------------------------------------------------

def attack(precision: int, dodge: int, damage: int, defense: int, attacker_favoured: bool) -> dict:
    """Tests 1-5 of an Attack, in order: the outcome, the damage it counts, the wounds it adds
    and whether the Tie Breaker settled it."""
    ties = []
    # 1. "If the Attacker's Precision is less than half of their target's Dodge (rounded
    #    down), the attack is a Miss and inflicts no damage." (a tie that favours the
    #    target is a Miss)
    is_less, tie = less(precision, dodge // 2, on_tie=not attacker_favoured)
    ties.append(tie)
    if is_less:
        return {"outcome": "miss", "damage": 0, "wounds": 0, "tie": any(ties)}
    # 2. "Otherwise, if the Attacker's Precision is less than the target's Dodge, the
    #    attack is a Graze and only half of the Attacker's Damage value will be
    #    considered (rounded up)."
    is_less, tie = less(precision, dodge, on_tie=not attacker_favoured)
    ties.append(tie)
    if is_less:
        outcome, counted = "graze", -(-damage // 2)
    else:
        # 3. "Otherwise, if the Attacker's Precision is more than twice the target's
        #    Dodge, the attack is a Critical Hit and the Attacker's Damage value is
        #    doubled for this attack."
        is_more, tie = more(precision, 2 * dodge, on_tie=attacker_favoured)
        ties.append(tie)
        if is_more:
            outcome, counted = "critical", 2 * damage
        else:
            # 4. "Otherwise, if the Attacker's Precision is more than the target's
            #    Dodge, the attack simply takes the Attacker's Damage value into
            #    account." Having passed test 2, Precision is at least Dodge with the
            #    same Tie Breaker, so this test always holds here.
            tie = more(precision, dodge, on_tie=attacker_favoured)[1]
            ties.append(tie)
            outcome, counted = "hit", damage
    return {"outcome": outcome, "damage": counted, "wounds": wounds_added(counted, defense), "tie": any(ties)}


def wounds_added(damage: int, defense: int) -> int:
    """5. "The number of Wound to add to the target corresponds to the resulting
    Attacker's Damage minus the target's Defense attribute. If this is negative, no
    Wound are added, but none are removed, either." """
    return max(0, damage - defense)


def knocked_out(wounds: int, health: int) -> bool:
    """6. "If the number of Wound on a Knight or Bandit is equal or more than their
    owner's Health attribute, the Knight is sent back to the owner's play area." """
    return wounds >= health


def card_wounds(wounds: int, change: int) -> int:
    """Battle Turn 6: "The Wound attribute change is only considered as the amount of
    Wound to immediately add or remove to each of the Defender's targeted Knight and
    Bandit." Wounds never go below none."""
    return max(0, wounds + change)


# -- The Hourglass Board --------------------------------------------------------------

def cubes_for(delay2: int) -> int:
    """"a number of their Player Cubes corresponding to the Delay Attribute of their
    Knight (rounded up)": Delay is kept in halves; none below zero."""
    return max(0, -(-delay2 // 2))


def choose_attacker(state: dict, battle: dict) -> str | None:
    """Start of Battle Turn 1: "Among the players with no Player Cube on the top part of
    the Hourglass Board, the one with the lowest amount of Player Cube on the Hourglass
    Board becomes the Attacker." A tie goes by the Tie Breaker. None if nobody qualifies."""
    free = [s for s in battle["top"] if battle["top"][s] == 0]
    if not free:
        return None
    return min(free, key=lambda s: (battle["top"][s] + battle["bottom"][s], *tie_key(state, battle, s)))


def turn_hourglass(state: dict, battle: dict) -> tuple[str, int]:
    """Start of Battle Turn 1: "If no such player exists, restart the player turn after
    having the player with the fewest Player Cube on the top part of the Hourglass Board
    move them to the bottom part and all the other players move the same number of their
    Player Cube likewise." Returns who moved first and how many each moved."""
    mover = min(battle["top"], key=lambda s: (battle["top"][s], *tie_key(state, battle, s)))
    moved = battle["top"][mover]
    for side in battle["top"]:
        battle["top"][side] -= moved
        battle["bottom"][side] += moved
    return mover, moved


def end_turn_cubes(battle: dict, attacker: str, delay2: int) -> int:
    """End of Battle Turn 1: "The Attacker removes their Player Cube from bottom part of
    the Hourglass Board and places as many of their Player Cube on the top part as they
    have Delay (rounded up). Note that the Attribute is still affected by the Attacker's
    Battlecard at this point." Returns the cubes placed."""
    battle["bottom"][attacker] = 0
    placed = cubes_for(delay2)
    battle["top"][attacker] += placed
    return placed


# -- Who is still in the battle ---------------------------------------------------------

def sides_in(battle: dict) -> list[str]:
    """The sides with a Knight or Bandit in the battle, in the order they are listed."""
    out: list[str] = []
    for knight in battle["knights"]:
        if knight["owner"] not in out:
            out.append(knight["owner"])
    return out


def team(battle: dict, side: str) -> str:
    """A side's team: its alliance, or itself."""
    for pair in battle["alliances"]:
        if side in pair:
            return "+".join(pair)
    return side


def battle_over(battle: dict) -> bool:
    """"Battle Turns keep resolvings until only remain Bandit or Knight belonging to the
    same Alliance (or player)." """
    return len({team(battle, s) for s in sides_in(battle)}) <= 1


def enemies(battle: dict, side: str) -> list[dict]:
    """Battle Turn 2: what a side's Knights may target: "one Bandit or one Knight of
    the other players", never an ally's."""
    mine = team(battle, side)
    return [k for k in battle["knights"] if team(battle, k["owner"]) != mine]


def form_alliances(players: list[str], offers: dict) -> list[list[str]]:
    """"A player may be in at most one Alliance and Alliances have a maximum of two
    players. Bandit cannot be part of any Alliances." By mutual agreement: two players
    ally when each named the other (each names at most one)."""
    pairs = []
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            if offers.get(a) == b and offers.get(b) == a and BANDITS not in (a, b):
                pairs.append([a, b])
    return pairs
