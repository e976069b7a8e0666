"""Refusals say what happened in the game's and JSON's words: a spore on another player's
spore has its own reason (3), a gift to oneself is not an unknown player (5.c), and a move
field of the wrong kind is named as JSON writes it (null, true, an object like {"pink": 1})."""

from __future__ import annotations

import pytest
from builders import make_position

from companion.moves import parse_move
from companion.position import PositionError
from companion.rules import check


def test_a_spore_on_another_players_spore_is_refused_as_such_not_as_mycelium():
    pos = make_position(spores={"blue": (4, 0), "orange": None}, active="orange")
    v = check(pos, {"player": "orange", "action": "spore", "at": [4, 0]})
    assert v.reason == "spore_on_spore"
    assert "mycelium" not in v.message and "blue's spore" in v.message


def test_a_gift_to_oneself_is_refused_as_such():
    pos = make_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1}})
    v = check(pos, {"player": "blue", "action": "give", "to": "blue", "nutrients": {"pink": 1}})
    assert v.reason == "give_to_self" and v.message == "You cannot give nutrients to yourself: name another player (5.c)."
    assert check(pos, {"player": "blue", "action": "give", "to": "red", "nutrients": {"pink": 1}}).reason == "unknown_player"


@pytest.mark.parametrize("move,words", [
    ({"player": "blue", "action": "give", "to": "orange", "nutrients": None},
     'nutrients: must be an object of nutrient colour counts like {"pink": 1}, got null'),
    ({"player": "blue", "action": "buy", "card": None}, 'card: must be a card id string like "a03", got null'),
    ({"player": "blue", "action": "buy", "card": True}, 'card: must be a card id string like "a03", got true'),
    ({"player": "blue", "action": "place", "tile": "P03", "at": [1, 0], "rotation": True},
     "rotation: must be a whole number, got true"),
    ({"player": "blue", "action": "remove", "at": [1, 0], "pay": {"pink": True}},
     "pay.pink: must be a whole number >= 0, got true"),
])
def test_a_field_of_the_wrong_kind_is_named_in_json_terms(move, words):
    with pytest.raises(PositionError) as e:
        parse_move(move)
    assert str(e.value).endswith(words), str(e.value)
