"""`battlehall watch`: a match's events as lines a person reads, from its start until it ends.

One line per event: its seq, the server time it happened, its kind, and its data in
short form (cards by name, lists comma-separated). Works for live and finished matches:
the watcher asks for the whole history (`"resume": 0`), then follows live.
"""

from __future__ import annotations

import time


def short(value) -> str:
    """A value of event data in few characters: cards by their definition's name."""
    if isinstance(value, dict):
        if "def" in value:
            return str(value["def"])
        return "(" + ", ".join(f"{k}={short(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list):
        return ",".join(short(v) for v in value) if value else "none"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def clock(at_ms) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at_ms / 1000)) if isinstance(at_ms, int) else "--:--:--"


def describe(kind: str, data: dict) -> str:
    if kind == "prompt":
        what = data.get("text") or data.get("kind", "")
        due = f", answer by {clock(data['deadline'])}" if data.get("deadline") else ""
        return f"{data.get('seat')}: {what} ({data.get('id')}{due})"
    if kind == "prompt_closed":
        return f"{data.get('seat')}: {data.get('id')} {data.get('reason')}"
    return " ".join(f"{k}={short(v)}" for k, v in data.items())


def format_event(message: dict) -> str:
    """`#seq HH:MM:SS kind  what happened` for an `event` message."""
    return f"#{message['seq']:<4} {clock(message.get('at'))}  {message['kind']:<16} {describe(message['kind'], message['data'])}".rstrip()
