"""An empty space at the rim of a small glare spot is the board under glare, not a rock."""

from __future__ import annotations

import numpy as np
import pytest
from test_vision_hard import linear_glare
from test_vision_reader import every_piece
from vision_frames import mild, shoot

from companion.vision import layout as L
from companion.vision.glare import pigment_linear
from companion.vision.profile import load_profile
from companion.vision.reader import BoardReader
from companion.vision.veiled import board_under_glare


def _pigments():
    prof = load_profile()
    pig = pigment_linear(prof.mean)
    return pig[prof.index("board")], pig[prof.index("rock")]


def _rim_of_a_spot(peak: float) -> np.ndarray:
    """float32 (P,) veil (fraction of the white) over a space at the rim of a spot: strong on
    one side, little on the other."""
    return (peak * np.exp(-np.sum((L.OFFSETS - (0.9, 0.0)) ** 2, axis=1) / 0.5)).astype(np.float32)


def test_the_board_lifted_by_the_rim_of_a_spot_is_told_from_a_rock():
    board, rock = _pigments()
    rng = np.random.default_rng(0)
    noise = lambda: rng.normal(0, 0.004, (L.POINTS_PER_SPACE, 3)).astype(np.float32)  # noqa: E731
    veil = _rim_of_a_spot(0.35)[:, None]
    assert board_under_glare(board + veil + noise(), board, rock)[0]
    # a rock, lit evenly or under the same rim of a spot, stays a rock
    assert not board_under_glare(rock + noise(), board, rock)[0]
    assert not board_under_glare(rock + veil + noise(), board, rock)[0]
    # the plain board needs no veil: the Lab reading had its own colour to judge
    assert not board_under_glare(board + noise(), board, rock)[0]


@pytest.fixture(scope="module")
def shot(geo, codes):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(), seed=3)
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
    reader.read(frame.image)
    return board, frame.image, intr, reader.tracker.current


def _spot_off_the_rim(geo, image, reg, at):
    """``image`` with a lamp's reflection just off the board's edge beyond the rim space ``at``:
    it lifts that space, more on one side, about as light as a rock, and its empty neighbours less."""
    h, w = image.shape[:2]
    c, c0 = reg.to_image(np.array([geo.center_mm(at), geo.center_mm((0, 0))], np.float32))
    spot = c + 40.0 * (c - c0) / np.linalg.norm(c - c0)
    return linear_glare(image, (spot[0] / w, spot[1] / h), 45.0, 90.0)


def test_an_empty_rim_space_under_a_small_spot_off_the_board_is_not_a_rock(geo, codes, shot):
    board, image, intr, reg = shot
    at = (4, -2)
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(_spot_off_the_rim(geo, image, reg, at))
    assert reading.spaces[at].kind == "empty"
    assert list(map(list, reading.board["rocks"])) == board["rocks"]  # the real rock is kept


def test_in_play_a_rim_space_lit_by_a_new_spot_stays_empty(geo, codes, shot):
    # the lamp moved after the last commit: only the lifted space is read again, and it is
    # still the empty board, not a rock put down
    board, image, intr, reg = shot
    at = (4, -2)
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
    committed = reader.read(image)
    assert committed.spaces[at].kind == "empty"
    now = reader.read(_spot_off_the_rim(geo, image, reg, at), previous=committed)
    assert now.changed is not None and now.changed >= 1  # read incrementally
    assert now.spaces[at].kind == "empty"


def test_a_rock_whose_art_is_not_one_colour_stays_a_rock_without_glare_beside_it():
    # an independent copy's rock (darker outline) fits "board plus a veil" better than its
    # learned mean colour; but a spot is wider than a space: with no glare on the empty board
    # beside it, it is a rock
    from companion.vision.glare import to_linear, to_srgb
    from companion.vision.veiled import rocks_under_glare

    prof = load_profile()
    board, rock = _pigments()
    white = np.full((3, L.POINTS_PER_SPACE, 3), 220.0, np.float32)
    frac = np.empty((3, L.POINTS_PER_SPACE, 3), np.float32)
    frac[0] = board + _rim_of_a_spot(0.35)[:, None]  # looks like the board under the rim of a spot
    frac[1] = board  # empty neighbour, no glare
    frac[2] = board + 0.08  # empty neighbour under the spot's tail
    bgr = to_srgb(frac * to_linear(white))
    kinds = ["rock", "empty", "empty"]
    args = (prof.mean, prof.index("board"), prof.index("rock"))
    assert rocks_under_glare(bgr, white, kinds, *args, neighbours=[[1], [0], [0]]) == []
    found = rocks_under_glare(bgr, white, kinds, *args, neighbours=[[1, 2], [0], [0]])
    assert [s for s, _ in found] == [0]

