"""A rating as players read it: the Elo-like `display` of the conservative rating, and
whether it is still `provisional` (ratings.py settles the ratings; profiles.py reads them)."""

from __future__ import annotations

#: The number players read, `display`: the conservative rating (mu - 3 sigma) on the
#: Elo-like scale players know, 1500 + 20 x rating, never below 0. A function of `rating`
#: alone, so the leaderboard's order is the display's order and a first result moves it
#: by Elo-like steps (about +70 for a first win, -40 for a first loss, some 10 once the
#: server is sure of the player); it rises as the server grows sure of a player.
DISPLAY_BASE = 1500
DISPLAY_SCALE = 20
#: A player with fewer rated matches than this in the ruleset is provisional ("1500?"):
#: lichess marks a rating provisional while it is unsure; here, while few results count.
PROVISIONAL_MATCHES = 10


def display(rating: float) -> int:
    """The rating players read, from the conservative `rating` (mu - 3 sigma): never negative."""
    return max(0, round(DISPLAY_BASE + DISPLAY_SCALE * rating))


def readable(data: dict) -> dict:
    """A rating (`rating`, `matches`; a leaderboard row, a history entry) with its `display`
    and `provisional`; a recent match's `rating_before`/`rating_after` with their
    `display_before`/`display_after`. Also for what was stored before these fields."""
    if "rating" in data:
        data["display"] = display(data["rating"])
        data["provisional"] = data.get("matches", 0) < PROVISIONAL_MATCHES
    if "before" in data:
        data["display_before"] = display(data["before"])
    if "rating_before" in data:
        data["display_before"] = display(data["rating_before"])
    if "rating_after" in data:
        data["display_after"] = display(data["rating_after"])
    return data
