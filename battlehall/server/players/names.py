"""Display names of player profiles: what a name may hold, in one normal form.

A name is shown to everyone (leaderboard, player page, lobby), so it is checked on the
way in: NFC-normalised first (so that "é" typed two ways is one name), then 2-24
characters of letters and digits of any script, spaces inside, and `_ - .`. No control
or format characters (zero-width joiners, bidirectional overrides), no leading or
trailing space, no two spaces in a row, at least one letter or digit. Nothing that shows
nothing: no default-ignorable code point (ICU's Default_Ignorable_Code_Point: the
combining grapheme joiner, variation selectors, the Khmer inherent vowels U+17B4/17B5,
the Hangul fillers), which are letters or marks by category and would otherwise make a
name look like another or blank. Pages still show names with `textContent` only.

Two players may have names that look alike ("Alice" and a Cyrillic "Аlice"); names are
compared by their UTS #39 confusable skeleton (`skeleton`, ICU's, the reference
implementation of the standard, kept current by the Unicode Consortium), and every
name is shown with its profile's tag (profiles.py) so that two of them can be told apart.
"""

from __future__ import annotations

import unicodedata

import icu

MIN_LENGTH = 2
MAX_LENGTH = 24
PUNCTUATION = frozenset("_-.")
#: Unicode categories of the letters and digits a name may hold (combining marks
#: follow letters of many scripts, and NFC leaves some uncombined).
ALLOWED_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd"})
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
#: One checker for the process: building one loads ICU's confusables data.
_SPOOF = icu.SpoofChecker()


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
        if icu.Char.hasBinaryProperty(char, _IGNORABLE):  # before the category: many are Mn or Lo
            raise BadName(f"must not hold characters that show nothing, like U+{ord(char):04X}")
        if unicodedata.category(char) not in ALLOWED_CATEGORIES:
            raise BadName(f"may hold letters, digits, spaces and _ - . only, not U+{ord(char):04X}")
    if unicodedata.category(name[0]) in ("Mn", "Mc"):
        raise BadName("must not begin with a combining mark")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise BadName("must hold a letter or a digit")
    return name


def skeleton(name: str) -> str:
    """The UTS #39 confusable skeleton of a valid name: two names that look alike (the same
    letters in another script, "I" for "l", "rn" for "m") have the same one. Not for display."""
    return _SPOOF.getSkeleton(0, name)
