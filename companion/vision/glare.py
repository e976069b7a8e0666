"""Glare: a bright, colourless veil added by a lamp's reflection, and its removal.

A glossy board under a lamp shows a round glare spot: light added on top of every surface
(``observed = white * pigment + veil``, the veil the same in B, G and R), so dark pieces turn
light (a tree looks like the board, the board like a rock).  The veil can't be divided out
like uneven light; it has to be measured and subtracted before white balancing.

The reader measures it from its own reading: every space read shows known surfaces (the board
around a token, a tile's edge colours, a tree's face), so ``observed - white * expected`` at
those points is the veil there.  One Gaussian ``A exp(-d^2 / 2 sigma^2)`` in image px is fitted
to these per-space values (robustly: a misread space gives an outlier, not a spot), subtracted,
and the board read again.  A first reading under the spot underrates it (a glared tree read
as board implies too little veil), so the reader repeats this a couple of times.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SIGMAS_PX = (40.0, 55.0, 75.0, 100.0, 130.0, 170.0, 220.0)
"""Candidate spot radii (Gaussian sigma, full-resolution px)."""
MIN_AMPLITUDE = 10.0
"""Spots weaker than this (8-bit levels) are ignored."""


@dataclass
class Veil:
    """Fitted glare spot: centre ``xy`` (px), ``sigma`` (px), ``amplitude`` (8-bit levels)."""

    xy: tuple[float, float]
    sigma: float
    amplitude: float

    def at(self, pts_px: np.ndarray) -> np.ndarray:
        """float32 (n,) veil level at float32 (n, 2) image points."""
        d2 = np.sum((pts_px - np.float32(self.xy)) ** 2, axis=1)
        return (self.amplitude * np.exp(-d2 / (2.0 * self.sigma**2))).astype(np.float32)


def expected_classes(readings, codes_edge_class) -> np.ndarray:
    """int (S, P) class each sample point should show under ``readings``; -1 where unknown.

    Only the surfaces a reading pins down: the board around tokens, a tree's or rock's face,
    a token's ring, a tile's edge zones.  Spaces under a meeple are left out.
    """
    from companion.vision import layout as L
    from companion.vision.profile import CLASSES

    ci = {c: i for i, c in enumerate(CLASSES)}
    out = np.full((len(readings), L.POINTS_PER_SPACE), -1, np.int64)
    for s, r in enumerate(readings):
        if r.meeple:
            continue
        if r.kind in ("empty", "rock", "tree"):
            cls = {"empty": "board"}.get(r.kind, r.kind)
            for g in (L.CENTRE, L.RING, L.EDGES):
                out[s, g] = ci[cls]
        elif r.kind in ("wood", "soil", "spore"):
            out[s, L.RING] = ci[r.player or r.kind]
            out[s, L.EDGES] = ci["board"]
        elif r.kind == "tile":
            edge = codes_edge_class(r.code)
            for e in range(6):
                a = L.EDGES.start + e * L.POINTS_PER_EDGE
                out[s, a:a + L.POINTS_PER_EDGE] = edge[e]
    return out


def fit_veil_from_readings(bgr: np.ndarray, white: np.ndarray, expected: np.ndarray, mean_lab: np.ndarray,
                           centres_px: np.ndarray, weight: np.ndarray) -> Veil | None:
    """Glare spot from what the read spaces should look like.

    ``bgr``, ``white``: float32 (S, P, 3) camera samples and white field; ``expected``: int
    (S, P) class per point (-1 unknown); ``mean_lab``: float32 (K, 3) profile means;
    ``centres_px``: (S, 2); ``weight``: (S,) trust in each reading.  The veil of a space is
    the median over its known points of (observed - white * expected), averaged over B, G, R.
    """
    rgb = cv2.cvtColor(mean_lab.reshape(-1, 1, 3).astype(np.float32), cv2.COLOR_Lab2RGB).reshape(-1, 3)
    exp_bgr = rgb[:, ::-1] / 0.95  # fraction of the white
    known = expected >= 0
    resid = (bgr - white * exp_bgr[np.maximum(expected, 0)]).mean(2)  # (S, P)
    resid = np.where(known, resid, np.nan)
    ok = known.sum(1) >= 6
    if ok.sum() < 8:
        return None
    v = np.nanmedian(resid[ok], axis=1)
    xy, wgt = centres_px[ok], weight[ok]
    base = float(np.median(v))
    v = v - base
    best: tuple[float, int, float, float] | None = None
    cost0 = float(np.sum(wgt * np.minimum(v * v, 900.0)))
    for c in np.argsort(-v)[:4]:
        d2 = np.sum((xy - xy[c]) ** 2, axis=1)
        for sigma in SIGMAS_PX:
            g = np.exp(-d2 / (2 * sigma**2))
            a = float(np.sum(wgt * v * g) / max(np.sum(wgt * g * g), 1e-6))
            cost = float(np.sum(wgt * np.minimum((v - a * g) ** 2, 900.0)))
            if best is None or cost < best[0]:
                best = (cost, int(c), sigma, a)
    cost, c, sigma, a = best
    if a < MIN_AMPLITUDE or cost > 0.5 * cost0:
        return None
    return Veil((float(xy[c][0]), float(xy[c][1])), sigma, a)
