"""An empty space whose colour is close to a substrate's is not unsure once the board's substrates
of that kind are all read (rulebook 2.c, 5.a: always 2 of each on the board).

A copy of the game whose board is printed nearly the colour of its soil substrates (a brown
board, brown soil) had every empty space read right but listed unsure ("read as an empty space,
but it looks almost as much like another piece"): 20 to 41 spaces a board, and read-board's list
hid the one space that mattered.  Here bands art in daylight, calibrated as a user does, with
the profile's soil colour drawn 0.7 of the way to the board's: the reader read 22 to 39 spaces
a board unsure, nearly all of them empty."""

from __future__ import annotations

import pytest
from bench_groups import calibrate_group, read_group_board

from companion.vision.profile import load_profile
from companion.vision.unsure import LOW_CONFIDENCE


@pytest.fixture(scope="module")
def soil_like_board(tmp_path_factory, geo):
    prof = load_profile(calibrate_group("bands", "daylight", 5, tmp_path_factory.mktemp("cal"), geo))
    b, s = prof.index("board"), prof.index("soil")
    prof.mean[s] = prof.mean[b] + 0.3 * (prof.mean[s] - prof.mean[b])
    return prof


@pytest.mark.parametrize("board_no", [0, 1])
def test_empty_spaces_beside_both_soil_substrates_are_read_surely(board_no, soil_like_board, geo, codes):
    board, reading = read_group_board("bands", "daylight", 5, board_no, geo, codes, soil_like_board)
    taken = {tuple(x["at"]) for k in ("tiles", "trees", "substrates") for x in board[k]}
    taken |= {tuple(r) for r in board["rocks"]} | {tuple(s["at"]) for s in board["spores"].values()}
    empty = [h for h in geo.spaces if tuple(h) not in taken]
    assert sorted(map(str, reading.board["substrates"])) == sorted(map(str, board["substrates"]))
    for h in empty:
        key = f"{h[0]},{h[1]}"
        assert reading.spaces[tuple(h)].kind == "empty", key
        assert reading.confidence[key] >= LOW_CONFIDENCE, (key, reading.unsure.get(key))
    assert len(reading.unsure) <= 3, reading.unsure
