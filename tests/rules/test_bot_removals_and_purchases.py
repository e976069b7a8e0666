"""The greedy bot removes a rock or a tile when the placement it opens pays for the cubes
(rulebook 4.c: Mycophages, a mycelium tile next to the meeple for any 1 nutrient; Lichens, a
rock for any 2), names cubes its target card does not need as the payment, and plays a
placement that lets it buy a card this turn (6) rather than putting a rock down.

The positions are in ``tests/data/cases/bots/`` (README there)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion import economy
from companion.bots import GreedyBot
from companion.edition import load_edition
from companion.position import Position
from companion.rules import apply, check

ED = load_edition()
CASES = Path(__file__).resolve().parents[1] / "data" / "cases" / "bots"


def case(name: str, **changes) -> Position:
    """The position of ``name``, with top-level fields replaced by ``changes``."""
    doc = json.loads((CASES / name).read_text())
    doc.update(changes)
    return Position.from_json(doc)


def first_action(pos: Position) -> dict:
    mv = GreedyBot(random.Random(1)).next_action(pos, ED)
    assert check(pos, mv, ED).legal, mv
    return mv


def a01_cost(pos: Position) -> dict[str, int]:
    return economy.nutrient_costs(pos, ED, ED.cards["a01"], "blue")["blue"]


def test_a_rock_blocking_the_only_way_to_the_substrate_is_removed_with_cubes_the_card_does_not_need():
    # Blue's pink network ((3, 0) and the spore) faces a rock at (2, 0) with the wood substrate
    # beyond it; a01 takes 2 pink tiles and costs pink + yellow (6.b.1).  Blue holds 2 yellow
    # and 1 white: the removal pays 1 yellow and the white, keeping the yellow a01 needs
    # (the default payment, largest stacks first, would take both yellow).
    pos = case("rock_before_wood.json")
    mv = first_action(pos)
    assert mv["action"] == "remove" and mv["at"] == [2, 0]
    assert mv["pay"] == {"yellow": 1, "white": 1}
    after = apply(pos, mv, ED).position
    assert economy.shortfall(after.nutrients["blue"], a01_cost(pos)) == economy.shortfall(pos.nutrients["blue"], a01_cost(pos))
    nxt = GreedyBot(random.Random(1)).next_action(after, ED)
    assert nxt["action"] == "place" and nxt["at"] == [2, 0]   # the placement the removal opened


def test_a_removal_that_does_not_pay_off_is_not_made():
    # The same rock when the card on offer is a02 (3 yellow tiles): the pink space behind it
    # is worth less than the two cubes, so blue grows from its spore and keeps them.
    pos = case("rock_before_wood.json", market={"a": ["a02"], "b": []})
    mv = first_action(pos)
    assert mv["action"] == "place" and mv["at"] != [2, 0]
    # ...while with a01 the space behind the rock completes the card's network: removed.
    assert first_action(case("rock_before_wood.json"))["action"] == "remove"


def test_an_opponents_tile_in_the_way_of_the_cards_last_tile_is_removed_for_one_spare_cube():
    # Orange's yellow tile at (2, 0) stands where blue's pink network would take a01's second
    # tile; Mycophages cost any 1 nutrient, and blue pays with a cube a01 does not need.
    pos = case("opponent_tile_in_the_way.json")
    mv = first_action(pos)
    assert mv["action"] == "remove" and mv["at"] == [2, 0] and sum(mv["pay"].values()) == 1
    after = apply(pos, mv, ED).position
    assert economy.shortfall(after.nutrients["blue"], a01_cost(pos)) == economy.shortfall(pos.nutrients["blue"], a01_cost(pos))


def test_a_placement_that_buys_a_card_this_turn_beats_a_rock():
    # Two rocks and one tile in hand (4.a.3: rocks cannot be discarded), yet the pink tile
    # at (2, 0) completes a01's network while blue holds its pink and yellow: it is placed,
    # and a01 is bought in the same turn.
    pos = case("two_rocks_and_a_buying_tile.json")
    bot = GreedyBot(random.Random(1))
    mv = bot.next_action(pos, ED)
    assert mv["action"] == "place" and mv["at"] == [2, 0]
    after = apply(pos, bot.choose(pos, ED, mv), ED).position
    buy = bot.next_action(after, ED)
    assert buy["action"] == "buy" and buy["card"] == "a01" and check(after, buy, ED).legal


def test_cooperative_bots_remove_a_tile_across_the_forest_communication_plan_when_a_hand_can_lay_it_again():
    # Easy trees (7.c).  A pink tile at (-1, 0) stands where the shortest green network joining
    # the four trees (4 tiles) lays an arm, so the team's blueprint goes round it (9 tiles).
    # Blue's meeple is next to it and blue holds the arm tile: blue removes it (4.c,
    # Mycophages) and pays with the yellow a01, the team's card, does not ask of blue (6.b.2).
    pos = case("coop_tile_across_the_plan.json")
    mv = first_action(pos)
    assert mv["action"] == "remove" and mv["at"] == [-1, 0] and mv["pay"] == {"yellow": 1}
    # With no hand holding a tile that fits there, the tile stays.
    doc = json.loads((CASES / "coop_tile_across_the_plan.json").read_text())
    doc["hands"]["blue"] = ["Y03", "P03", "P024.Y1"]
    assert first_action(Position.from_json(doc))["action"] != "remove"
