"""Reading in play: an unchanged board costs no marker search, a bumped or covered board does."""

from __future__ import annotations

import numpy as np
from test_vision_reader import every_piece
from vision_frames import SIZE, mild, normalised, shoot

from companion.sim.render import make_camera
from companion.vision.reader import BoardReader


def _noisy(image: np.ndarray, seed: int) -> np.ndarray:
    """The same view with new sensor noise (a later frame of a still table)."""
    noise = np.random.default_rng(seed).normal(0, 3.0, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _first(geo, codes, cond):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, cond, seed=1, camera=make_camera(geo, cond, SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    return board, frame, reader, reader.read(frame.image)


def test_a_still_board_is_read_without_searching_the_markers(geo, codes):
    board, frame, reader, first = _first(geo, codes, mild())
    assert first.rechecked
    same = reader.read(_noisy(frame.image, 2), previous=first)
    assert not same.rechecked and same.changed == 0
    assert normalised(same.board) == normalised(board)
    # the reference stays the frame the markers were last found in
    assert same.marker_samples is first.marker_samples


def test_a_bumped_board_is_registered_again_and_read_right(geo, codes):
    board, _, reader, first = _first(geo, codes, mild())
    bumped = mild(board_rotation_deg=6.5)  # the board turned by 1.5 degrees on the table
    frame, _ = shoot(board, geo, bumped, seed=4, camera=make_camera(geo, bumped, SIZE))
    moved = reader.read(frame.image, previous=first)
    assert moved.rechecked and reader.tracker.last_event == "re-registered"
    assert moved.registration is not first.registration
    assert normalised(moved.board) == normalised(board)


def test_a_hand_over_a_marker_makes_the_reader_look_again(geo, codes):
    board, frame, reader, first = _first(geo, codes, mild())
    covered = _noisy(frame.image, 3)
    x, y = np.round(first.registration.markers_px[0].mean(0)).astype(int)
    covered[y - 25:y + 25, x - 25:x + 25] = (90, 120, 170)  # skin over the marker's middle
    reading = reader.read(covered, previous=first)
    assert reading.rechecked and reader.tracker.last_event == "cached-partial"
    assert normalised(reading.board) == normalised(board)
