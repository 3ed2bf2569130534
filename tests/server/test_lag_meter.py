"""The server's measure of a socket's round trip (transport/lag.py): what a client can and
cannot do to it. Times are passed in; the kernel's bound is read off a real TCP socket."""

from __future__ import annotations

import socket

from battlehall.server.transport.lag import KERNEL_MARGIN_MS, MAX_RTT_MS, SAMPLES, LagMeter, kernel_round_trip_ms


def measured(*round_trips_ms: int) -> LagMeter:
    meter, now = LagMeter(), 100.0
    for ms in round_trips_ms:
        payload = meter.ping(now)
        meter.pong(payload, now + ms / 1000)
        now += 2
    return meter


def test_nothing_is_credited_before_a_pong_came_back():
    meter = LagMeter()
    assert meter.rtt_ms == 0 and meter.wanted  # the first ping goes with the welcome
    meter.ping(1.0)
    assert meter.rtt_ms == 0


def test_a_pong_counts_only_when_it_echoes_the_latest_ping():
    meter = LagMeter()
    first = meter.ping(1.0)
    assert not meter.pong(b"guessed!", 1.01)  # unasked for: a client cannot pong before the ping
    second = meter.ping(2.0)
    assert first != second and len(second) == 8
    assert not meter.pong(first, 2.01)  # the echo of a ping since replaced
    assert meter.pong(second, 2.25) and meter.rtt_ms == 250
    assert not meter.pong(second, 2.3)  # once


def test_the_measure_is_the_least_of_the_recent_round_trips():
    meter = measured(400, 410, 900, 405)  # one pong held back changes nothing
    assert meter.rtt_ms == 400
    meter = measured(*([100] + [400] * SAMPLES))  # the quick one is forgotten after SAMPLES
    assert meter.rtt_ms == 400
    assert measured(60_000).rtt_ms == MAX_RTT_MS


def test_a_quick_answer_bounds_the_measure():
    meter = measured(300, 300)
    meter.prompted("p1", 50.0)
    assert meter.answered("p1", 50.02) and meter.rtt_ms == 20  # back in 20 ms: the line is no slower
    assert not meter.answered("p1", 50.03)  # an answer to a prompt not timed (or timed once)


def test_a_prompt_asks_for_a_measuring_ping_at_most_once_a_second():
    meter = LagMeter()
    meter.ping(10.0)
    meter.prompted("p1", 10.5)
    assert not meter.wanted
    meter.prompted("p2", 11.0)
    assert meter.wanted


def test_the_kernel_bound_caps_held_pongs_on_a_direct_socket():
    meter = LagMeter()
    payload = meter.ping(1.0)
    meter.pong(payload, 1.3, kernel_ms=12)  # pongs held 300 ms; the kernel saw a 2 ms line
    assert meter.rtt_ms == 12


def test_the_kernel_round_trip_of_a_real_loopback_connection_is_read():
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        peer, _ = server.accept()
        try:
            client.sendall(b"x" * 1000)
            peer.recv(1000)
            peer.sendall(b"y" * 1000)  # acknowledged by the client's kernel: a round trip timed
            client.recv(1000)
            bound = kernel_round_trip_ms(peer)
        finally:
            client.close()
            peer.close()
    assert bound is not None and KERNEL_MARGIN_MS <= bound < KERNEL_MARGIN_MS + 50
