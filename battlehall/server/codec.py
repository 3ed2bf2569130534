"""The two wire encodings of docs/protocol.md: JSON text frames and MessagePack binary frames."""

from __future__ import annotations

import math
from typing import Any

import msgpack
import orjson

from battlehall.server import errors

JSON = "battlehall.v1.json"
MSGPACK = "battlehall.v1.msgpack"
SUBPROTOCOLS = (JSON, MSGPACK)


def choose_subprotocol(offered: list[str]) -> str | None:
    """The first of the client's offers that we speak (as our own string, not the one
    parsed from its header: a socket keeps it); None (JSON, unnamed) if none."""
    for name in offered:
        for ours in SUBPROTOCOLS:
            if name == ours:
                return ours
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


#: What one message may hold (docs/protocol.md, Limits): maps and lists nested at most
#: MAX_DEPTH levels, the message itself being the first; at most MAX_VALUES values in all
#: (maps, lists, keys and scalars); strings and map keys of at most MAX_STRING characters.
#: A message a client sends is a few fields; these leave room for far more.
MAX_DEPTH = 8
MAX_VALUES = 1_000
MAX_STRING = 1_024
#: The longest `act` id (a string, or an integer written out): an error echoes it.
MAX_ACT_ID = 64
#: How deep the parsers themselves go (orjson and msgpack both stop past 1,024 levels).
PARSER_DEPTH = 1_024


def act_id(message: dict) -> str | int | None:
    """The message's `id` when it is a valid act id (so an error may echo it), else None."""
    value = message.get("id")
    kind = type(value)
    if (kind is str or kind is int) and len(str(value)) <= MAX_ACT_ID:
        return value
    return None


def decode(codec: str, frame: bytes | str) -> dict:
    """The message of one frame, checked against the limits above before anything uses it.
    Refused: errors.BadMessage, or errors.BadArgs for an act's arguments past a limit, with
    the act's `id` when it has a valid one; the text never holds more than a bounded part
    of the frame."""
    try:
        if codec == MSGPACK:
            if isinstance(frame, str):
                raise errors.BadMessage("MessagePack frames must be binary")
            message = msgpack.unpackb(frame, strict_map_key=True, raw=False)
        else:
            message = orjson.loads(frame)
    except errors.BadMessage:
        raise
    except (msgpack.StackError, RecursionError):
        raise errors.BadMessage(f"cannot decode frame: nested more than {PARSER_DEPTH} levels deep") from None
    except Exception as exc:  # any malformed frame is the client's error
        # The parsers' texts say where (line, column, position), never what: still cut short.
        raise errors.BadMessage(f"cannot decode frame: {str(exc)[:200]}") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise errors.BadMessage("every message is a map with a string field 't'")
    problem = not_plain(message)
    if problem is not None:
        field, text, past_limit = problem
        # An act's arguments past a limit are its bad arguments; a kind of data JSON
        # cannot say is a bad message wherever it is.
        refused = errors.BadArgs if past_limit and field == "args" and message["t"] == "act" else errors.BadMessage
        raise refused(f"{field}: {text}" if field else text, id=act_id(message))
    return message


def not_plain(message: dict) -> tuple[str, str, bool] | None:
    """What keeps a decoded message from being a plain, bounded one: (the top-level field
    it is in, or "" for the message itself; why; whether it is a limit that was passed,
    rather than a kind of data), or None.

    A message must mean the same in both encodings: maps with string keys, lists,
    strings, integers, finite floats, booleans and null. MessagePack can also carry bin
    (bytes) values and keys, extension types and NaN; let through, a bytes key beside a
    string one made the engine's sorting of arguments fail. And it must be small: an
    `act`'s arguments nested 1,000 deep once overflowed the recursion limit while the
    error text was built. The walk is iterative, and stops at the first excess.
    """
    if 2 * len(message) <= MAX_VALUES:  # the usual message (an act without arguments): flat, no walk
        for key, value in message.items():
            kind = type(value)
            if type(key) is not str or len(key) > MAX_STRING:
                break
            if kind is str:
                if len(value) > MAX_STRING:
                    break
            elif not (kind is int or kind is bool or value is None or (kind is dict and not value)):
                break
        else:
            return None
    count = 0
    # Any, not object: the walk tells kinds apart by `type(item) is ...` held in `kind`
    # (no isinstance: bool is an int, and a subclass is not plain), which mypy cannot narrow on.
    stack: list[tuple[Any, str, int]] = []
    for key, value in message.items():
        count += 1
        if type(key) is not str:
            return "", f"map keys must be strings, not {type(key).__name__}", False
        if len(key) > MAX_STRING:
            return "", f"a field name is at most {MAX_STRING} characters", True
        stack.append((value, key, 2))
    while stack:
        item, field, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return field, f"a message holds at most {MAX_VALUES} values", True
        kind = type(item)
        if kind is str:
            if len(item) > MAX_STRING:
                return field, f"a string is at most {MAX_STRING} characters", True
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is dict or kind is list:
            if depth > MAX_DEPTH:
                return field, f"maps and lists nest at most {MAX_DEPTH} levels deep, the message being the first", True
            if kind is dict:
                for key in item:
                    if type(key) is not str:
                        return field, f"map keys must be strings, not {type(key).__name__}", False
                    if len(key) > MAX_STRING:
                        return field, f"a map key is at most {MAX_STRING} characters", True
                    count += 1
                stack.extend((value, field, depth + 1) for value in item.values())
            else:
                stack.extend((value, field, depth + 1) for value in item)
        elif kind is float:
            if not math.isfinite(item):
                return field, "numbers must be finite", False
        else:
            return field, f"{kind.__name__} values are not allowed: send JSON's kinds of data only", False
    return None
