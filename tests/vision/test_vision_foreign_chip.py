"""No meeple on another player's spore chip, however dark its symbol.

Under a warm lamp, a blue spore's used side printed with a dark X larger than the one
photographed at calibration fills the chip's core like a black meeple seen from above: the
reader put black's meeple there and, black's spore being read nowhere, called the chip black's
spore (3 boards of 60, meadow, warm lamp).  A meeple never stands on another player's spore
(rulebook 4, docs/rules.md), and the chip's outer ring, beyond any meeple's foot, is plainly
blue: that rules black's meeple out there (:func:`companion.vision.pieces.meeple_evidence`).
An X larger still reaches that ring with its arms; the chip's colour there (its medians) stays
blue all the same."""

from __future__ import annotations

import numpy as np

from companion.vision import layout as L
from companion.vision.pieces import (MEEPLE_MIN_EVIDENCE, PLAYERS, PieceModel, RING_POINTS, chip_rim_distance,
                                     meeple_evidence, symbol_features)
from companion.vision.profile import CLASSES

BLUE_CHIP = (48.0, 10.6, -51.0)
BLACK_CHIP = (10.0, 2.0, 0.0)


def _model() -> PieceModel:
    far = [[80.0, 85.0, 90.0, 40.0, 40.0]] * 3
    spore = np.array([far, far] * 4, np.float32).reshape(4, 2, 3, 5)
    # blue: an unused dot, a used dark X (as photographed: smaller than the one on the board)
    spore[0, 0] = [[47.1, 49.0, 76.7, 10.1, -48.6], [47.2, 47.7, 48.7, 12.0, -52.7], [47.3, 48.1, 48.4, 12.2, -52.5]]
    spore[0, 1] = [[10.6, 26.9, 47.0, 6.2, -24.5], [15.0, 46.9, 48.8, 9.8, -51.0], [39.6, 47.5, 48.3, 11.3, -51.8]]
    # black: a dark chip, its symbol white
    spore[3, 0] = [[10.0, 12.0, 90.0, 2.0, 0.0], [10.0, 11.0, 14.0, 2.0, 0.0], [10.0, 11.0, 13.0, 2.0, 0.0]]
    spore[3, 1] = [[12.0, 60.0, 95.0, 1.0, 0.0], [10.0, 14.0, 92.0, 2.0, 0.0], [10.0, 12.0, 90.0, 2.0, 0.0]]
    rings = np.array([far] * 4, np.float32)
    rings[0, 0] = [26.0, 39.0, 42.0, 6.8, -40.0]
    rings[3, 0] = [12.1, 17.2, 18.0, 2.5, -0.5]
    mean = np.array([[40, 6, -40], [52, 30, 50], [38, 50, 29], [12, 2.5, -0.5]], np.float32)
    return PieceModel(mean, np.full((4, 3), 5.0, np.float32), rings, spore)


def _chip(core: tuple, rim: tuple) -> np.ndarray:
    """float32 (1, P, 3) Lab of one space: ``core`` over the chip's core, ``rim`` elsewhere."""
    lab = np.tile(np.array(rim, np.float32), (1, L.POINTS_PER_SPACE, 1))
    lab[0, RING_POINTS["core"]] = core
    lab[0, L.CAP] = core
    return lab


def _evidence(lab: np.ndarray, spore_of: int) -> np.ndarray:
    ll = np.full(lab.shape[:2] + (len(CLASSES),), -10.0, np.float32)
    pclass = np.array([CLASSES.index(p) for p in PLAYERS])
    flat = np.array([i for i, c in enumerate(CLASSES) if c not in PLAYERS])
    return meeple_evidence(lab, ll, _model(), np.array([spore_of]), pclass, flat)[0]


def test_a_dark_x_on_a_blue_chip_is_no_black_meeple():
    lab = _chip((10.0, 5.7, 3.0), BLUE_CHIP)
    assert _evidence(lab, PLAYERS.index("blue"))[PLAYERS.index("black")] < MEEPLE_MIN_EVIDENCE


def _arms_on_rim(lab: np.ndarray, share: float) -> np.ndarray:
    """The same space with the dark X's arms over ``share`` of the outer ring's points."""
    out = np.arange(L.SYM_OUT.start, L.SYM_OUT.stop)
    lab = lab.copy()
    lab[0, out[: int(round(share * len(out)))]] = (10.0, 5.7, 3.0)
    return lab


def test_a_dark_x_reaching_the_rim_of_a_blue_chip_is_no_black_meeple():
    # meadow in daylight (bench seed 7, board 6): an orange chip's used side, its dark X 25 %
    # larger than calibrated, darkened a third of the outer ring: the rim's percentiles no
    # longer matched the orange spore, black's meeple was read there and the chip called black's
    lab = _arms_on_rim(_chip((10.0, 5.7, 3.0), BLUE_CHIP), 0.4)
    d = chip_rim_distance(symbol_features(lab), _model())[0]
    assert d[PLAYERS.index("blue")] < 1.0 < 4.0 < d[PLAYERS.index("black")]
    assert _evidence(lab, PLAYERS.index("blue"))[PLAYERS.index("black")] < MEEPLE_MIN_EVIDENCE


def test_a_black_meeple_on_a_chip_whose_rim_may_be_black_keeps_its_evidence():
    # the rim read as blue but looking like black's chip: the meeple may be black's on its own spore
    lab = _chip((10.0, 5.7, 3.0), BLACK_CHIP)
    assert _evidence(lab, PLAYERS.index("blue"))[PLAYERS.index("black")] >= MEEPLE_MIN_EVIDENCE


def test_the_rim_tells_whose_chip_it_is():
    d = chip_rim_distance(symbol_features(_chip((10.0, 5.7, 3.0), BLUE_CHIP)), _model())[0]
    assert d[PLAYERS.index("blue")] < 1.0 < 4.0 < d[PLAYERS.index("black")]


def test_no_black_meeple_on_an_orange_chip_whose_dark_x_reaches_its_rim(tmp_path, geo, codes, capsys):
    # meadow in daylight, board 6 of the bench's seed 7: orange's used spore stands alone, its
    # dark X larger than calibrated; black is not in the game.  The reader put black's meeple on
    # it and, black's spore being read nowhere, called the chip black's spore.
    from test_vision_covered_side import styled_table

    reader, frame, board, _, _ = styled_table("meadow", "daylight", 7, 6, tmp_path, geo, codes, capsys)
    at = board["spores"]["orange"]["at"]
    assert board["spores"]["orange"]["used"] is True and at not in board["meeples"].values()
    reading = reader.read(frame.image)
    assert reading.board["spores"]["orange"] == {"at": at, "used": True}
    assert reading.board["meeples"] == board["meeples"]
    assert "black" not in reading.board["spores"]
