"""Display names of player profiles: what a name may hold, in one normal form.

A name is shown to everyone (leaderboard, player page, lobby), so it is checked on the
way in: NFC-normalised first (so that "é" typed two ways is one name), then 2-24
characters of letters and digits of any script, spaces inside, and `_ - .`. No control
or format characters (zero-width joiners, bidirectional overrides), no leading or
trailing space, no two spaces in a row, at least one letter or digit. Pages still show
names with `textContent` only.
"""

from __future__ import annotations

import unicodedata

MIN_LENGTH = 2
MAX_LENGTH = 24
PUNCTUATION = frozenset("_-.")
#: Unicode categories of the letters and digits a name may hold (combining marks
#: follow letters of many scripts, and NFC leaves some uncombined).
ALLOWED_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd"})


class BadName(ValueError):
    """A display name refused, with the reason for people."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def display_name(value: object) -> str:
    """The name in its normal form; BadName if it is not one."""
    if not isinstance(value, str):
        raise BadName("must be a string")
    if len(value) > 4 * MAX_LENGTH:  # before normalising: bounded work
        raise BadName(f"must be {MIN_LENGTH}-{MAX_LENGTH} characters")
    name = unicodedata.normalize("NFC", value)
    if not MIN_LENGTH <= len(name) <= MAX_LENGTH:
        raise BadName(f"must be {MIN_LENGTH}-{MAX_LENGTH} characters, not {len(name)}")
    if name != name.strip(" "):
        raise BadName("must not begin or end with a space")
    if "  " in name:
        raise BadName("must not hold two spaces in a row")
    for char in name:
        if char == " " or char in PUNCTUATION:
            continue
        if unicodedata.category(char) not in ALLOWED_CATEGORIES:
            raise BadName(f"may hold letters, digits, spaces and _ - . only, not U+{ord(char):04X}")
    if unicodedata.category(name[0]) in ("Mn", "Mc"):
        raise BadName("must not begin with a combining mark")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise BadName("must hold a letter or a digit")
    return name
