"""The node's pacing of its bots (bot_turns.py), on a real event loop: each turn after its
think time, never more of them a second than the node allows, a match's in the order they
came, and the node's rate shared round robin between the lanes waiting: one per address
that made matches someone is on, one for all the matches nobody is on. Then against a real
server: one address's many bot matches do not slow another's bot."""

from __future__ import annotations

import asyncio
import statistics
import time

import httpx

from battlehall.client import Client
from battlehall.server.match.bot_turns import UNWATCHED, BotTurns, Lanes, lane_of
from servers import ServerProcess
from wsutil import Raw


class Recorder:
    """A match as a bot's turn reaches it; every turn fed to it is also noted in `log`."""

    def __init__(self, match_id: str = "m_1", made_from: str | None = "10.0.0.1", watched: bool = True,
                 log: list | None = None):
        self.match_id, self.made_from, self.watched = match_id, made_from, watched
        self.fed: list[tuple[float, object]] = []
        self.log = log if log is not None else []

    def submit(self, event) -> None:
        self.fed.append((time.monotonic(), event))
        self.log.append((self.match_id, event))


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


def test_a_match_waits_in_its_addresss_lane_while_watched_and_in_the_one_unwatched_lane_otherwise():
    assert lane_of(Recorder("m_1", "10.0.0.1")) == "10.0.0.1"
    assert lane_of(Recorder("m_1", None)) == "m_1"  # made before the address was recorded: its own lane
    assert lane_of(Recorder("m_1", "10.0.0.1", watched=False)) == UNWATCHED
    assert lane_of(Recorder("m_2", None, watched=False)) == UNWATCHED


def test_lanes_take_turns_then_their_matches_and_each_matchs_turns_keep_their_order():
    lanes = Lanes()
    loud = [Recorder(f"m_loud{n}", "10.0.0.1") for n in range(3)]
    for n in range(2):
        for match in loud:
            lanes.put(match, f"{match.match_id}/{n}")
    lanes.put(Recorder("m_nobody", "10.0.0.1", watched=False), "m_nobody/0")
    lanes.put(Recorder("m_other", "10.0.0.2"), "m_other/0")
    taken = [lanes.take()[1] for _ in range(len(lanes))]
    # One each from the loud address, the unwatched lane and the other address, then the loud
    # address's matches in turn: the other address waited for two turns, not six.
    assert taken == ["m_loud0/0", "m_nobody/0", "m_other/0", "m_loud1/0", "m_loud2/0", "m_loud0/1",
                     "m_loud1/1", "m_loud2/1"]
    assert len(lanes) == 0 and not lanes.line  # nothing is kept for a lane or match with nothing waiting


async def test_one_addresss_many_matches_wait_behind_another_addresss_one_turn():
    turns, log = BotTurns(think_ms=0, per_s=100), []  # a burst of 10, then one each 10 ms
    loud = [Recorder(f"m_loud{n}", "10.0.0.1", log=log) for n in range(60)]
    for match in loud:
        turns.schedule(match, "move")
    quiet = Recorder("m_quiet", "10.0.0.2", log=log)
    turns.schedule(quiet, "move")  # the last to come, behind the 50 waiting
    for _ in range(500):
        if len(log) == 61:
            break
        await asyncio.sleep(0.01)
    order = [match_id for match_id, _ in log]
    assert sorted(order) == sorted(m.match_id for m in [*loud, quiet])  # every turn is let through, once
    # First come, first served, it was the 61st. Now the burst goes first (it was let through
    # before anything waited), then one of the loud address's and the quiet one's.
    assert order.index("m_quiet") <= turns.burst + 1, order
    assert order[:int(turns.burst)] == [m.match_id for m in loud[:int(turns.burst)]]


# -- against a real server ---------------------------------------------------------------

THINK_MS = 300
RATE = 5  # bot answers a second over the node: a few matches' bots are enough to fill it
LOUD = 40  # all-bot matches made by one address: FIFO, each turn of the node waited ~LOUD / RATE s
BOT_TURNS_MEASURED = 4


def bind(address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address=address), timeout=30)


async def waiting_turns(http: httpx.AsyncClient, url: str) -> float:
    metrics = (await http.get(f"{url}/metrics")).text
    return next(float(line.split()[1]) for line in metrics.splitlines()
                if line.startswith("battlehall_bot_turns_waiting "))


async def loud_matches(server: ServerProcess) -> list[Raw]:
    """LOUD long all-bot matches from 127.0.0.2, half of them watched by a spectator (so
    in that address's lane), half by nobody; the spectators' sockets."""
    watchers = []
    async with bind("127.0.0.2") as loud:
        for n in range(LOUD):
            r = await loud.post(f"{server.url}/matches", json={
                "ruleset": "duel", "seats": ["a", "b"], "bots": {"a": "random", "b": "random"},
                "options": {"hp": 1000}})
            assert r.status_code == 201, r.text
            if n % 2:
                watcher = await Raw.open(server.url, r.json()["match"])
                assert (await watcher.hello(r.json()["spectator_token"]))["t"] == "welcome"
                watchers.append(watcher)
        for _ in range(200):  # their turns fill the node's rate: they wait
            if await waiting_turns(loud, server.url) >= LOUD / 2:
                break
            await asyncio.sleep(0.05)
        assert await waiting_turns(loud, server.url) >= LOUD / 2
    return watchers


async def bot_delays(server: ServerProcess) -> list[float]:
    """A player from 127.0.0.3 plays a bot match: how long after each of its bot's prompts
    opened the bot's answer closed it, as the player's socket saw both."""
    async with bind("127.0.0.3") as quiet:
        r = await quiet.post(f"{server.url}/bot-matches", json={"ruleset": "duel", "name": "ana"})
    assert r.status_code == 201, r.text
    opened: dict[str, float] = {}
    delays: list[float] = []
    done = asyncio.Event()

    def seen(message: dict) -> None:
        if message.get("t") != "event":
            return
        data = message["data"]
        if message["kind"] == "prompt" and data.get("seat") == "bot-1":
            opened[data["id"]] = time.monotonic()
        elif message["kind"] == "prompt_closed" and data.get("id") in opened:
            delays.append(time.monotonic() - opened.pop(data["id"]))
            if len(delays) >= BOT_TURNS_MEASURED:
                done.set()

    player = Client(server.url, r.json()["match"], r.json()["token"], seed=1, on_message=seen)
    playing = asyncio.create_task(player.run())
    try:
        await asyncio.wait_for(done.wait(), BOT_TURNS_MEASURED * (LOUD / RATE + 5))
    finally:
        playing.cancel()
    return delays


async def test_one_addresss_many_bot_matches_do_not_delay_another_players_bot(tmp_path):
    server = ServerProcess(tmp_path, env={"BATTLEHALL_BOT_THINK_MS": str(THINK_MS),
                                          "BATTLEHALL_BOT_ANSWERS_PER_S": str(RATE),
                                          "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    try:
        watchers = await loud_matches(server)
        delays = await bot_delays(server)
        for watcher in watchers:
            await watcher.close()
    finally:
        server.stop()
    # The quiet player's bot waits for at most one answer per other lane (the loud address's
    # and the unwatched one) at RATE a second: 0.4 s after its think time, where it waited
    # behind the loud address's ~LOUD turns (8 s). A generous 2.5 s for a loaded machine.
    fair_s = THINK_MS / 1000 + 3 / RATE
    assert len(delays) == BOT_TURNS_MEASURED
    assert min(delays) >= THINK_MS / 1000 * 0.9  # the think time still holds
    assert statistics.median(delays) < fair_s + 2.5, delays
