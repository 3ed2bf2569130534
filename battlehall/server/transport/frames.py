"""WebSocket frames below websockets' own API: the header of a server's frame, built at
once, and the parser of an open socket reduced to frames alone (websocket.py uses both).
The undocumented attributes read here are listed in internals.py."""

from __future__ import annotations

import struct
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

# websockets' parser waits at a frame's first byte in its reader's `at_eof`; anywhere else,
# it is inside a frame, though its buffer may be empty (it has taken a frame's header and
# waits for the rest). `between_frames` tells them apart.
AT_EOF = StreamReader.at_eof.__code__


def between_frames(protocol: ServerProtocol) -> bool:
    """Whether websockets' parser has read whole frames and nothing more: the next bytes
    received start a frame."""
    if protocol.reader.buffer:
        return False
    # a generator, waiting in the generators it delegates to
    inner: Any = protocol.parser
    while (deeper := inner.gi_yieldfrom) is not None:
        inner = deeper
    return inner.gi_code is AT_EOF


def read_frames_only(protocol: ServerProtocol) -> None:
    """After the handshake, give websockets' protocol a parser of frames alone.

    Its parser is one generator for the whole socket: the upgrade request, then frames,
    read by the generator of websockets' `Protocol.parse` that it delegates to. Idle, it
    holds the request it parsed and its own frame, about 0.7 KiB per socket
    (bench/RESULTS.md, "Idle memory"). `Protocol.parse` alone reads frames the same way;
    it replaces the whole when the parser is between frames, as websockets itself
    replaces its parser once a socket closes."""
    if protocol.state is State.OPEN and between_frames(protocol):
        protocol.parser.close()
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
