"""Effects with a title, a source and a duration, and the bonuses they add up to.

An effect is ``{"title", "source", "stat", "value", "turns"}``: `stat` is ``av``, ``dv``
or ``dr``; `turns` counts the bearer's side's turns left (it drops by one at the end of
each of them and the effect ends at 0).
"""

from __future__ import annotations

# 'Attack Value (AV): Base Card + Weapon/Trinket/Spell bonuses.' /
# 'Defense Value (DV): Base Card + Shield/Armor/Spell bonuses.'
SLOTS = {"av": ("weapon", "trinket"), "dv": ("shield", "armour")}


def add_effect(unit: dict, effect: dict, source: str) -> str:
    """'Same-Source Restriction: Effects sharing the same title cannot stack. A new instance
    typically refreshes the duration of the old one.' / 'Stacking Similar Effects: Different
    sources providing the same bonus ... do stack. Each tracks its own timer.' / 'Simultaneous
    Effects: A character can be affected by any number of unique spells or items
    simultaneously.' Returns "refreshed" or "added"."""
    new = {"title": effect["title"], "source": source, "stat": effect["stat"], "value": effect["value"],
           "turns": effect["turns"]}
    for i, old in enumerate(unit["effects"]):
        if old["title"] == new["title"]:
            unit["effects"][i] = new  # the new instance replaces it: a fresh duration, no stacking
            return "refreshed"
    unit["effects"].append(new)
    return "added"


def bonus(unit: dict, stat: str) -> int:
    """Every source of a bonus to `stat`, added: equipment (weapons and trinkets add to AV,
    shields and armour to DV) and each effect on the unit."""
    slots = SLOTS.get(stat, ())
    total = sum(item.get(stat, 0) for item in unit["equipment"] if item["slot"] in slots)
    return total + sum(e["value"] for e in unit["effects"] if e["stat"] == stat)


def tick_down(unit: dict) -> list[str]:
    """The end of the bearer's turn: each effect's timer drops by one; returns the titles that ended."""
    ended = [e["title"] for e in unit["effects"] if e["turns"] <= 1]
    unit["effects"] = [{**e, "turns": e["turns"] - 1} for e in unit["effects"] if e["turns"] > 1]
    return ended
