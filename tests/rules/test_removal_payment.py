"""Who chooses the cubes a removal costs (4.c: Mycophages "any 1 nutrient", Lichens "any 2
nutrients"), and a ``choose`` naming more colours than the player gains (5.b, 7.c)."""

import pytest

from companion.rules import IllegalMove, apply, check, choices_needed
from builders import make_position


def removal(at, pay=None):
    return {"player": "blue", "action": "remove", "at": list(at), **({"pay": pay} if pay is not None else {})}


def beside_blue(nutrients):
    """Blue's meeple on its spore (4, 0), a tile at E8 (3, 0) and a rock at D8 (4, -1) beside it."""
    return make_position(tiles={(3, 0): "P03"}, rocks=[(4, -1)], nutrients={"blue": nutrients})


def test_a_removal_without_pay_asks_which_cubes_when_there_is_a_choice():
    pos = beside_blue({"pink": 1, "yellow": 2})
    out = apply(pos, removal((3, 0)))
    assert out.choices == [{"player": "blue", "kind": "pay", "count": 1, "colors": ["pink", "yellow"],
                            "why": "Mycophages: the tile at E8 (4.c)"}]
    # meanwhile the default reading: the largest stack
    assert out.position.nutrients["blue"] == {"pink": 1, "yellow": 1, "white": 0}
    lichens = choices_needed(pos, removal((4, -1)))
    assert lichens == [{"player": "blue", "kind": "pay", "count": 2, "colors": ["pink", "yellow"],
                        "why": "Lichens: the rock at D8 (4.c)"}]


def test_a_forced_payment_is_not_asked():
    assert choices_needed(beside_blue({"yellow": 3}), removal((3, 0))) == []          # one colour held
    assert choices_needed(beside_blue({"pink": 1}), removal((3, 0))) == []            # exactly the cost
    assert choices_needed(beside_blue({"pink": 1, "white": 1}), removal((4, -1))) == []   # Lichens, two colours
    # one cube more than the cost of Lichens, two colours: a choice again
    assert choices_needed(beside_blue({"pink": 1, "white": 2}), removal((4, -1)))[0]["colors"] == ["pink", "white"]


def test_a_named_payment_is_not_asked_and_is_taken():
    pos = beside_blue({"pink": 1, "yellow": 2, "white": 1})
    out = apply(pos, removal((4, -1), {"pink": 1, "white": 1}))
    assert out.choices == []
    assert out.position.nutrients["blue"] == {"pink": 0, "yellow": 2, "white": 0}


def test_a_choose_naming_more_colours_than_the_player_gains_is_refused():
    # P03.G2 at E8: its pink path joins blue's spore, its green path faces the tree at D7 (3, -1):
    # one mycorrhiza, one cube of blue's choice (5.b)
    pos = make_position(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []})
    move = {"player": "blue", "action": "place", "tile": "P03.G2", "at": [3, 0], "rotation": 0}
    assert check(pos, {**move, "choose": ["white"]}).legal
    long = {**move, "choose": ["white", "pink", "yellow"]}
    verdict = check(pos, long)
    assert verdict.reason == "too_many_colors"
    assert verdict.message == "blue gains 1 cube of their choice here but the move names 3 colours"
    with pytest.raises(IllegalMove):
        apply(pos, long)
    other = {**move, "choose": {"blue": ["white"], "orange": ["pink"]}}
    assert check(pos, other).message == "orange gains 0 cubes of their choice here but the move names 1 colour"
