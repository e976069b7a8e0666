"""The Forest Communication blueprint (rulebook 7.c) and the cooperative bots that follow it."""

from __future__ import annotations

from collections import Counter

import pytest

from companion import forest_plan
from companion import tiles as tilecodes
from companion.economy import trees_on_one_green_network
from companion.edition import load_edition
from companion.game import Game
from companion.hexgrid import Hex
from companion.networks import MyceliumGraph
from companion.selfplay import BotTable
from tests.builders import SIX_TILE_TREES, make_position

ED = load_edition()


def _empty(difficulty: str, **kw):
    trees = {at: [None] * 4 for _tid, at in ED.trees(difficulty)}
    return make_position(trees=trees, mode="cooperative", difficulty=difficulty, **kw)


def _empty_six_tile(**kw):
    """An empty cooperative board with the trees on :data:`SIX_TILE_TREES` (a 6-tile network)."""
    return make_position(trees={at: [None] * 4 for at in SIX_TILE_TREES}, mode="cooperative", difficulty="easy", **kw)


def _lay(pos, bp):
    """Put a tile carrying exactly the blueprint's green path on each space still empty."""
    out = pos.copy()
    for h in bp.todo(pos):
        out.tiles[h] = "G" + "".join(str(e) for e in sorted(bp.spaces[h]))
    out.cache.clear()
    return out


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_blueprint_joins_all_four_trees_with_shapes_the_bag_holds(difficulty):
    pos = _empty(difficulty)
    sh = forest_plan.shapes(ED.bag_composition(2))
    bp = forest_plan.plan(pos, ED)
    assert bp is not None
    done = _lay(pos, bp)
    assert trees_on_one_green_network(done, MyceliumGraph(done)) == (4, 4)
    # Two three-way paths (a network of two-ended paths is a line), every other tile a
    # straight or sharp-turn path, as the placeholder bag offers.
    assert sorted(len(e) for e in bp.spaces.values())[-3:] == [2, 3, 3]
    for h, edges in bp.spaces.items():
        assert h not in pos.trees and h in ED.spaces
        if len(edges) == 3:
            assert edges in sh.branches
        else:
            a, b = sorted(edges)
            assert (b - a) in (1, 3, 5)   # neighbouring edges or opposite ones, never a wide turn
    assert bp.cost == len(bp.spaces)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_placeholder_cards_ask_more_tiles_the_harder_the_difficulty(players):
    # 7.c: "The difficulty is determined by the location of the Trees", so the placeholder
    # cards place the trees farther apart the harder the card: the smallest green network
    # joining all four, on an empty board with this player count's bag, takes 4 tiles on
    # easy, 5 on medium and 9 on hard.
    colors = ("blue", "orange", "red", "black")[:players]
    cost = {}
    for difficulty in ("easy", "medium", "hard"):
        pos = _empty(difficulty, players=colors, spores={c: None for c in colors}, meeples={c: None for c in colors})
        cost[difficulty] = forest_plan.plan(pos, ED).cost
    assert cost == {"easy": 4, "medium": 5, "hard": 9}


@pytest.mark.parametrize("difficulty", ["easy", "medium"])
def test_every_space_of_the_plan_can_be_laid_from_outside_it(difficulty):
    # 4.a.1: a planned tile is laid from a network facing one of its sides in a colour the
    # tile carries there (forest_plan.joins).  On the placeholder easy and medium cards every
    # planned space has such a side facing neither a tree nor another planned space, so the
    # team can start the network anywhere on it; a space whose every joinable side faces a tree
    # or the plan can only be laid after its neighbours on the plan.
    pos = _empty(difficulty)
    bp = forest_plan.plan(pos, ED)
    for h, want in bp.spaces.items():
        ways = forest_plan.joins(ED, len(pos.colors), want)
        outside = [e for e in range(6) if ways[e] and h.neighbor(e) in ED.spaces
                   and h.neighbor(e) not in pos.trees and h.neighbor(e) not in bp.spaces]
        assert outside, f"{h} can only be laid from the plan"


def test_no_smaller_network_exists_on_the_easy_layout():
    # Exhaustive check of the lower bound: dropping any tile of the blueprint leaves at most
    # three trees on one network, and the planner asks for no tile it does not need.
    pos = _empty("easy")
    bp = forest_plan.plan(pos, ED)
    done = _lay(pos, bp)
    for h in bp.spaces:
        less = done.copy()
        del less.tiles[h]
        assert trees_on_one_green_network(less, MyceliumGraph(less))[0] < 4


def test_a_placed_tile_that_fits_is_used_and_a_rock_forces_a_way_around():
    pos = _empty("easy")
    bp = forest_plan.plan(pos, ED)
    arm = next(h for h in bp.spaces if h not in bp.branches)
    with_tile = pos.copy()
    with_tile.tiles[arm] = "P" + "".join(str(e) for e in range(6) if e not in bp.spaces[arm])[:1] + "." + \
        "G" + "".join(str(e) for e in sorted(bp.spaces[arm]))
    again = forest_plan.plan(with_tile, ED)
    assert again.cost == bp.cost - 1 and arm in again.spaces

    blocked = pos.copy()
    blocked.rocks.add(arm)
    assert bp.broken(blocked)
    around = forest_plan.plan(blocked, ED)
    assert around is not None and arm not in around.spaces
    done = _lay(blocked, around)
    assert trees_on_one_green_network(done, MyceliumGraph(done))[0] == 4


def test_without_two_three_way_tiles_left_there_is_no_plan():
    # 2-player bag: two G024 tiles; once one is out of the game (discarded) 7.c cannot be met.
    pos = _empty("easy", hands={"blue": [], "orange": []})
    pos.discard = ["P1.G024"]
    pos.bag_tiles = None
    assert forest_plan.plan(pos, ED) is None


def _shape_for(edges) -> str:
    """A placeholder tile type carrying a green path of this shape (any rotation)."""
    edges = sorted(edges)
    if len(edges) == 3:
        return "G024.P1"
    return "P03.Y12.G45" if (edges[1] - edges[0]) in (1, 5) else "G03.P12.Y45"


def _mid_game(missing_count: int):
    """The 6-tile blueprint of :data:`SIX_TILE_TREES` laid but for ``missing_count`` spaces (a
    three-way one among them), on real tiles; both meeples stand on it and the two hands hold
    the missing shapes beside tiles that could degrade the wood substrates around instead."""
    pos = _empty_six_tile(hands={"blue": [], "orange": []})
    bp = forest_plan.plan(pos, ED)
    start = _lay(pos, bp)
    for h in start.tiles:
        g = sorted(bp.spaces[h])
        free = [e for e in range(6) if e not in g]
        start.tiles[h] = "P" + str(free[0]) + ".G" + "".join(map(str, g))
    branch = sorted(bp.branches)[0]
    arms = sorted((h for h in bp.spaces if h not in bp.branches), key=lambda h: -sum(n in bp.spaces for n in h.neighbors()))
    missing = [branch] + [h for h in arms if h != branch][: missing_count - 1]
    for h in missing:
        del start.tiles[h]
    shapes = [_shape_for(bp.spaces[h]) for h in missing]
    on = next(h for h in bp.spaces if h in start.tiles and any(n in missing for n in h.neighbors()))
    other = next(h for h in sorted(bp.spaces) if h in start.tiles and h != on)
    start.meeples = {"blue": on, "orange": other}
    start.hands = {"blue": shapes[:2] + ["P03.Y1.G4"], "orange": (shapes[2:] + ["P0.Y4.G2", "P0.Y2.G4", "P03.G2"])[:3]}
    start.substrates = {h: "wood" for h in (Hex(-2, 1), Hex(3, -2), Hex(-1, -1)) if h not in start.tiles}
    start.bag_tiles = Counter({tilecodes.canonical("P03.G2"): 10})
    start.bag = 10
    start.cache.clear()
    return start, bp


def test_cooperative_bots_complete_forest_communication_from_a_mid_game_position():
    # The 6-tile blueprint with one three-way tile and two arm tiles still to lay, the missing
    # shapes in the players' hands beside tiles that would earn cubes elsewhere: within six
    # turns the team connects all four trees (7.c) and gets the reward.
    start, _bp = _mid_game(3)
    assert trees_on_one_green_network(start, MyceliumGraph(start))[0] < 4
    table = BotTable.from_game(Game(start, edition=ED), seed=3, check_invariants=False, bot="greedy")
    for _ in range(6):
        if "forest_communication" in table.position.missions or table.position.result:
            break
        table.play_turn()
    assert "forest_communication" in table.position.missions


def test_a_planned_three_way_space_is_joined_only_by_its_green_ends_or_pink_between_them():
    # 4.a.1: a tile joins a network by a mycelium of the same colour on the facing edge.  The
    # 2-player bag's only three-way green tile is P1.G024, so a network facing a planned
    # {0, 2, 4} space by a yellow end, or by green on edge 1, cannot lay it.
    got = forest_plan.joins(ED, 2, frozenset({0, 2, 4}))
    assert got == {0: {"green"}, 1: {"pink"}, 2: {"green"}, 3: {"pink"}, 4: {"green"}, 5: {"pink"}}
    arm = forest_plan.joins(ED, 2, frozenset({4, 5}))
    assert arm[4] == arm[5] == {"green"} and all(arm[e] == {"pink", "yellow"} for e in range(4))


def test_the_plan_bends_toward_a_space_a_team_network_can_join():
    # A network facing a space by a colour its planned tile carries there makes that space
    # cheaper (REACH_DISCOUNT): among the spaces next to the trees of a 6-tile network, some lie
    # on another smallest network, and facing one of them turns the plan through it; the
    # discount is only ever given where the facing end can join the planned tile.
    pos = _empty_six_tile()
    base = forest_plan.plan(pos, ED)
    bent = 0
    for h in sorted(ED.spaces):
        if h in base.spaces or h in pos.trees or not any(n in pos.trees for n in h.neighbors()):
            continue
        reach = {h: {(e, c) for e in range(6) for c in ("pink", "yellow")}}
        bp = forest_plan.plan(pos, ED, reach=reach)
        assert bp.cost <= base.cost
        if h in bp.spaces:
            assert bp.costs[h] == pytest.approx(1 - forest_plan.REACH_DISCOUNT)
            assert bp.cost == pytest.approx(base.cost - forest_plan.REACH_DISCOUNT)
            done = _lay(pos, bp)
            assert trees_on_one_green_network(done, MyceliumGraph(done))[0] == 4
            bent += 1
    assert bent >= 2
    # Facing a three-way space only by yellow never discounts it (P1.G024 carries no yellow).
    for h in base.branches:
        bp = forest_plan.plan(pos, ED, reach={h: {(e, "yellow") for e in range(6)}})
        assert all(c >= 1 for x, c in bp.costs.items() if x in bp.branches)


def test_a_soil_substrate_never_holds_a_planned_three_way_tile():
    # 5.a (table rule substrate_requires_matching_color, default on): a tile on a soil
    # substrate must join from a yellow network, and the 2-player bag's three-way green tile
    # (P1.G024) carries no yellow.  A substrate drawn onto a planned three-way space breaks
    # the plan, and the new plan puts its three-way tiles elsewhere.
    pos = _empty("easy")
    bp = forest_plan.plan(pos, ED)
    branch = sorted(bp.branches)[0]
    soil = pos.copy()
    soil.substrates[branch] = "soil"
    soil.cache.clear()
    assert bp.broken(soil, ED) and not bp.broken(soil)
    again = forest_plan.plan(soil, ED)
    assert again is not None and branch not in again.branches
    done = _lay(soil, again)
    assert trees_on_one_green_network(done, MyceliumGraph(done))[0] == 4
    # Table rule off: the substrate is no obstacle.
    free = soil.copy()
    free.options["substrate_requires_matching_color"] = False
    free.cache.clear()
    assert not bp.broken(free, ED)
