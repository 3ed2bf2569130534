"""A player's socket's round trip, measured by the server and never claimed by the client.

The server pings the socket (a WebSocket ping frame) right after it sends the seat a
prompt, at most once a second, and with each keep-alive ping; each ping carries a fresh
random payload, and only the pong that echoes the latest one counts. So a client cannot
answer a ping before it has it (it would have to guess 8 random bytes), and the round
trip is the time from the ping's write to its pong's arrival.

A client may still hold its pongs back to look slower than it is. Two bounds keep that
from paying:
- the measure is the least of the last few round trips, so a pong held once changes
  nothing, and one held every time must be held every time;
- it is never more than the quickest of the seat's last few answers, timed from the
  prompt's write to the answer's arrival: an answer cannot come back faster than the
  line carries it, so a client that claims 300 ms by its pongs and answers in 20 ms is
  taken at 20 ms.
- for a socket straight from its player (not from one of `BATTLEHALL_LAG_PROXIES`), it
  is never more than the kernel's own round trip of the TCP connection (its smoothed
  round trip plus four times its variation, plus `KERNEL_MARGIN_MS`): the kernel times
  the client's TCP acknowledgements, which its kernel sends whatever the client program
  does, so holding pongs back gains nothing at all. Behind a proxy the kernel's round
  trip is the proxy's, and only the two bounds above hold.
The clock then credits at most `LAG_CAP_MS` per answer and `LAG_QUOTA_MS` per match
(clock.py). docs/protocol.md, Lag, gives the numbers.
"""

from __future__ import annotations

import math
import os
import socket
import struct

#: The least time between two measuring pings of a socket (seconds).
PROBE_EVERY_S = 1.0
#: How many recent round trips (and answer times) the measure is the least of.
SAMPLES = 5
#: A round trip longer than this is taken as this (ms): far beyond any credit.
MAX_RTT_MS = 5_000
#: Added to the kernel's round trip before it bounds the measure (ms): the scheduling of
#: the server's own loop, which the kernel does not see.
KERNEL_MARGIN_MS = 10
#: Linux's TCP_INFO: `tcpi_rtt` and `tcpi_rttvar` (microseconds) are the 16th and 17th
#: 32-bit fields after 8 bytes of flags (linux/tcp.h, struct tcp_info).
_TCP_INFO = getattr(socket, "TCP_INFO", None)
_RTT_OFFSET = 68
#: Prompt send times kept per socket, for timing answers (a seat has few open at once).
PROMPTS_KEPT = 8


def kernel_round_trip_ms(sock: socket.socket | None) -> int | None:
    """What the kernel measured of the TCP connection's round trip, as a bound (ms):
    smoothed round trip plus four variations plus the margin; None where it cannot tell."""
    if _TCP_INFO is None or sock is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 104)
    except OSError:
        return None
    if len(info) < _RTT_OFFSET + 8:
        return None
    rtt_us, rttvar_us = struct.unpack_from("=II", info, _RTT_OFFSET)
    return math.ceil((rtt_us + 4 * rttvar_us) / 1000) + KERNEL_MARGIN_MS


class LagMeter:
    """One player socket's measured round trip; times are monotonic seconds, passed in."""

    __slots__ = ("pending", "sent", "pings", "answers", "prompts", "wanted", "kernel")

    def __init__(self) -> None:
        self.pending: bytes | None = None  # the payload of the ping whose pong counts
        self.sent = 0.0  # when that ping was written
        self.pings: list[int] = []  # the latest round trips (ms), oldest first
        self.answers: list[int] = []  # the latest prompt-to-answer times (ms)
        self.prompts: dict[str, float] = {}  # prompt id -> when it was written to the socket
        self.wanted = True  # a measuring ping is due with the next frames written (the first: the welcome)
        self.kernel: int | None = None  # the kernel's bound at the last pong (a direct socket's only)

    @property
    def rtt_ms(self) -> int:
        """The round trip the seat may be credited: 0 until a pong came back."""
        if not self.pings:
            return 0
        kernel = MAX_RTT_MS if self.kernel is None else self.kernel
        return min(min(self.pings), min(self.answers, default=MAX_RTT_MS), kernel, MAX_RTT_MS)

    def ping(self, now: float) -> bytes:
        """The payload of a new ping written at `now`: only its pong counts from now on."""
        self.pending = os.urandom(8)
        self.sent = now
        self.wanted = False
        return self.pending

    def pong(self, payload: bytes, now: float, kernel_ms: int | None = None) -> bool:
        """A pong came at `now`, the kernel's bound then `kernel_ms` (None: none holds);
        whether the measure changed."""
        if self.pending is None or payload != self.pending:
            return False  # unasked for, or the echo of a ping since replaced
        self.pending = None
        before = self.rtt_ms
        self.kernel = kernel_ms
        self._sample(self.pings, round((now - self.sent) * 1000))
        return self.rtt_ms != before

    def prompted(self, prompt_id: str, now: float) -> None:
        """A prompt of the seat's was written at `now`: time its answer, and measure the
        line again unless it was measured within the last `PROBE_EVERY_S`."""
        self.prompts[prompt_id] = now
        if len(self.prompts) > PROMPTS_KEPT:
            del self.prompts[next(iter(self.prompts))]
        if now - self.sent >= PROBE_EVERY_S:
            self.wanted = True

    def answered(self, prompt_id: str, now: float) -> bool:
        """An answer to `prompt_id` came at `now`; whether the measure changed."""
        sent = self.prompts.pop(prompt_id, None)
        if sent is None:
            return False
        before = self.rtt_ms
        self._sample(self.answers, round((now - sent) * 1000))
        return self.rtt_ms != before

    def _sample(self, samples: list[int], ms: int) -> bool:
        before = self.rtt_ms
        samples.append(min(max(ms, 0), MAX_RTT_MS))
        del samples[:-SAMPLES]
        return self.rtt_ms != before
