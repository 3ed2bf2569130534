"""The two wire encodings of docs/protocol.md: JSON text frames and MessagePack binary frames."""

from __future__ import annotations

import math

import msgpack
import orjson

JSON = "battlehall.v1.json"
MSGPACK = "battlehall.v1.msgpack"
SUBPROTOCOLS = (JSON, MSGPACK)


class DecodeError(ValueError):
    #: the act id of a message that decoded but holds what JSON cannot say, if it has one
    id: str | int | None = None


def choose_subprotocol(offered: list[str]) -> str | None:
    """The first of the client's offers that we speak; None (JSON, unnamed) if none."""
    for name in offered:
        if name in SUBPROTOCOLS:
            return name
    return None


# One packer for the process (packb makes a new one per call); the event loop's single
# thread never re-enters it.
_packer = msgpack.Packer()
_pack = _packer.pack


def encode(codec: str, message: dict) -> bytes:
    if codec == MSGPACK:
        return _pack(message)
    return orjson.dumps(message)


_BATCH_PREFIX = {MSGPACK: _pack("t") + _pack("batch") + _pack("messages"),
                 JSON: b'{"t":"batch","messages":['}


def batch(codec: str, frames: list[bytes]) -> bytes:
    """One `batch` message holding several encoded messages, without decoding them:
    `{"t": "batch", "messages": [...]}` is the frames joined under a small header."""
    if codec == MSGPACK:
        return b"\x82" + _BATCH_PREFIX[MSGPACK] + _packer.pack_array_header(len(frames)) + b"".join(frames)
    return _BATCH_PREFIX[JSON] + b",".join(frames) + b"]}"


def decode(codec: str, frame: bytes | str) -> dict:
    try:
        if codec == MSGPACK:
            if isinstance(frame, str):
                raise DecodeError("MessagePack frames must be binary")
            message = msgpack.unpackb(frame, strict_map_key=True, raw=False)
            problem = not_plain(message)
            if problem is not None:
                error = DecodeError(problem)
                act_id = message.get("id") if isinstance(message, dict) else None
                if type(act_id) in (str, int):  # so a client knows which act was refused
                    error.id = act_id
                raise error
        else:
            message = orjson.loads(frame)
    except DecodeError:
        raise
    except Exception as exc:  # any malformed frame is the client's error
        raise DecodeError(f"cannot decode frame: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise DecodeError("every message is a map with a string field 't'")
    return message


def not_plain(value) -> str | None:
    """What keeps a decoded MessagePack value from being JSON's kind of data, or None.

    A message must mean the same in both encodings: maps with string keys, lists,
    strings, integers, finite floats, booleans and null. MessagePack can also carry bin
    (bytes) values and keys, extension types and NaN; let through, a bytes key beside a
    string one made the engine's sorting of arguments fail. orjson's JSON is plain
    already. The walk is iterative: no nesting a client sends can exhaust the stack.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return f"map keys must be strings, not {type(key).__name__}"
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return "numbers must be finite"
        else:
            return f"{kind.__name__} values are not allowed: send JSON's kinds of data only"
    return None
