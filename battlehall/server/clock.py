"""Prompt deadlines and time banks: pure bookkeeping over times the actor passes in.

Each prompt gets `prompt_ms` from when it opens (its soft `deadline`); after that the
seat's bank is spent; when the bank is empty too, the prompt's default is applied.
The clock keeps only plain data, so it is saved in snapshots and rebuilt exactly by
replaying the log, whose entries carry the time they happened.
"""

from __future__ import annotations

import time

#: window_min_ms: how long a reaction or any-time window stays open at least, whatever
#: the seats answer, so that its length never tells whether a seat could play a card.
DEFAULT_CLOCK = {"prompt_ms": 30_000, "bank_ms": 120_000, "window_min_ms": 300}


def now_ms() -> int:
    """The server's wall clock, in epoch milliseconds (the only clock the server reads)."""
    return int(time.time() * 1000)


class Clock:
    def __init__(self, data: dict):
        #: {"prompt_ms", "bank_ms", "banks": {seat: ms}, "open": {prompt_id: {"seat", "deadline"}}}
        self.data = data

    @classmethod
    def new(cls, config: dict, seats: list[str]) -> "Clock":
        return cls({"prompt_ms": config["prompt_ms"], "bank_ms": config["bank_ms"],
                    "banks": {s: config["bank_ms"] for s in seats}, "open": {}})

    @property
    def timed(self) -> bool:
        return self.data["prompt_ms"] is not None

    def open(self, prompt_id: str, seat: str, at: int) -> dict:
        """Start timing a prompt; returns the fields its prompt event shows."""
        if not self.timed:
            return {}
        deadline = at + self.data["prompt_ms"]
        self.data["open"][prompt_id] = {"seat": seat, "deadline": deadline}
        return {"deadline": deadline, "bank_ms": self.data["banks"][seat]}

    def close(self, prompt_id: str, at: int) -> None:
        """The prompt was answered, timed out or cancelled at `at`: spend the seat's bank."""
        entry = self.data["open"].pop(prompt_id, None)
        if entry is None:
            return
        over = at - entry["deadline"]
        if over > 0:
            seat = entry["seat"]
            self.data["banks"][seat] = max(0, self.data["banks"][seat] - over)

    def expires_at(self, prompt_id: str) -> int | None:
        """When the default answer is due: the deadline plus what is left in the bank."""
        entry = self.data["open"].get(prompt_id)
        if entry is None:
            return None
        return entry["deadline"] + self.data["banks"][entry["seat"]]

    def info(self, prompt_id: str) -> dict:
        entry = self.data["open"].get(prompt_id)
        if entry is None:
            return {}
        return {"deadline": entry["deadline"], "bank_ms": self.data["banks"][entry["seat"]]}

    def shift(self, ms: int) -> None:
        """Move every open deadline `ms` later: the time a match spent with no server running."""
        for entry in self.data["open"].values():
            entry["deadline"] += ms
