"""Hard conditions: a glare spot over the pieces, a marker the full-frame pass misses."""

from __future__ import annotations

import cv2
import numpy as np
from vision_frames import mild, normalised, shoot
from test_vision_reader import every_piece

from companion.vision.markers import MarkerFinder
from companion.vision.reader import BoardReader


def test_a_strong_glare_spot_is_removed(geo, codes):
    board = every_piece(codes)
    cond = mild(glare=75.0, glare_xy=(0.45, 0.4), glare_radius=60.0, blur_sigma=1.2, noise_sigma=4.0, jpeg_quality=75)
    frame, intr = shoot(board, geo, cond, seed=5)
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(frame.image)
    assert normalised(reading.board) == normalised(board)


def test_a_washed_out_marker_is_found_where_the_others_predict_it(geo):
    frame, _ = shoot({"tiles": []}, geo, mild(dist=(0, 0, 0, 0, 0)))
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    corners = np.array(frame.truth["markers_px"][0])
    x0, y0 = np.floor(corners.min(0) - 6).astype(int)
    x1, y1 = np.ceil(corners.max(0) + 6).astype(int)
    patch = gray[y0:y1, x0:x1].astype(np.float32)
    gray[y0:y1, x0:x1] = np.clip(128 + 0.25 * (patch - 128), 0, 255).astype(np.uint8)  # low contrast
    finder = MarkerFinder(geo)
    found = {i: c for i, c in finder.detect(gray).items() if i != 0}  # as if the full pass missed it
    found = finder.find_missing(gray, found)
    assert sorted(found) == [0, 1, 2, 3]
    assert np.abs(found[0] - corners).max() < 2.0


def test_a_covered_marker_is_not_invented(geo):
    frame, _ = shoot({"tiles": []}, geo, mild())
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    corners = np.array(frame.truth["markers_px"][2])
    x0, y0 = np.floor(corners.min(0) - 10).astype(int)
    x1, y1 = np.ceil(corners.max(0) + 10).astype(int)
    gray[y0:y1, x0:x1] = 170
    finder = MarkerFinder(geo)
    assert sorted(finder.find_missing(gray, finder.detect(gray))) == [0, 1, 3]
