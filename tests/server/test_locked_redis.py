"""One real server on a real Redis that asks for credentials (tests/locked_redis.py): a
password, in a database other than 0, and TLS with a client certificate; and a clear
refusal at start when the URL's credentials are wrong."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
import redis

from locked_redis import LockedRedis
from servers import ServerProcess, free_port
from wsutil import guard_turns

KEY = "locked-key"


async def play_and_remove(srv: ServerProcess) -> str:
    """A duel played a few answers, aborted (an operator's abort) and read back."""
    created = httpx.post(srv.url + "/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]},
                         headers={"Authorization": f"Bearer {KEY}"}, timeout=10)
    assert created.status_code == 201, created.text
    created = created.json()
    acks = await guard_turns(srv.url, created, 4)
    assert [a["t"] for a in acks] == ["ack"] * 4
    match = created["match"]
    r = httpx.post(f"{srv.url}/matches/{match}/abort", headers={"Authorization": f"Bearer {KEY}"}, timeout=10)
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    replay = httpx.get(f"{srv.url}/matches/{match}/replay", headers={"Authorization": f"Bearer {KEY}"},
                       timeout=10).json()
    assert replay["events"][-1]["kind"] == "match_ended"
    return match


async def test_a_server_on_redis_with_a_password_in_another_database(tmp_path):
    locked = LockedRedis(tmp_path / "redis", password="p@ss:w/rd").start()  # quoted in the URL
    srv = ServerProcess(tmp_path, redis_url=locked.url().replace("/0", "/3"), env={"BATTLEHALL_API_KEY": KEY})
    try:
        srv.start()
        match = await play_and_remove(srv)
        with locked.admin() as admin:
            admin.select(3)
            assert admin.xlen(f"bh:{{{match}}}:log") > 4  # written where the URL said
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=locked.port).ping()  # and Redis asks for the password indeed
    finally:
        srv.stop()
        locked.stop()


@pytest.mark.parametrize("credentials", ["wrong-password", None])
def test_serve_says_when_redis_refuses_the_credentials(tmp_path, credentials):
    locked = LockedRedis(tmp_path / "redis", password="right-password").start()
    url = locked.url(password=credentials) if credentials else f"redis://127.0.0.1:{locked.port}/0"
    try:
        done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--port", str(free_port()),
                               "--data-dir", str(tmp_path), "--redis", url],
                              capture_output=True, text=True, timeout=30)
    finally:
        locked.stop()
    assert done.returncode == 2, done.stderr
    assert "refused the URL's credentials" in done.stderr
    assert credentials is None or credentials not in done.stderr  # the password is not printed


async def test_a_server_on_redis_over_tls_with_a_client_certificate(tmp_path):
    locked = LockedRedis(tmp_path / "redis", password="tls-pass", tls=True, client_certs=True).start()
    srv = ServerProcess(tmp_path, redis_url=locked.url(), env={"BATTLEHALL_API_KEY": KEY})
    try:
        with pytest.raises(redis.ConnectionError):  # Redis wants the client's certificate indeed
            redis.Redis.from_url(locked.url().split("&ssl_certfile")[0].split("?")[0]
                                 + f"?ssl_ca_certs={locked.certs['ca']}").ping()
        srv.start()
        await play_and_remove(srv)
    finally:
        srv.stop()
        locked.stop()
