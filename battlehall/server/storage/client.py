"""The storage wing's Redis clients: redis-py's objects, each failure of Redis raised as
`StoreUnavailable`. For the storage wing only (tests/server/test_redis_boundary.py): the
other wings reach Redis through the store's typed methods and the record classes beside it.
"""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable

from redis.exceptions import AuthenticationError, RedisError

from battlehall.server.storage.store_link import StoreUnavailable

#: What redis-py raises when Redis fails: its own errors (a lost connection, a timeout, an
#: error reply) and the sockets' OSErrors it lets through.
FAILURES = (RedisError, OSError)


class CredentialsRefused(StoreUnavailable):
    """Redis refused the URL's user or password: no use waiting for it."""


def unavailable(exc: BaseException) -> StoreUnavailable:
    """StoreUnavailable for one of redis-py's FAILURES, saying what it said."""
    if isinstance(exc, AuthenticationError):
        return CredentialsRefused(str(exc))
    return StoreUnavailable(str(exc) or repr(exc))


async def guarded(reply: Awaitable[Any]) -> Any:
    try:
        return await reply
    except FAILURES as exc:
        raise unavailable(exc) from exc


class _Guarded:
    """A redis-py object whose methods raise StoreUnavailable for every failure of Redis:
    an awaited call is awaited through `guarded`."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any):
        self.raw = raw  # the redis-py object

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.raw, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                reply = method(*args, **kwargs)
            except FAILURES as exc:  # refused before sending (DataError: an argument it cannot send)
                raise unavailable(exc) from exc
            return guarded(reply) if inspect.isawaitable(reply) else reply

        return call


class Client(_Guarded):
    """A redis-py client (`Redis` or `RedisCluster`) whose every failure is StoreUnavailable:
    its commands as redis-py names them (`await client.get(key)`), and the pipelines,
    scripts and pub/sub it makes, alike."""

    __slots__ = ()

    def pipeline(self, *args: Any, **kwargs: Any) -> Pipeline:
        return Pipeline(self.raw.pipeline(*args, **kwargs))

    def register_script(self, body: str | bytes) -> Script:
        return Script(self.raw.register_script(body))

    def pubsub(self, **kwargs: Any) -> PubSub:
        return PubSub(self.raw.pubsub(**kwargs))


class Pipeline:
    """A redis-py pipeline: its commands are queued (each returns the pipeline), `execute`
    sends them and raises StoreUnavailable for every failure, an error reply included."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any):
        self.raw = raw

    def __getattr__(self, name: str) -> Callable[..., Pipeline]:
        method = getattr(self.raw, name)

        def queue(*args: Any, **kwargs: Any) -> Pipeline:
            try:
                method(*args, **kwargs)
            except FAILURES as exc:
                raise unavailable(exc) from exc
            return self

        return queue

    async def execute(self) -> list[Any]:
        replies: list[Any] = await guarded(self.raw.execute())
        return replies

    async def reset(self) -> None:
        await guarded(self.raw.reset())

    def __len__(self) -> int:
        return len(self.raw)

    def __bool__(self) -> bool:
        return True  # as redis-py's, empty or not

    async def __aenter__(self) -> Pipeline:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.reset()


class Script:
    """A registered script (EVALSHA, loaded again on NOSCRIPT, as redis-py's)."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any):
        self.raw = raw

    async def __call__(self, keys: list[Any] | None = None, args: list[Any] | None = None) -> Any:
        return await guarded(self.raw(keys=keys, args=args))


class PubSub(_Guarded):
    """A redis-py pub/sub connection: `subscribe`, `get_message`, `aclose`..."""

    __slots__ = ()
