"""Server CPU to open one game socket: connect, hello, welcome, close, one after another.

    /tmp/venv/bin/python -m battlehall serve --port 8797 &   # pin it: taskset -c 0
    /tmp/venv/bin/python bench/socket_cost.py http://127.0.0.1:8797 <server pid> [sockets]

Server CPU (user + sys, the process alone: Redis does little here) from /proc, divided
by sockets; also POST /matches. A duel match opens four sockets for ~53 answers.
"""

import asyncio
import os
import sys

import httpx
import msgpack
import websockets


def cpu_seconds(pid: int) -> tuple[float, float]:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, int(fields[12]) / tick


async def visit(url: str, token: str) -> None:
    async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as ws:
        await ws.send(msgpack.packb({"t": "hello", "token": token}))
        assert msgpack.unpackb(await ws.recv())["t"] == "welcome"


async def main(base: str, pid: int, sockets: int) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        body = {"ruleset": "duel", "seats": ["alice", "bob"]}
        matches = [(await http.post("/matches", json=body)).json() for _ in range(sockets // 4)]
        (cpu0, sys0) = cpu_seconds(pid)
        for m in matches:
            for token in [*m["tokens"].values(), m["spectator_token"], m["spectator_token"]]:
                await visit(base.replace("http", "ws") + m["ws"], token)
        (cpu1, sys1) = cpu_seconds(pid)
        n = len(matches) * 4
        print(f"socket: {(cpu1 - cpu0) / n * 1e6:.0f} us server CPU each ({n} sockets, "
              f"kernel share {(sys1 - sys0) / max(cpu1 - cpu0, 1e-9):.2f})")
        (cpu0, _) = cpu_seconds(pid)
        for _ in range(len(matches)):
            await http.post("/matches", json=body)
        (cpu1, _) = cpu_seconds(pid)
        print(f"POST /matches: {(cpu1 - cpu0) / len(matches) * 1e6:.0f} us server CPU each")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 800))
