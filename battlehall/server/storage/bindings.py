"""Seat bindings handed from one node to another with a create passed on (placement.py):
`bh:placing:<name>`, the proven binding (JSON), taken once, for BINDING_TTL_S at most."""

from __future__ import annotations

import secrets

import orjson

from battlehall.server.storage.client import Client

BINDING_TTL_S = 60  # a binding handed over is taken at once; past this, the create is refused
BINDING_PREFIX = "bh:placing:"

# KEYS: the binding. Its value, deleted: each binding makes one match at most.
TAKE = """
local value = redis.call('GET', KEYS[1])
if value then
  redis.call('DEL', KEYS[1])
end
return value
"""


def is_binding_name(name: str) -> bool:
    return len(name) == 32 and all(c in "0123456789abcdef" for c in name)


class Bindings:
    def __init__(self, client: Client):
        self.client = client
        self._take = client.register_script(TAKE)

    async def hand_over(self, bound: dict) -> str:
        """Put a proven binding in Redis under a new random name; its name."""
        name = secrets.token_hex(16)
        await self.client.set(BINDING_PREFIX + name, orjson.dumps(bound), ex=BINDING_TTL_S)
        return name

    async def take(self, name: str) -> dict | None:
        """The binding handed over under `name`, taken once; None if there is none."""
        if not is_binding_name(name):
            return None
        value = await self._take(keys=[BINDING_PREFIX + name])
        return orjson.loads(value) if value is not None else None
