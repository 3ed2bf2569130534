"""How long an operator's player token may be valid: against a real server and its Redis.

A token with `exp` in the year 9999 was taken: whoever got hold of it once stood for
that player for ever. The server takes a token whose `exp` is at most
`BATTLEHALL_JWT_MAX_LIFETIME_S` ahead (a day by default), wherever a token is checked.
"""

from __future__ import annotations

import time

import httpx
import jwt
import pytest

from battlehall.server.config import DEFAULT_JWT_MAX_LIFETIME_S
from battlehall.server.players.vouch import CLOCK_SKEW_S
from servers import ServerProcess

JWT_KEY = "t" * 48
API_KEY = "tokens-op-key"
YEAR_9999 = 253_402_300_799  # 9999-12-31T23:59:59Z


def token(exp: int, sub: str = "user-7") -> str:
    return jwt.encode({"sub": sub, "name": "Long Lived", "exp": exp}, JWT_KEY, algorithm="HS256")


def in_s(seconds: float) -> int:
    return int(time.time() + seconds)


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("tokens"),
                           env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_API_KEY": API_KEY}).start()
    yield server
    server.stop()


def vouch(url: str, bearer: str) -> httpx.Response:
    return httpx.post(f"{url}/profiles", headers={"Authorization": f"Bearer {bearer}"}, timeout=10)


def refused_for_its_lifetime(r: httpx.Response, longest: int) -> None:
    assert r.status_code == 401, r.text
    error = r.json()["error"]
    assert error["code"] == "token_invalid", error
    assert f"at most {longest} s ahead" in error["message"] and "BATTLEHALL_JWT_MAX_LIFETIME_S" in error["message"]


def test_a_token_valid_until_the_year_9999_is_refused_everywhere_a_token_is_taken(srv):
    forever = token(YEAR_9999)
    refused_for_its_lifetime(vouch(srv.url, forever), DEFAULT_JWT_MAX_LIFETIME_S)
    # Binding a seat to it, as the operator.
    r = httpx.post(f"{srv.url}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"],
                                                 "profiles": {"alice": {"token": forever}}},
                   headers={"Authorization": f"Bearer {API_KEY}"}, timeout=10)
    refused_for_its_lifetime(r, DEFAULT_JWT_MAX_LIFETIME_S)
    assert r.json()["error"]["path"] == "profiles.alice.token"
    # Proving a quick-play join's profile: the same player's profile, made by a good token.
    profile = vouch(srv.url, token(in_s(600))).json()["profile"]
    r = httpx.post(f"{srv.url}/queue", json={"ruleset": "duel", "profile": profile},
                   headers={"Authorization": f"Bearer {forever}"}, timeout=10)
    refused_for_its_lifetime(r, DEFAULT_JWT_MAX_LIFETIME_S)
    assert r.json()["error"]["path"] == "profile"


def test_the_default_longest_lifetime_is_a_day_give_or_take_the_clocks(srv):
    assert DEFAULT_JWT_MAX_LIFETIME_S == 86_400  # as docs/protocol.md and docs/operations.md say
    made = vouch(srv.url, token(in_s(DEFAULT_JWT_MAX_LIFETIME_S)))  # signed for exactly the longest
    assert made.status_code == 200 and made.json()["kind"] == "vouched", made.text
    refused_for_its_lifetime(vouch(srv.url, token(in_s(DEFAULT_JWT_MAX_LIFETIME_S + CLOCK_SKEW_S + 30))),
                             DEFAULT_JWT_MAX_LIFETIME_S)


def test_the_longest_lifetime_is_a_setting(tmp_path):
    server = ServerProcess(tmp_path, env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_JWT_MAX_LIFETIME_S": "600"}).start()
    try:
        assert vouch(server.url, token(in_s(600))).status_code == 200
        refused_for_its_lifetime(vouch(server.url, token(in_s(3600))), 600)
    finally:
        server.stop()
