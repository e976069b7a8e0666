"""Hard conditions: a glare spot over the pieces, a marker the full-frame pass misses."""

from __future__ import annotations

import cv2
import numpy as np
from vision_frames import mild, normalised, shoot
from test_vision_reader import every_piece

from calibration.intrinsics import Intrinsics
from companion.vision.markers import MarkerFinder
from companion.vision.reader import BoardReader


def linear_glare(image: np.ndarray, xy: tuple[float, float], radius_px: float, level: float) -> np.ndarray:
    """A lamp's reflection as a camera sees it: a round spot of ``level`` (linear light,
    0-255 scale) added before the sRGB gamma, clipped at 255 like a sensor."""
    from companion.vision.glare import to_linear, to_srgb

    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = np.exp(-((xx - xy[0] * w) ** 2 + (yy - xy[1] * h) ** 2) / (2 * radius_px**2))
    return np.clip(to_srgb(to_linear(image) + level * spot[:, :, None]), 0, 255).astype(np.uint8)


def test_a_strong_glare_spot_is_removed(geo, codes):
    # a spot of 80 linear levels lifts the dark board by about 90 of 255 8-bit levels
    board = every_piece(codes)
    cond = mild(blur_sigma=1.2, noise_sigma=4.0, jpeg_quality=75)
    frame, intr = shoot(board, geo, cond, seed=5)
    image = linear_glare(frame.image, (0.45, 0.4), 60.0, 80.0)
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(image)
    assert normalised(reading.board) == normalised(board, seen=reading.board)


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


def _steep_board(codes):
    from companion.tiles import rotate_code

    at = [(0, 0), (1, -1), (-1, 1), (0, -1), (1, 0), (-3, 1), (3, -2), (2, 1)]
    return {"tiles": [{"at": [q, r], "paths": rotate_code(codes[(3 * i) % len(codes)], i % 6)} for i, (q, r) in enumerate(at)],
            "rocks": [[-2, 2]], "trees": [{"at": [2, -3], "mycorrhizae": [None, "blue", None, None]}], "substrates": [],
            "spores": {"blue": {"at": [0, -4], "used": False}, "red": {"at": [-4, 4], "used": True}},
            "meeples": {"blue": [-3, 1], "red": [3, -2]}}


def test_steep_camera_and_a_saturating_glare_spot_over_tiles_and_meeples(geo, codes):
    # the spot clips the cream tiles to white (they must not turn into rocks once it is taken
    # off); under a 25-30 degree tilt a meeple's cap is seen beside the space centre
    board = _steep_board(codes)
    for k, (tilt, gx, gy) in enumerate([(28, 0.5, 0.5), (30, 0.45, 0.55), (25, 0.55, 0.45), (30, 0.4, 0.4)]):
        cond = mild(tilt_deg=tilt, tilt_direction_deg=40.0 + 60 * k, blur_sigma=1.2, noise_sigma=4.0, jpeg_quality=75)
        frame, intr = shoot(board, geo, cond, seed=k)
        image = linear_glare(frame.image, (gx, gy), 70.0, 110.0)
        reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(image)
        assert normalised(reading.board) == normalised(board, seen=reading.board), k


def test_camera_pose_from_the_registration_finds_raised_points(geo):
    from companion.sim.render import make_camera
    from companion.vision.pose import project_raised
    from companion.vision.registration import compute_registration
    from vision_frames import SIZE

    for cond in (mild(tilt_deg=28.0, dist=(0, 0, 0, 0, 0)), mild(tilt_deg=12.0, tilt_direction_deg=200.0, dist=(0, 0, 0, 0, 0))):
        cam = make_camera(geo, cond, SIZE)
        found = {m.id: cam.project(np.column_stack([geo.marker_corners_mm(m.id), np.zeros(4)])).astype(np.float32)
                 for m in geo.markers}
        pts = np.array([geo.center_mm(h) for h in geo.spaces], np.float64)
        want = cam.project(np.column_stack([pts, np.full(len(pts), -13.0)]))
        for intr in (Intrinsics(cam.k, cam.dist, SIZE, 0.0), None):  # without intrinsics: focal from the homography
            reg = compute_registration(geo, found, SIZE, intr)
            assert np.abs(project_raised(reg, pts, 13.0) - want).max() < 0.5


def test_clipped_samples_are_scored_by_what_could_clip():
    from companion.vision.glare import clipped_log_likelihood
    from companion.vision.profile import CLASSES, LL_FLOOR, load_profile

    p = load_profile()
    raw = np.array([[255.0, 255.0, 255.0], [120.0, 255.0, 255.0]], np.float32)  # cream tile; yellow path
    white = np.full((2, 3), 235.0, np.float32)
    ll = clipped_log_likelihood(raw, white, np.full(2, 80.0, np.float32), p.mean, p.std, LL_FLOOR)
    tile, rock, yellow = (CLASSES.index(c) for c in ("tile", "rock", "yellow"))
    assert ll[0, tile] > ll[0, rock] + 5
    assert ll[1, yellow] > max(ll[1, tile], ll[1, rock]) + 5


def test_a_spore_chip_under_the_cap_points_is_no_meeple():
    from companion.vision import layout as L
    from companion.vision.classify import CI, meeple_colour
    from companion.vision.profile import load_profile

    p = load_profile()
    lab = np.tile(p.mean[CI["tile"]], (3, L.POINTS_PER_SPACE, 1)).astype(np.float32)
    lab[0, L.CENTRE], lab[0, L.CAP] = p.mean[CI["white"]], p.mean[CI["red"]]  # spore's dot, chip beside it
    lab[1, L.CENTRE], lab[1, L.CAP] = 0.6 * p.mean[CI["black"]] + 0.4 * p.mean[CI["tree"]], p.mean[CI["black"]]  # stem, cap
    lab[2, L.CENTRE], lab[2, L.CAP] = p.mean[CI["blue"]], p.mean[CI["tile"]]  # cap over the centre
    got = meeple_colour(lab, p, np.zeros((3, len(p.mean)), np.float32))
    assert list(got) == [-1, CI["black"], CI["blue"]]
