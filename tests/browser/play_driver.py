"""How a test plays a player page: what to click on each ruleset's board, and the prompt
bar for everything else. Every click goes through the page's own controls."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
SHOTS.mkdir(parents=True, exist_ok=True)

ENABLED = ":not([disabled])"


def prompt_key(page) -> str:
    """The ids of the prompts open on the page now ("" when none)."""
    return ",".join(page.eval_on_selector_all(".prompt-bar [data-prompt-box]", "els => els.map(e => e.dataset.promptBox)"))


def click_first(page, selector: str) -> bool:
    found = page.locator(selector)
    if found.count() == 0:
        return False
    found.first.click(timeout=2_000)
    return True


def bar_move(page) -> bool:
    """Answer the first open prompt from the prompt bar: its default option when it has one."""
    return (click_first(page, f".prompt-bar .prompt:not(.busy) button.choice.is-default{ENABLED}")
            or click_first(page, f".prompt-bar .prompt:not(.busy) button.choice{ENABLED}"))


def board_move(page, ruleset: str) -> bool:
    """One click on the board that plays (or prepares) an answer; False when the board has
    nothing to offer for the open prompts."""
    return BOARD[ruleset](page)


def _duel(page) -> bool:
    return click_first(page, f".board .duel-move.is-default{ENABLED}") or click_first(page, f".board .duel-move{ENABLED}")


def _spellfire(page) -> bool:
    # A card chosen earlier waits for its place (a slot, a champion, a side): give it one.
    return (click_first(page, f".board .sf-target[data-prompt]{ENABLED}")
            or click_first(page, f".board .sf-playable[data-prompt]:not(.armed){ENABLED}"))


def _hourglass(page) -> bool:
    if click_first(page, f".board .hg-choose{ENABLED}") or click_first(page, f".board .hg-alliance button{ENABLED}"):
        return True
    if page.locator(".board .hg-go").count():
        # Aim each Knight by clicking it and then its target, then attack.
        if page.locator(".board .hg-knight.aimable").count():
            return click_first(page, ".board .hg-knight.aimable")
        aimed = page.evaluate("() => document.body.dataset.aimed || ''")
        if page.locator(".board .hg-knight.selectable").count() and aimed != prompt_key(page):
            page.evaluate("k => document.body.dataset.aimed = k", prompt_key(page))
            return click_first(page, ".board .hg-knight.selectable")
        return click_first(page, f".board .hg-go{ENABLED}")
    return click_first(page, f".board .hg-card.playable{ENABLED}")


def _demigod(page) -> bool:
    # Aim at a target when a card is chosen; else choose a card to attack or defend with;
    # else pick a character that has not attacked yet.
    if click_first(page, f".board .dg-cell.mark-target{ENABLED}"):
        return True
    if page.locator(".board .dg-card.playable.selected").count() == 0 and click_first(page, f".board .dg-card.playable{ENABLED}"):
        return True
    if page.locator(".board .dg-cell.selected").count() == 0:
        return click_first(page, f".board .dg-cell.selectable{ENABLED}")
    return False


BOARD = {"duel": _duel, "spellfire": _spellfire, "hourglass": _hourglass, "demigod": _demigod}
