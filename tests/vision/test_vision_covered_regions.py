"""The region test of :mod:`companion.vision.covered` on its own: seeds, growth, what stops it."""

from __future__ import annotations

import numpy as np

from companion.vision.covered import GROW_FIT, SEED_FIT, covered_reason, covered_sentence, covered_spaces, is_covered_reason

ROW = [(q, 0) for q in range(6)]   # six spaces in a line, each the next one's neighbour


def test_a_clean_board_has_no_seed_and_nothing_is_covered():
    fit = np.full(6, GROW_FIT["tile"] - 0.5)   # every tile poorly lit, none unlike a tile
    assert not covered_spaces(fit, ["tile"] * 6, ROW).any()


def test_a_covered_region_grows_through_weak_neighbours_only():
    fit = np.array([-2.0, GROW_FIT["tile"] - 0.1, SEED_FIT["tile"] - 1, GROW_FIT["tile"] - 0.1, -2.0, GROW_FIT["tile"] - 0.1])
    got = covered_spaces(fit, ["tile"] * 6, ROW)
    assert got.tolist() == [False, True, True, True, False, False]


def test_each_kind_has_its_own_floor():
    # an empty board explains itself far better than a tree with its markers does
    fit = np.array([SEED_FIT["empty"] - 0.1, SEED_FIT["empty"] - 0.1])
    assert covered_spaces(fit, ["empty", "tree"], [(0, 0), (5, 5)]).tolist() == [True, False]


def test_skipped_unknown_and_meeple_spaces_are_no_seed():
    fit = np.array([-12.0, np.nan, -12.0, -12.0])
    skip = np.array([True, False, False, False])
    no_seed = np.array([False, False, True, False])
    got = covered_spaces(fit, ["tile"] * 4, [(0, 0), (2, 0), (4, 0), (6, 0)], skip, no_seed)
    assert got.tolist() == [False, False, False, True]


def test_the_reason_names_the_space_and_what_to_do():
    assert covered_reason("D4") == "something covers D4: move it off the board"
    assert covered_sentence(["D4", "D5"]) == "something covers D4, D5: move it off the board"
    assert is_covered_reason(covered_reason("D4", glare=True)) and not is_covered_reason("glare on D4: move the lamp")
