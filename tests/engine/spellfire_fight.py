"""A battle in progress, for the outcome and keyword tests of spellfire: alice attacks
bob's realm from a small explicit setup (built with the fixtures of spellfire_kit)."""

from __future__ import annotations

ATTACK = {"seat": "alice", "phase": "attack"}
BOB = {"A": "ironbridge", "B": "hollowmere", "C": "mistveil-hamlet"}


def battle(match, S, alice_hand=(), bob_hand=(), alice_pool=("torvald-ironhand", "maelis-brightquill"),
           bob_pool=("grey-warden-tamsin",), attacker="torvald-ironhand", defender="grey-warden-tamsin",
           realm="ironbridge", bob_formation=None, options=None, cards=None, alice=None, bob=None, **more):
    """alice attacks bob's realm; by default Torvald (7) against Tamsin (6 + 2 defending
    + 1 Ironbridge = 9): alice is behind and has the battle_play prompt."""
    a = {"pool": list(alice_pool), "hand": list(alice_hand), "draw": ["thornvale", "amberfield"],
         "formation": {"A": "emberhold"}, **(alice or {})}
    b = {"formation": bob_formation or BOB, "pool": list(bob_pool), "hand": list(bob_hand),
         "draw": ["ravencrag", "wailing-barrow"], **(bob or {})}
    m = match(alice=S(**a), bob=S(**b),
              turn=ATTACK, options=options, cards=cards, **more)
    m.answer(realm)
    m.answer(attacker)
    if defender is not None:
        m.answer(defender)
    return m


def spoils_drawn(m, ev) -> list[str]:
    return [d["seat"] for d in ev.find(m.log, "cards_drawn") if d["reason"] == "spoils"]
