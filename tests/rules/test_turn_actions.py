"""One test per rule of rulebook section 4 (placement, rocks, discard, flow, removal, spore
ability, drawing), each asserting the reason code a player would see."""

import json
from pathlib import Path

import pytest

from companion.rules import IllegalMove, apply, check
from builders import make_position

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "positions"


def reason(pos, move):
    v = check(pos, move)
    assert v.message, "every verdict carries a sentence for the player"
    return v.reason


def place(tile, at, rotation=0, player="blue"):
    return {"player": player, "action": "place", "tile": tile, "at": list(at), "rotation": rotation}


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_worked_examples_agree(path):
    from companion.position import Position
    case = json.loads(path.read_text())
    v = check(Position.from_json(case["position"]), case["move"])
    assert v.legal == case["expect"]["legal"]
    if not v.legal:
        assert v.reason in case["expect"]["reason_any"]


# --- 4.a.1 mycelium growth ---------------------------------------------------------------

def test_growth_from_own_spore_by_any_colour():
    pos = make_position()
    assert reason(pos, place("Y03", (3, 0))) is None          # yellow edge 0 faces the spore
    assert reason(pos, place("Y03", (3, 0), rotation=1)) == "not_connected"  # bare edge faces it


def test_not_your_turn_and_action_taken_once():
    pos = make_position()
    assert reason(pos, place("P03", (-3, 0), player="orange")) == "not_your_turn"
    after = apply(pos, place("P03", (3, 0))).position
    assert reason(after, place("Y03", (2, 0))) == "action_already_taken"
    assert reason(after, {"player": "blue", "action": "discard", "tile": "Y03"}) == "action_already_taken"


def test_tile_must_be_in_hand_in_any_rotation_name():
    pos = make_position()
    assert reason(pos, place("G03", (3, 0))) == "tile_not_in_hand"
    # P14 is the same tile type as P03, named by another rotation: accepted.
    assert reason(pos, place("P14", (3, 0), rotation=5)) is None


@pytest.mark.parametrize("kw,at,code", [
    ({"tiles": {(3, 0): "P03"}}, (3, 0), "space_occupied"),
    ({"trees": [(3, 0)]}, (3, 0), "on_tree"),
    ({}, (-4, 0), "on_spore"),
    ({"rocks": [(3, 0)]}, (3, 0), "on_rock"),
    ({}, (5, 0), "off_board"),
])
def test_cannot_place_on_pieces_or_off_board(kw, at, code):
    assert reason(make_position(**kw), place("P03", at)) == code


def test_meeple_must_be_on_the_network_being_grown():
    pos = make_position(tiles={(0, 0): "P03"})
    assert reason(pos, place("P03", (1, 0))) == "meeple_not_on_network"


def test_cannot_grow_from_a_rock():
    pos = make_position(rocks=[(2, 0)])
    assert reason(pos, place("P03", (1, 0))) == "from_rock"


def test_blocked_by_another_meeple_but_not_by_own_path():
    tiles = {(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}
    blocked = make_position(tiles=tiles, meeples={"blue": (3, 0), "orange": (2, 0)})
    assert reason(blocked, place("P03", (0, 0))) == "blocked_by_meeple"
    free = make_position(tiles=tiles, meeples={"blue": (3, 0), "orange": (-4, 0)})
    assert reason(free, place("P03", (0, 0))) is None


def test_substrate_needs_a_network_of_its_colour_and_pays_two_nutrients():
    tiles = {(3, 0): "P03"}
    soil = make_position(tiles=tiles, substrates={(2, 0): "soil"}, meeples={"blue": (3, 0), "orange": (-4, 0)})
    assert reason(soil, place("P03", (2, 0))) == "wrong_substrate_color"
    wood = make_position(tiles=tiles, substrates={(2, 0): "wood"}, meeples={"blue": (3, 0), "orange": (-4, 0)})
    out = apply(wood, place("P03", (2, 0)))
    assert out.position.nutrients["blue"]["pink"] == 2
    assert out.position.substrates == {} and out.position.pending_substrates == ["wood"]
    assert any("wood substrate degraded" in n for n in out.notes)


# --- 4.a.2 rocks ---------------------------------------------------------------------------

def test_rock_placement_rules():
    pos = make_position(trees=[(4, -1)], rocks=[(3, 1)])
    rock = lambda at: {"player": "blue", "action": "rock", "at": list(at)}
    assert reason(pos, rock((0, 0))) == "rock_not_adjacent"
    assert reason(pos, rock((4, -1))) == "rock_on_tree"
    assert reason(pos, rock((3, 1))) == "rock_on_rock"
    assert reason(pos, rock((3, 0))) is None
    no_rock = make_position(hands={"blue": ["P03", "Y03", "G03"], "orange": []})
    assert reason(no_rock, rock((3, 0))) == "tile_not_in_hand"


def test_rock_crushes_tile_and_sends_meeple_home():
    pos = make_position(tiles={(3, 0): "P03", (2, 0): "P03"}, meeples={"blue": (3, 0), "orange": (2, 0)})
    out = apply(pos, {"player": "blue", "action": "rock", "at": [2, 0]}).position
    assert (2, 0) in out.rocks and (2, 0) not in out.tiles
    assert out.meeples["orange"] == (-4, 0)
    assert "P03" in out.discard and "ROCK" not in out.hands["blue"]


def test_rock_on_substrate_and_on_a_spore():
    pos = make_position(substrates={(3, 0): "soil"})
    out = apply(pos, {"player": "blue", "action": "rock", "at": [3, 0]}).position
    assert out.substrates == {} and out.pending_substrates == ["soil"]
    pos = make_position(tiles={(3, 0): "P03"}, spores={"blue": (0, 4), "orange": (4, -1)},
                        meeples={"blue": (3, 0), "orange": (4, -1)})
    out = apply(pos, {"player": "blue", "action": "rock", "at": [4, -1]}).position
    assert out.spores["orange"].at is None and out.meeples["orange"] is None
    # Orange must put it back on a starting space, out of turn.
    assert reason(out, {"player": "orange", "action": "relocate", "to": [0, 0]}) == "not_starting_space"
    back = apply(out, {"player": "orange", "action": "relocate", "to": [-4, 0]}).position
    assert back.spores["orange"].at == (-4, 0) and back.meeples["orange"] == (-4, 0)


def test_a_turn_does_not_end_with_the_own_spore_off_the_board():
    # 4.a.2 "The affected player must relocate the spore": orange, whose spore blue's rock
    # pushed off, cannot end the turn before putting it back, and is told where it may go
    pos = make_position(tiles={(3, 0): "P03"}, spores={"blue": (0, 4), "orange": (4, -1)},
                        meeples={"blue": (3, 0), "orange": (4, -1)}, bag=5)
    out = apply(pos, {"player": "blue", "action": "rock", "at": [4, -1]}).position
    out = apply(out, {"player": "blue", "action": "draw", "tile": "Y03"}).position
    out = apply(out, {"player": "blue", "action": "end_turn"}).position   # blue's own spore stands
    out = apply(out, {"player": "orange", "action": "discard", "tile": "Y03"}).position
    out = apply(out, {"player": "orange", "action": "draw", "tile": "Y03"}).position
    v = check(out, {"player": "orange", "action": "end_turn"})
    assert v.reason == "relocate_first"
    assert "put it back" in v.message and "A1" in v.message, v.message   # A1 = (0, -4), a free starting space
    back = apply(out, {"player": "orange", "action": "relocate", "to": [0, -4]}).position
    assert reason(back, {"player": "orange", "action": "end_turn"}) is None


def test_rock_on_own_spore_is_a_table_rule():
    pos = make_position(tiles={(3, 0): "P03"}, meeples={"blue": (3, 0), "orange": (-4, 0)},
                        options={"rock_on_own_spore": False})
    assert reason(pos, {"player": "blue", "action": "rock", "at": [4, 0]}) == "rock_on_own_spore"


# --- 4.a.3 discard -------------------------------------------------------------------------

def test_discard_never_a_rock():
    pos = make_position()
    assert reason(pos, {"player": "blue", "action": "discard", "tile": "ROCK"}) == "cannot_discard_rock"
    out = apply(pos, {"player": "blue", "action": "discard", "tile": "Y03"}).position
    assert out.hands["blue"] == ["P03", "ROCK"] and out.discard == ["Y03"]


# --- 4.b flow ------------------------------------------------------------------------------

def mv(to, color, player="blue"):
    return {"player": player, "action": "move", "to": list(to), "color": color}


def test_move_along_one_colour_only():
    pos = make_position(tiles={(3, 0): "P03", (2, 0): "P0.Y3", (1, 0): "Y0"},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    assert reason(pos, mv((2, 0), "pink")) is None
    assert reason(pos, mv((1, 0), "pink")) == "move_changes_color"
    assert reason(pos, mv((1, 0), "yellow")) == "move_not_on_network"


def test_move_passes_meeples_but_does_not_stop_on_them():
    tiles = {(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}
    pos = make_position(tiles=tiles, meeples={"blue": (3, 0), "orange": (2, 0)})
    assert reason(pos, mv((2, 0), "pink")) == "move_onto_meeple"
    assert reason(pos, mv((1, 0), "pink")) is None


def test_move_never_over_spores_rocks_or_trees():
    pos = make_position(tiles={(4, -3): "P5", (4, -1): "P2", (3, 0): "P03"}, rocks=[(2, 0)], trees=[(3, -1)],
                        spores={"blue": (0, 4), "orange": (4, -2)}, meeples={"blue": (4, -3), "orange": (4, -2)})
    assert reason(pos, mv((4, -1), "pink")) == "move_over_spore"
    assert reason(pos, mv((4, -2), "pink")) == "move_over_spore"
    assert reason(pos, mv((2, 0), "pink")) == "move_over_rock"
    assert reason(pos, mv((3, -1), "pink")) == "move_over_tree"


def test_move_onto_own_spore_and_once_per_turn():
    pos = make_position(tiles={(3, 0): "P03", (2, 0): "P03"}, meeples={"blue": (2, 0), "orange": (-4, 0)})
    out = apply(pos, mv((4, 0), "pink")).position
    assert out.meeples["blue"] == (4, 0)
    assert reason(out, mv((2, 0), "pink")) == "action_already_taken"


# --- 4.c removal ---------------------------------------------------------------------------

def test_mycophages_and_lichens_cost_nutrients():
    pos = make_position(tiles={(3, 0): "P03"}, rocks=[(4, -1)])
    rm = lambda at, pay=None: {"player": "blue", "action": "remove", "at": list(at), **({"pay": pay} if pay else {})}
    assert reason(pos, rm((3, 0))) == "insufficient_nutrients"
    rich = make_position(tiles={(3, 0): "P03", (0, 0): "P03"}, rocks=[(4, -1)], nutrients={"blue": {"yellow": 2}})
    assert reason(rich, rm((0, 0))) == "remove_not_adjacent"
    assert reason(rich, rm((3, 0), {"pink": 1})) == "insufficient_nutrients"
    assert reason(rich, rm((3, 0), {"yellow": 2})) == "wrong_payment"
    out = apply(rich, rm((4, -1))).position
    assert (4, -1) not in out.rocks and out.nutrients["blue"]["yellow"] == 0 and "ROCK" in out.discard


def test_removing_a_tile_under_a_meeple_sends_it_home():
    pos = make_position(tiles={(3, 0): "P03"}, meeples={"blue": (4, 0), "orange": (3, 0)},
                        nutrients={"blue": {"white": 1}})
    out = apply(pos, {"player": "blue", "action": "remove", "at": [3, 0]}).position
    assert out.meeples["orange"] == (-4, 0) and out.nutrients["blue"]["white"] == 0


# --- 4.d spore ability ---------------------------------------------------------------------

def test_spore_redraw_returns_two_tiles_and_ends_the_actions():
    pos = make_position(bag=10)
    ab = {"player": "blue", "action": "spore_ability", "mode": "redraw", "discard": "ROCK"}
    out = apply(pos, ab).position
    assert out.hands["blue"] == [] and out.bag == 12 and out.spores["blue"].used
    assert reason(out, place("P03", (3, 0))) == "spore_turn_over"
    drawn = apply(out, {"player": "blue", "action": "draw", "tile": "G03"}).position
    assert drawn.hands["blue"] == ["G03"]
    assert reason(drawn, ab) == "spore_turn_over"


def test_spore_relocation_needs_another_free_starting_space():
    pos = make_position(substrates={(0, 4): "wood"})
    ab = lambda to: {"player": "blue", "action": "spore_ability", "mode": "relocate", "to": list(to)}
    assert reason(pos, ab((4, 0))) == "not_starting_space"
    assert reason(pos, ab((0, 4))) == "space_occupied"


def test_remove_off_the_board_says_so():
    pos = make_position(nutrients={"blue": {"pink": 1}})
    assert reason(pos, {"player": "blue", "action": "remove", "at": [5, 0]}) == "off_board"


def test_spore_ability_at_start_of_turn_and_once():
    pos = make_position(taken=["move"])
    relocate = {"player": "blue", "action": "spore_ability", "mode": "relocate", "to": [0, 4]}
    assert reason(pos, relocate) == "spore_not_at_start"
    used = make_position(spores={"blue": ((4, 0), True), "orange": (-4, 0)})
    assert reason(used, relocate) == "spore_ability_used"
    out = apply(make_position(), relocate).position
    assert out.spores["blue"].at == (0, 4) and out.meeples["blue"] == (0, 4)


# --- 3 setup and the end of a turn ---------------------------------------------------------

def test_spores_go_on_outer_spaces_apart():
    pos = make_position(spores={"blue": (4, 0), "orange": None}, meeples={"blue": (4, 0), "orange": None},
                        active="orange")
    spore = lambda at: {"player": "orange", "action": "spore", "at": list(at)}
    assert reason(pos, spore((0, 0))) == "not_starting_space"
    assert reason(pos, spore((4, -1))) == "too_close_to_spore"
    assert reason(pos, {"player": "orange", "action": "move", "to": [0, 0], "color": "pink"}) == "setup_incomplete"
    assert reason(pos, spore((4, -2))) is None


def test_end_of_turn_needs_the_mandatory_action_and_three_tiles():
    pos = make_position(bag=5)
    end = {"player": "blue", "action": "end_turn"}
    assert reason(pos, end) == "must_place_or_discard"
    placed = apply(pos, place("P03", (3, 0))).position
    assert reason(placed, end) == "must_draw"
    full = apply(placed, {"player": "blue", "action": "draw", "tile": "Y03"}).position
    assert reason(full, {"player": "blue", "action": "draw", "tile": "Y03"}) == "hand_full"
    nxt = apply(full, end).position
    assert nxt.active == "orange" and nxt.taken == []


def test_drawing_the_last_tile_ends_the_game():
    pos = make_position(bag=1)
    placed = apply(pos, place("P03", (3, 0))).position
    out = apply(placed, {"player": "blue", "action": "draw", "tile": "Y03"})
    assert out.position.result is not None and "last tile" in out.position.result["reason"]
    assert reason(out.position, {"player": "blue", "action": "end_turn"}) == "game_over"
    empty = make_position(bag=0, hands={"blue": ["P03"], "orange": []})
    assert reason(empty, {"player": "blue", "action": "draw", "tile": "Y03"}) in ("hand_full", "bag_empty")


def test_illegal_apply_raises_with_reason_and_keeps_input():
    pos = make_position()
    before = pos.to_json()
    with pytest.raises(IllegalMove) as e:
        apply(pos, place("P03", (0, 0)))
    assert e.value.reason == "not_connected"
    assert pos.to_json() == before


# --- 5.a the new substrate token before the turn ends --------------------------------------

def test_turn_cannot_end_until_the_new_substrate_token_is_laid():
    from companion.edition import load_edition
    ed = load_edition("default")
    wood = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, meeples={"blue": (3, 0), "orange": (-4, 0)})
    pos = apply(wood, place("P03", (2, 0))).position
    pos = apply(pos, {"player": "blue", "action": "draw", "tile": "Y03"}).position
    end = {"player": "blue", "action": "end_turn"}
    v = check(pos, end)
    assert v.reason == "substrate_due"
    where = ed.label((2, 0))
    assert v.message == (f"Lay the wood substrate token drawn to replace the one at {where} (5.a): "
                         "draw a token and put it on its space.")
    token = next(h for h in ed.substrate_tokens["wood"] if h not in ((2, 0), (3, 0), (4, 0), (-4, 0)))
    laid = apply(pos, {"player": "table", "action": "substrate", "kind": "wood", "at": list(token)}).position
    assert laid.pending_substrates == [] and laid.vacated_substrates == []
    assert check(laid, end).legal


def test_a_rock_on_a_substrate_holds_up_the_turn_too_and_the_token_space_is_named_in_words():
    pos = make_position(substrates={(3, 0): "soil", (-1, 0): "wood"}, trees=[(1, 0)])   # (1, 0), (-1, 0): soil token spaces
    pos = apply(pos, {"player": "blue", "action": "rock", "at": [3, 0]}).position
    pos = apply(pos, {"player": "blue", "action": "draw", "tile": "Y03"}).position
    assert reason(pos, {"player": "blue", "action": "end_turn"}) == "substrate_due"
    on_tree = check(pos, {"player": "table", "action": "substrate", "kind": "soil", "at": [1, 0]})
    assert on_tree.reason == "substrate_space_taken" and "holds a tree: discard that token and draw another" in on_tree.message
    on_wood = check(pos, {"player": "table", "action": "substrate", "kind": "soil", "at": [-1, 0]})
    assert "holds a wood substrate" in on_wood.message


def test_the_replaced_space_survives_the_position_document():
    from companion.position import Position
    wood = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, meeples={"blue": (3, 0), "orange": (-4, 0)})
    pos = apply(wood, place("P03", (2, 0))).position
    doc = pos.to_json()
    assert doc["pending"] == {"substrates": ["wood"], "vacated": [{"kind": "wood", "at": [2, 0]}]}
    assert Position.from_json(doc) == pos
    assert "vacated" not in wood.to_json()["pending"]     # documents without a token due read as before
