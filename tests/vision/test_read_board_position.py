"""``read-board --json`` gives a board that is a valid board part of a position (docs/position.md),
also where a meeple hides its spore's side (docs/rules.md)."""

from __future__ import annotations

import random

import pytest

from companion.edition import load_edition
from companion.position import Position, PositionError
from companion.setup import GameConfig, new_game
from companion.vision.cli import UNSEEN_SIDE_GIVEN, guessed_pieces, position_board


def _doc_with(board_spores: dict, meeples: dict) -> dict:
    ed = load_edition()
    pos, _ = new_game(GameConfig(players=["blue", "orange"]), ed, random.Random(1))
    doc = pos.to_json()
    doc["board"]["spores"], doc["board"]["meeples"] = board_spores, meeples
    return doc


def _outer() -> list[list[int]]:
    ed = load_edition()
    outer = sorted(ed.outermost)
    return [list(outer[0]), list(outer[len(outer) // 2])]


def test_a_side_hidden_by_its_meeple_is_given_unused_so_the_board_is_a_position():
    a, b = _outer()
    board = {"spores": {"blue": {"at": a, "used": None}, "orange": {"at": b, "used": True}},
             "meeples": {"blue": a, "orange": b}}
    with pytest.raises(PositionError, match="board.spores.blue.used"):
        Position.from_json(_doc_with(board["spores"], board["meeples"]))  # as Reading.board holds it
    out = position_board(board)
    assert out["spores"]["blue"] == {"at": a, "used": UNSEEN_SIDE_GIVEN} and UNSEEN_SIDE_GIVEN is False
    assert out["spores"]["orange"] == {"at": b, "used": True}  # a side seen is kept
    pos = Position.from_json(_doc_with(out["spores"], out["meeples"]))
    assert pos.spores["blue"].used is False and pos.spores["orange"].used is True
    assert board["spores"]["blue"]["used"] is None  # the reading itself is not changed


def test_a_board_without_spores_is_left_as_it_is():
    assert position_board({"tiles": [], "meeples": {}}) == {"tiles": [], "meeples": {}}


def test_pieces_guessed_on_spaces_that_could_not_be_read_are_left_out_of_the_position():
    # A sleeve over the board: the text output lists no tile there, so the JSON board must not
    # either (a guessed tile on blue's spore made the board no position at all).
    a, b = _outer()
    key = f"{a[0]},{a[1]}"
    board = {"tiles": [{"at": a, "paths": "P03"}, {"at": b, "paths": "P05"}], "rocks": [a], "trees": [],
             "substrates": [{"at": a, "kind": "wood"}], "spores": {"blue": {"at": a, "used": False}},
             "meeples": {"blue": a, "orange": b}}
    out = position_board(board, [key])
    assert out["tiles"] == [{"at": b, "paths": "P05"}] and out["rocks"] == [] and out["substrates"] == []
    assert out["spores"] == {} and out["meeples"] == {"orange": b}
    assert position_board(board)["tiles"] == board["tiles"]  # nothing unreadable: nothing left out
    # what was left out is given apart, as the reader's guesses
    guessed = guessed_pieces(board, [key])
    assert guessed["tiles"] == [{"at": a, "paths": "P03"}] and guessed["rocks"] == [a]
    assert guessed["spores"] == {"blue": {"at": a, "used": False}} and guessed["meeples"] == {"blue": a}
