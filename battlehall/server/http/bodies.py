"""The JSON body of an HTTP request, or the 400 that says it is not JSON."""

from __future__ import annotations

import orjson
from starlette.requests import Request

from battlehall.server import errors


async def json_body(request: Request) -> object:
    """The decoded body; errors.BadRequest (path "") if it is not JSON."""
    try:
        return orjson.loads(await request.body())
    except orjson.JSONDecodeError as exc:
        raise errors.BadRequest(f"the body is not JSON: {exc}", path="") from None
