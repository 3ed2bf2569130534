"""WebSocket frames below websockets' own API: the header of a server's frame, built at
once, and the parser of an open socket reduced to frames alone (websocket.py uses both).
The undocumented attributes read here are listed in internals.py."""

from __future__ import annotations

import struct
import uuid
from typing import Any

from websockets.datastructures import Headers
from websockets.frames import Opcode
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

OP_TEXT, OP_BINARY = 0x1, 0x2
DATA_OPCODES = (Opcode.BINARY, Opcode.TEXT, Opcode.CONT)

# What an upgrade request keeps once answered. websockets' parser, a generator that
# lives as long as the socket, keeps the request it parsed in a local variable of its
# frame: its headers, parsed into a dict and a list of strings, were a third of an idle
# socket's memory (about 3 KiB; bench/RESULTS.md, "Idle memory"). Nothing reads them
# after the handshake, so the request is left holding this empty, shared one.
NO_HEADERS = Headers()

# What an open socket's protocol keeps of its handshake in place of its own: its id (a
# UUID, for websockets' logs, which this server does not use) and its extensions (none
# negotiated here: the list is empty and websockets only reads it). About 0.15 KiB per
# idle socket, let go.
NO_ID = uuid.UUID(int=0)
NO_EXTENSIONS: list = []

# An open socket's reader while its parser is let go (`release_parser`): between frames,
# websockets' StreamReader holds nothing (an empty buffer, no EOF), so this one, shared,
# stands in for each socket's own (its object, dict and buffer: about 0.2 KiB per idle
# socket). Nothing feeds it: `parser_for_frames` gives the socket a reader of its own
# before websockets reads, as it gives it a parser.
IDLE_READER = StreamReader()

# websockets' parser waits at a frame's first byte in its reader's `at_eof`; anywhere else,
# it is inside a frame, though its buffer may be empty (it has taken a frame's header and
# waits for the rest). `between_frames` tells them apart.
AT_EOF = StreamReader.at_eof.__code__


def between_frames(protocol: ServerProtocol) -> bool:
    """Whether websockets' parser has read whole frames and nothing more: the next bytes
    received start a frame. A parser let go (`release_parser`) is between frames."""
    if protocol.reader.buffer:
        return False
    # a generator, waiting in the generators it delegates to
    inner: Any = protocol.parser
    if inner is None:
        return True
    while (deeper := inner.gi_yieldfrom) is not None:
        inner = deeper
    return inner.gi_code is AT_EOF


def read_frames_only(protocol: ServerProtocol) -> None:
    """After the handshake, let go of websockets' parser of the upgrade request.

    Its parser is one generator for the whole socket: the upgrade request, then frames,
    read by the generator of websockets' `Protocol.parse` that it delegates to. Idle, it
    holds the request it parsed and its own frame, about 0.7 KiB per socket
    (bench/RESULTS.md, "Idle memory"). `Protocol.parse` alone reads frames the same way
    (`parser_for_frames` makes one when websockets reads again), as websockets itself
    replaces its parser once a socket closes. Its id and empty extensions go too (NO_ID)."""
    release_parser(protocol)
    protocol.id = NO_ID
    if not protocol.extensions:
        protocol.extensions = NO_EXTENSIONS


def release_parser(protocol: ServerProtocol) -> None:
    """An open socket whose parser is between frames lets go of it and of its reader: the
    two suspended generator frames are about 0.45 KiB, the empty reader 0.2 KiB, and an
    idle socket's frames are read by websocket.py's fast path, not by websockets.
    `parser_for_frames` makes both again before websockets reads; `Protocol.parse` keeps
    nothing across frames in its own frame (a fragmented message's size is the
    protocol's), so a new one reads on alike."""
    if protocol.state is State.OPEN and protocol.parser is not None and between_frames(protocol):
        protocol.parser.close()
        protocol.parser = None  # type: ignore[assignment]  # websockets declares it never None
        protocol.reader = IDLE_READER


def parser_for_frames(protocol: ServerProtocol) -> None:
    """Before websockets reads (receive_data, receive_eof): its reader and parser, made
    again if they were let go."""
    if protocol.parser is None:
        protocol.reader = StreamReader()
        protocol.parser = Protocol.parse(protocol)
        next(protocol.parser)  # to its first wait, as websockets starts its own


def frame_header(opcode: int, length: int) -> bytes:
    """The header of a final, unmasked frame (RFC 6455, 5.2): a server's frame with no
    extension in use (this server negotiates none). websockets builds the same bytes
    through a general Frame object, at several times the cost; an answer sends a dozen."""
    if length < 126:
        return bytes((0x80 | opcode, length))
    if length < 65536:
        return struct.pack("!BBH", 0x80 | opcode, 126, length)
    return struct.pack("!BBQ", 0x80 | opcode, 127, length)
