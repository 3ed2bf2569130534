"""Sending event records to sockets: each event is redacted and encoded once per audience.

An audience is a seat (its own copy, with its private parts) or the public (every
other seat, and spectators); the same bytes go to every socket of that audience and
encoding.
"""

from __future__ import annotations

from . import codec


def event_message(ruleset, record: dict, audience: str | None, shift_ms: int = 0) -> dict:
    """The `event` message of `record` as `audience` may see it; deadlines moved by `shift_ms`."""
    event = ruleset.redact(record, audience)
    data = event["data"]
    if shift_ms and "deadline" in data:
        data = {**data, "deadline": data["deadline"] + shift_ms}
    return {"t": "event", "seq": record["seq"], "at": record["at"], "kind": event["kind"], "data": data}


def fan_out(ruleset, records: list[dict], conns: list, shift_ms: int = 0) -> int:
    """Queue every record on every connection; returns the number of deliveries."""
    if not conns:
        return 0
    public: dict[tuple, bytes] = {}  # (record's index, encoding) -> the public copy's frame
    copies: dict[tuple, list] = {}  # (audience, encoding) -> the frames of all records, as it sees them
    for conn in conns:
        seat, wire = conn.audience, conn.codec
        frames = copies.get((seat, wire))
        if frames is None:
            frames = copies[seat, wire] = []
            for i, record in enumerate(records):
                private = record.get("private")
                if private and seat in private:  # the seat's own copy (one socket, as a rule)
                    frames.append(codec.encode(wire, event_message(ruleset, record, seat, shift_ms)))
                    continue
                frame = public.get((i, wire))
                if frame is None:
                    frame = public[i, wire] = codec.encode(wire, event_message(ruleset, record, None, shift_ms))
                frames.append(frame)
        conn.send_frames(frames)
    return len(records) * len(conns)
