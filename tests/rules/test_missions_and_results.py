"""Cooperative missions at every difficulty, victory conditions and tie-breaks
(rulebook sections 7, 8 and 9)."""

import json
from collections import deque
from pathlib import Path

import pytest

from companion.economy import missions
from companion.edition import load_edition
from companion.hexgrid import Hex, direction_between
from companion.outcome import final_result
from companion.position import Position
from companion.rules import apply, check
from builders import make_position

ED = load_edition()


def green_network_through(trees: list[Hex]) -> dict[tuple, str]:
    """Green tiles joining every tree in ``trees`` (shortest paths around the trees), each tile's
    green path touching its neighbours on the route and any tree beside it."""
    edges: dict[Hex, set[int]] = {}
    blocked = set(trees) | ED.outermost

    def route(starts: list[Hex], b: Hex) -> list[Hex]:
        goals = {n for n in b.neighbors() if n in ED.spaces and n not in blocked}
        prev = {s: None for s in starts}
        q = deque(starts)
        while q:
            h = q.popleft()
            if h in goals:
                path = [h]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1]
            for n in h.neighbors():
                if n in ED.spaces and n not in blocked and n not in prev:
                    prev[n] = h
                    q.append(n)
        raise AssertionError("no route")

    # Each route starts where the previous one ended, so the whole forms one network.
    starts = [n for n in trees[0].neighbors() if n in ED.spaces and n not in blocked]
    first = True
    for b in trees[1:]:
        path = route(starts, b)
        if first:
            edges.setdefault(path[0], set()).add(direction_between(path[0], trees[0]))
            first = False
        for x, y in zip(path, path[1:]):
            edges.setdefault(x, set()).add(direction_between(x, y))
            edges.setdefault(y, set()).add(direction_between(y, x))
        edges.setdefault(path[-1], set()).add(direction_between(path[-1], b))
        starts = [path[-1]]
    return {tuple(h): "G" + "".join(map(str, sorted(es))) for h, es in edges.items()}


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_forest_communication_counts_trees_on_one_green_network(difficulty):
    trees = [at for _, at in ED.trees(difficulty)]
    tiles = green_network_through(trees)
    pos = make_position(mode="cooperative", difficulty=difficulty, trees=trees, tiles=tiles,
                        spores={"blue": (0, 4), "orange": (0, -4)})
    comm = {m.mission: m for m in missions(pos, ED)}["forest_communication"]
    assert comm.done and comm.detail == "trees joined by one green network 4 of 4 (trees A, B, C and D)"
    partial = make_position(mode="cooperative", difficulty=difficulty, trees=trees,
                            tiles=green_network_through(trees[:3]), spores={"blue": (0, 4), "orange": (0, -4)})
    comm = {m.mission: m for m in missions(partial, ED)}["forest_communication"]
    assert not comm.done and (comm.value, comm.target) == (3, 4)
    assert comm.detail == "trees joined by one green network 3 of 4 (trees A, B and C)"


def test_a_tree_alone_on_a_green_network_is_joined_to_no_other():
    # 7.c counts trees connected to one another by one green network: a green path facing
    # tree A joins it to nothing yet, so the Goals tab says 0 of 4, not 1 of 4, and the
    # engine's mission check agrees (the mission is done at 4 of 4 only).
    trees = [at for _, at in ED.trees("easy")]
    a = trees[0]
    spores = {"blue": (0, 4), "orange": (0, -4)}
    beside = a.neighbor(0)                  # its green path ends on edge 3, facing tree A
    assert beside.neighbor(0) not in trees
    lone = make_position(mode="cooperative", difficulty="easy", trees=trees, spores=spores,
                         tiles={tuple(beside): "G03"})
    comm = {m.mission: m for m in missions(lone, ED)}["forest_communication"]
    assert (comm.value, comm.target, comm.done) == (0, 4, False)
    assert comm.detail == ("trees joined by one green network 0 of 4 "
                           "(tree A touches a green network that joins no other tree yet)")
    two = make_position(mode="cooperative", difficulty="easy", trees=trees, spores=spores,
                        tiles=green_network_through(trees[:2]))
    comm = {m.mission: m for m in missions(two, ED)}["forest_communication"]
    assert (comm.value, comm.done) == (2, False) and comm.detail.endswith("(trees A and B)")


@pytest.mark.parametrize("difficulty,counts,done", [
    ("easy", [2, 3, 0, 0], True), ("easy", [2, 2, 1, 0], False),
    ("medium", [3, 3, 0, 0], True), ("medium", [4, 2, 2, 2], False),
    ("hard", [3, 4, 0, 0], True), ("hard", [3, 3, 3, 3], False),
])
def test_forest_symbiosis_patterns(difficulty, counts, done):
    # blue and orange markers in turn: no colour holds more than its 8 (Components)
    trees = {at: [("blue", "orange")[(i + k) % 2] for k in range(n)] + [None] * (4 - n)
             for i, ((_, at), n) in enumerate(zip(ED.trees(difficulty), counts))}
    pos = make_position(mode="cooperative", difficulty=difficulty, trees=trees)
    sym = {m.mission: m for m in missions(pos, ED)}["forest_symbiosis"]
    assert sym.done is done
    assert "tree A" in sym.detail and f"/4" in sym.detail


@pytest.mark.parametrize("difficulty,need", [("easy", 3), ("medium", 4), ("hard", 5)])
def test_funga_counts_mushroom_cards(difficulty, need):
    cards = ["a01", "a03", "a05", "a08", "a10"][: need - 1]
    pos = make_position(mode="cooperative", difficulty=difficulty, cards={"blue": cards})
    funga = {m.mission: m for m in missions(pos, ED)}["funga"]
    assert not funga.done and funga.detail == f"mushroom cards {need - 1} of {need}"
    pos = make_position(mode="cooperative", difficulty=difficulty, cards={"blue": cards, "orange": ["b01"]})
    assert {m.mission: m for m in missions(pos, ED)}["funga"].done


def test_forest_communication_reward_is_paid_once():
    trees = [at for _, at in ED.trees("easy")]
    tiles = green_network_through(trees)
    last = next(iter(tiles))
    code = tiles.pop(last)
    pos = make_position(mode="cooperative", difficulty="easy", trees=trees, tiles=tiles,
                        hands={"blue": [code], "orange": []}, meeples={"blue": next(iter(tiles)), "orange": (-4, 0)},
                        spores={"blue": (4, 0), "orange": (-4, 0)})
    out = apply(pos, {"player": "blue", "action": "place", "tile": code, "at": list(last), "rotation": 0})
    p = out.position
    assert "forest_communication" in p.missions
    assert p.nutrient_total("orange") == 2
    assert any("mission accomplished: Forest Communication" in n for n in out.notes)


FC_BEFORE = Path(__file__).parent.parent / "data" / "cases" / "fc_before.json"
FC_TILE = {"player": "red", "action": "place", "tile": "P1.G024", "at": [0, 0], "rotation": 3,
           "drop": {"blue": {"yellow": 1}}}


def test_forest_communication_choice_the_supply_cannot_meet_is_refused_naming_what_is_left():
    # Red (active) chooses first and takes 1 of the 2 yellow left; blue then asks for 2.
    pos = Position.from_json(json.loads(FC_BEFORE.read_text()))
    move = {**FC_TILE, "choose": {"blue": ["yellow", "yellow"], "red": ["yellow", "pink"]}}
    v = check(pos, move)
    assert not v.legal and v.reason == "supply_empty"
    assert "blue chose yellow" in v.message and "left: 5 pink and 6 white" in v.message, v.message


def test_forest_communication_players_choose_in_turn_order_from_what_is_left():
    pos = Position.from_json(json.loads(FC_BEFORE.read_text()))
    move = {**FC_TILE, "choose": {"blue": ["yellow", "yellow"], "red": ["pink", "pink"]}}
    assert check(pos, move).legal
    out = apply(pos, move)
    gains = [n for n in out.notes if "(Forest Communication)" in n]
    assert gains[:4] == ["red gains 1 pink (Forest Communication)"] * 2 + ["blue gains 1 yellow (Forest Communication)"] * 2
    assert out.position.nutrients["red"]["pink"] == 4
    # Orange, not named, is asked, and offered only the colours the supply still holds.
    assert out.choices == [{"player": "orange", "kind": "gain", "count": 2, "colors": ["pink", "white"],
                            "why": "Forest Communication"}]
    assert not any("supply" in n for n in out.notes)


def test_competitive_first_to_ten_points_wins_on_the_purchase():
    pos = make_position(tiles={(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}, cards={"blue": ["b03", "a02"]},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, nutrients={"blue": {"pink": 1, "yellow": 1}},
                        market={"a": ["a01"], "b": []}, taken=["place"])
    p = apply(pos, {"player": "blue", "action": "buy", "card": "a01"}).position
    assert p.result["winners"] == ["blue"] and "reached 10" in p.result["reason"]


@pytest.mark.parametrize("cards,nutrients,winners,why", [
    ({"blue": ["a02"], "orange": ["a01"]}, {}, ["blue"], "with 3 VP"),
    ({"blue": ["b02"], "orange": ["a01", "a03"]}, {}, ["orange"], "broken by cards"),
    ({"blue": ["a01"], "orange": ["a03"]}, {"orange": {"pink": 1}}, ["orange"], "broken by nutrients"),
    ({"blue": ["a01"], "orange": ["a03"]}, {}, ["blue", "orange"], "share the victory"),
])
def test_competitive_tie_breaks(cards, nutrients, winners, why):
    pos = make_position(cards=cards, nutrients=nutrients)
    res = final_result(pos, ED, "the last tile was drawn from the bag")
    assert res["winners"] == winners and why in res["reason"]


def test_team_score_and_tie_break_by_nutrients():
    teams = {"blue": "1", "orange": "2", "red": "1", "black": "2"}
    players = ("blue", "orange", "red", "black")
    spores = {"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)}
    pos = make_position(mode="team", players=players, teams=teams, spores=spores,
                        cards={"blue": ["a02"], "orange": ["a04"]}, nutrients={"black": {"white": 1}})
    res = final_result(pos, ED, "end")
    assert res["teams"] == ["2"] and set(res["winners"]) == {"orange", "black"}
    big = make_position(mode="team", players=players, teams=teams, spores=spores,
                        cards={"blue": ["b03", "b06", "b09"], "red": ["b12"]})
    from companion.outcome import early_result
    assert early_result(big, ED)["teams"] == ["1"]


def test_cooperative_loses_without_every_mission():
    pos = make_position(mode="cooperative", difficulty="easy", cards={"blue": ["b03", "b06", "b09"]},
                        missions=["funga"])
    res = final_result(pos, ED, "the last tile was drawn from the bag")
    assert res["winners"] == [] and "12 of 12" not in res["reason"]
    # the missions by the rulebook's names, as the Goals tab gives them
    assert "missions not accomplished: Forest Symbiosis, Forest Communication" in res["reason"], res["reason"]
    won = make_position(mode="cooperative", difficulty="easy", cards={"blue": ["b03", "b06", "b09"]},
                        missions=["funga", "forest_symbiosis", "forest_communication"])
    assert final_result(won, ED, "x")["winners"] == ["blue", "orange"]
