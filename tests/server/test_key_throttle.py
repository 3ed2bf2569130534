"""Guessing the API key (key_guard.py, auth.py): wrong keys are counted per address and
answered 429 `key_throttled` with Retry-After past the limit, on every route that checks
the key, /metrics included; against a real server and its real Redis."""

from __future__ import annotations

import time

import httpx
import pytest

from battlehall.server.http.auth import key_matches
from battlehall.server.http.key_guard import MAX_ADDRESSES, KeyGuard
from servers import ServerProcess

KEY = "open-sesame"
AUTH = {"Authorization": f"Bearer {KEY}"}
FAILURES = 5
WINDOW_S = 3


@pytest.fixture
def keyed(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": KEY, "BATTLEHALL_KEY_FAILURES": str(FAILURES),
                                       "BATTLEHALL_KEY_FAILURE_WINDOW_S": str(WINDOW_S)}).start()
    yield srv
    srv.stop()


# Every route that checks the key: (method, path, body)
KEYED_ROUTES = [
    ("POST", "/matches", {"ruleset": "duel", "seats": ["alice", "bob"]}),
    ("POST", "/drain", None),
    ("GET", "/operator/matches", None),
    ("POST", "/matches/m_0000000000000000/abort", None),
    ("DELETE", "/matches/m_0000000000000000", None),
    ("GET", "/metrics", None),
]


def test_wrong_keys_are_throttled_then_forgotten(keyed):
    with httpx.Client(base_url=keyed.url, timeout=10) as http:
        answers = [http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"]},
                             headers={"Authorization": f"Bearer guess-{i}"}) for i in range(200)]
        assert [a.status_code for a in answers[:FAILURES]] == [401] * FAILURES
        throttled = answers[FAILURES:]
        assert {a.status_code for a in throttled} == {429}
        error = throttled[-1].json()["error"]
        assert error["code"] == "key_throttled"
        assert 1 <= int(throttled[-1].headers["retry-after"]) <= WINDOW_S

        # The right key is refused too while throttled: else the answers would tell the right guess.
        for method, path, body in KEYED_ROUTES:
            r = http.request(method, path, json=body, headers=AUTH)
            assert r.status_code == 429, (method, path, r.text)
            assert r.json()["error"]["code"] == "key_throttled" and "retry-after" in r.headers
        # Routes without the key are untouched.
        assert http.get("/matches").status_code == 200
        assert http.get("/healthz").status_code == 200

        time.sleep(int(throttled[-1].headers["retry-after"]) + 0.2)
        assert http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"]}, headers=AUTH).status_code == 201


def test_every_keyed_route_counts_a_wrong_key(keyed):
    """A guesser cannot spread guesses over routes: each counts towards the one limit."""
    with httpx.Client(base_url=keyed.url, timeout=10) as http:
        codes = [http.request(method, path, json=body, headers={"Authorization": f"Bearer wrong-{path}"}).status_code
                 for method, path, body in KEYED_ROUTES]
        assert codes[:FAILURES] == [401] * FAILURES and codes[FAILURES:] == [429] * (len(codes) - FAILURES)


def test_requests_without_a_key_guess_nothing_and_are_not_counted(keyed):
    with httpx.Client(base_url=keyed.url, timeout=10) as http:
        for _ in range(3 * FAILURES):
            r = http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"]})
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"]}, headers=AUTH).status_code == 201


def test_metrics_need_the_key_when_the_server_has_one(keyed):
    with httpx.Client(base_url=keyed.url, timeout=10) as http:
        r = http.get("/metrics")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        r = http.get("/metrics", headers={"Authorization": f"bearer {KEY}"})  # as Prometheus sends it, any case
        assert r.status_code == 200 and "battlehall_answers_total" in r.text


def test_key_comparison():
    assert key_matches(KEY, f"Bearer {KEY}") and key_matches(KEY, f"BEARER  {KEY} ")
    for header in ("", "Bearer", f"Basic {KEY}", f"Bearer {KEY}x", f"Bearer {KEY[:-1]}", "Bearer é", KEY):
        assert not key_matches(KEY, header), header


def test_the_memory_of_wrong_keys_is_bounded():
    """Guesses from ever new addresses (IPv6 gives plenty) cannot grow the table without end."""
    guard = KeyGuard(max_failures=2, window_s=3600)
    for i in range(MAX_ADDRESSES + 500):
        guard.failed(f"2001:db8::{i:x}")
        guard.failed(f"2001:db8::{i:x}")
    assert len(guard.failures) <= MAX_ADDRESSES
    assert guard.retry_after(f"2001:db8::{MAX_ADDRESSES + 499:x}") is not None  # the latest are kept
    assert guard.retry_after("2001:db8::0") is None  # the longest-known made room
