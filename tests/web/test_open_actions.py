"""The player row's "Still open" list names only actions the rules accept now (rulebook 4, 6),
not a fixed list minus the actions taken."""

from __future__ import annotations

from builders import make_position
from companion import rules
from companion.edition import load_edition
from companion.table.session import ACTION_SLOTS, panels

ED = load_edition("default")
MOVE = {"spore": {"action": "spore_ability", "mode": "redraw", "discard": "P03"}}


def open_of(pos, color="blue"):
    players, _market = panels(pos, ED)
    return next(p["open_actions"] for p in players if p["color"] == color)


def test_after_a_purchase_only_purchases_stay_open():
    pos = make_position(taken=("place", "buy"), nutrients={"blue": {"pink": 2}})
    shown = open_of(pos)
    for refused in ("move", "remove", "spore", "give"):
        assert ACTION_SLOTS[refused] not in shown
    assert rules.check(pos, {"player": "blue", **MOVE["spore"]}, ED).reason == "purchase_ends_actions"


def test_the_spore_ability_is_open_only_before_any_action():
    fresh = make_position(nutrients={"blue": {"pink": 2}})
    assert ACTION_SLOTS["spore"] in open_of(fresh)
    assert ACTION_SLOTS["place"] in open_of(fresh)
    later = make_position(taken=("move", "place"), nutrients={"blue": {"pink": 2}})
    assert rules.check(later, {"player": "blue", **MOVE["spore"]}, ED).reason == "spore_not_at_start"
    assert ACTION_SLOTS["spore"] not in open_of(later)
    assert ACTION_SLOTS["place"] not in open_of(later) and ACTION_SLOTS["move"] not in open_of(later)


def test_every_action_shown_open_has_a_legal_move_and_others_show_none():
    pos = make_position(taken=("place",), nutrients={"blue": {"pink": 1}})
    shown = open_of(pos)
    # blue and orange share no network: no gift is legal (5.c)
    assert ACTION_SLOTS["give"] not in shown
    assert open_of(pos, "orange") == []
