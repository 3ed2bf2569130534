"""The node's pacing of its bots (bot_turns.py), on a real event loop: each turn after its
think time, and never more of them a second than the node allows, in the order they came."""

from __future__ import annotations

import asyncio
import time

from battlehall.server.bot_turns import BotTurns


class Recorder:
    def __init__(self):
        self.fed: list[tuple[float, object]] = []

    def feed_input(self, event) -> None:
        self.fed.append((time.monotonic(), event))


async def test_a_turn_comes_after_its_think_time():
    turns, player = BotTurns(think_ms=200, per_s=0), Recorder()
    start = time.monotonic()
    turns.schedule(player, "move")
    await asyncio.sleep(0.1)
    assert player.fed == []  # still thinking
    await asyncio.sleep(0.3)
    assert [event for _, event in player.fed] == ["move"] and player.fed[0][0] - start >= 0.2


async def test_no_more_turns_a_second_than_the_rate_and_the_rest_wait_in_order():
    turns, player = BotTurns(think_ms=0, per_s=20), Recorder()
    start = time.monotonic()
    for n in range(60):
        turns.schedule(player, n)
    await asyncio.sleep(1.0)
    elapsed = time.monotonic() - start
    let_through = [event for _, event in player.fed]
    # A slower machine lets fewer through; none may let more than the rate (and its burst of 2).
    assert 0 < len(let_through) <= 20 * elapsed + 2
    assert let_through == list(range(len(let_through)))  # in the order they came
    assert turns.delayed > 0 and len(turns.waiting) == 60 - len(let_through)
    await asyncio.sleep(60 / 20 + 0.5)
    assert [event for _, event in player.fed] == list(range(60))  # every one comes, in the end


async def test_without_a_rate_every_turn_goes_at_once():
    turns, player = BotTurns(think_ms=0, per_s=0), Recorder()
    for n in range(500):
        turns.schedule(player, n)
    await asyncio.sleep(0.1)
    assert len(player.fed) == 500 and turns.delayed == 0
