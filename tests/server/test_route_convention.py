"""The HTTP side's one route convention (battlehall/server/http/__init__.py): each route
module exports `routes`, app.py joins every one of them, and every endpoint is a
module-level function of its module (the web pages excepted: one endpoint per page file)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import httpx
from starlette.routing import Mount, Route

import battlehall.server.http as http
from battlehall.server.http import app, web
from servers import ServerProcess


def route_modules() -> dict[str, object]:
    modules = {info.name: importlib.import_module(f"{http.__name__}.{info.name}")
               for info in pkgutil.iter_modules(http.__path__)}
    return {name: module for name, module in modules.items() if hasattr(module, "routes")}


def test_every_route_modules_routes_are_served_in_its_order():
    modules = route_modules()
    assert {"match_routes", "replay_routes", "operator_routes", "health_routes", "web"} <= set(modules)
    joined = [route for module in modules.values() for route in module.routes]
    assert sorted(map(id, app.ROUTES)) == sorted(map(id, joined))  # each module's, and no other
    for module in modules.values():
        at = [app.ROUTES.index(route) for route in module.routes]
        assert at == sorted(at) and at[-1] - at[0] == len(at) - 1, module.__name__  # together, in order


def test_every_endpoint_is_a_module_level_function_of_its_module():
    for name, module in route_modules().items():
        assert isinstance(module.routes, list) and module.routes, name
        for route in module.routes:
            if isinstance(route, Mount):
                continue
            assert isinstance(route, Route)
            endpoint = inspect.unwrap(route.endpoint)  # keyed(...) wraps, naming what it wraps
            assert inspect.iscoroutinefunction(endpoint), route.path
            if endpoint.__qualname__ == "page.<locals>.serve":  # a page of the web client
                assert endpoint.__module__ == web.__name__, route.path
                continue
            assert "<locals>" not in endpoint.__qualname__, (route.path, endpoint.__qualname__)
            owner = importlib.import_module(endpoint.__module__)
            assert getattr(owner, endpoint.__name__) is endpoint, route.path


def answers_without_a_key(tmp_path, env: dict[str, str]) -> dict[tuple[str, str], httpx.Response]:
    """Every route of the app (path parameters filled with ids of nothing), asked without
    an Authorization header of a server of its own (the asking spends budgets: POST
    /profiles, /queue ...); nothing the answers make happens (no body, no such ids)."""
    srv = ServerProcess(tmp_path, env=env).start()
    try:
        return asked(srv.url)
    finally:
        srv.stop()


def asked(url: str) -> dict[tuple[str, str], httpx.Response]:
    out = {}
    for route in app.ROUTES:
        if not isinstance(route, Route):
            continue
        path = route.path.format(**{name: "nothing" for name in route.param_convertors})
        for method in sorted(route.methods or ()):
            if method != "HEAD":
                out[(method, route.path)] = httpx.request(method, url + path, timeout=10)
    return out


KEYED = {("POST", "/matches"), ("GET", "/metrics")}
OPERATOR = {("DELETE", "/matches/{match_id}"), ("POST", "/matches/{match_id}/abort"),
            ("GET", "/operator/matches"), ("POST", "/drain"),
            # a judge's token opens these too (judge_routes.py); without one, the key
            ("POST", "/judges"), ("POST", "/matches/{match_id}/rewind"), ("GET", "/matches/{match_id}/log"),
            ("POST", "/matches/{match_id}/pause"), ("POST", "/matches/{match_id}/resume"),
            ("POST", "/matches/{match_id}/time")}


def test_with_an_api_key_exactly_the_keyed_routes_ask_for_it(tmp_path):
    answers = answers_without_a_key(tmp_path, {"BATTLEHALL_API_KEY": "sesame"})
    asking = {route for route, r in answers.items()
              if r.status_code == 401 and "a valid API key is required" in r.json()["error"]["message"]}
    assert asking == KEYED | OPERATOR


def test_without_an_api_key_exactly_the_operator_routes_are_refused(tmp_path):
    answers = answers_without_a_key(tmp_path, {})
    refused = {route for route, r in answers.items() if r.status_code == 403}
    assert refused == OPERATOR
    assert all(r.json()["error"]["code"] == "forbidden" for route, r in answers.items() if route in OPERATOR)
    assert answers[("GET", "/metrics")].status_code == 200
