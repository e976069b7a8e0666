"""A substrate token lands only on a space a token of its kind shows (Components: each token
shows a board space; 2.c, 5.a), and the token replacing one taken off the board is never that
same token (5.a: it is discarded).  The position is a new player's (``tests/data/cases``)."""

from __future__ import annotations

import json
from pathlib import Path

from companion.edition import load_edition
from companion.position import Position
from companion.rules import Board, apply, check, drawable_token_spaces, tokens_due

ED = load_edition("default")
CASE = json.loads((Path(__file__).parent.parent / "data" / "cases" / "token_due_s1.json").read_text())


def token(at) -> dict:
    return {"player": "table", "action": "substrate", "kind": "wood", "at": at}


def position() -> Position:
    return Position.from_json(CASE)


def test_a_wood_token_on_a_space_only_a_soil_token_shows_is_refused_naming_the_wood_spaces():
    pos = position()
    assert tuple(ED.substrate_tokens["soil"][0]) == (1, -3) and (1, -3) not in ED.substrate_tokens["wood"]
    v = check(pos, token([1, -3]), ED)
    assert not v.legal and v.reason == "not_on_token"
    assert v.message.startswith(f"No wood token shows {ED.label((1, -3))}: the wood tokens show B2, B4, C2, C4,")
    assert pos.occupant((1, -3)) is not None       # the tile there stays (the old code discarded it)


def test_a_token_on_a_space_no_token_shows_is_refused():
    v = check(position(), token("A4"), ED)
    assert v.reason == "not_on_token" and v.message.startswith("No wood token shows A4:")


def test_the_token_just_taken_off_the_board_cannot_be_laid_again():
    pos = position()
    gone = ED.label((-1, -2))
    assert pos.vacated_substrates == [("wood", (-1, -2))]
    v = check(pos, token(gone), ED)
    assert v.reason == "token_just_discarded"
    assert v.message == f"The wood token showing {gone} is the one just taken off the board (5.a: it is discarded): draw another."
    assert (-1, -2) not in drawable_token_spaces(Board(pos, ED), "wood")


def test_a_token_on_a_free_space_its_kind_shows_is_laid_and_the_turn_may_end():
    pos = position()
    free = next(h for h in drawable_token_spaces(Board(pos, ED), "wood")
                if pos.occupant(h) is None and h not in pos.trees and h not in pos.substrates
                and pos.spore_owner(h) is None and h not in pos.meeples.values())
    laid = apply(pos, token([free.q, free.r]), ED).position
    assert laid.substrates[free] == "wood" and not tokens_due(Board(laid, ED))
