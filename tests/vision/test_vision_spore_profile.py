"""A spore's side read at whatever size its symbol is printed.

A copy prints each symbol within +-25 % of the documented size, so the one on the board may be
0.6 to 1.67 times the one photographed at calibration.  Bands art in daylight, board 10 of the
bench's seed 7: blue's used side shows an X smaller than the calibrated one.  Ring by ring it
looked like the unused dot (the core showing the chip between the arms, the outer ring none of
them), and the side was read "unused".  Its radial profile (how far each ring's colour lies from
the chip's own) spreads from the centre to the middle of the chip, where a dot of any size
stops short (:func:`companion.vision.pieces.profile_distance`)."""

from __future__ import annotations

import numpy as np

from companion.vision.pieces import PROFILE_RADII, profile_distance, profile_offsets, radial_profile
from test_vision_covered_side import styled_table


def _x_profile(scale: float) -> np.ndarray:
    """A light X's radial profile (per cent of its contrast): the arms (0.09 s wide) cover a share falling as 1/r."""
    reach, width = 0.45 * scale, 0.09 * scale
    share = np.clip(4 * width / (2 * np.pi * np.maximum(PROFILE_RADII, 1e-3)), 0, 1)
    return np.where(PROFILE_RADII <= reach, 100 * share, 0.0)


def _dot_profile(scale: float) -> np.ndarray:
    return np.where(PROFILE_RADII <= 0.12 * scale, 100.0, 0.0)


def test_a_smaller_x_is_nearer_the_used_side_than_a_dot_of_any_size():
    used, unused = _x_profile(1.2), _dot_profile(1.0)
    for scale in (0.75, 0.9, 1.25):
        x, dot = _x_profile(scale * 0.8)[None], _dot_profile(scale)[None]
        assert profile_distance(x, used)[0] < profile_distance(x, unused)[0]
        assert profile_distance(dot, unused)[0] < profile_distance(dot, used)[0]


def test_a_used_spore_with_a_smaller_x_reads_used(tmp_path, geo, codes, capsys):
    reader, frame, board, _, prof = styled_table("bands", "daylight", 7, 10, tmp_path, geo, codes, capsys)
    blue = board["spores"]["blue"]
    assert blue["used"] is True and blue["at"] not in board["meeples"].values()
    reading = reader.read(frame.image)
    assert reading.board["spores"]["blue"] == blue
    # every other spore keeps its side (or, under its own meeple, says it cannot see it)
    for p, s in reading.board["spores"].items():
        assert s["at"] == board["spores"][p]["at"]
        assert s["used"] in (board["spores"][p]["used"], None)


def _chip_lab(symbol: str, scale: float, contrast: float = 1.0, slope: float = 0.0) -> np.ndarray:
    """float32 (1, R * A, 3) Lab at :func:`profile_offsets` of an orange chip with a white dot or
    a white X of ``scale`` times the documented size, the symbol's contrast times ``contrast``
    and the lightness rising by ``slope`` L units per unit of s across the chip."""
    off = profile_offsets()
    r = np.hypot(off[:, 0], off[:, 1])
    if symbol == "dot":
        on = r <= 0.12 * scale
    else:  # arms along the diagonals, 0.09 s wide, reaching 0.45 s
        along = np.abs(off @ np.array([[1, 1], [1, -1]], np.float32).T / np.sqrt(2))
        across = along[:, ::-1]
        on = ((across <= 0.045 * scale) & (along <= 0.45 * scale)).any(axis=1)
    chip, white = np.array([62.0, 30.0, 55.0]), np.array([95.0, 0.0, 2.0])
    lab = np.where(on[:, None], chip + contrast * (white - chip), chip)
    lab[:, 0] += slope * off[:, 0]
    return lab[None].astype(np.float32)


def test_a_dot_under_glare_is_not_taken_for_an_x():
    # bands under the promised glare (bench seed 2024, board 6): the spot over orange's unused
    # side lifted the chip and halved the dot's contrast, and lit one side of the chip more
    unused = radial_profile(_chip_lab("dot", 1.0))[0]
    used = radial_profile(_chip_lab("x", 1.0))[0]
    for scale in (0.8, 1.25):
        glared = radial_profile(_chip_lab("dot", scale, contrast=0.5, slope=40.0))
        assert profile_distance(glared, unused)[0] < profile_distance(glared, used)[0]
        small_x = radial_profile(_chip_lab("x", scale * 0.75, contrast=0.5, slope=40.0))
        assert profile_distance(small_x, used)[0] < profile_distance(small_x, unused)[0]


def _model_with_profiles():
    from companion.vision.pieces import PieceModel, STATS

    unused = np.array([[30.0, 80.0, 90.0, 40.0, 40.0], [30.0, 31.0, 33.0, 40.0, 40.0], [30.0, 31.0, 33.0, 40.0, 40.0]])
    used = np.array([[30.0, 80.0, 90.0, 40.0, 40.0], [30.0, 32.0, 85.0, 40.0, 40.0], [30.0, 32.0, 80.0, 40.0, 40.0]])
    spore = np.stack([np.stack([unused, used])] * 4).astype(np.float32)
    prof = np.stack([np.stack([_dot_profile(1.0), _x_profile(1.0)])] * 4).astype(np.float32)
    z = np.zeros((4, 3), np.float32)
    return PieceModel(z, z + 1, np.zeros((4, 3, STATS), np.float32), spore, side_profile=prof), unused, used


def test_a_profile_fitting_neither_side_leaves_the_side_to_the_rings():
    # meadow under a warm lamp (bench seed 2024, board 11): red's pale dots lay off the space's
    # centre, and their profile, falling from the centre, fitted neither side (1.4 from the
    # used one, 3.9 from the unused one), while every ring read the unused side
    model, unused, used = _model_with_profiles()
    rings = (unused + 0.4 * (used - unused))[None].astype(np.float32)  # nearer the unused side
    odd = np.clip(100.0 - 400.0 * PROFILE_RADII, 5.0, 100.0)[None].astype(np.float32)
    used_read, conf = model.spore_side(rings, np.array([2]), np.array([False]), odd)
    assert not used_read[0] and conf[0] > 0.5


def test_a_profile_fitting_the_used_side_outweighs_rings_that_look_unused():
    model, unused, _ = _model_with_profiles()
    small_x = _x_profile(0.8)[None].astype(np.float32)
    used_read, conf = model.spore_side(unused[None].astype(np.float32), np.array([0]), np.array([False]), small_x)
    assert used_read[0] and conf[0] > 0.5
