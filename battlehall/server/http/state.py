"""What the routes read from `request.app.state`, typed: the app's lifespan puts it there
(`install`, then the quick play it starts), and every endpoint reads it back through the
accessors below, never through an untyped `request.app.state.x` of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request

from battlehall.server.config import Settings
from battlehall.server.http.auth import KeyCheck
from battlehall.server.http.creation_limit import CreationLimit
from battlehall.server.http.key_guard import KeyGuard
from battlehall.server.http.replay_steps import ReplaySteps
from battlehall.server.players.player_settings import PlayerSettings

if TYPE_CHECKING:  # the node wing, for the annotations only: the lifespan makes them
    from battlehall.server.node.hub import Hub
    from battlehall.server.players.quick_play import QuickPlay
    from battlehall.server.tournaments.events import Events

#: Renames one profile may make at once, then a minute (PATCH /profiles/{id}), counted by
#: each node: a player renames now and then, and every name a profile takes is kept with
#: its tag (profiles.py), which a script renaming hundreds of times a second would fill.
RENAME_BURST = 5
RENAME_PER_MIN = 2.0


@dataclass(slots=True)
class Budgets:
    """How often one address (or one profile) may do what costs the server, counted by
    this node in its memory (creation_limit.py)."""

    matches: CreationLimit  # one budget for every route that makes a match: POST /matches, /bot-matches, rematches
    profiles: CreationLimit  # guest profiles, per address
    renames: CreationLimit  # by profile id, not address
    queue_joins: CreationLimit  # POST /queue, per address

    @classmethod
    def of(cls, settings: Settings, players: PlayerSettings) -> Budgets:
        return cls(matches=CreationLimit(settings.create_per_min, settings.create_burst),
                   profiles=CreationLimit(players.profile_per_min, players.profile_burst),
                   renames=CreationLimit(RENAME_PER_MIN, RENAME_BURST),
                   queue_joins=CreationLimit(settings.queue_join_per_min, settings.queue_join_burst))


#: GET /tv/featured's answers kept per ruleset (None: any): (when, the answer), tv.py.
FeaturedCache = dict[str | None, tuple[float, dict]]


def install(app: Starlette, settings: Settings, hub: Hub) -> None:
    """Put on `app.state` what the routes read, but the quick play (started later)."""
    players = PlayerSettings.of(settings)
    app.state.settings = settings
    app.state.hub = hub
    app.state.player_settings = players
    app.state.keys = KeyCheck(settings.api_key, KeyGuard(settings.key_failures, settings.key_failure_window_s))
    app.state.budgets = Budgets.of(settings, players)
    app.state.replay_pages = ReplaySteps(settings.replay_cache_bytes)
    app.state.featured = FeaturedCache()


def settings(request: Request) -> Settings:
    return request.app.state.settings


def hub(request: Request) -> Hub:
    return request.app.state.hub


def quick_play(request: Request) -> QuickPlay:
    return request.app.state.quick_play


def tournaments(request: Request) -> Events:
    return request.app.state.tournaments


def player_settings(request: Request) -> PlayerSettings:
    return request.app.state.player_settings


def keys(request: Request) -> KeyCheck:
    return request.app.state.keys


def budgets(request: Request) -> Budgets:
    return request.app.state.budgets


def replay_pages(request: Request) -> ReplaySteps:
    return request.app.state.replay_pages


def featured(request: Request) -> FeaturedCache:
    return request.app.state.featured
