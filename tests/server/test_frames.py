"""The frame header websocket.py writes itself is the one websockets would write."""

import pytest
from websockets.frames import Frame, Opcode

from battlehall.server.transport.frames import OP_BINARY, OP_TEXT, frame_header


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("ours, theirs", [(OP_TEXT, Opcode.TEXT), (OP_BINARY, Opcode.BINARY)])
def test_frame_header_matches_websockets(length, ours, theirs):
    payload = bytes(range(256)) * (length // 256) + bytes(range(length % 256))
    expected = Frame(theirs, payload).serialize(mask=False, extensions=[])
    assert frame_header(ours, length) + payload == expected
