"""How a test plays a player page: what to click on each ruleset's board, and the prompt
bar for everything else. Every click goes through the page's own controls."""

from __future__ import annotations

from pathlib import Path

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
ENABLED = ":not([disabled])"


async def prompt_key(page) -> str:
    """The ids of the prompts open on the page now ("" when none)."""
    ids = await page.eval_on_selector_all(".prompt-bar [data-prompt-box]", "els => els.map(e => e.dataset.promptBox)")
    return ",".join(ids)


async def click_first(page, selector: str) -> bool:
    found = page.locator(selector)
    if await found.count() == 0:
        return False
    await found.first.click(timeout=8_000)
    return True


async def bar_move(page) -> bool:
    """Answer the first open prompt from the prompt bar: its default option when it has one."""
    return (await click_first(page, f".prompt-bar .prompt:not(.busy) button.choice.is-default{ENABLED}")
            or await click_first(page, f".prompt-bar .prompt:not(.busy) button.choice{ENABLED}"))


async def board_move(page, ruleset: str) -> bool:
    """One click on the board that plays (or prepares) an answer; False when the board has
    nothing to offer for the open prompts."""
    return await BOARD[ruleset](page)


async def _duel(page) -> bool:
    return (await click_first(page, f".board .duel-move.is-default{ENABLED}")
            or await click_first(page, f".board .duel-move{ENABLED}"))


async def _spellfire(page) -> bool:
    # A card chosen earlier waits for its place (a slot, a champion, a side): give it one.
    return (await click_first(page, f".board .sf-target[data-prompt]{ENABLED}")
            or await click_first(page, f".board .sf-playable[data-prompt]:not(.armed){ENABLED}"))


async def _hourglass(page) -> bool:
    if await click_first(page, f".board .hg-choose{ENABLED}") or await click_first(page, f".board .hg-alliance button{ENABLED}"):
        return True
    if await page.locator(".board .hg-go").count():
        # Aim a Knight by clicking it and then its target, then attack.
        if await page.locator(".board .hg-knight.aimable").count():
            return await click_first(page, ".board .hg-knight.aimable")
        key = await prompt_key(page)
        aimed = await page.evaluate("() => document.body.dataset.aimed || ''")
        if await page.locator(".board .hg-knight.selectable").count() and aimed != key:
            await page.evaluate("k => { document.body.dataset.aimed = k; }", key)
            return await click_first(page, ".board .hg-knight.selectable")
        return await click_first(page, f".board .hg-go{ENABLED}")
    return await click_first(page, f".board .hg-card.playable{ENABLED}")


async def _demigod(page) -> bool:
    # Aim at a target when a card is chosen; else choose a card to attack or defend with;
    # else pick one of your characters.
    if await click_first(page, f".board .dg-cell.mark-target{ENABLED}"):
        return True
    if (await page.locator(".board .dg-card.playable.selected").count() == 0
            and await click_first(page, f".board .dg-card.playable{ENABLED}")):
        return True
    if await page.locator(".board .dg-cell.selected").count() == 0:
        return await click_first(page, f".board .dg-cell.selectable{ENABLED}")
    return False


BOARD = {"duel": _duel, "spellfire": _spellfire, "hourglass": _hourglass, "demigod": _demigod}


async def shot(page, name: str, full_page: bool = True) -> None:
    """A PNG in test-artifacts/screenshots/ (for people to look at; nothing compares them)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)
