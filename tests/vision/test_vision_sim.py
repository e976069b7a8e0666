"""The synthetic camera: ground truth agrees with what is drawn, and a seed repeats a frame."""

from __future__ import annotations

import numpy as np
from vision_frames import SIZE, mild

from companion.sim.render import make_camera, random_conditions, render
from companion.sim.render_scene import random_board
from companion.vision.registration import BoardTracker


def test_truth_marker_corners_match_the_drawn_markers(geo):
    cond = mild(tilt_deg=25.0, dist=(-0.15, 0.03, 0, 0, 0))
    frame = render({}, geo, cond, np.random.default_rng(1), size=SIZE)
    found = BoardTracker(geo).detect(frame.image[:, :, 1])
    assert sorted(found) == [0, 1, 2, 3]
    for i, corners in found.items():
        assert np.abs(corners - np.array(frame.truth["markers_px"][i])).max() < 1.5  # px


def test_same_seed_same_frame_and_valid_random_boards(geo, codes):
    boards = [random_board(np.random.default_rng(9), geo, codes) for _ in range(2)]
    assert boards[0] == boards[1]
    b = boards[0]
    spaces = [tuple(t["at"]) for t in b["tiles"]] + [tuple(r) for r in b["rocks"]] + \
        [tuple(t["at"]) for t in b["trees"]] + [tuple(s["at"]) for s in b["substrates"]] + \
        [tuple(s["at"]) for s in b["spores"].values()]
    assert len(spaces) == len(set(spaces)), "one piece per space"
    assert set(b["meeples"]) == set(b["spores"])
    cond = random_conditions(np.random.default_rng(3), hard=True)
    cam = make_camera(geo, cond, (640, 360))
    a = render(b, geo, cond, np.random.default_rng(5), size=(640, 360), camera=cam).image
    c = render(b, geo, cond, np.random.default_rng(5), size=(640, 360), camera=cam).image
    assert a.shape == (360, 640, 3) and np.array_equal(a, c)
