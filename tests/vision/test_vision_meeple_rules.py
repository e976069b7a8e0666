"""Where a meeple may stand (rulebook 4, 5.a), a symbol of another size than the one calibrated,
and what the reading says of the spaces it is unsure of."""

from __future__ import annotations

import numpy as np
from test_vision_covered_side import styled_table

from companion.vision.classify import SpaceReading
from companion.vision.meeple_doubts import deduced, describe, may_stand, read_as
from companion.vision.pieces import DEDUCED_SURE, PLAYERS, STATS, PieceModel, assign_meeples, close_calls, meeples_at_home

ORANGE, BLACK = 1, 3

# ring statistics (core, mid, outer) x (L p10, p50, p90, a, b) of orange's spore as calibration
# learned them (bands art, dim warm lamp, bench seed 99): a small white dot (unused) whose edge
# leaves the inner core ring bare, and a light X whose arms reach the middle and outer rings
UNUSED = [[67.4, 77.8, 98.4, 17.3, 49.9], [67.6, 68.4, 69.1, 33.6, 70.6], [67.1, 68.2, 69.3, 30.1, 69.4]]
USED = [[80.1, 96.4, 98.2, 2.2, 8.5], [68.6, 71.2, 96.3, 23.0, 60.8], [67.7, 68.8, 93.7, 30.0, 67.4]]
# an unused orange spore on a board of that group whose dot is printed larger: it covers the
# inner core ring as the X's centre does, while no arm shows on the middle or outer ring
WIDER_DOT = [[73.6, 96.2, 98.0, 3.7, 4.0], [67.5, 68.5, 69.5, 35.2, 71.1], [68.0, 68.7, 69.2, 33.6, 71.4]]


def _model() -> PieceModel:
    spore = np.tile(np.array([UNUSED, USED], np.float32)[None], (len(PLAYERS), 1, 1, 1))
    z = np.zeros((len(PLAYERS), 3), np.float32)
    return PieceModel(z, z + 1, np.zeros((len(PLAYERS), 3, STATS), np.float32), spore)


def test_a_dot_printed_wider_than_the_one_calibrated_is_still_the_unused_side():
    # before: the core alone (z 4.6 from the learned dot) outweighed the two rings that show no
    # arm of an X, and the spore was read used with confidence 0.76
    used, conf = _model().spore_side(np.array([WIDER_DOT], np.float32), np.array([ORANGE]), np.array([False]))
    assert not used[0]


def test_an_x_printed_smaller_than_the_one_calibrated_is_still_the_used_side():
    # meadow art under the dim warm lamp (bench seed 99, board 16): blue's dark X printed smaller
    # than the calibrated one; its arms show on the middle ring (where three pale dots never
    # reach) but not on the outer ring, and the core fits neither side.  Bounding each ring's
    # distance alone (a first version of the fix) let the bare outer ring decide "unused"
    unused = [[46.0, 47.8, 74.3, 7.4, -46.1], [47.3, 47.8, 49.0, 13.4, -54.9], [46.6, 47.7, 48.4, 12.2, -53.6]]
    used = [[8.0, 10.5, 24.2, 3.4, 3.6], [7.9, 42.7, 48.6, 7.4, -41.4], [7.3, 46.7, 47.9, 9.9, -49.5]]
    small_x = [[6.4, 24.6, 46.1, 5.4, -23.0], [10.1, 47.7, 48.9, 11.0, -52.2], [38.8, 47.9, 48.7, 12.8, -53.6]]
    spore = np.tile(np.array([unused, used], np.float32)[None], (len(PLAYERS), 1, 1, 1))
    z = np.zeros((len(PLAYERS), 3), np.float32)
    model = PieceModel(z, z + 1, np.zeros((len(PLAYERS), 3, STATS), np.float32), spore)
    used_read, _ = model.spore_side(np.array([small_x], np.float32), np.array([0]), np.array([False]))
    assert used_read[0]


def test_the_learned_sides_still_read_as_themselves():
    used, conf = _model().spore_side(np.array([UNUSED, USED], np.float32), np.array([ORANGE, ORANGE]),
                                     np.array([False, False]))
    assert list(used) == [False, True] and (conf >= 0.95).all()


def _spaces() -> list[SpaceReading]:
    r = [SpaceReading("empty", confidence=0.9) for _ in range(8)]
    r[1] = SpaceReading("spore", player="orange", confidence=0.8)
    r[2] = SpaceReading("wood", confidence=0.8)
    r[3] = SpaceReading("tile", code="P03", confidence=0.9)
    r[4] = SpaceReading("rock", confidence=0.9)
    r[5] = SpaceReading("spore", player="blue", confidence=0.8)
    return r


def test_a_meeple_stands_only_on_a_tile_or_its_own_spore():
    stand = may_stand(_spaces())
    assert list(np.flatnonzero(stand[:, ORANGE])) == [1, 3]   # its spore and the tile
    # black's spore is read nowhere: its own spore may hide under its meeple, misread as
    # another player's spore, a substrate or an empty space; never as a rock
    assert set(np.flatnonzero(stand[:, BLACK])) == {0, 1, 2, 3, 5, 6, 7}


def test_a_wood_substrate_is_not_named_as_where_orange_meeple_may_stand():
    # meadow under the warm lamp (bench seed 99, board 2): orange's meeple on its unused spore
    # scored about as high as a wood substrate, so the deduction was unsure and named the
    # substrate ("on its spore at F1 or on G7"); no meeple stands on a substrate
    ev = np.full((8, 4), -6.0)
    ev[1, ORANGE] = 0.6  # orange's spore, its meeple on it
    ev[2, ORANGE] = 0.5  # a wood substrate, orange under a warm lamp
    ev[3, ORANGE] = -3.0  # the tile
    owner, conf = assign_meeples(ev)
    home = np.array([-1, 1, -1, -1])
    _, conf0, doubts0 = meeples_at_home(ev, owner, conf, home)
    assert doubts0 == [(1, ORANGE, 2)]  # the substrate named without the rule
    owner2, conf2, doubts = meeples_at_home(ev, owner, conf, home, may_stand(_spaces()))
    assert owner2[1] == ORANGE and conf2[1] >= DEDUCED_SURE and not doubts

    # a close call names a tile, not the substrate
    ev[1, ORANGE], ev[2, ORANGE], ev[3, ORANGE] = 1.4, 1.2, 1.1
    owner, conf = assign_meeples(ev)
    assert owner[1] == ORANGE and conf[1] < DEDUCED_SURE
    assert close_calls(ev, owner, conf) == [(1, ORANGE, 2)]
    assert close_calls(ev, owner, conf, may_stand(_spaces())) == [(1, ORANGE, 3)]


def test_each_unsure_space_keeps_saying_what_it_was_read_as():
    assert describe(SpaceReading("wood")) == "a wood substrate"
    assert describe(SpaceReading("tile", code="P03")) == "tile P03"
    assert read_as(SpaceReading("spore", player="black", meeple="black")) == "read as the black spore with black's meeple on it"


def test_a_meeple_placed_on_its_spore_by_deduction_says_so_when_the_space_is_unsure():
    from companion.vision.cli import _why_unsure

    # the meeple itself was deduced with confidence, but the chip's side is unsure: read-board
    # said "read as the black spore; its side or its colour is not clear", which hid that the
    # meeple there was deduced rather than seen
    r = SpaceReading("spore", player="black", used=True, meeple="black", confidence=0.3)
    r.doubt = deduced(r, side_confidence=0.3)
    why = _why_unsure(r)
    assert why.startswith("read as the black spore with black's meeple on it; "
                          "black's meeple, seen clearly on no space, is read on its spore here")
    assert why.endswith("its side is not clear")
    r = SpaceReading("spore", player="black", used=None, meeple="black", confidence=0.2)
    assert deduced(r).endswith("the chip around it does not show its colour clearly")
    # a sure space, or one that already says why, keeps what it had
    assert deduced(SpaceReading("spore", player="black", meeple="black", confidence=0.8)) is None
    assert deduced(SpaceReading("spore", player="black", meeple="black", confidence=0.2, doubt="x")) is None


def _reading_of(style, light, seed, board_no, tmp_path, geo, codes, capsys):
    reader, frame, board, _, _ = styled_table(style, light, seed, board_no, tmp_path, geo, codes, capsys)
    return reader, reader.read(frame.image), board


def test_a_meeple_on_its_spore_read_as_a_substrate_stands_on_its_spore(tmp_path, geo, codes, capsys):
    # bands art under the warm lamp (bench seed 99, board 11): orange's meeple on its used spore,
    # the orange rim around it read as a wood substrate, so the board held "a wood substrate
    # with orange's meeple on it", which no game allows (rulebook 5.a), and no orange spore
    reader, reading, board = _reading_of("bands", "warm lamp", 99, 11, tmp_path, geo, codes, capsys)
    at = board["spores"]["orange"]["at"]
    assert board["meeples"]["orange"] == at
    assert reading.board["meeples"]["orange"] == at
    assert reading.board["spores"]["orange"]["at"] == at
    assert reading.board["spores"]["orange"]["used"] in (True, None)  # right, or not claimed under its meeple
    assert at not in [s["at"] for s in reading.board["substrates"]]


def test_reasons_name_only_spaces_a_meeple_may_stand_on_and_keep_each_spaces_reading(tmp_path, geo, codes, capsys):
    # meadow art under the warm lamp (bench seed 99, board 2): orange's meeple stands on its
    # spore; a wood substrate looked about as orange, and both spaces were reported "orange's
    # meeple is not clearly seen: on its spore at F1 or on G7", G7 being the substrate
    reader, reading, board = _reading_of("meadow", "warm lamp", 99, 2, tmp_path, geo, codes, capsys)
    at = board["spores"]["orange"]["at"]
    assert reading.board["meeples"]["orange"] == at == board["meeples"]["orange"]
    tiles = {tuple(t["at"]) for t in reading.board["tiles"]}
    spores = {tuple(s["at"]) for s in reading.board["spores"].values()}
    for key, why in reading.unsure.items():
        h = tuple(int(v) for v in key.split(","))
        assert why.startswith("read as ")
        if "meeple is not clearly seen" in why:
            # every space named is a tile or a spore
            named = [reader.label(x) for x in tiles | spores]
            for word in why.split("; ")[1].replace(",", " ").split():
                if word[:1].isupper() and word[1:].isdigit():
                    assert word in named, why
        r = reading.spaces[h]
        assert why.startswith(read_as(r)), why
