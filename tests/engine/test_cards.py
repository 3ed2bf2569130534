"""Card files: the shipped ones load; malformed ones fail loudly, naming file, line and card."""

from __future__ import annotations

import pytest

from battlehall.engine.errors import CardDataError
from battlehall.engine.spellfire.cards import FLAGS, HOOKS, TYPES, load_files, shipped


def test_shipped_cards_load():
    catalog = shipped()
    assert len(catalog.cards) >= 60
    assert [s["id"] for s in catalog.sets] == ["deepvault", "outcomes", "starter"]  # every cards/*.toml, sorted
    kinds = {c["type"] for c in catalog.cards.values()}
    assert kinds == set(TYPES)
    # every power and hook of the vocabulary is used by some shipped card
    used = {p for c in catalog.cards.values() for p in c["powers"]}
    assert used == set(FLAGS)
    assert {c["hook"] for c in catalog.cards.values()} - {None} == set(HOOKS)
    for c in catalog.cards.values():
        assert c["text"], c["id"]


def test_shipped_names_are_unique():
    names = [c["name"] for c in shipped().cards.values()]
    assert len(names) == len(set(names))


GOOD = '''\
[set]
id = "mini"
name = "Mini set"

[[card]]
id = "hill"
name = "Hill"
type = "realm"
world = "greyhawk"

# a comment between cards
[[card]]   # trailing comment
id = "brute"
name = "Brute"
type = "champion"
class = "monster"
level = 5
world = "greyhawk"
powers = ["flyer"]
'''


def write(tmp_path, text, name="set.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_small_file_loads(tmp_path):
    catalog = load_files([write(tmp_path, GOOD)])
    assert list(catalog.cards) == ["hill", "brute"]
    assert catalog.cards["brute"]["powers"] == ["flyer"]
    assert catalog.cards["hill"]["bonus"] == 0 and catalog.cards["hill"]["level"] is None


BROKEN = [
    # (what is appended to GOOD as a third card, the error message part)
    ('type = "dragon"\nid = "x"\nname = "X"', "type must be one of", "x"),
    ('id = "x"\nname = "X"\ntype = "champion"\nclass = "hero"\nworld = "greyhawk"', "missing field 'level'", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"', "missing field 'world'", "x"),
    ('id = "x"\ntype = "realm"\nworld = "greyhawk"', "missing field 'name'", "x"),
    ('id = "x"\nname = "X"\ntype = "ally"\nbonus = "two"', "bonus must be an integer", "x"),
    ('id = "x"\nname = "X"\ntype = "ally"\nbonus = 99', "bonus must be from -10 to 20", "x"),
    ('id = "x"\nname = "X"\ntype = "champion"\nclass = "bard"\nlevel = 3\nworld = "greyhawk"', "class must be one of", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "narnia"', "world must be one of", "x"),
    ('id = "hill"\nname = "X"\ntype = "realm"\nworld = "greyhawk"', "duplicate id", "hill"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\npowers = ["teleport"]', "unknown power 'teleport'", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\npowers = ["flyer"]', "does not apply to a realm", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\npowers = "coastal"', "must be a list", "x"),
    ('id = "x"\nname = "X"\ntype = "event"\nhook = "wish"', "unknown power: hook 'wish'", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\nhook = "mirror"', "does not apply to a realm", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\ncolour = "red"', "unknown field 'colour'", "x"),
    ('id = "x"\nname = "X"\ntype = "realm"\nworld = "greyhawk"\nlevel = 3', "does not apply to a realm", "x"),
    ('id = "Bad Id"\nname = "X"\ntype = "realm"\nworld = "greyhawk"', "id must be lowercase", "Bad Id"),
    ('id = "x"\nname = "X"\ntype = "spell"\nbonus = 2', "missing field 'spell_class'", "x"),
]


@pytest.mark.parametrize("body,message,card", BROKEN)
def test_malformed_card_names_file_line_card(tmp_path, body, message, card):
    header_line = GOOD.count("\n") + 2  # a blank line, then [[card]]
    path = write(tmp_path, GOOD + "\n[[card]]\n" + body + "\n")
    with pytest.raises(CardDataError) as e:
        load_files([path])
    assert e.value.file == path
    assert e.value.line == header_line
    assert e.value.card == card
    assert message in str(e.value)
    assert f"{path}:{header_line}" in str(e.value)


def test_line_of_the_first_card(tmp_path):
    path = write(tmp_path, GOOD.replace('world = "greyhawk"\n\n#', 'world = "mars"\n\n#'))
    with pytest.raises(CardDataError) as e:
        load_files([path])
    assert (e.value.line, e.value.card) == (5, "hill")


def test_duplicate_id_across_files(tmp_path):
    a = write(tmp_path, GOOD, "a.toml")
    b = write(tmp_path, '[[card]]\nid = "hill"\nname = "Other hill"\ntype = "realm"\nworld = "ravenloft"\n', "b.toml")
    with pytest.raises(CardDataError) as e:
        load_files([a, b])
    assert (e.value.file, e.value.line, e.value.card) == (b, 1, "hill")
    assert "duplicate id" in str(e.value) and f"{a}:5" in str(e.value)


def test_toml_syntax_error_has_a_line(tmp_path):
    path = write(tmp_path, GOOD + '\n[[card]]\nid = "x\n')
    with pytest.raises(CardDataError) as e:
        load_files([path])
    assert e.value.line == GOOD.count("\n") + 3 and "not valid TOML" in str(e.value)


def test_cards_must_be_card_tables(tmp_path):
    path = write(tmp_path, 'card = [{id = "x", name = "X", type = "realm", world = "greyhawk"}]\n')
    with pytest.raises(CardDataError, match=r"\[\[card\]\]"):
        load_files([path])


def test_unknown_top_level_key(tmp_path):
    with pytest.raises(CardDataError, match="unknown top-level key"):
        load_files([write(tmp_path, GOOD + '\n[[monster]]\nid = "x"\n')])


def test_deck_of_unknown_card(tmp_path):
    path = write(tmp_path, GOOD + '\n[[deck]]\nid = "d"\nname = "D"\ncards = ["hill", "brute", "ghost"]\n')
    with pytest.raises(CardDataError) as e:
        load_files([path])
    assert e.value.line == GOOD.count("\n") + 2 and e.value.card == "d" and "cards[2]: unknown card 'ghost'" in str(e.value)


def test_deck_shape(tmp_path):
    path = write(tmp_path, GOOD + '\n[[deck]]\nid = "d"\ncards = ["hill"]\n')
    with pytest.raises(CardDataError, match="a deck needs"):
        load_files([path])
