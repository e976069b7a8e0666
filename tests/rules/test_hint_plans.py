"""The card plans of ``hint`` (and the dashboard's "What can I do?"): each payer's cubes are
planned from that payer's own networks, and no two payers are sent to the same substrate,
since one degradation gives its cubes to the player who lays the tile and the token is then
replaced at random (rulebook 5.a)."""

from __future__ import annotations

import re

import pytest

from builders import make_position
from companion.edition import load_edition
from companion.hints import card_plans

ED = load_edition()
TREES = [h for _, h in ED.trees("easy")]
SOIL = {(0, -3): "soil", (0, 3): "soil"}


def team_position(wood: dict, nutrients: dict | None = None, cards: dict | None = None):
    """Blue and black play together (cooperative, 6.b.2: both pay a01 and a04 one pink cube),
    blue's spore on the east rim, black's on the west one, nobody holding a cube."""
    return make_position(players=("blue", "black"), mode="cooperative", difficulty="easy", trees=TREES,
                         substrates={**wood, **SOIL}, spores={"blue": (4, 0), "black": (-4, 0)},
                         market={"a": ["a01"], "b": []}, nutrients=nutrients, cards=cards)


def steps_of(pos, player="blue"):
    (plan,) = card_plans(pos, ED, player)
    return plan.steps


def where(steps, who):
    """The substrate labels and distances a payer's pink step names."""
    (step,) = [s for s in steps if s.startswith(f"{who}: ") and "pink" in s]
    found = re.findall(r"wood substrate at (\w+) \((?:(\d+) tile\(s\) for (\w+) to grow first|in reach of (\w+?)(?:'s)? network now)\)", step)
    return [(at, n or "0", who or {"your": "you"}.get(now, now)) for at, n, who, now in found]


def test_each_payer_is_sent_to_the_substrate_near_their_own_network():
    east, west = (3, -1), (-3, 1)
    steps = steps_of(team_position({east: "wood", west: "wood"}))
    # blue's cube from the substrate beside blue's spore, black's from the one beside black's,
    # and black's distance counted from black's network (1), not from blue's (6)
    assert where(steps, "you") == [(ED.label(east), "1", "you")]
    assert where(steps, "black") == [(ED.label(west), "1", "black")]


def test_two_payers_never_count_on_the_same_substrate():
    near, far = (3, -1), (2, 1)       # both wood tokens on blue's side of the board
    steps = steps_of(team_position({near: "wood", far: "wood"}))
    mine, theirs = where(steps, "you"), where(steps, "black")
    assert len(mine) == len(theirs) == 1
    assert mine[0][0] != theirs[0][0], steps


@pytest.mark.parametrize("bonus", [0, 1])
def test_three_cubes_take_two_degradations_unless_a_bonus_card_gives_three(bonus, monkeypatch):
    from companion import purchase
    real = purchase.can_buy

    def short_three(pos, ed, player, card_id):
        a = real(pos, ed, player, card_id)
        a.missing_nutrients = {"blue": {"pink": 3}}
        return a

    monkeypatch.setattr("companion.hints.can_buy", short_three)
    cards = {"blue": ["a04"]} if bonus else None   # a04: wood degradation bonus, 3 cubes a degradation
    steps = steps_of(team_position({(3, -1): "wood", (-3, 1): "wood"}, cards=cards))
    (step,) = [s for s in steps if s.startswith("you: ")]
    if bonus:
        assert step.count("degrade the wood substrate") == 1, step
    else:
        assert step.count("degrade the wood substrate") == 2, step


def test_a_colour_no_substrate_gives_now_is_planned_from_a_free_tree_circle():
    # 5.b: a mycorrhiza gives "1 Nutrient of the color of your choice", so a pink cube with no
    # wood substrate on the board comes from a tree, not from waiting for a wood token
    steps = steps_of(team_position({}))
    (mine,) = [s for s in steps if s.startswith("you: ") and "pink" in s]
    assert "form a mycorrhiza with tree" in mine and "a cube of your choice" in mine
    assert "wait for" not in mine


def test_a_substrate_and_a_tree_the_next_tile_reaches_are_both_said_to_be_reachable_now():
    # the tile that degrades a substrate lies on it (5.a), the one that forms a mycorrhiza beside
    # the tree (5.b): one count, the tiles to grow first, for both, not "0 spaces" for one and
    # "1 space away" for the other
    steps = steps_of(team_position({(4, -1): "wood"}))   # the wood token beside blue's spore
    (mine,) = [s for s in steps if s.startswith("you: ")]
    assert "degrade the wood substrate" in mine and "(in reach of your network now)" in mine, mine
    steps = steps_of(team_position({}))                 # tree A two spaces from black's spore
    (theirs,) = [s for s in steps if s.startswith("black: ")]
    assert f"tree A ({ED.label(TREES[0])})" in theirs and "in reach of black's network now" in theirs, theirs
    (mine,) = [s for s in steps if s.startswith("you: ")]   # tree D three spaces from blue's
    assert "1 tile(s) for you to grow first" in mine, mine
