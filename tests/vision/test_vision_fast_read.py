"""A full read's shortcuts change nothing it reads.

A full read must fit in 25 ms (issue 10), so it skips work whose result it does not need: the
glare fit builds the other explanations of each space only once a spot is searched for, the
frame check remaps only the pixels it measures, rocks under glare are judged all at once.
Each shortcut is held here to the plain path it replaced, on a frame without glare (where the
shortcuts are taken) and on one under a strong spot (where the full glare fit runs).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_vision_hard import linear_glare
from test_vision_reader import every_piece
from vision_frames import mild, shoot

import companion.vision.reader as reader_module
from companion.vision.check import CHECK_PX_PER_MM, _check_pixels, _masks
from companion.vision.geometry import load_board
from companion.vision.profile import load_profile
from companion.vision.rectify import rectify
from companion.vision.glare import pigment_linear
from companion.vision.veiled import MIN_VEIL, board_under_glare, rocks_under_glare, white_fraction, zone_fit


@pytest.fixture(scope="module")
def frames(geo, codes):
    """(name, image, intrinsics): the same board without glare and under a strong spot."""
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(blur_sigma=1.0, noise_sigma=3.0, jpeg_quality=80), seed=0)
    return [("clean", frame.image, intr), ("glare", linear_glare(frame.image, (0.45, 0.4), 60.0, 80.0), intr)]


def plain_fit(fit):
    """The glare fit as it was called before: every other explanation built up front."""
    def run(*args, **kw):
        args = list(args)
        if callable(args[6]):
            args[6] = args[6]()
        return fit(*args, **kw)
    return run


def spaces_of(reading) -> list:
    return [(h, r.kind, r.code, r.player, r.used, r.slots, r.meeple, r.confidence, r.reason, r.side_unknown)
            for h, r in reading.spaces.items()]


@pytest.mark.parametrize("which", ["clean", "glare"])
def test_a_full_read_is_the_same_through_the_shortcuts(frames, geo, codes, monkeypatch, which):
    _, image, intr = next(f for f in frames if f[0] == which)
    built, real = [], reader_module.alternative_classes

    def counted(readings):
        built.append(len(readings))
        return real(readings)

    monkeypatch.setattr(reader_module, "alternative_classes", counted)
    fast = reader_module.BoardReader(geo, intrinsics=intr, tile_codes=codes).read(image)
    built_fast = list(built)
    monkeypatch.setattr(reader_module, "fit_veil_from_readings", plain_fit(reader_module.fit_veil_from_readings))
    plain = reader_module.BoardReader(geo, intrinsics=intr, tile_codes=codes).read(image)
    assert spaces_of(fast) == spaces_of(plain)
    assert fast.board == plain.board
    assert (fast.veil is None) == (plain.veil is None) and (fast.veil is None or np.array_equal(fast.veil, plain.veil))
    if which == "clean":
        # no space lifted above its reading: no spot searched for, the explanations never built
            assert fast.veil is None and not built_fast
    else:
        assert fast.veil is not None and built_fast


@pytest.mark.parametrize("which", ["clean", "glare"])
def test_the_frame_check_measures_the_rectified_views_own_pixels(frames, geo, codes, which):
    _, image, intr = next(f for f in frames if f[0] == which)
    reader = reader_module.BoardReader(geo, intrinsics=intr, tile_codes=codes)
    reg = reader.tracker.register(image)
    view = rectify(image, reg, geo, CHECK_PX_PER_MM)
    label, ring = _masks(geo, view.shape[:2], CHECK_PX_PER_MM, reg)
    flat = label.ravel()
    idx = np.flatnonzero(flat >= 0)
    idx = idx[np.argsort(flat[idx], kind="stable")]
    board, white = _check_pixels(image, reg, geo)
    assert np.array_equal(board, view.reshape(-1, 3)[idx])  # every pixel, grouped by space
    assert np.array_equal(white, view[ring])


def test_rocks_under_glare_are_judged_as_space_by_space():
    """:func:`rocks_under_glare` (all rocks at once) against :func:`board_under_glare` and
    :func:`zone_fit`, one rock and one neighbour at a time, on boards lifted by glare or not."""
    geo, p = load_board(), load_profile()
    where = {h: i for i, h in enumerate(geo.spaces)}
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
    near = [[where[n] for n in ((h[0] + a, h[1] + b) for a, b in steps) if n in where] for h in geo.spaces]
    pig = pigment_linear(p.mean)
    board, rock = p.index("board"), p.index("rock")
    rng = np.random.default_rng(0)
    found = 0
    for t in range(60):
        S = len(geo.spaces)
        white = np.full((S, 138, 3), rng.uniform(150, 230), np.float32) + rng.normal(0, 3, (S, 138, 3)).astype(np.float32)
        lift = rng.uniform(0, 120) * rng.random((S, 1, 1))
        bgr = np.clip(rng.normal(rng.uniform(40, 90), 8, (S, 138, 3)) + lift, 0, 255)
        bgr = (np.round(bgr) if t % 2 else bgr).astype(np.float32)  # camera levels, or glare taken off
        kinds = list(rng.choice(["rock", "empty", "tile", ""], S, p=[0.3, 0.4, 0.2, 0.1]))
        plain = []
        for s in (i for i, k in enumerate(kinds) if k == "rock"):
            glared, veil = board_under_glare(white_fraction(bgr[s], white[s]), pig[board], pig[rock])
            lit = [zone_fit(white_fraction(bgr[n], white[n]), pig[board])[1].mean() for n in near[s] if kinds[n] == "empty"]
            if glared and lit and max(lit) >= MIN_VEIL:
                plain.append((s, veil))
        assert rocks_under_glare(bgr, white, kinds, p.mean, board, rock, near) == plain
        found += len(plain)
    assert found > 0  # some rocks were the board under glare
