"""Display names (names.py): length, characters, normal form."""

from __future__ import annotations

import pytest

from battlehall.server.players.names import BadName, display_name


@pytest.mark.parametrize("name", ["Al", "ann_b-c.d", "Zoë Two", "Łukasz 7", "ナルト", "x" * 24, "игрок"])
def test_names_taken(name):
    assert display_name(name) == name


def test_names_are_nfc_normalised():
    assert display_name("Zoe\u0308") == "Zo\u00eb"


@pytest.mark.parametrize("name, why", [
    ("a", "2-24"), ("x" * 25, "2-24"), ("", "2-24"), (" ann", "space"), ("ann ", "space"), ("a  b", "two spaces"),
    ("ann\u0007", "U+0007"), ("ann\n", "U+000A"), ("a\u200db", "U+200D"), ("a\u202eb", "U+202E"),
    ("<b>x</b>", "U+003C"), ("ann\u00a0b", "U+00A0"), ("\u0301ab", "combining"), (7, "string"), (None, "string"),
    ("x" * 10_000, "2-24"), ("._-", "letter or a digit"), ("- -", "letter or a digit"),
])
def test_names_refused(name, why):
    with pytest.raises(BadName) as refused:
        display_name(name)
    assert why in refused.value.message
