"""The glare spot is measured whole: heavy-tailed lamp reflections, cores the camera clips."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.glare import SATURATED, fit_veil_from_readings, pigment_linear, to_linear, to_srgb
from companion.vision.profile import load_profile


def _board_under(spot_peak: float, radius_px: float, sharpness: float, seed: int = 0):
    """Samples of an empty dark board (11 x 9 spaces, 45 px apart, 40 points each) under a spot
    of the simulated camera's shape ``peak / (1 + (d/r)^2)^p`` (linear levels), clipped at 255."""
    rng = np.random.default_rng(seed)
    prof = load_profile()
    k = prof.index("board")
    xs, ys = np.meshgrid(np.arange(11) * 45.0 + 600, np.arange(9) * 45.0 + 340)
    centres = np.column_stack([xs.ravel(), ys.ravel()])
    pts = centres[:, None, :] + rng.uniform(-15, 15, (len(centres), 40, 2))
    d2 = np.sum((pts - (830.0, 520.0)) ** 2, axis=2)
    veil = spot_peak / (1 + d2 / radius_px**2) ** sharpness
    white = np.full(pts.shape[:2] + (3,), 235.0, np.float32)
    lin = to_linear(white) * pigment_linear(prof.mean)[k] + veil[..., None]
    bgr = np.clip(to_srgb(lin) + rng.normal(0, 1.5, lin.shape), 0, 255).astype(np.float32)
    expected = np.full(pts.shape[:2], k)
    return bgr, white, expected, prof.mean, centres, np.ones(len(centres), np.float32)


@pytest.mark.parametrize("peak,radius,sharpness", [(60.0, 110.0, 1.5), (90.0, 140.0, 1.2), (95.0, 90.0, 1.5),
                                                    (95.0, 60.0, 2.0), (120.0, 130.0, 1.3)])
def test_a_heavy_tailed_spot_is_fitted_at_its_real_strength(peak, radius, sharpness):
    bgr, white, expected, mean, centres, weight = _board_under(peak, radius, sharpness)
    veil = fit_veil_from_readings(bgr, white, expected, mean, centres, weight)
    assert veil is not None
    assert abs(veil.amplitude - peak) <= 0.1 * peak  # a Gaussian fit comes out 15-20 % low
    # and where the board lies away from the core, the veil taken off is about the one there
    d2 = np.sum((centres - (830.0, 520.0)) ** 2, axis=1)
    ring = (d2 > (1.5 * radius) ** 2) & (d2 < (2.5 * radius) ** 2)
    true = peak / (1 + d2[ring] / radius**2) ** sharpness
    assert np.median(np.abs(veil.at(centres[ring]) - true)) <= 0.15 * peak


def test_a_spot_whose_core_clips_is_not_underrated():
    bgr, white, expected, mean, centres, weight = _board_under(200.0, 100.0, 1.5)
    assert (bgr.max(2) >= SATURATED).any()  # the core clips
    veil = fit_veil_from_readings(bgr, white, expected, mean, centres, weight)
    assert veil is not None and abs(veil.amplitude - 200.0) <= 0.1 * 200.0


def test_an_unsure_space_with_a_few_clipped_points_is_unreadable_not_guessed(geo):
    from companion.vision import layout as L
    from companion.vision.classify import SpaceReading
    from companion.vision.reader import BoardReader

    reader = BoardReader(geo, refine_grid=False)
    n = len(geo.spaces) * L.POINTS_PER_SPACE
    bgr = np.full((n + 64, 3), 120.0, np.float32)
    few = max(1, L.POINTS_PER_SPACE // 20)  # 5 % of a space's points clip
    for s in (0, 1):
        bgr[s * L.POINTS_PER_SPACE:s * L.POINTS_PER_SPACE + few] = 255.0
    def marked(veil):
        readings = [SpaceReading("empty", confidence=0.9) for _ in geo.spaces]
        readings[0].confidence = 0.3  # unsure and clipped
        readings[1].confidence = 0.9  # sure despite the clipped points
        readings[2].confidence = 0.3  # unsure but nothing clipped (held by the table loop)
        reader._mark_glare(bgr, readings, veil=veil)
        return readings

    under_spot = marked(np.full(len(bgr), 40.0, np.float32))
    assert under_spot[0].reason and "move the lamp" in under_spot[0].reason and under_spot[0].confidence == 0.0
    assert under_spot[1].reason is None and under_spot[2].reason is None
    # without a glare spot a point or two of a white symbol may clip in a bright frame: no blame on glare
    assert all(r.reason is None for r in marked(None))


def test_a_small_spot_whose_spaces_were_first_read_as_rock_is_fitted_at_its_strength():
    # a spot of two or three spaces lifts the dark board until it looks like a rock: the first
    # reading calls those spaces rocks, and a fit that trusts it finds almost no glare there
    from companion.vision import layout as L
    from companion.vision.classify import SpaceReading
    from companion.vision.glare import alternative_classes, expected_classes

    rng = np.random.default_rng(3)
    prof = load_profile()
    board, rock = prof.index("board"), prof.index("rock")
    xs, ys = np.meshgrid(np.arange(11) * 60.0 + 600, np.arange(9) * 60.0 + 300)
    centres = np.column_stack([xs.ravel(), ys.ravel()])
    pts = centres[:, None, :] + L.OFFSETS[None] * 38.0  # the reader's sample layout, 38 px hex size
    peak, radius, centre = 70.0, 65.0, np.array([905.0, 545.0])
    veil = peak / (1 + np.sum((pts - centre) ** 2, axis=2) / radius**2) ** 1.5
    white = np.full(pts.shape[:2] + (3,), 235.0, np.float32)
    lin = to_linear(white) * pigment_linear(prof.mean)[board] + veil[..., None]
    bgr = np.clip(to_srgb(lin) + rng.normal(0, 1.5, lin.shape), 0, 255).astype(np.float32)
    level = veil.mean(1)
    readings = [SpaceReading("rock" if v > 25 else "empty", confidence=0.8) for v in level]
    assert sum(r.kind == "rock" for r in readings) >= 2
    expected = expected_classes(readings, None)
    assert ((expected[level > 25] == rock) | (expected[level > 25] < 0)).all()
    fit = fit_veil_from_readings(bgr, white, expected, prof.mean, pts, np.full(len(centres), 0.85, np.float32),
                                 alternative_classes(readings))
    assert fit is not None
    got = fit.at(pts.reshape(-1, 2)).reshape(level.shape[0], -1).mean(1)
    core = level > 25
    assert np.all(np.abs(got[core] - level[core]) <= 0.2 * level[core])


def test_the_veil_taken_off_under_a_warm_lamp_has_the_lamp_colour():
    # a warm lamp half corrected by the camera leaves the paper orange; its reflection is as
    # orange, so taking off a grey veil would leave the glared board blue
    from companion.vision.glare import white_tint

    prof = load_profile()
    k = prof.index("board")
    lamp = np.array([0.45, 1.0, 1.6], np.float32)  # BGR, linear: blue weak, red strong
    lamp /= lamp.mean()
    xs, ys = np.meshgrid(np.arange(11) * 45.0 + 600, np.arange(9) * 45.0 + 340)
    centres = np.column_stack([xs.ravel(), ys.ravel()])
    pts = centres[:, None, :] + np.random.default_rng(1).uniform(-15, 15, (len(centres), 40, 2))
    veil = 60.0 / (1 + np.sum((pts - (830.0, 520.0)) ** 2, axis=2) / 110.0**2) ** 1.5
    white = np.broadcast_to(to_srgb(np.full(3, 180.0, np.float32) * lamp), pts.shape[:2] + (3,)).astype(np.float32)
    lin = to_linear(white) * pigment_linear(prof.mean)[k] + veil[..., None] * lamp
    bgr = np.clip(to_srgb(lin), 0, 255).astype(np.float32)
    tint = white_tint(white)
    assert np.allclose(tint, lamp, atol=0.05)
    fit = fit_veil_from_readings(bgr, white, np.full(pts.shape[:2], k), prof.mean, centres, np.ones(len(centres), np.float32),
                                 tint=tint)
    assert fit is not None and abs(fit.amplitude - 60.0) <= 6.0
    assert np.allclose(fit.colour, lamp, atol=0.05)
