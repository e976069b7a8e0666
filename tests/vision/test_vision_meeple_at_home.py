"""A player's meeple is on the board while its spore is: seen clearly nowhere, it stands on its spore."""

from __future__ import annotations

import numpy as np
from bench_groups import SIZE, group_board
from test_vision_covered_side import styled_table

from calibration.intrinsics import Intrinsics
from companion.sim.play import later_frame
from companion.sim.render import render_styled
from companion.sim.render_scene import random_board
from companion.vision.classify import SpaceReading
from companion.vision.pieces import DEDUCED_SURE, assign_meeples, close_calls, meeples_at_home
from companion.vision.reader import BoardReader

BLACK = 3


def test_every_position_the_simulated_camera_draws_has_each_players_meeple_on_the_board(geo, codes):
    # the deduction rests on the rules: a meeple leaves the board only with its displaced spore
    # (companion.position.check_against_edition refuses any other position); the boards the
    # bench and the tests read obey them: each player's meeple on a tile or on its own spore
    for seed in range(300):
        board = random_board(np.random.default_rng(seed), geo, codes)
        assert set(board["meeples"]) == set(board["spores"])
        tiles = [t["at"] for t in board["tiles"]]
        for p, at in board["meeples"].items():
            assert at in tiles or at == board["spores"][p]["at"]


def _evidence(spaces: int = 12) -> np.ndarray:
    return np.full((spaces, 4), -6.0)


def test_a_meeple_seen_clearly_nowhere_stands_on_its_spore():
    ev = _evidence()
    ev[5, BLACK] = 0.6   # black's spore: the meeple looks about as much like the dark X under it
    ev[2, BLACK] = -1.2  # the next best space is well below
    owner, conf = assign_meeples(ev)
    assert owner[5] == -1  # evidence alone does not place it
    home = np.array([-1, -1, -1, 5])
    owner, conf, doubts = meeples_at_home(ev, owner, conf, home)
    assert owner[5] == BLACK and (owner >= 0).sum() == 1
    assert conf[5] >= DEDUCED_SURE and not doubts


def test_a_meeple_seen_clearly_on_a_tile_leaves_its_spore_free():
    ev = _evidence()
    ev[5, BLACK] = 0.6   # black's used spore, no meeple on it: the same look
    ev[8, BLACK] = 4.5   # black's meeple on a tile
    owner, conf = assign_meeples(ev)
    owner, conf, doubts = meeples_at_home(ev, owner, conf, np.array([-1, -1, -1, 5]))
    assert owner[8] == BLACK and owner[5] == -1 and not doubts


def test_a_meeple_no_space_tells_is_placed_unsure_with_both_spaces_named():
    ev = _evidence()
    ev[5, BLACK] = 0.3
    ev[8, BLACK] = 0.1   # a tile shows about as much of black's meeple as its spore does
    owner, conf = assign_meeples(ev)
    owner, conf, doubts = meeples_at_home(ev, owner, conf, np.array([-1, -1, -1, 5]))
    assert owner[5] == BLACK
    assert conf[5] < DEDUCED_SURE and conf[8] < DEDUCED_SURE  # the table asks
    assert doubts == [(5, BLACK, 8)]

    # a tile showing more of it than the spore: the camera cannot tell, no meeple is placed
    ev[8, BLACK] = 0.5
    owner, conf = assign_meeples(ev)
    owner, conf, doubts = meeples_at_home(ev, owner, conf, np.array([-1, -1, -1, 5]))
    assert (owner == -1).all() and conf[5] < DEDUCED_SURE and conf[8] < DEDUCED_SURE
    assert doubts == [(5, BLACK, 8)]


def test_a_meeple_placed_unsure_names_the_space_that_looks_next_most_like_it():
    ev = _evidence()
    ev[5, BLACK] = 3.98  # black's spore, no meeple on it, its dark dot looking like a meeple's top
    ev[8, BLACK] = 3.74  # black's meeple on a tile
    ev[1, 0] = 4.0       # blue's meeple, clear
    owner, conf = assign_meeples(ev)
    assert owner[5] == BLACK and conf[5] < DEDUCED_SURE and conf[8] < DEDUCED_SURE
    assert close_calls(ev, owner, conf) == [(5, BLACK, 8)]


def test_a_meeple_hidden_elsewhere_is_not_put_on_a_spore_that_shows_its_symbol():
    # a hand over black's meeple on a tile: every space scores low for it, and its spore shows
    # its symbol (evidence far below what a meeple standing there gives)
    ev = _evidence()
    ev[5, BLACK] = -5.0
    owner, conf = assign_meeples(ev)
    before = conf[5]
    owner, conf, doubts = meeples_at_home(ev, owner, conf, np.array([-1, -1, -1, 5]))
    assert (owner == -1).all() and len(doubts) == 1 and doubts[0][:2] == (5, BLACK)
    # the spore keeps its reading (its symbol shows: no meeple there); the space that looks next
    # most like black's meeple is the one asked about
    runner = doubts[0][2]
    assert conf[5] == before and runner != 5 and (runner < 0 or conf[runner] == 0.0)


def test_no_meeple_is_deduced_for_a_player_without_a_spore_on_the_board():
    ev = _evidence()
    ev[5, BLACK] = 0.6
    ev[2, BLACK] = -1.2
    owner, conf = assign_meeples(ev)
    owner2, conf2, doubts = meeples_at_home(ev, owner, conf, np.array([-1, -1, -1, -1]))
    assert (owner2 == -1).all() and np.array_equal(conf2, conf) and not doubts


def test_read_board_says_why_a_deduced_meeple_is_unsure():
    from companion.vision.cli import _why_unsure

    why = "black's meeple is not clearly seen: on its spore at A5 or on C3; the camera cannot tell"
    r = SpaceReading("spore", player="black", meeple="black", confidence=0.2, doubt=why)
    # the reason begins with what the space was read as, as the reader's own doubts do
    assert _why_unsure(r) == f"read as the black spore with black's meeple on it; {why}"
    r.doubt = f"read as the black spore with black's meeple on it; {why}"
    assert _why_unsure(r) == r.doubt


def _draw(board, geo, style, light, cam, table, state):
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    return render_styled(board, geo, style, light, rng=rng, size=SIZE, camera=cam, table=table).image


def _assert_meeples_and_spores(reading, board):
    assert reading.board["meeples"] == board["meeples"]
    for p, s in reading.board["spores"].items():
        assert s["at"] == board["spores"][p]["at"]
        # a side is right, or not claimed under its own meeple
        assert s["used"] in (board["spores"][p]["used"], None)
        if s["used"] is None:
            assert board["meeples"][p] == s["at"]


def test_a_black_meeple_on_its_spore_that_looks_like_the_used_side_is_on_the_board(tmp_path, geo, codes, capsys):
    # meadow art under the warm lamp (bench seed 11): calibration learns black's used side (a dark
    # X on a black chip) about as dark as the black meeple seen from above, so on its spore the
    # meeple's evidence is 0.0-0.8 whichever side lies under it, under the 1.0 that places a
    # meeple: black's meeple was lost on all 7 of 40 boards where it stood on its spore, and on
    # board 1 (unused side under it) the side was read "used" as well
    reader, frame, board, _, _ = styled_table("meadow", "warm lamp", 11, 36, tmp_path, geo, codes, capsys)
    at = board["spores"]["black"]["at"]
    assert board["meeples"]["black"] == at and board["spores"]["black"]["used"] is True
    _assert_meeples_and_spores(reader.read(frame.image), board)

    board1, cam, light, table, rng = group_board("meadow", "warm lamp", 11, 1, geo, codes)
    state = rng.bit_generator.state
    assert board1["meeples"]["black"] == board1["spores"]["black"]["at"] and board1["spores"]["black"]["used"] is False
    reader1 = BoardReader(geo, profile=reader.profile, intrinsics=Intrinsics(cam.k, cam.dist, SIZE, 0.0), tile_codes=codes)
    image1 = _draw(board1, geo, "meadow", light, cam, table, state)
    _assert_meeples_and_spores(reader1.read(image1), board1)

    # in play: black's meeple comes back to its spore from a tile (after a purchase, rulebook 6);
    # only the two spaces that changed are read again, the spores elsewhere stand as committed
    tile = next(t["at"] for t in board1["tiles"] if t["at"] not in board1["meeples"].values())
    before = {**board1, "meeples": {**board1["meeples"], "black": tile}}
    image0 = _draw(before, geo, "meadow", light, cam, table, state)
    committed = reader1.read(image0)
    assert committed.board["meeples"]["black"] == tile
    later = later_frame(image0, image1, cam, geo, [tuple(tile), tuple(board1["spores"]["black"]["at"])],
                        np.random.default_rng(0))
    seen = reader1.read(later, previous=committed)
    assert seen.changed is not None and seen.changed <= 4
    _assert_meeples_and_spores(seen, board1)


def test_a_spore_looking_like_its_meeple_beside_the_meeple_on_a_tile_is_reported_unsure(tmp_path, geo, codes, capsys):
    # inkline art under the dim warm lamp (bench seed 2024, board 32): black's unused spore (a
    # dark dot on a black chip) looks as much like black's meeple (evidence 3.98) as the meeple
    # on its tile does (3.74); the camera cannot tell which holds it, so neither space may be
    # read with confidence, and the reading says why, naming both
    reader, frame, board, _, _ = styled_table("inkline", "dim warm lamp", 2024, 32, tmp_path, geo, codes, capsys)
    spore, tile = board["spores"]["black"]["at"], board["meeples"]["black"]
    assert spore != tile
    reading = reader.read(frame.image)
    assert "unsure" in reading.to_json()
    if reading.board["meeples"].get("black") == tile:
        return  # read right
    for at in (spore, tile):
        key = f"{at[0]},{at[1]}"
        assert reading.confidence[key] < DEDUCED_SURE  # the table asks
        why = reading.unsure[key]
        assert "black's meeple is not clearly seen" in why
        assert f"on its spore at {reader.label(tuple(spore))}" in why and f"on {reader.label(tuple(tile))}" in why


def test_a_spore_under_its_meeple_read_as_a_player_not_in_the_game_is_the_meeples_own(tmp_path, geo, codes, capsys):
    # inkline art under the warm lamp (bench seed 2024, board 24), three players, no black: blue's
    # meeple stands on blue's used spore, and the thin rim of the chip around it read as black's
    # spore.  A meeple never stands on another player's spore; black's meeple is placed nowhere
    # and the meeple there looks far more like blue's than like black's, so it is blue's spore
    reader, frame, board, _, _ = styled_table("inkline", "warm lamp", 2024, 24, tmp_path, geo, codes, capsys)
    assert "black" not in board["spores"] and board["meeples"]["blue"] == board["spores"]["blue"]["at"]
    reading = reader.read(frame.image)
    _assert_meeples_and_spores(reading, board)
    assert set(reading.board["spores"]) == set(board["spores"])
