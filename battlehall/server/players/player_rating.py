"""The rating quick play pairs a player by: the profile's skill estimate in the ruleset
(OpenSkill's `mu`, ratings.py), when the join names a profile that has one, else
`DEFAULT_RATING`, a new player's.

The one place the queue asks for a rating.
"""

from __future__ import annotations

from battlehall.server.players.profiles import Profiles, is_profile_id
from battlehall.server.storage.profiles import ProfileRecords

#: The rating of a player without a profile, or without a rating in the ruleset yet:
#: OpenSkill's starting `mu`.
DEFAULT_RATING = 25.0
#: Pairing's window, in `mu` points: how far apart two ratings may be at once, and how
#: much more for each second waited (pairing.py). A new player's uncertainty (sigma) is
#: about 8.3, so a window of 4 pairs players whose estimates are close for the model.
BASE_WINDOW = 4.0
WIDEN_PER_S = 1.0


async def rating(records: ProfileRecords, profile: str | None, ruleset: str) -> float:
    """The player's rating in `ruleset`; `DEFAULT_RATING` when unknown."""
    if profile is None or not is_profile_id(profile):
        return DEFAULT_RATING
    found = (await Profiles(records).ratings(profile)).get(ruleset)
    return float(found["mu"]) if found and "mu" in found else DEFAULT_RATING
