#!/usr/bin/env python
"""One-second windows behind a real 200 ms delay each way: how many does each seat lose?

A simultaneous duel (`"simultaneous": true`, both seats prompted at once each round)
with `clock.prompt_ms` 1000 and no bank: every round is two one-second windows, one per
seat. One seat plays through a TCP proxy this script starts, which holds every byte
200 ms each way (a 400 ms round trip: a fifth of a second's window lost twice over);
the other plays straight to the server. Both answer each prompt the same random think
time after they see it (uniform 50-900 ms: a reaction, never more than the window).
A window is lost when its prompt closes with reason `timeout`. The server credits the
delayed seat's late answers its measured round trip (docs/protocol.md, Lag); the log's
`clock` records say how much, and how many windows the credit saved (answers that came
after the deadline).

Then a client that holds its pongs back 300 ms on a direct line, and answers each
prompt 1.1 s after it sees it (100 ms late): without a bound on the measure it would be
credited its 300 ms "lag" and lose nothing; it must lose every window, credited no more
than its true round trip.

The proxy connects to the server from 127.0.0.2, which the server is told is a proxy
(`BATTLEHALL_LAG_PROXIES`): the kernel's round trip of that socket is the proxy's own.

    python bench/lag_windows.py [--windows 200]

The test tests/server/test_lag_windows.py runs the same code on fewer windows.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import msgpack
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.uri import parse_uri

MSGPACK = "battlehall.v1.msgpack"
PROXY_SOURCE = "127.0.0.2"  # where the proxy connects to the server from
WARM_UP = 3  # windows each seat plays first, uncounted: the first ones open before the line is measured


class DelayProxy:
    """A TCP proxy on 127.0.0.1 that holds every byte `delay_s` each way, in order."""

    def __init__(self, upstream_port: int, delay_s: float):
        self.upstream_port = upstream_port
        self.delay_s = delay_s
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> DelayProxy:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port,
                                                             local_addr=(PROXY_SOURCE, 0))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    writer.close()
                    return
                writer.write(data)
                await writer.drain()

        delivering = loop.create_task(deliver())
        try:
            while data := await reader.read(65536):
                queue.put_nowait((loop.time() + self.delay_s, data))
        except ConnectionError:
            pass
        queue.put_nowait((loop.time() + self.delay_s, b""))
        await delivering


@dataclass
class Tally:
    """What one seat saw of its windows (after the warm-up)."""
    answered: int = 0
    lost: int = 0  # closed with reason timeout
    refused: int = 0  # answers the server refused (too late)
    prompts: list[str] = field(default_factory=list)


class Seat:
    """Plays one seat of a simultaneous duel over websockets' sans-I/O client: every prompt
    answered `think()` seconds after it is seen; pongs held back `pong_hold_s`."""

    def __init__(self, server_url: str, match_id: str, token: str, think: Callable[[], float],
                 port: int | None = None, pong_hold_s: float = 0.0):
        self.url = server_url.replace("http://", "ws://") + f"/ws/{match_id}"
        self.port = port or int(server_url.rsplit(":", 1)[1])
        self.token = token
        self.think = think
        self.pong_hold_s = pong_hold_s
        self.tally = Tally()
        self.seen = 0  # windows closed, warm-up included
        self.seat: str | None = None
        self.ended = False

    async def play(self, windows: int, resign: bool) -> Tally:
        loop = asyncio.get_running_loop()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        client = ClientProtocol(parse_uri(self.url), subprotocols=[MSGPACK])
        client.send_request(client.connect())
        writer.write(b"".join(client.data_to_send()))
        answering: set[asyncio.Task] = set()
        acts = 0

        def send(message: dict) -> None:
            client.send_binary(msgpack.packb(message))
            writer.write(b"".join(client.data_to_send()))

        async def answer(prompt_id: str) -> None:
            nonlocal acts
            await asyncio.sleep(self.think())
            acts += 1
            send({"t": "act", "id": acts, "prompt": prompt_id, "option": "guard"})

        def prompted(prompt: dict) -> None:
            task = loop.create_task(answer(prompt["id"]))
            answering.add(task)
            task.add_done_callback(answering.discard)

        handshaken = False
        try:
            while self.seen < WARM_UP + windows and not self.ended:
                data = await asyncio.wait_for(reader.read(65536), 30)
                if not data:
                    raise ConnectionError("the server closed the connection")
                client.receive_data(data)
                replies = b"".join(client.data_to_send())  # what websockets answers by itself: pongs
                if replies:
                    if self.pong_hold_s:
                        loop.call_later(self.pong_hold_s, writer.write, replies)
                    else:
                        writer.write(replies)
                for event in client.events_received():
                    if not handshaken:  # the 101
                        handshaken = True
                        send({"t": "hello", "token": self.token})
                        continue
                    if event.opcode is not Opcode.BINARY:
                        continue
                    self._message(msgpack.unpackb(event.data), prompted)
            if resign and not self.ended:
                send({"t": "resign", "id": "done"})
                await asyncio.sleep(0.5)
        finally:
            for task in answering:
                task.cancel()
            writer.close()
        return self.tally

    def _message(self, message: dict, prompted: Callable[[dict], None]) -> None:
        if message["t"] == "welcome":
            self.seat = message["seat"]
            for prompt in message["prompts"]:
                prompted(prompt)
        elif message["t"] == "error" and message.get("code") != "rate_limited":
            if self.seen >= WARM_UP:
                self.tally.refused += 1
        elif message["t"] == "event":
            data = message["data"]
            if message["kind"] == "match_ended":
                self.ended = True
            elif message["kind"] == "prompt" and data.get("seat") == self.seat and "options" in data:
                prompted(data)
            elif message["kind"] == "prompt_closed" and data["seat"] == self.seat:
                self.seen += 1
                if self.seen > WARM_UP:
                    self.tally.prompts.append(data["id"])
                    if data["reason"] == "timeout":
                        self.tally.lost += 1
                    else:
                        self.tally.answered += 1


def create(server_url: str, seed: int = 1) -> dict:
    body = {"ruleset": "duel", "seats": ["near", "far"], "seed": seed,
            "options": {"simultaneous": True, "hp": 1000},
            "clock": {"prompt_ms": 1000, "bank_ms": 0}}
    answer = httpx.post(f"{server_url}/matches", json=body, timeout=10)
    answer.raise_for_status()
    return answer.json()


def credits(server_url: str, created: dict, seat: str, prompts: list[str]) -> list[int]:
    """The lag credited to each of `seat`'s counted answers, from the replay's clock records."""
    replay = httpx.get(f"{server_url}/matches/{created['match']}/replay",
                       headers={"Authorization": f"Bearer {created['tokens'][seat]}"}, timeout=10).json()
    counted = set(prompts)
    return [entry["clock"]["lag_ms"] for entry in replay["log"]
            if entry.get("seat") == seat and entry.get("prompt") in counted and "clock" in entry]


async def delayed_windows(server_url: str, windows: int, delay_s: float = 0.2, seed: int = 1) -> dict:
    """A seat behind the delaying proxy against one straight to the server."""
    created = create(server_url, seed)
    proxy = await DelayProxy(int(server_url.rsplit(":", 1)[1]), delay_s).start()
    rng = random.Random(seed)
    try:
        near = Seat(server_url, created["match"], created["tokens"]["near"], lambda: rng.uniform(0.05, 0.9))
        far = Seat(server_url, created["match"], created["tokens"]["far"], lambda: rng.uniform(0.05, 0.9),
                   port=proxy.port)
        tallies = await asyncio.wait_for(asyncio.gather(near.play(windows, False), far.play(windows, True)),
                                         windows * 3 + 60)
    finally:
        await proxy.stop()
    await asyncio.sleep(0.5)
    return {"near": tallies[0], "far": tallies[1],
            "far_credits": credits(server_url, created, "far", tallies[1].prompts),
            "near_credits": credits(server_url, created, "near", tallies[0].prompts)}


async def held_pongs(server_url: str, windows: int, hold_s: float = 0.3, late_s: float = 1.1) -> dict:
    """A direct seat that holds its pongs back `hold_s` and answers `late_s` after each prompt."""
    created = create(server_url, 2)
    cheat = Seat(server_url, created["match"], created["tokens"]["far"], lambda: late_s, pong_hold_s=hold_s)
    fair = Seat(server_url, created["match"], created["tokens"]["near"], lambda: 0.2)
    tallies = await asyncio.wait_for(asyncio.gather(fair.play(windows, False), cheat.play(windows, True)),
                                     windows * 3 + 60)
    await asyncio.sleep(0.5)
    return {"cheat": tallies[1], "fair": tallies[0],
            "cheat_credits": credits(server_url, created, "far", tallies[1].prompts)}


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


async def _main(url: str, windows: int) -> None:
    result = await delayed_windows(url, windows)
    for name in ("near", "far"):
        tally, credited = result[name], result[f"{name}_credits"]
        saved = [c for c in credited if c > 0]
        whole = tally.answered + tally.lost
        print(f"| {name} ({'200 ms each way' if name == 'far' else 'no delay'}) | {whole} | {tally.lost} "
              f"({_percent(tally.lost, whole)}) | {len(saved)} ({_percent(len(saved), whole)}) | "
              f"{max(saved, default=0)} | {sum(saved)} |")
    held = await held_pongs(url, max(20, windows // 10))
    cheat = held["cheat"]
    print(f"\npongs held 300 ms, answers 100 ms late: {cheat.lost} of {cheat.answered + cheat.lost} windows lost, "
          f"{cheat.refused} answers refused, most lag credited {max(held['cheat_credits'], default=0)} ms")


def main() -> None:
    from benchlib import start_server, stop_server  # run as a script: bench/ is on sys.path

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=int, default=200)
    args = parser.parse_args()
    proc, url = start_server(env={"BATTLEHALL_LAG_PROXIES": PROXY_SOURCE})
    try:
        from benchlib import wait_ready
        wait_ready(url)
        cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                             capture_output=True, text=True).stdout.strip()
        print(f"{platform.python_version()}, {cpu}, {windows_note(args.windows)}\n")
        print("| seat | windows | lost | saved by lag credit | most credited (ms) | credited in all (ms) |")
        print("|---|---|---|---|---|---|")
        asyncio.run(_main(url, args.windows))
    finally:
        stop_server(proc)


def windows_note(windows: int) -> str:
    return f"{windows} windows per seat after {WARM_UP} of warm-up"


if __name__ == "__main__":
    main()
