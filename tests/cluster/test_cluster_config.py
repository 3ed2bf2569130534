"""`battlehall serve --redis-cluster`: what it refuses, in one line and exit code 2, before
serving anything."""

from __future__ import annotations

import pytest
import uvicorn

from battlehall import cli
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from redis_cluster import LocalCluster
from servers import free_port


@pytest.fixture
def serve(monkeypatch, capsys):
    """`battlehall serve ARGS` in this process: (exit code, stderr); it must not get to serving."""
    def never(self, *args, **kwargs):
        raise AssertionError("the server was started")
    monkeypatch.setattr(uvicorn.Server, "run", never)

    def run(*args: str, env: dict | None = None) -> tuple[int, str]:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        code = cli.main(["serve", "--port", str(free_port()), *args])
        return code, capsys.readouterr().err
    return run


@pytest.mark.parametrize("args, env, says", [
    (("--redis-cluster",), None, "needs --redis"),
    ((), {"BATTLEHALL_REDIS_CLUSTER": "1"}, "needs --redis"),
    (("--redis", "unix:///tmp/no.sock", "--redis-cluster"), None, "over TCP"),
    (("--redis", "redis://127.0.0.1:1/3", "--redis-cluster"), None, "only database 0"),
    (("--redis", "redis://127.0.0.1:1"), {"BATTLEHALL_REDIS_CLUSTER": "maybe"}, "BATTLEHALL_REDIS_CLUSTER must be"),
])
def test_a_cluster_setting_that_cannot_work_is_refused(serve, args, env, says):
    code, err = serve(*args, env=env)
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_a_redis_in_the_wrong_mode_is_refused(serve, tmp_path):
    single = EmbeddedRedis(tmp_path / "single", port=free_port()).start()
    cluster = LocalCluster(tmp_path / "cluster", masters=1)
    try:
        code, err = serve("--redis", single.url, "--redis-cluster")
        assert code == 2 and "not a node of a Redis Cluster" in err, err
        cluster.start()
        code, err = serve("--redis", cluster.url)
        assert code == 2 and "add --redis-cluster" in err, err
    finally:
        single.stop()
        cluster.stop()
