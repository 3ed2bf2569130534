"""The HTTP side: the Starlette app and its routes, the web client's pages, the API key's
check, and the limits and checks of requests.

One route convention, which a new route module follows:

- An endpoint is a module-level `async def name(request: Request) -> Response`. What it
  needs of the server (the hub, the settings, the budgets, the quick play, the replay
  cache ...) it reads from `request.app.state` through state.py's typed accessors
  (`state.hub(request)`, `state.settings(request)`, ...); what the app's lifespan builds
  goes there (`state.install`), never in a closure or a class that carries it.
- A refusal is raised (errors.py); app.py's handlers answer it. A JSON answer is an
  `ORJSONResponse` (responses.py).
- Each route module exports one `routes: list[Route]`, its paths and methods, with the
  API key named in it: `keyed(endpoint)` or `operator_keyed(endpoint)` (keyed.py).
- app.py joins the modules' `routes` in `ROUTES`, and builds the state in the lifespan.

    match_routes.py     POST/GET /matches, GET/DELETE /matches/{id}, abort, GET /rulesets
    replay_routes.py    a finished match's replay, its steps and definitions
    operator_routes.py  GET /operator/matches, POST /drain, GET /metrics
    judge_routes.py     POST /judges; a judge's rewind, log and clocks of a match (a judge token or the key)
    ruling_routes.py    a judge's ruling on a match, a replacement in an event (a judge token or the key)
    health_routes.py    /healthz, /readyz
    player_api.py       profiles and leaderboards (and binding a new match's seats to profiles)
    rematch.py          POST/GET /matches/{id}/rematch
    queue_routes.py     quick play: POST/GET/DELETE /queue
    bot_matches.py      POST /bot-matches
    tv.py               GET /tv/featured
    web.py              the web client's pages and static files
"""
