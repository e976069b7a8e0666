"""Is this frame usable at all?  Checks of the whole board's colour before any space is read.

A camera set to monochrome, a lens cap, a lamp switched off or blazing, a white balance run
wild: each gives a frame the markers still register, and the classifier would turn it into a
confident board of nonsense (a greyscale frame reads as 52 rocks at 0.97).  :func:`check_frame`
measures, on a coarse rectified view of the board (:data:`CHECK_PX_PER_MM`):

- the white paper around the four markers (the reader's white reference): too dark, too bright
  (clipped board), or a strong colour cast when its channels are far apart;
- the colour left after white balance: a frame without colour has none anywhere on the board;
- how much of the board's surface lies far from every class of the colour profile.

Each failure raises :class:`~companion.vision.errors.FrameQualityError` with a sentence saying
what is wrong with the camera, and a ``kind`` the live loop and the dashboard can show.
Thresholds were set on the synthetic bench (``bench/frame_check.py`` prints the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.errors import FrameQualityError
from companion.vision.geometry import BoardGeometry
from companion.vision.profile import ColourProfile
from companion.vision.rectify import MARGIN_MM, rectify_maps

CHECK_PX_PER_MM = 0.35
"""Scale of the rectified view the checks look at (about 3 mm per pixel: 37,000 pixels, 10,000 of them inside the spaces)."""
DARK_WHITE = 40.0
"""The markers' white paper below this (of 255, brightest channel) is a frame far too dark."""
BRIGHT_CLIPPED = 0.3
"""A board whose surface is clipped white (all channels >= 250) over more than this fraction
is far too bright; a glare spot clips a few % on the bench and is handled per space."""
MIN_CHROMA = 8.0
"""Colourfulness (95th percentile of max - min channel, 8-bit units, after white balance) of
the board below which the frame has no usable colour; the plain empty board measures 25-40."""
CAST_RATIO = 0.45
"""The white paper's weakest channel below this fraction of its strongest is a colour cast
stronger than white balance can undo (the weak channel has lost its levels)."""
OFF_PROFILE_SIGMA = 3.0
"""A space whose colour (half its pixels or more) is farther than this many standard deviations (diagonal
Mahalanobis in Lab) from every class in :data:`SURFACES` is off profile."""
SURFACES = ("board", "tile", "pink", "yellow", "green")
"""The profile classes that cover most of a space: the empty board, and a tile with its paths."""
OFF_SPACE_SHARE = 0.25
"""A space is off profile when fewer than this share of its pixels look like board or tile base."""
OFF_PROFILE_FRACTION = 0.45
"""More than this fraction of the spaces off profile: the frame's colours as a whole are not
the calibrated ones.  Trees, substrates, spores and rocks cover at most a quarter of the spaces.
``bench/frame_check.py`` (16 frames, standard and hard light, 10-50 tiles, built-in profile):
normal frames 0.07-0.21; red and blue swapped 0.26-0.89 (11 of 16 refused); hues turned by
+60 degrees 0.33-0.87 (12 of 16), by -60 degrees 0.90-0.98 (all).  The independent renderer's
photos with their own calibrated profiles: 0-0.03, swapped 0.69-0.98.  A coarse check that
catches a camera whose colour processing changed wholesale, not a subtle drift (the per-space
confidences show that)."""


@dataclass
class FrameStats:
    """What :func:`measure_frame` saw.  ``white_bgr``: float (3,) median BGR of the markers'
    white paper (0-255); ``clipped``: fraction of board pixels clipped white; ``chroma``: 95th
    percentile colourfulness after white balance (0-255); ``off_profile``: fraction of spaces
    whose colour is far from every profile class (``None`` without a profile)."""

    white_bgr: np.ndarray
    clipped: float
    chroma: float
    off_profile: float | None

    def to_json(self) -> dict:
        return {"white_bgr": [round(float(v), 1) for v in self.white_bgr], "clipped": round(self.clipped, 4),
                "chroma": round(self.chroma, 2),
                "off_profile": None if self.off_profile is None else round(self.off_profile, 4)}


def _masks(geo: BoardGeometry, shape: tuple[int, int], ppm: float, reg) -> tuple[np.ndarray, np.ndarray]:
    """int32 (h, w) label of the space each pixel of the rectified view lies in (-1: none, the
    inner 80 % of each space only), and the bool (h, w) mask of the markers' white ring."""
    x0, y0, _, _ = geo.extent_mm(MARGIN_MM)
    h, w = shape
    gx, gy = np.meshgrid((np.arange(w) + 0.5) / ppm + x0, (np.arange(h) + 0.5) / ppm + y0)
    label = np.full((h, w), -1, np.int32)
    r = 0.8 * geo.hex_size_mm
    for k, q in enumerate(geo.spaces):
        cx, cy = geo.center_mm(q)
        label[(gx - cx) ** 2 + (gy - cy) ** 2 <= r * r] = k
    ring = np.zeros((h, w), bool)
    for m in geo.markers:
        cx, cy = np.asarray(m.center_mm, np.float32) + reg.marker_offset(m.id)  # where it really sits
        d = np.maximum(np.abs(gx - cx), np.abs(gy - cy))
        ring |= (d >= geo.marker_size_mm / 2 + 1.5) & (d <= geo.marker_size_mm / 2 + 6.0)
    return label, ring


_CHECK_KEY = ("check-pixels", CHECK_PX_PER_MM)


def _check_pixels(frame: np.ndarray, reg, geo: BoardGeometry) -> tuple[np.ndarray, np.ndarray]:
    """The pixels of the coarse rectified view (:data:`CHECK_PX_PER_MM`) the checks look at,
    uint8 BGR: those inside the spaces (n, 3), grouped by space in board order, and those of
    the markers' white ring (m, 3).  Only these are remapped (about a third of the view): the
    remap of one pixel does not depend on the others, so they are the view's pixels bit for bit
    (:func:`~companion.vision.rectify.rectify`).  Their remap tables are cached in ``reg``."""
    if _CHECK_KEY not in reg.cache:
        m1, m2 = rectify_maps(reg, geo, CHECK_PX_PER_MM)
        label, ring = _masks(geo, m2.shape[:2], CHECK_PX_PER_MM, reg)
        flat = label.ravel()
        idx = np.flatnonzero(flat >= 0)
        idx = idx[np.argsort(flat[idx], kind="stable")]
        cuts = np.flatnonzero(np.diff(flat[idx])) + 1
        take = np.r_[idx, np.flatnonzero(ring.ravel())]
        maps = (np.ascontiguousarray(m1.reshape(-1, 2)[take][None]), np.ascontiguousarray(m2.reshape(-1)[take][None]))
        reg.cache[_CHECK_KEY] = (maps, len(idx), cuts)
    (m1, m2), n, _ = reg.cache[_CHECK_KEY]
    px = cv2.remap(frame, m1, m2, cv2.INTER_LINEAR).reshape(-1, 3)
    return px[:n], px[n:]


def measure_frame(frame: np.ndarray, reg, geo: BoardGeometry, profile: ColourProfile | None = None) -> FrameStats:
    """The figures the checks use, from a BGR uint8 (h, w, 3) frame and its registration.

    The off-profile figure compares each space's colours (white-balanced Lab, as the profile is
    measured) with the surfaces that cover most of a space, the empty board and a tile with its paths
    (:data:`SURFACES`; the profile's other classes are too broad to tell a wrong colour from a right one): a space is
    off profile when fewer than :data:`OFF_SPACE_SHARE` of its pixels lie within :data:`OFF_PROFILE_SIGMA` of them."""
    board, ring = _check_pixels(frame, reg, geo)  # grouped by space; the markers' white ring
    board = board.astype(np.float32)
    white = np.median(ring.astype(np.float32), axis=0)
    if not len(board):
        return FrameStats(white, 0.0, 0.0, None)
    # per-channel columns: reductions over a 3-wide last axis are slow in numpy
    b, g, r = (np.ascontiguousarray(board[:, k]) for k in range(3))
    clipped = float(np.count_nonzero((b >= 250) & (g >= 250) & (r >= 250))) / len(board)
    wb, wg, wr = (255.0 / max(float(v), 1.0) for v in white)
    bb, bg, br = b * wb, g * wg, r * wr
    spread = np.maximum(np.maximum(bb, bg), br) - np.minimum(np.minimum(bb, bg), br)
    k95 = int(0.95 * (len(spread) - 1))
    chroma = float(np.partition(spread, k95)[k95])
    off = None
    if profile is not None:
        rgb = np.clip(np.stack([br, bg, bb], axis=1) * (0.95 / 255.0), 0, 1).reshape(-1, 1, 3)
        lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab).reshape(-1, 3)
        cols = [np.ascontiguousarray(lab[:, k]) for k in range(3)]
        near = np.zeros(len(lab), bool)
        for c in (profile.index(name) for name in SURFACES):
            m, sd = profile.mean[c], profile.std[c]
            d2 = ((cols[0] - m[0]) / sd[0]) ** 2 + ((cols[1] - m[1]) / sd[1]) ** 2 + ((cols[2] - m[2]) / sd[2]) ** 2
            near |= d2 <= OFF_PROFILE_SIGMA**2
        starts = np.concatenate([[0], reg.cache[_CHECK_KEY][2]])
        share = np.add.reduceat(near.astype(np.float32), starts) / np.diff(np.concatenate([starts, [len(near)]]))
        off = float(np.mean(share < OFF_SPACE_SHARE))
    return FrameStats(white, clipped, chroma, off)


def check_frame(frame: np.ndarray, reg, geo: BoardGeometry, profile: ColourProfile | None = None) -> FrameStats:
    """Raise :class:`FrameQualityError` when ``frame`` has no usable colour; else its stats.

    ``frame``: BGR uint8 (h, w, 3); ``reg``: its :class:`~companion.vision.registration.Registration`
    (the checks look only at the board and the markers' paper); ``profile``: the calibrated
    colour profile, for the off-profile check (skipped when ``None``).
    """
    s = measure_frame(frame, reg, geo, profile)
    b, g, r = (float(v) for v in s.white_bgr)
    top = max(b, g, r)
    if top < DARK_WHITE:
        raise FrameQualityError(
            f"the frame is far too dark: the white paper around the markers reads {top:.0f} of 255; "
            "switch the lamp on, or raise the camera's exposure or gain", "too-dark")
    if s.clipped > BRIGHT_CLIPPED:
        raise FrameQualityError(
            f"the frame is far too bright: {100 * s.clipped:.0f} % of the board is clipped to white; "
            "lower the camera's exposure or gain, or dim the lamp", "too-bright")
    if s.chroma < MIN_CHROMA:
        raise FrameQualityError(
            "the frame has no usable colour (the board looks grey everywhere): the camera is set to "
            "monochrome or greyscale, or its saturation is turned down; switch it back to colour", "no-colour")
    if min(b, g, r) < CAST_RATIO * top:
        names = {"blue": b, "green": g, "red": r}
        weak = min(names, key=names.get)
        raise FrameQualityError(
            f"the frame has a strong colour cast: the white paper around the markers reads blue {b:.0f}, "
            f"green {g:.0f}, red {r:.0f} of 255 (almost no {weak}); set the camera's white balance to fixed "
            "daylight, or change a coloured lamp", "colour-cast")
    if s.off_profile is not None and s.off_profile > OFF_PROFILE_FRACTION:
        share = f"{100 * s.off_profile:.0f} % of the spaces look like no surface of the game"
        if getattr(profile, "builtin", False):   # nothing was calibrated: nothing "changed since calibration"
            raise FrameQualityError(
                f"the frame's colours are far from the built-in colour profile of the reference copy ({share}): "
                "this copy, this camera or this lamp differs from it; run 'calibrate pieces' at this table "
                "and pass its profile with --profile", "off-profile")
        raise FrameQualityError(
            f"the frame's colours are far from the calibrated colour profile ({share}): the camera's colour "
            "settings or the lamp changed since calibration, or this is another copy of the game; restore them, "
            "or run 'calibrate pieces' again (with this copy's layout photos)",
            "off-profile")
    return s
