"""Glare: a bright, colourless veil added by a lamp's reflection, and its removal.

A glossy board under a lamp shows a round glare spot: light added on top of every surface
(``observed = white * pigment + veil``, the veil the same in B, G and R), so dark pieces turn
light (a tree looks like the board, the board like a rock).  Reflected light adds in linear
light, before the camera's gamma, so the model and every fit here work on linearised
samples (:func:`to_linear`, the sRGB curve, kept on the 0-255 scale): the same veil lifts the
dark board by far more 8-bit levels than a light tile.  The veil can't be divided out like
uneven light; it has to be measured and subtracted before white balancing.

The reader measures it from its own reading: every space read shows known surfaces (the board
around a token, a tile's edge colours, a tree's face), so ``observed - white * expected`` at
those points is the veil there.  One spot ``A f(d / sigma)`` in image px, its falloff f a
Gaussian or a heavier-tailed power law (:data:`FALLOFFS`; then refined to an ellipse) is fitted to these per-space values (robustly: a misread space gives an outlier, not a spot), subtracted,
and the board read again.  A first reading under the spot underrates it (a glared tree read
as board implies too little veil), so the reader fits the spot again to each new reading until
the reading stops changing.

Near the middle of a strong spot the camera clips: a cream tile and the white of a spore show
255 in every channel, and once the veil is taken off they would look grey like a rock.  Clipped
samples are left out of the fit, and scored by what could have clipped there
(:func:`clipped_log_likelihood`) rather than by their colour.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

def to_linear(x: np.ndarray) -> np.ndarray:
    """float32 sRGB-encoded values on 0-255 -> linear light on 0-255 (IEC 61966-2-1 curve)."""
    c = np.clip(np.asarray(x, np.float32) / 255.0, 0.0, None)
    return (np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) * 255.0).astype(np.float32)


def to_srgb(x: np.ndarray) -> np.ndarray:
    """Inverse of :func:`to_linear` (float32, 0-255 in and out, negatives clipped to 0)."""
    c = np.clip(np.asarray(x, np.float32) / 255.0, 0.0, None)
    return (np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055) * 255.0).astype(np.float32)


def pigment_linear(mean_lab: np.ndarray) -> np.ndarray:
    """float32 (K, 3) BGR fraction of the white each class reflects, in linear light."""
    rgb = cv2.cvtColor(mean_lab.reshape(-1, 1, 3).astype(np.float32), cv2.COLOR_Lab2RGB).reshape(-1, 3)
    return to_linear(np.clip(rgb[:, ::-1] / 0.95, 0.0, 1.0) * 255.0) / 255.0


SIGMAS_PX = (28.0, 40.0, 55.0, 75.0, 100.0, 130.0, 170.0, 220.0)
"""Candidate spot radii (Gaussian sigma, full-resolution px)."""
FALLOFFS = (1.0, 1.5, 2.0, 3.0, None)
"""Candidate falloff exponents p of the spot's profile ``(1 + q / 2p)^-p`` (``None``: the
Gaussian ``exp(-q / 2)``, its limit), ``q`` the squared distance in radii.  A lamp's specular
reflection fades like a power of the distance (Phong, Blinn-Phong lobes), with much heavier
tails than a Gaussian: a Gaussian fitted to such a spot both misses its core (the amplitude
comes out too low, the board in the core then reads as rock) and its wide skirt."""
MIN_AMPLITUDE = 6.0
"""Spots weaker than this (linear levels on 0-255; 6 lifts the dark board by about 25 8-bit
levels, a cream tile by about 2) are ignored."""


@dataclass
class Veil:
    """Fitted glare spot: centre ``xy`` (px), ``sigma`` (px, along its long axis),
    ``amplitude`` (linear levels), ``sigma_minor`` (px, across; ``None`` for a round spot),
    ``angle`` (radians, of the long axis from image x) and ``falloff`` (exponent p of the
    profile, ``None`` for a Gaussian; :data:`FALLOFFS`).  A lamp seen at a slant reflects as an
    ellipse."""

    xy: tuple[float, float]
    sigma: float
    amplitude: float
    sigma_minor: float | None = None
    angle: float = 0.0
    falloff: float | None = None

    def at(self, pts_px: np.ndarray) -> np.ndarray:
        """float32 (n,) veil level at float32 (n, 2) image points."""
        return (self.amplitude * _spot(pts_px, self.xy, self.sigma, self.sigma_minor or self.sigma, self.angle,
                                               self.falloff)).astype(np.float32)


def _spot(pts: np.ndarray, xy, s1: float, s2: float, angle: float, falloff: float | None = None) -> np.ndarray:
    """float64 (n,) spot profile, 1 at its centre: Gaussian, or ``(1 + q / 2p)^-p`` with
    ``p = falloff`` (the same curvature at the peak for every p)."""
    d = np.asarray(pts, np.float64) - np.asarray(xy, np.float64)
    c, s = np.cos(angle), np.sin(angle)
    u = d[:, 0] * c + d[:, 1] * s
    v = -d[:, 0] * s + d[:, 1] * c
    q = u * u / (s1 * s1) + v * v / (s2 * s2)
    return np.exp(-0.5 * q) if falloff is None else (1.0 + q / (2.0 * falloff)) ** -falloff


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


SATURATED = 250.0
"""A camera sample with a channel at or above this (8-bit) is clipped: it shows less than the
light that reached it, so it says nothing reliable about the veil or the surface."""
REFINE_STEPS = 8
"""Gauss-Newton steps refining the spot's centre, radius and amplitude after the grid search."""
REFINED_FALLOFFS = len(FALLOFFS)
"""Falloffs (:data:`FALLOFFS`) whose best start is refined: all of them, since the grid ranks
them poorly (the level away from the spot is only fitted in the refinement); about 20 ms per fit."""
"""Gauss-Newton steps refining the spot's centre, radius and amplitude after the grid search."""


def fit_veil_from_readings(bgr: np.ndarray, white: np.ndarray, expected: np.ndarray, mean_lab: np.ndarray,
                           centres_px: np.ndarray, weight: np.ndarray) -> Veil | None:
    """Glare spot from what the read spaces should look like.

    ``bgr``, ``white``: float32 (S, P, 3) camera samples and white field; ``expected``: int
    (S, P) class per point (-1 unknown); ``mean_lab``: float32 (K, 3) profile means;
    ``centres_px``: (S, 2); ``weight``: (S,) trust in each reading.  The veil of a space is
    the median over its known, unclipped points of (observed - white * expected) in linear
    light (:func:`to_linear`), averaged over B, G, R; the spot's amplitude is in linear levels.  A grid search over spot centres (the brightest spaces) and radii gives a
    start; a few robust Gauss-Newton steps then move the centre (also off the board), the
    radius and the amplitude.
    """
    exp_bgr = pigment_linear(mean_lab)  # fraction of the white, linear light
    pinned = expected >= 0
    clip = bgr.max(2) >= SATURATED
    known = pinned & ~clip
    lin_white = to_linear(white) * exp_bgr[np.maximum(expected, 0)]
    resid = (to_linear(bgr) - lin_white).mean(2)  # (S, P), linear
    resid = np.where(known, resid, np.nan)
    ok = known.sum(1) >= 6
    if ok.sum() < 8:
        return None
    v = np.nanmedian(resid[ok], axis=1)
    # where some pinned points clipped, the unclipped rest are the dimmer ones: a lower bound
    censored = (pinned & clip).sum(1)[ok] > 0
    xy, wgt = centres_px[ok].astype(np.float64), weight[ok].astype(np.float64)
    base = float(np.median(v[~censored])) if (~censored).sum() >= 8 else float(np.median(v))
    v = (v - base).astype(np.float64)

    def cost_of(model: np.ndarray, cap2: float) -> float:
        r = v - model
        r = np.where(censored, np.maximum(r, 0.0), r)  # a lower bound is met by any spot above it
        return float(np.sum(wgt * np.minimum(r * r, cap2)))

    cap2 = _cap2(float(np.max(v)))
    cost0 = cost_of(np.zeros_like(v), cap2)
    # the best start of each falloff is refined (with the level away from the spot, which a
    # Gaussian would otherwise use to stand in for a heavy tail), and the best fit kept
    starts = []
    d2 = {int(c): np.sum((xy - xy[c]) ** 2, axis=1) for c in np.argsort(-v)[:4]}
    for falloff in FALLOFFS:
        start = None
        for c, dc in d2.items():
            for sigma in SIGMAS_PX:
                q = dc / (sigma * sigma)
                g = np.exp(-0.5 * q) if falloff is None else (1.0 + q / (2.0 * falloff)) ** -falloff
                a = float(np.sum(wgt * v * g) / max(np.sum(wgt * g * g), 1e-6))
                cost = cost_of(a * g, cap2)
                if start is None or cost < start[0]:
                    start = (cost, c, sigma, a, falloff)
        starts.append(start)
    fits = []
    for cost, c, sigma, a, falloff in sorted(starts, key=lambda t: t[0])[:REFINED_FALLOFFS]:
        if a >= MIN_AMPLITUDE:
            fits.append((*_refine(xy, v, wgt, xy[c].copy(), sigma, a, cost, falloff, censored, cap2), falloff))
        else:
            fits.append((xy[c].copy(), sigma, sigma, 0.0, a, cost, falloff))
    centre, s1, s2, angle, a, cost, falloff = min(fits, key=lambda f: f[5])
    if a < MIN_AMPLITUDE or cost > 0.5 * cost0:
        return None
    return Veil((float(centre[0]), float(centre[1])), float(s1), float(a), float(s2), float(angle), falloff)


def _cap2(a: float) -> float:
    """Squared residual (linear levels) beyond which a space has no say in the spot's fit: a
    misread space (30 levels), or a fraction of a strong spot's amplitude, so that a strong
    spot's core is never the outlier."""
    return max(30.0, 0.5 * abs(a)) ** 2


def _refine(xy: np.ndarray, v: np.ndarray, wgt: np.ndarray, centre: np.ndarray, sigma: float, a: float,
            cost: float, falloff: float | None = None, censored: np.ndarray | None = None,
            cap2: float = 900.0) -> tuple[np.ndarray, float, float, float, float, float]:
    """Robust Gauss-Newton (numerical Jacobian) on ``v ~ a * spot(xy) + b``, the spot an
    elliptical spot of profile ``falloff`` (centre, two radii, angle); residuals whose square
    passes ``cap2`` (a misread space) get no say, and a ``censored`` space (a lower bound)
    none where the spot passes it.  Keeps a step only when the clipped cost drops.  Returns centre, long and
    short radius (px), angle (rad), amplitude and the cost."""
    lo, hi = np.log(SIGMAS_PX[0]), np.log(SIGMAS_PX[-1] * 1.5)
    # parameters: cx, cy, log s1, log s2, angle, a, b (a wide spot lifts the median the
    # residuals were centred on, so the level b away from the spot is fitted too)
    p = np.array([centre[0], centre[1], np.log(sigma), np.log(sigma), 0.0, a, 0.0], np.float64)

    def model(q):
        return q[5] * _spot(xy, q[:2], np.exp(q[2]), np.exp(q[3]), q[4], falloff) + q[6]

    cens = np.zeros(len(v), bool) if censored is None else censored

    def residual(q):
        r = v - model(q)
        return np.where(cens, np.maximum(r, 0.0), r)

    def clipped_cost(q):
        return float(np.sum(wgt * np.minimum(residual(q) ** 2, cap2)))

    steps = np.array([0.5, 0.5, 0.01, 0.01, 0.01, 0.1, 0.1])
    for _ in range(REFINE_STEPS):
        m = model(p)
        r = residual(p)
        w = wgt * (r * r < cap2) * ~(cens & (r <= 0.0))
        jac = np.column_stack([(model(p + np.eye(7)[k] * steps[k]) - m) / steps[k] for k in range(7)])
        jw = jac * w[:, None]
        lhs = jac.T @ jw
        lhs += 1e-3 * np.diag(np.diag(lhs) + 1e-9)
        try:
            step = np.linalg.solve(lhs, jw.T @ r)
        except np.linalg.LinAlgError:
            break
        q = p + step
        q[2:4] = np.clip(q[2:4], lo, hi)
        new_cost = clipped_cost(q)
        if new_cost >= cost:
            break
        p, cost = q, new_cost
    s1, s2, angle = float(np.exp(p[2])), float(np.exp(p[3])), float(p[4])
    if s2 > s1:
        s1, s2, angle = s2, s1, angle + np.pi / 2
    return p[:2], s1, s2, angle, float(p[5]), cost


CLIPPED_SIGMA = 12.0
"""Spread (8-bit levels per channel) of a clipped sample's unclipped channels around what a
class predicts there."""


def clipped_log_likelihood(raw: np.ndarray, white: np.ndarray, veil: np.ndarray | None, mean_lab: np.ndarray,
                           std_lab: np.ndarray, floor: float) -> np.ndarray:
    """float32 (n, K) log-likelihood of clipped camera samples (censored model).

    ``raw``: float32 (n, 3) camera BGR with a channel at :data:`SATURATED` or above;
    ``white``: (n, 3) white field there; ``veil``: (n,) fitted glare level (linear light) or
    ``None``.  Each class predicts ``white * colour + veil`` per channel in linear light,
    re-encoded to compare with the camera; a clipped channel only says that the
    prediction reaches the clip level, the others are compared as usual.  A cream tile under a
    glare spot is all clipped and consistent; a grey rock there would not clip, so it isn't.
    White balancing and Lab would instead turn the clipped tile grey after the veil is taken off.
    The best value of a class is its peak under the profile's Gaussian, so these samples
    weigh like the others.
    """
    pred = to_linear(white)[:, None, :] * pigment_linear(mean_lab)[None, :, :]  # (n, K, 3), linear
    if veil is not None:
        pred = pred + veil[:, None, None]
    pred = to_srgb(pred)
    obs = raw[:, None, :]
    clipped = obs >= SATURATED
    err = np.where(clipped, np.maximum(SATURATED - pred, 0.0), obs - pred) / CLIPPED_SIGMA
    peak = -np.sum(np.log(std_lab), axis=1) + 3 * np.log(3.0)
    return np.maximum(peak[None, :] - 0.5 * np.sum(err * err, axis=2), floor).astype(np.float32)
