"""The fsync choice of the private Redis, its append-only file kept short to load, and what
the server reports of an external one."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import redis

from battlehall.server.storage.embedded_redis import EmbeddedRedis
from servers import ServerProcess, free_port


def appendfsync(url: str) -> str:
    client = redis.Redis.from_url(url)
    try:
        return client.config_get("appendfsync")["appendfsync"]
    finally:
        client.close()


def server_log(server: ServerProcess) -> str:
    return (server.data_dir / f"server-{server.port}.log").read_text()


def test_the_private_redis_syncs_every_write_by_default_and_everysec_on_request(tmp_path):
    (tmp_path / "default").mkdir()
    default = ServerProcess(tmp_path / "default").start()
    try:
        assert appendfsync(f"unix://{tmp_path / 'default' / 'redis' / 'redis.sock'}") == "always"
        assert "appendfsync always" in server_log(default)
    finally:
        default.stop()
    (tmp_path / "env").mkdir()
    by_env = ServerProcess(tmp_path / "env", env={"BATTLEHALL_FSYNC": "everysec"}).start()
    try:
        assert appendfsync(f"unix://{tmp_path / 'env' / 'redis' / 'redis.sock'}") == "everysec"
    finally:
        by_env.stop()
    (tmp_path / "flag").mkdir()
    by_flag = ServerProcess(tmp_path / "flag", env={"BATTLEHALL_FSYNC": "always"}, args=("--fsync", "everysec")).start()
    try:
        assert appendfsync(f"unix://{tmp_path / 'flag' / 'redis' / 'redis.sock'}") == "everysec"
    finally:
        by_flag.stop()


def test_a_bad_fsync_setting_is_one_readable_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--data-dir", str(tmp_path)],
                          env={"BATTLEHALL_FSYNC": "sometimes", "PATH": ""}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == "battlehall serve: BATTLEHALL_FSYNC must be one of always, everysec, not 'sometimes'"


def test_the_server_warns_when_an_external_redis_syncs_once_a_second(tmp_path):
    external = EmbeddedRedis(tmp_path / "redis", fsync="everysec").start()
    server = ServerProcess(tmp_path, redis_url=external.url).start()
    try:
        log = server_log(server)
        assert "WARNING" in log and "appendfsync everysec" in log and "power loss" in log
    finally:
        server.stop()
        external.stop()


def test_a_redis_that_refuses_config_is_reported_as_such(tmp_path):
    external = EmbeddedRedis(tmp_path / "redis", port=free_port()).start()
    admin = redis.Redis.from_url(external.url)
    admin.acl_setuser("game", enabled=True, passwords=["+secret"], keys=["*"], commands=["+@all", "-config"])
    admin.close()
    server = ServerProcess(tmp_path, redis_url=external.url.replace("redis://", "redis://game:secret@")).start()
    try:
        assert "Redis does not allow CONFIG GET" in server_log(server)
    finally:
        server.stop()
        external.stop()


def test_the_supervisor_survives_a_stop_right_after_a_restart(tmp_path, caplog, monkeypatch):
    """The restart's log line read `self.process.pid` after the lock was let go: a `stop()`
    in between (which clears `self.process`) made the supervisor thread die with an
    AttributeError (found by mypy). A real Redis is killed, and the supervisor's real
    restart is followed by a `stop()` at that very moment: the lock, wrapped, calls it
    as the supervisor lets go."""
    died: list = []
    monkeypatch.setattr(threading, "excepthook", died.append)
    redis_ = EmbeddedRedis(tmp_path).start()
    first = redis_.process
    lock, restarted = redis_._lock, []

    class StopRightAfter:
        def __enter__(self):
            lock.acquire()

        def __exit__(self, *exc):
            lock.release()
            if not restarted and redis_.process is not first:  # the restart, just done
                restarted.append(redis_.process)
                redis_.stop()  # (on the supervisor's own thread: it does not join itself)

    redis_._lock = StopRightAfter()
    with caplog.at_level("WARNING", logger="battlehall.redis"):
        redis_.supervise(backoff_s=0.01)
        supervisor = redis_._supervisor
        first.kill()
        supervisor.join(30)
    assert not supervisor.is_alive() and died == []
    (second,) = restarted
    assert second.pid != first.pid and second.poll() is not None  # restarted, then stopped
    assert redis_.restarts == 1 and redis_.process is None
    assert f"the private Redis is back (pid {second.pid}, restart 1)" in caplog.text


def wait_for_preamble(aof: Path, timeout_s: float = 30) -> bool:
    """Whether the append-only file starts with an RDB preamble (a rewrite happened) in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with open(aof, "rb") as f:
            if f.read(5) == b"REDIS":
                return True
        time.sleep(0.05)
    return False


def test_a_long_file_of_commands_is_rewritten_to_a_preamble_after_loading_and_keeps_every_key(tmp_path):
    """Redis counts the file's growth from the size it loaded: without the rewrite at start, a
    restart after a long file of commands would load all of them again the next time."""
    folder = tmp_path / "redis"
    folder.mkdir()
    value = b"x" * 100_000
    with open(folder / "appendonly.aof", "wb") as f:  # 9 MB of SETs, as an older Redis left it
        for i in range(90):
            name = f"k{i}".encode()
            f.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(name), name, len(value), value))
    embedded = EmbeddedRedis(folder).start()
    try:
        assert wait_for_preamble(folder / "appendonly.aof")
        client = redis.Redis.from_url(embedded.url)
        assert client.dbsize() == 90 and client.get("k89") == value
        client.close()
    finally:
        embedded.stop()
    again = EmbeddedRedis(folder).start()  # and the preamble loads back to the same keys
    try:
        client = redis.Redis.from_url(again.url)
        assert client.dbsize() == 90 and client.get("k0") == value
        client.close()
    finally:
        again.stop()
