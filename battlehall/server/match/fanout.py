"""Sending event records to sockets: each event is redacted and encoded once per audience.

An audience is a seat (its own copy, with its private parts) or the public (every
other seat, and spectators); the same bytes go to every socket of that audience and
encoding.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

from battlehall.engine.ruleset import Event, Ruleset
from battlehall.server import codec

if TYPE_CHECKING:
    from battlehall.server.match.connection import Connection


def event_message(ruleset: Ruleset, record: dict, audience: str | None, shift_ms: int = 0) -> dict:
    """The `event` message of `record` as `audience` may see it; deadlines moved by `shift_ms`."""
    event = ruleset.redact(cast(Event, record), audience)
    data = event["data"]
    if shift_ms and "deadline" in data:
        data = {**data, "deadline": data["deadline"] + shift_ms}
    return {"t": "event", "seq": record["seq"], "at": record["at"], "kind": event["kind"], "data": data}


def fan_out(ruleset: Ruleset, records: list[dict], conns: list[Connection], shift_ms: int = 0) -> int:
    """Queue every record on every connection; returns the number of deliveries."""
    if not conns:
        return 0
    # Seats with a private part in some record get their own copy of those records;
    # everything else, and every other socket (other seats, spectators), shares the
    # public copy of its encoding.
    private_seats = [seat for record in records for seat in record.get("private") or ()]
    # The prompts among them, so each seat's sockets time their answers (transport/lag.py).
    prompts = [(record["data"]["seat"], record["data"]["id"]) for record in records if record["kind"] == "prompt"]
    now = time.monotonic()
    public: dict[str, list[bytes]] = {}  # encoding -> the public frames of all records
    own: dict[tuple, list[bytes]] = {}  # (seat, encoding) -> the frames that seat sees
    for conn in conns:
        seat, wire = conn.seat, conn.codec  # a connection's audience is its seat
        frames = public.get(wire)
        if frames is None:
            frames = public[wire] = [codec.encode(wire, event_message(ruleset, record, None, shift_ms))
                                     for record in records]
        if seat is not None and seat in private_seats:
            shared, frames = frames, own.get((seat, wire))
            if frames is None:
                frames = own[seat, wire] = [
                    codec.encode(wire, event_message(ruleset, record, seat, shift_ms))
                    if seat in (record.get("private") or ()) else frame
                    for record, frame in zip(records, shared)]
        conn.send_frames(frames)
        if conn.lag is not None and prompts:
            for prompted, prompt_id in prompts:
                if prompted == seat:
                    conn.lag.prompted(prompt_id, now)
    return len(records) * len(conns)
