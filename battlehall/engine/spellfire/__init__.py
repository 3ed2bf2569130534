"""The `spellfire` ruleset: Spellfire battles for realms (docs/spellfire.md).

Modules, one idea each: cards (card files and their vocabulary), zones (where cards
are), formation (the realm pyramid), plays (putting cards into play), rulecards (phase 0:
rule cards and dungeons), turn (the phases), battle (steps B-J), battle_state (the
battle's typed shape and lookups), champions (who may still fight this turn), before
(cards played before the battle), window (the any-time window after each card), fates
(where a round's champions go), spoils (step J), activation (the order table), powers
(what powers do), setup (starting positions), view (what a viewer sees), game (the
Ruleset).
"""

from .game import Spellfire

__all__ = ["Spellfire"]
