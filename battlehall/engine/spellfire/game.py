"""`spellfire`: the Ruleset that ties the modules together (docs/spellfire.md).

The state, beside the shared fields of ruleset.py::

    rng            the generator of rng.py (used to shuffle the decks)
    options        the resolved match options
    cards          instance id -> card id, for every physical card
    custom_cards   card id -> definition, for the inline cards of a setup
    players        seat -> {draw, hand, pool, formation, discard} (zones.py)
    turn           {seat, number, phase, realm_played, holding_played, attacks, used,
                    rule_played, dungeon_played}
    battle         None, or the battle in progress (battle.py)
    rule           None, or the rule card in play: {seat, card} (rulecards.py)
    dungeons       seat -> the dungeon that seat has in play (rulecards.py)
    spoils         None, or {seat, card} while spoils wait to be played or kept
"""

from __future__ import annotations

from ..errors import SetupError
from ..rng import seed_state
from ..ruleset import (
    Declaration,
    Event,
    Prompt,
    Ruleset,
    State,
    base_state,
    boolean_option,
    choice_option,
    integer_option,
    list_option,
)
from . import battle, spoils, turn, view
from .cards import shipped
from .setup import default_start, explicit_start  # the module's name is new_state's parameter

# The default deck of each seat, in seat order (cards/starter.toml).
DEFAULT_DECKS = ("embers", "shadows", "tides", "sands", "crowns", "barrows")


class Spellfire(Ruleset):
    name = "spellfire"
    windows = True  # reaction windows
    title = "Spellfire"
    summary = ("Spellfire: build a formation of six realms; attack other players' realms with champions "
               "and back them with allies, spells, items and events in rounds of combat.")
    # Simultaneous: a battle window asks every seat but the card's player at once (3 seats or more).
    declaration = Declaration(information="hidden", moves="simultaneous", chance="seeded", min_seats=2, max_seats=6)
    options_doc = {
        "turn_limit": integer_option(150, 1, 10000, "Turn limit",
                                     "turns (of all seats together) after which the match ends: "
                                     "seats are ranked by unrazed realms; the most wins, "
                                     "several with the most are a draw"),
        "starting_hand": integer_option(5, 0, 20, "Starting hand", "cards each seat draws before the first turn"),
        "draw_per_turn": integer_option(3, 0, 10, "Cards drawn per turn", "cards drawn in phase 1"),
        "hand_limit": integer_option(8, 0, 50, "Hand limit",
                                     "hand size a seat discards down to in phase 5 (the pool does not count)"),
        "realms_to_win": integer_option(6, 1, 6, "Realms to win",
                                        "unrazed realms in formation at the end of a turn that win"),
        "attacks_per_turn": integer_option(1, 1, 10, "Attacks per turn",
                                           "battles a seat may start in one attack phase (an "
                                           "extra_attack champion's second attack may open one more)"),
        "same_world_bonus": boolean_option(False, "Same-world bonus",
                                           "optional rule: a champion of the realm's world gets +3 "
                                           "when attacking or defending it"),
        "exhaustion": choice_option("end", ["end", "continue"], "When the draw piles run out",
                                    "'end': when every draw pile is empty at the end of a turn the "
                                    "match ends, scored as at the turn limit; 'continue': play on "
                                    "without drawing"),
        "decks": list_option(None, sorted(shipped().decks), "Decks",
                             "deck ids in seat order (default: embers, shadows, tides, sands, "
                             "crowns, barrows, as many as there are seats); see card_sets; "
                             "ignored with a setup"),
    }

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        if not self.min_seats <= len(seats) <= self.max_seats or len(set(seats)) != len(seats):
            raise SetupError("seats", f"spellfire is played by {self.min_seats} to {self.max_seats} seats "
                                      "with different names")
        decks = options["decks"] if options["decks"] is not None else list(DEFAULT_DECKS[:len(seats)])
        catalog = shipped()
        if not isinstance(decks, list) or len(decks) != len(seats):
            raise SetupError("options.decks", "decks must be a list with one deck id per seat")
        for i, deck in enumerate(decks):
            if not isinstance(deck, str):
                raise SetupError(f"options.decks[{i}]", "a deck id is a string")
            if deck not in catalog.decks:
                raise SetupError(f"options.decks[{i}]", f"unknown deck {deck!r}")
        state = base_state(seats)
        state.update(rng=seed_state(0 if seed is None else seed), options=dict(options), cards={},
                     custom_cards={}, players={}, turn=None, battle=None, spoils=None, rule=None, dungeons={})
        events: list[Event] = []
        if setup is None:
            default_start(state, decks, events)
        else:
            explicit_start(state, setup, events)
        return state, events

    def apply(self, state: State, prompt: Prompt, option: str, args: dict) -> list[Event]:
        events: list[Event] = []
        kind = prompt["kind"]
        if kind == "respond":  # one of a window's prompts: the others may stay open
            if battle.answer_respond(state, prompt, option, args, events):
                turn.after_battle(state, events)
            return events
        state["prompts"] = []
        seat = prompt["seat"]
        battle_over = False
        if kind == "play_rule":
            turn.answer_rule(state, option, events)
        elif kind == "play_realm":
            turn.answer_realm(state, option, args, events)
        elif kind == "play_pool":
            turn.answer_pool(state, option, args, events)
        elif kind == "choose_realm":
            turn.answer_attack(state, option, events)
        elif kind == "discard":
            turn.answer_discard(state, option, events)
        elif kind == "choose_attacker":
            battle_over = battle.answer_attacker(state, option, events)
        elif kind == "choose_defender":
            battle_over = battle.answer_defender(state, option, events)
        elif kind == "play_at_once":
            battle_over = battle.answer_at_once(state, seat, option, events)
        elif kind == "before_battle":
            battle_over = battle.answer_before(state, seat, option, events)
        elif kind == "battle_play":
            battle_over = battle.answer_play(state, seat, option, events)
        elif kind == "spoils":
            battle_over = spoils.answer(state, option, args, events)
        else:  # pragma: no cover - every prompt kind is handled above
            raise ValueError(f"unknown prompt kind {kind!r}")
        if battle_over:
            turn.after_battle(state, events)
        return events

    def leave(self, state: State, seat: str) -> list[Event]:
        events: list[Event] = []
        turn.leave(state, seat, events)
        return events

    def view(self, state: State, viewer: str | None) -> dict:
        return view.view(state, viewer)  # the module view.py: a method is not in scope in its own body

    def definitions(self, state: State) -> dict:
        # Up to a megabyte of inline cards: in every view, they made each `view` answer that large.
        return {"custom_cards": list(state["custom_cards"].values())}

    def secrets(self, state: State, viewer: str | None) -> list:
        return view.secrets(state, viewer)

    def card_sets(self) -> list[dict]:
        catalog = shipped()
        return [{"id": s["id"], "name": s["name"], "cards": [catalog.cards[c] for c in s["cards"]],
                 "decks": [{"id": d, "name": catalog.decks[d]["name"], "cards": catalog.decks[d]["cards"]}
                           for d in s["decks"]]}
                for s in catalog.sets]
