"""The web client's pages and static files, served by the server itself (no build step, no CDN).

Each page is one HTML shell whose script reads the match id from the path and any token
from the URL fragment, which browsers never send: tokens stay out of requests and logs.
"""

from __future__ import annotations

import functools
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from battlehall.server.http import state

WEB = Path(__file__).resolve().parents[2] / "web"

# Only this server's own scripts, styles and images; sockets to any ws:/wss: address
# (a match may be served by another node, which redirects there). Inline styles are
# allowed for drawing code that sets them; inline scripts are not.
CSP_BASE = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; ")
CSP = CSP_BASE + "frame-ancestors 'none'"  # every page not EMBEDDABLE, and the static files

# The pages that only show a match (nothing to click that acts) may be framed by the
# sites BATTLEHALL_FRAME_ANCESTORS names; the lobby, a seat's page and the operator's never.
EMBEDDABLE = ("watch.html", "tv.html", "replay.html", "tournament_overlay.html")

# By suffix, not from the machine's mime.types (which calls .ts a video or a Qt file):
# a module script with the wrong type is refused by browsers.
TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".d.ts": "text/plain; charset=utf-8", ".ts": "text/plain; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
         ".png": "image/png", ".woff2": "font/woff2"}


def secured(response: Response, csp: str = CSP) -> Response:
    response.headers["Content-Security-Policy"] = csp
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-cache"  # revalidated (ETag) on every load: a new version shows at once
    return response


def content_type(path: str) -> str | None:
    name = path.lower()
    for suffix in sorted(TYPES, key=len, reverse=True):
        if name.endswith(suffix):
            return TYPES[suffix]
    return None


class Static(StaticFiles):
    def file_response(self, full_path, stat_result, scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        kind = content_type(str(full_path))
        if kind is not None:
            response.headers["content-type"] = kind
        # Public files: a game on another origin may import the client library from here.
        response.headers["Access-Control-Allow-Origin"] = "*"
        return secured(response)


def page(name: str):
    """The endpoint serving page `name`; an embeddable one may be framed by the sites the
    server's `frame_ancestors` setting names, read when the page is asked for."""
    async def serve(request: Request) -> Response:
        csp = (CSP_BASE + "frame-ancestors " + state.settings(request).frame_ancestors) if name in EMBEDDABLE else CSP
        return secured(FileResponse(WEB / name, media_type=TYPES[".html"]), csp)
    return serve


def html_or(endpoint, name: str):
    """An endpoint for a path that is both an API GET and a page (`/tournaments/{id}`): the
    page `name` for a browser's navigation (Accept: text/html), `endpoint`'s JSON otherwise."""
    shown = page(name)

    @functools.wraps(endpoint)  # the endpoint is the route's: the page is how browsers see it
    async def serve(request: Request) -> Response:
        wants_page = "text/html" in request.headers.get("accept", "")
        response = await (shown(request) if wants_page else endpoint(request))
        response.headers["Vary"] = "Accept"
        return response
    return serve


routes: list[BaseRoute] = [
    Route("/", page("lobby.html"), methods=["GET", "HEAD"]),
    Route("/play/{match_id}", page("play.html"), methods=["GET", "HEAD"]),
    Route("/watch/{match_id}", page("watch.html"), methods=["GET", "HEAD"]),
    Route("/tv", page("tv.html"), methods=["GET", "HEAD"]),
    Route("/tv/{ruleset}", page("tv.html"), methods=["GET", "HEAD"]),
    Route("/replay/{match_id}", page("replay.html"), methods=["GET", "HEAD"]),
    # Never framed, whatever the setting: it shows every hand (late, but to the caster only).
    Route("/cast/{match_id}", page("cast.html"), methods=["GET", "HEAD"]),
    Route("/cast/tournament/{tournament_id}", page("cast.html"), methods=["GET", "HEAD"]),  # an event's top table
    Route("/judge/{match_id}", page("cast.html"), methods=["GET", "HEAD"]),  # the cast page, live, for judges
    Route("/operator", page("operator.html"), methods=["GET", "HEAD"]),
    # /tournaments and /tournaments/{id} are pages too: the tournament routes serve them
    # through html_or (their paths are the API's). The overlay shows, never acts.
    Route("/overlay/tournament/{tournament_id}", page("tournament_overlay.html"), methods=["GET", "HEAD"]),
    Mount("/static", Static(directory=WEB / "static"), name="static"),
]
