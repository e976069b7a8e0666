"""The simulated players' choices: exactly the cubes each player gains "of their choice"
(5.b, 7.c), in turn order from what the supply holds, and which cubes pay a removal (4.c)."""

import json
import random
from pathlib import Path

from companion.bots import GreedyBot
from companion.edition import load_edition
from companion.position import Position
from companion.rules import apply, check, choices_needed
from builders import make_position

ED = load_edition()
FC_BEFORE = Path(__file__).parent.parent / "data" / "cases" / "fc_before.json"
FC_TILE = {"player": "red", "action": "place", "tile": "P1.G024", "at": [0, 0], "rotation": 3}


def asked_per_player(pos, move):
    counts: dict[str, int] = {}
    for a in choices_needed(pos, move, ED):
        if a["kind"] == "gain":
            counts[a["player"]] = counts.get(a["player"], 0) + a["count"]
    return counts


def test_one_mycorrhiza_names_one_colour():
    # 5.b: P03.G2 at E8 forms one mycorrhiza with the tree at D7: one cube of blue's choice
    pos = make_position(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    move = {"player": "blue", "action": "place", "tile": "P03.G2", "at": [3, 0], "rotation": 0}
    filled = GreedyBot(random.Random(1)).choose(pos, ED, move)
    assert filled["choose"] == {"blue": [filled["choose"]["blue"][0]]}
    assert check(pos, filled, ED).legal


def test_forest_communication_names_each_players_count_from_what_the_supply_holds():
    # 7.c: red (active) chooses first; the supply holds 2 yellow cubes, so a later player who
    # wants yellow takes what is left instead, still exactly the cubes asked
    pos = Position.from_json(json.loads(FC_BEFORE.read_text()))
    filled = GreedyBot(random.Random(1)).choose(pos, ED, dict(FC_TILE))
    assert {who: len(cs) for who, cs in filled["choose"].items()} == asked_per_player(pos, FC_TILE)
    out = apply(pos, filled, ED)
    assert [a for a in out.choices if a["kind"] == "gain"] == []


def test_a_removal_is_paid_with_the_cubes_the_target_needs_least():
    # a01 costs blue 1 pink and 1 yellow: of 1 pink, 1 yellow and 2 white, Lichens take 2 white
    pos = make_position(rocks=[(4, -1)], nutrients={"blue": {"pink": 1, "yellow": 1, "white": 2}},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    move = {"player": "blue", "action": "remove", "at": [4, -1]}
    filled = GreedyBot(random.Random(1)).choose(pos, ED, move)
    assert filled["pay"] == {"white": 2}
    assert choices_needed(pos, filled, ED) == []
