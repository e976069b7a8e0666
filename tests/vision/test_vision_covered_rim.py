"""Around its own meeple, a spore's rim showing no symbol says nothing of its side."""

from __future__ import annotations

import numpy as np
from test_vision_covered_side import styled_table

from companion.vision.pieces import PLAYERS, STATS, PieceModel

# ring statistics (core, mid, outer) x (L p10, p50, p90, a, b) of a blue chip with a small white
# dot (unused) and a white X whose arms reach the outer ring (used), as calibration learns them
UNUSED = [[40, 80, 95, 10, -50], [44, 45, 46, 27, -68], [44, 45, 45, 27, -68]]
USED = [[44, 70, 95, 15, -55], [43, 50, 95, 20, -60], [43, 44, 95, 23, -64]]


def _model() -> PieceModel:
    spore = np.tile(np.array([UNUSED, USED], np.float32)[None], (len(PLAYERS), 1, 1, 1))
    z = np.zeros((len(PLAYERS), 3), np.float32)
    return PieceModel(z, z + 1, np.zeros((len(PLAYERS), 3, STATS), np.float32), spore)


def _covered(outer: list[float]) -> np.ndarray:
    """Features (1, 3, 5) of a spore under a meeple: the core and middle show the meeple."""
    return np.array([[[30, 32, 34, 20, -60], [30, 33, 36, 20, -60], outer]], np.float32)


def test_a_bare_rim_around_a_meeple_claims_no_side():
    # the meeple hides the X's tips as well as a dot: a bare rim fits the unused side, yet a
    # used spore under a wide meeple shows the same
    used, conf = _model().spore_side(_covered([43, 45, 47, 26, -67]), np.array([0]), np.array([True]))
    assert conf[0] < 0.95  # reported "covered by its meeple", not claimed unused


def test_the_tips_of_an_x_around_a_meeple_still_tell_the_used_side():
    used, conf = _model().spore_side(_covered([43, 45, 93, 23, -64]), np.array([0]), np.array([True]))
    assert used[0] and conf[0] >= 0.95


def test_an_uncovered_spore_still_reads_its_unused_side():
    feat = np.array([UNUSED], np.float32)
    used, conf = _model().spore_side(feat, np.array([0]), np.array([False]))
    assert not used[0] and conf[0] >= 0.95


def test_a_used_spore_under_its_meeple_under_a_warm_lamp_is_not_read_unused(tmp_path, geo, codes, capsys):
    # bands art under a warm lamp (bench seed 7, board 31): blue's meeple stands on blue's used
    # spore, its X hidden; the bare rim was read "unused" with a side confidence over 0.95
    reader, frame, board, _, _ = styled_table("bands", "warm lamp", 7, 31, tmp_path, geo, codes, capsys)
    assert board["meeples"]["blue"] == board["spores"]["blue"]["at"] and board["spores"]["blue"]["used"] is True
    reading = reader.read(frame.image)
    assert reading.board["spores"]["blue"]["at"] == board["spores"]["blue"]["at"]
    assert reading.board["spores"]["blue"]["used"] in (None, True)
    assert reading.board["meeples"]["blue"] == board["meeples"]["blue"]
