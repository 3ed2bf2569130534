"""The rating quick play pairs a player by: the profile's rating in the ruleset, when the
join names a profile that has one, else `DEFAULT_RATING`.

The one place the queue asks for a rating, so that profiles with ratings per ruleset plug
in here alone.
"""

from __future__ import annotations

#: The rating of a player without a profile (or without a rating in the ruleset yet).
DEFAULT_RATING = 1500.0
#: Pairing's window, in this scale's points: how far apart two ratings may be at once,
#: and how much more for each second waited (pairing.py). Here with the scale they belong to.
BASE_WINDOW = 100.0
WIDEN_PER_S = 25.0


async def rating(redis, profile: str | None, ruleset: str) -> float:
    """The player's rating in `ruleset`; `DEFAULT_RATING` when unknown."""
    return DEFAULT_RATING
