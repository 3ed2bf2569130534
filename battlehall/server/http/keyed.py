"""The API key as one dependency of endpoints: a route that needs it names its endpoint
`keyed(endpoint)` or `operator_keyed(endpoint)` in its module's `routes`.

    keyed           the key is checked when the server has one; without one, anyone may
    operator_keyed  the same, and refused outright (403) when the server has no key: the
                    operator's routes (abort, delete, drain, the operator's list) have no
                    one to let in without it

The check is auth.KeyCheck's (wrong keys counted per address, key_guard.py), made before
anything else of the request is read.
"""

from __future__ import annotations

import functools
from typing import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from battlehall.server import errors
from battlehall.server.http import state

Endpoint = Callable[[Request], Awaitable[Response]]


def check_key(request: Request, operator: bool = False) -> None:
    """Raise why the request may not go on, if it may not."""
    if not state.settings(request).api_key:
        if operator:
            raise errors.Forbidden("this needs the server to have an API key (--api-key or "
                                   "BATTLEHALL_API_KEY), and that key as a Bearer token")
        return
    found = state.keys(request).refusal(request.client.host if request.client else None,
                                        request.headers.get("authorization"))
    if found is not None:
        raise found


def keyed(endpoint: Endpoint) -> Endpoint:
    """`endpoint` behind the API key, when the server has one."""
    @functools.wraps(endpoint)
    async def checked(request: Request) -> Response:
        check_key(request)
        return await endpoint(request)
    return checked


def operator_keyed(endpoint: Endpoint) -> Endpoint:
    """`endpoint` behind the API key, and refused when the server has none."""
    @functools.wraps(endpoint)
    async def checked(request: Request) -> Response:
        check_key(request, operator=True)
        return await endpoint(request)
    return checked
