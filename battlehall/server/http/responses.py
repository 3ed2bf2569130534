"""The JSON answers of the HTTP routes: orjson-encoded content, and a wire error's answer
(errors.py says its body, status and headers)."""

from __future__ import annotations

import orjson
from starlette.responses import JSONResponse, Response

from battlehall.server import errors


class ORJSONResponse(JSONResponse):
    def render(self, content) -> bytes:
        return orjson.dumps(content)


def error_response(error: errors.WireError) -> Response:
    """The HTTP answer of an error, for a Starlette route."""
    error, status = errors.http_status(error)
    return Response(orjson.dumps(errors.body(error)), status_code=status, headers=errors.http_headers(error),
                    media_type="application/json")
