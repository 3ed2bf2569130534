"""Quick play: from the last needed player joining to the match's first prompt.

One real server (`battlehall serve`, its private Redis). N players (1,000 by default)
join the queue of one ruleset and seat count (duel, 2) as fast as they can, C joins in
flight at a time, so that hundreds queue at once; each then waits on its ticket (`GET
/queue/{ticket}`, the long poll), and once matched opens the match's socket, says
`hello` with its seat token and waits for a prompt of its own (in `welcome.prompts` or a
`prompt` event). Per match, the figure is the time from when the last of its players
sent `POST /queue` to when the first of them had its first prompt: the whole way a
player goes through (pairing, making the match, delivering the ticket, joining it).
It is split in "to matched" (until the last of its players had its ticket's answer)
and the rest. The load generator runs on the same 2 cores as the server; it speaks
HTTP/1.1 itself, one kept-alive connection per player (httpx spent 12 ms of CPU a
request with a thousand connections open, which made the client the bottleneck).

    python bench/quick_play.py [--players 1000] [--concurrency 100] [--ruleset duel --seats 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import defaultdict

import orjson
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, start_server, stop_server, wait_ready


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Http:
    """One kept-alive HTTP/1.1 connection: request, read the answer by its Content-Length."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> "Http":
        host, port = url.removeprefix("http://").split(":")
        return cls(*await asyncio.open_connection(host, int(port)))

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = orjson.dumps(body) if body is not None else b""
        self.writer.write(f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                          f"content-length: {len(data)}\r\n\r\n".encode() + data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")))
        return status, orjson.loads(await self.reader.readexactly(length))

    def close(self) -> None:
        self.writer.close()


async def player(url: str, ruleset: str, seats: int, gate: asyncio.Semaphore) -> dict:
    async with gate:
        http = await Http.open(url)
        sent = time.perf_counter()
        code, answer = await http.request("POST", "/queue", {"ruleset": ruleset, "seats": seats})
        assert code == 201, answer
    while True:
        code, status = await http.request("GET", f"/queue/{answer['ticket']}?wait_ms=20000")
        assert code == 200, status
        if status["state"] == "matched":
            break
        assert status["state"] in ("waiting", "forming"), status
    matched = time.perf_counter()
    http.close()
    ws_url = url.replace("http://", "ws://") + status["ws"]
    prompt = None  # a ruleset may prompt another seat first (duel): the match's first prompt is theirs
    async with websockets.connect(ws_url, subprotocols=["battlehall.v1.json"], max_size=None) as ws:
        await ws.send(orjson.dumps({"t": "hello", "token": status["token"]}).decode())
        end = time.perf_counter() + 5
        while prompt is None and time.perf_counter() < end:
            try:
                message = orjson.loads(await asyncio.wait_for(ws.recv(), end - time.perf_counter()))
            except TimeoutError:
                break
            if (message["t"] == "welcome" and message["prompts"]) or (
                    message["t"] == "event" and message["kind"] == "prompt" and message["data"].get("seat") == status["seat"]):
                prompt = time.perf_counter()
    return {"match": status["match"], "sent": sent, "matched": matched, "prompt": prompt}


async def run(url: str, players: int, concurrency: int, ruleset: str, seats: int) -> dict:
    gate = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    results = await asyncio.gather(*(player(url, ruleset, seats, gate) for _ in range(players)))
    total = max(r["matched"] for r in results) - started
    by_match = defaultdict(list)
    for r in results:
        by_match[r["match"]].append(r)
    assert all(len(group) == seats for group in by_match.values()), "a match with the wrong number of players"
    to_prompt, to_matched = [], []
    for group in by_match.values():
        last_join = max(r["sent"] for r in group)
        to_prompt.append((min(r["prompt"] for r in group if r["prompt"]) - last_join) * 1000)
        to_matched.append((max(r["matched"] for r in group) - last_join) * 1000)
    return {"players": players, "client_cpu_s": time.process_time(), "matches": len(by_match), "total_s": total,
            "to_prompt_p50": statistics.median(to_prompt), "to_prompt_p99": pct(to_prompt, 99),
            "to_matched_p50": statistics.median(to_matched), "to_matched_p99": pct(to_matched, 99)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--ruleset", default="duel")
    parser.add_argument("--seats", type=int, default=2)
    args = parser.parse_args()
    proc, url = start_server(env={"BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"})
    try:
        wait_ready(url)
        cpu_before = cpu_seconds(proc.pid)
        figures = asyncio.run(run(url, args.players, args.concurrency, args.ruleset, args.seats))
        figures["server_cpu_s"] = cpu_seconds(proc.pid) - cpu_before
    finally:
        stop_server(proc)
    print(f"{figures['players']} players, {figures['matches']} matches, the last matched after "
          f"{figures['total_s']:.1f} s (server CPU {figures['server_cpu_s']:.1f} s, load generator "
          f"{figures['client_cpu_s']:.1f} s)")
    print(f"last join -> first prompt: p50 {figures['to_prompt_p50']:.0f} ms, p99 {figures['to_prompt_p99']:.0f} ms")
    print(f"last join -> all matched:  p50 {figures['to_matched_p50']:.0f} ms, p99 {figures['to_matched_p99']:.0f} ms")


if __name__ == "__main__":
    main()
