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
the reading stops changing.  The spot is searched for only where the light left unexplained
has a spot's shape: some space lifted, and the spaces around it too (:func:`spot_shaped`; a
print whose art looks lighter than its class lifts its own space alone).

Near the middle of a strong spot the camera clips: a cream tile and the white of a spore show
255 in every channel, and once the veil is taken off they would look grey like a rock.  Clipped
samples are left out of the fit, and scored by what could have clipped there
(:func:`clipped_log_likelihood`) rather than by their colour.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import cv2
import numpy as np

def to_linear(x: np.ndarray) -> np.ndarray:
    """float32 sRGB-encoded values on 0-255 -> linear light on 0-255 (IEC 61966-2-1 curve).

    Camera samples are whole 8-bit levels: those are looked up in a table of the same curve
    (bitwise the same values, without a power per sample)."""
    a = np.asarray(x, np.float32)
    if a.size >= _LUT_MIN_SIZE:
        with np.errstate(invalid="ignore"):
            levels = a.astype(np.uint8)
        if np.array_equal(levels, a):
            return _LINEAR_LEVELS[levels]
    return _to_linear(a)


def _to_linear(a: np.ndarray) -> np.ndarray:
    c = np.clip(a / 255.0, 0.0, None)
    return (np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) * 255.0).astype(np.float32)


_LINEAR_LEVELS = _to_linear(np.arange(256, dtype=np.float32))
"""float32 (256,) :func:`to_linear` of each 8-bit level."""
_LUT_MIN_SIZE = 64
"""Below this many values the test for whole levels costs more than the curve."""


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
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """BGR colour of the reflection in linear light, mean 1 (the veil in channel c is
    ``colour[c] * at(...)``)."""

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


ALTERNATIVE_PENALTY = 150.0
"""Cost (squared linear levels) of explaining a space by another flat piece than the one it was
read as (:func:`alternative_classes`): under a strong spot the first reading calls the glared
board a rock and a glared tree the board, and the spot's fit must be free to say otherwise
where the spot's shape asks for it, but not for the price of a small improvement."""


SEARCH_LEVEL = 10.0
"""A spot is searched for only when some space shows at least this much more light (linear
levels) than its reading explains (its unclipped points, where some clipped): in a frame without glare the search (tens of
ms) is skipped, while a spot that misleads the first reading lifts its spaces by 15 or more.
A lifted space must have lifted surroundings too (:func:`spot_shaped`)."""
ACCEPT_COST = 0.7
"""A spot is kept when it leaves at most this share of the cost of no spot: the zones of a
space measure the veil with the spread of the print (mottling, texture) on top, so a real
spot of a few spaces removes a third of the cost or more, noise and a lone misread far less."""


SKIRT_LEVEL = 1.2
"""Mean lift (linear levels, each space's lift counted from 0 up) of the spaces around a lifted
space from which the lift can be a glare spot's (:func:`spot_shaped`).  On the tuning styles
(bands, meadow, inkline; every light, 4 boards each) the art of a space lifted alone left at
most 0.5 around it, while every spot the fit kept left 2.3 or more around its brightest space."""


def spot_shaped(lifted: np.ndarray, centres_px: np.ndarray) -> bool:
    """Whether the light the reading leaves unexplained may be a glare spot: some space is
    lifted by :data:`SEARCH_LEVEL` or more, and so, on average, are the spaces around it, by
    :data:`SKIRT_LEVEL` or more.

    ``lifted``: float (S,) light each space shows above what its reading explains (linear
    levels, NaN where unknown); ``centres_px``: float (S, 2) space centres (px).  A lamp's
    reflection adds light along a smooth falloff (:data:`FALLOFFS`) that reaches past the space
    under its peak: at one space's spacing the sim's spots (60 to 160 px half-width, a power law)
    keep a tenth or more of their peak.  A print whose art looks lighter than the class it was
    read as (a halftone, a pale ink) lifts its own space alone.  The spot search (tens of ms on
    a Pi) is then not started; a spot much smaller than a space is not told from such art and is
    left to the clipped-sample checks and :mod:`companion.vision.veiled`.
    """
    lift = np.where(np.isnan(lifted), 0.0, lifted)
    top = np.flatnonzero(lift >= SEARCH_LEVEL)
    if not len(top) or len(lift) < 2:
        return False
    x, y = centres_px[:, 0], centres_px[:, 1]
    d2 = (x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2  # (S, S) squared px
    d2.flat[::len(x) + 1] = np.inf  # a space is not its own neighbour
    spacing = float(np.median(np.sqrt(d2.min(1))))  # between neighbouring spaces
    near = d2[top] < (1.3 * spacing) ** 2
    skirt = near @ np.maximum(lift, 0.0) / np.maximum(near.sum(1), 1)
    return bool((skirt >= SKIRT_LEVEL).any())


def alternative_classes(readings) -> np.ndarray:
    """int (S, A, P) other whole-space explanations of each space, -1 where none or unknown.

    Under a glare spot the flat, uniform pieces pass for one another (a veil over the board
    looks like a rock, over a tree like the board, over a soil chip like a rock), so a space
    read as one of them may be any of: the empty board, a rock, a tree, a wood or a soil
    substrate.  Tiles, spores and spaces under a meeple get no alternative.
    """
    from companion.vision import layout as L
    from companion.vision.profile import CLASSES

    ci = {c: i for i, c in enumerate(CLASSES)}
    flat = [("board", "board"), ("rock", "rock"), ("tree", "tree"), ("wood", "board"), ("soil", "board")]
    out = np.full((len(readings), len(flat), L.POINTS_PER_SPACE), -1, np.int64)
    for s, r in enumerate(readings):
        if r.meeple or r.kind not in ("empty", "rock", "tree", "wood", "soil"):
            continue
        for a, (face, around) in enumerate(flat):
            out[s, a, L.CENTRE] = ci[face]
            out[s, a, L.RING] = ci[face]
            out[s, a, L.EDGES] = ci[around]
    return out


def white_tint(white: np.ndarray) -> np.ndarray:
    """float32 (3,) BGR colour of the lamp as the camera renders it, linear, mean 1.

    ``white``: float32 (..., 3) camera BGR of the white paper.  The lamp's reflection has the
    lamp's colour, which the camera's white balance leaves as it leaves the paper (a warm lamp
    half corrected: a reflection more red than blue), so the veil is this tint times a level.
    """
    lw = to_linear(np.asarray(white, np.float32).reshape(-1, 3))
    t = np.median(lw, axis=0)
    return (t / max(float(t.mean()), 1e-6)).astype(np.float32)


def _zones() -> list[np.ndarray]:
    """Sample point indices of the zones a space's veil is measured in: its middle (all but the
    edge points), then each of its six edge groups, so that a spot smaller than a few spaces
    shows its slope across a space."""
    from companion.vision import layout as L

    edges = [np.arange(L.EDGES.start + e * L.POINTS_PER_EDGE, L.EDGES.start + (e + 1) * L.POINTS_PER_EDGE) for e in range(6)]
    middle = np.setdiff1d(np.arange(L.POINTS_PER_SPACE), np.concatenate(edges))
    return [middle, *edges]


def fit_veil_from_readings(bgr: np.ndarray, white: np.ndarray, expected: np.ndarray, mean_lab: np.ndarray,
                           centres_px: np.ndarray, weight: np.ndarray, alternatives=None,
                           tint: np.ndarray | None = None) -> Veil | None:
    """Glare spot from what the read spaces should look like.

    ``bgr``, ``white``: float32 (S, P, 3) camera samples and white field; ``expected``: int
    (S, P) class per point (-1 unknown); ``mean_lab``: float32 (K, 3) profile means;
    ``centres_px``: (S, 2) space centres or (S, P, 2) every sample point (px); ``weight``: (S,)
    trust in each reading; ``alternatives``: int (S, A, P) other explanations of each space
    (:func:`alternative_classes`), a function giving them (called only when a spot is looked
    for), or ``None``; ``tint``: float32 (3,) the lamp's colour
    (:func:`white_tint`; ``None``: colourless).

    The veil under one explanation is the median over known, unclipped points of (observed -
    white * expected) / tint in linear light (:func:`to_linear`), averaged over B, G, R, taken
    in each zone of a space (:func:`_zones`, when the points' positions are given; else over the
    whole space); the spot's amplitude is in linear levels.  Each space takes the explanation
    the spot fits best, another than its reading at the cost :data:`ALTERNATIVE_PENALTY`.  A
    grid search over spot centres (the brightest spaces), radii and amplitudes gives a start; a
    few robust Gauss-Newton steps then move the centre (also off the board), the radii and the
    amplitude.
    """
    exp_bgr = pigment_linear(mean_lab)  # fraction of the white, linear light
    tint = np.ones(3, np.float32) if tint is None else np.asarray(tint, np.float32)
    S, P = expected.shape
    pts_px = np.asarray(centres_px, np.float64)
    zones = _zones() if pts_px.ndim == 3 else [np.arange(P)]
    clip = bgr.max(2) >= SATURATED
    lin_obs, lin_white = to_linear(bgr), to_linear(white)
    # the reading's own explanation first: it alone decides whether a spot is looked for
    vh, counts = _zone_veils(expected[None], lin_obs, lin_white, clip, exp_bgr, tint, zones)
    ok = counts[:, 0] >= 6
    if ok.sum() < 8:
        return None
    pinned = expected >= 0
    # where some pinned points clipped, the unclipped rest are the dimmer ones: a lower bound
    censored = (pinned & clip).sum(1)[ok] > 0
    v0 = np.nanmean(vh[ok][:, :, 0], axis=1)
    base = float(np.nanmedian(v0[~censored])) if (~censored).sum() >= 8 else float(np.nanmedian(v0))
    v0 = vh[ok][:, :, 0] - base
    lifted = _masked_median(v0, np.isfinite(v0))  # each space under its reading
    if not (lifted >= SEARCH_LEVEL).any():
        return None  # no space is lifted above what it was read as: no spot to look for
    centres = pts_px.mean(1) if pts_px.ndim == 3 else pts_px
    if not spot_shaped(lifted, centres[ok]):
        return None  # one space's art, not a spot: nothing around it is lifted
    if callable(alternatives):
        alternatives = alternatives()
    if alternatives is not None:
        # every other explanation, (S, Z, A) after the reading's; only the spaces that have any
        # (a flat piece or the empty board) are computed, the rest know nothing under them
        A = alternatives.shape[1]
        vh_alt, counts_alt = np.full((S, len(zones), A), np.nan), np.zeros((S, A), counts.dtype)
        some = np.flatnonzero((alternatives >= 0).any(axis=(1, 2)))
        if len(some):
            vh_alt[some], counts_alt[some] = _zone_veils(np.moveaxis(alternatives[some], 1, 0), lin_obs[some], lin_white[some],
                                                         clip[some], exp_bgr, tint, zones)
        vh, counts = np.concatenate([vh, vh_alt], axis=2), np.concatenate([counts, counts_alt], axis=1)
    usable = (counts >= 6) & np.isfinite(vh).any(1)
    pen = np.where(usable, ALTERNATIVE_PENALTY, np.inf)[ok]
    pen[:, 0] = 0.0
    if pts_px.ndim == 2:
        pts_px = np.repeat(pts_px[:, None, :], P, axis=1)
    zxy = np.stack([pts_px[:, z].mean(1) for z in zones], 1)  # (S, Z, 2)
    vh, zxy = vh[ok], zxy[ok]
    wgt = weight[ok].astype(np.float64)
    vh = vh - base
    cap2 = _cap2(float(np.nanmax(np.where(np.isfinite(pen)[:, None, :], vh, np.nan))))
    terms = _cost_terms(vh, pen)  # the same for every candidate spot
    cost0 = float(_batch_cost(vh, pen, np.zeros((1,) + vh.shape[:2]), censored, wgt, cap2, terms)[0])
    # the best start of each falloff is refined (with the level away from the spot, which a
    # Gaussian would otherwise use to stand in for a heavy tail), and the best fit kept
    starts = []
    with _quiet():
        space_v = np.nanmax(np.where(np.isfinite(pen)[:, None, :], vh, np.nan), axis=(1, 2))
    sig = np.array(SIGMAS_PX)[:, None, None]
    v = np.nan_to_num(vh[:, :, 0])
    # what does not depend on the falloff, once per candidate centre (the brightest spaces):
    # the squared distances in radii and the brightest zone under each explanation
    centres = []
    for c in np.argsort(-np.nan_to_num(space_v, nan=-np.inf))[:3]:
        q = np.sum((zxy - zxy[c].mean(0)) ** 2, axis=2)[None] / (sig * sig)  # (radii, n, Z)
        with _quiet():
            at_c = np.nanmax(vh[c], axis=0)[np.isfinite(pen[c])]
        centres.append((c, q, at_c[np.isfinite(at_c)]))
    for falloff in FALLOFFS:
        start = None
        for c, q, at_c in centres:
            g = np.exp(-0.5 * q) if falloff is None else (1.0 + q / (2.0 * falloff)) ** -falloff
            # amplitudes: the least-squares one of the reading, and each one that explains
            # the brightest zone of the centre space under one of its explanations
            ls = np.sum(wgt[:, None] * v * g, axis=(1, 2)) / np.maximum(np.sum(wgt[:, None] * g * g, axis=(1, 2)), 1e-6)
            amps = np.concatenate([ls[:, None], np.broadcast_to(at_c, (len(sig), len(at_c)))], axis=1)  # (radii, m)
            models = amps[:, :, None, None] * g[:, None]  # (radii, m, n, Z)
            costs = _batch_cost(vh, pen, models.reshape((-1,) + vh.shape[:2]), censored, wgt, cap2, terms).reshape(amps.shape)
            i, j = np.unravel_index(int(np.argmin(costs)), costs.shape)
            if start is None or costs[i, j] < start[0]:
                start = (float(costs[i, j]), int(c), float(SIGMAS_PX[i]), float(amps[i, j]), falloff)
        starts.append(start)
    fits = []
    for cost, c, sigma, a, falloff in sorted(starts, key=lambda t: t[0])[:REFINED_FALLOFFS]:
        centre = zxy[c].mean(0)
        if a >= MIN_AMPLITUDE:
            fits.append((*_refine(zxy, vh, wgt, centre, sigma, a, cost, falloff, censored, cap2, pen), falloff))
        else:
            fits.append((centre, sigma, sigma, 0.0, a, cost, falloff))
    centre, s1, s2, angle, a, cost, falloff = min(fits, key=lambda f: f[5])
    if a < MIN_AMPLITUDE or cost > ACCEPT_COST * cost0:
        return None
    veil = Veil((float(centre[0]), float(centre[1])), float(s1), float(a), float(s2), float(angle), falloff)
    # the reflection has the lamp's colour, rendered by the camera as it renders the paper
    veil.colour = tuple(float(v) for v in tint)
    return veil


def _zone_veils(rows: np.ndarray, lin_obs: np.ndarray, lin_white: np.ndarray, clip: np.ndarray, exp_bgr: np.ndarray,
                tint: np.ndarray, zones: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The veil (linear levels) of each zone of each space under each explanation, float (S, Z,
    H) (NaN where fewer than 3 of the zone's points are known and unclipped), and the known,
    unclipped points per space and explanation, int (S, H).  ``rows``: int (H, S, P) class
    per point under each explanation (-1 unknown); ``lin_obs``, ``lin_white``: float32 (S, P, 3)
    samples and white field in linear light; ``clip``: bool (S, P); ``exp_bgr``: float32 (K, 3)
    :func:`pigment_linear`; ``tint``: float32 (3,).  Each space, zone and explanation is
    computed on its own: a subset of the explanations gives their columns bit for bit."""
    H, S, _ = rows.shape
    vh = np.full((S, len(zones), H), np.nan)
    known = (rows >= 0) & ~clip[None]
    counts = known.sum(2).T  # (S, H)
    # (H, S, P), linear: the mean over B, G, R of (observed - white * expected) / tint, a
    # channel at a time (as fast as numpy gets with 3 innermost; the same sums as .mean(3))
    cls = np.maximum(rows, 0)
    resid = (lin_obs[None, ..., 0] - lin_white[None, ..., 0] * exp_bgr[:, 0][cls]) / tint[0]
    for ch in (1, 2):
        resid += (lin_obs[None, ..., ch] - lin_white[None, ..., ch] * exp_bgr[:, ch][cls]) / tint[ch]
    resid /= 3
    for zi, z in enumerate(zones):
        kz = known[:, :, z]
        med = _masked_median(resid[:, :, z].reshape(H * S, -1), kz.reshape(H * S, -1)).reshape(H, S)
        vh[:, zi, :] = np.where(kz.sum(2) >= min(3, len(z)), med, np.nan).T
    return vh, counts


def _masked_median(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """float (n,) median of each row of ``x`` (n, k) over the entries where ``mask``; NaN for a
    row with none (``np.nanmedian`` without its per-call cost)."""
    srt = np.sort(np.where(mask, x, np.inf), axis=1)
    cnt = mask.sum(1)
    rows = np.arange(len(x))
    lo, hi = srt[rows, np.maximum((cnt - 1) // 2, 0)], srt[rows, np.maximum(cnt // 2, 0)]
    return np.where(cnt > 0, 0.5 * (lo + np.where(cnt > 0, hi, 0.0)), np.nan)


def _space_costs(vh: np.ndarray, pen: np.ndarray, models: np.ndarray, censored: np.ndarray,
                 cap2: float, terms: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For spot models (B, n, Z) and the veil of each space zone under each explanation ``vh``
    (n, Z, H; NaN where a zone shows nothing known): the residuals (B, n, Z, H) and the cost
    (B, n, H) of each explanation, the mean over its zones of the squared residual (each capped
    at ``cap2``) plus its penalty ``pen`` (n, H).  A ``censored`` space (a lower bound) has no
    residual where the spot passes it.  ``terms``: :func:`_cost_terms` of ``vh`` and ``pen``,
    when already computed (they do not change while a spot is refined)."""
    t = _cost_terms(vh, pen) if terms is None else terms
    valid = t["valid"]
    r = t["vh0"][None] - models[..., None]
    r = np.where(censored[None, :, None, None], np.maximum(r, 0.0), r)
    sq = np.minimum(r * r, cap2) * valid
    total = sq[:, :, 0].copy()  # sq.sum(2), zone by zone in the same order: faster on a short axis
    for z in range(1, sq.shape[2]):
        total += sq[:, :, z]
    c = total / t["count1"] + t["pen"][None]
    return np.where(valid, r, np.nan), c


def _cost_terms(vh: np.ndarray, pen: np.ndarray) -> dict:
    """What :func:`_space_costs` and :func:`_batch_cost` derive from ``vh`` (n, Z, H) and
    ``pen`` (n, H) alone, whatever the spot: computed once per fit, the same arrays either
    function would compute on each call."""
    valid = np.isfinite(vh)
    count = valid.sum(1)
    # _batch_cost's float32 layout (H, Z, n), the spaces innermost
    vh0 = np.ascontiguousarray(np.where(valid, vh, 0.0).astype(np.float32).transpose(2, 1, 0))
    valid_t = np.ascontiguousarray(valid.transpose(2, 1, 0)).astype(np.float32)
    count_t = np.maximum(count, 1).astype(np.float32).T
    pen_t = np.where(valid.any(1), pen, np.inf).astype(np.float32).T
    flat = np.flatnonzero(np.isfinite(pen_t[1:]).any(0))  # the spaces with another explanation than their reading
    return {"valid": valid, "count1": np.maximum(count, 1), "vh0": np.where(valid, vh, 0.0),
            "pen": np.where(count > 0, pen, np.inf), "flat": flat,
            "read_terms": (vh0[:1], valid_t[:1], count_t[:1], pen_t[:1]),
            "flat_terms": tuple(np.ascontiguousarray(a[1:, ..., flat]) for a in (vh0, valid_t, count_t, pen_t))}


def _batch_cost(vh: np.ndarray, pen: np.ndarray, models: np.ndarray, censored: np.ndarray, wgt: np.ndarray,
                cap2: float, terms: dict | None = None) -> np.ndarray:
    """float (B,) robust cost of each of the spot models (B, n, Z): per space the explanation
    the spot fits best (as :func:`_space_costs`), capped at ``cap2`` (a misread space),
    weighted by ``wgt`` (n,).  In float32, for many candidate spots at once.  ``terms``:
    :func:`_cost_terms` of ``vh`` and ``pen`` when already computed."""
    t = _cost_terms(vh, pen) if terms is None else terms
    m = np.ascontiguousarray(models.astype(np.float32).transpose(2, 0, 1))  # (Z, B, n)
    # the reading's explanation for every space, the others only for the spaces that have any
    # (the empty board and the flat pieces): elsewhere they would cost +inf and never be best
    best = _best_of(*t["read_terms"], m, censored, cap2)
    flat = t["flat"]
    if len(flat):
        others = _best_of(*t["flat_terms"], m[:, :, flat], censored[flat], cap2)
        best[:, flat] = np.minimum(best[:, flat], others)
    return np.sum(wgt * np.minimum(best, cap2), axis=1)


def _best_of(vh0: np.ndarray, valid: np.ndarray, count: np.ndarray, pen: np.ndarray, m: np.ndarray, censored: np.ndarray,
             cap2: float) -> np.ndarray:
    """float32 (B, n) cost of the best of some explanations of some spaces under each spot
    model, for :func:`_batch_cost`: ``vh0``, ``valid`` float32 (H, Z, n) zone veils (0 where
    unknown) and 1 or 0; ``count`` float32 (H, n) known zones (at least 1); ``pen`` float32
    (H, n); ``m`` float32 (Z, B, n) the models; ``censored`` bool (n,).  Each space and
    explanation is computed on its own, so any subset gives its entries bit for bit."""
    # laid out (H, Z, B, n), the spaces innermost: every step below then runs over long
    # contiguous rows (with H or Z innermost numpy spends its time on loop overhead), the
    # zones are added in the same order as r.sum(2) would, so the cost is bitwise the same
    r = vh0[:, :, None, :] - m[None]
    if censored.any():
        r[..., censored] = np.maximum(r[..., censored], 0.0)
    np.multiply(r, r, out=r)
    np.minimum(r, np.float32(cap2), out=r)
    r *= valid[:, :, None, :]
    total = r[:, 0].copy()  # (H, B, n)
    for z in range(1, r.shape[1]):
        total += r[:, z]
    total /= count[:, None, :]
    total += pen[:, None, :]
    best = total[0]
    for h in range(1, len(total)):
        best = np.minimum(best, total[h])
    return best


@contextmanager
def _quiet():
    """Means over zones a hypothesis leaves empty are NaN by design: no warning for them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _cap2(a: float) -> float:
    """Squared residual (linear levels) beyond which a space has no say in the spot's fit: a
    misread space (30 levels), or a fraction of a strong spot's amplitude, so that a strong
    spot's core is never the outlier."""
    return max(30.0, 0.5 * abs(a)) ** 2


def _refine(zxy: np.ndarray, vh: np.ndarray, wgt: np.ndarray, centre: np.ndarray, sigma: float, a: float,
            cost: float, falloff: float | None = None, censored: np.ndarray | None = None,
            cap2: float = 900.0, pen: np.ndarray | None = None) -> tuple[np.ndarray, float, float, float, float, float]:
    """Robust Gauss-Newton (numerical Jacobian) on ``v ~ a * spot(xy) + b``, the spot an
    elliptical spot of profile ``falloff`` (centre, two radii, angle).  ``zxy``: float (n, Z, 2)
    zone positions (px); ``vh``: float (n, Z, H) the veil of each zone under each explanation
    of its space (penalties ``pen`` (n, H); the best-fitting explanation is taken at each step).
    Spaces whose cost passes ``cap2`` (a misread space) get no say, and a ``censored`` space (a
    lower bound) none where the spot passes it.  Keeps a step only when the clipped cost drops.
    Returns centre, long and short radius (px), angle (rad), amplitude and the cost."""
    n, Z = vh.shape[:2]
    pen = np.zeros(vh.shape[::2]) if pen is None else pen
    terms = _cost_terms(vh, pen)  # the same at every step
    cens = np.zeros(n, bool) if censored is None else censored
    flat = zxy.reshape(-1, 2)
    lo, hi = np.log(SIGMAS_PX[0]), np.log(SIGMAS_PX[-1] * 1.5)
    # parameters: cx, cy, log s1, log s2, angle, a, b (a wide spot lifts the median the
    # residuals were centred on, so the level b away from the spot is fitted too)
    p = np.array([centre[0], centre[1], np.log(sigma), np.log(sigma), 0.0, a, 0.0], np.float64)

    def spot(q):
        return _spot(flat, q[:2], np.exp(q[2]), np.exp(q[3]), q[4], falloff)

    def model(q, f):
        """The model of parameters q whose spot profile is f (:func:`spot` of q)."""
        return (q[5] * f + q[6]).reshape(n, Z)

    steps = np.array([0.5, 0.5, 0.01, 0.01, 0.01, 0.1, 0.1])
    rows = np.arange(n)
    f = spot(p)
    for _ in range(REFINE_STEPS):
        m = model(p, f)
        r, c = _space_costs(vh, pen, m[None], cens, cap2, terms)
        h = np.argmin(c[0], axis=1)
        rz = r[0][rows, :, h]  # (n, Z) residuals of each space's best explanation
        valid = np.isfinite(rz)
        nz = np.maximum(valid.sum(1), 1)
        w = (wgt / nz * (c[0][rows, h] < cap2))[:, None] * valid * (rz * rz < cap2) * ~(cens[:, None] & (rz <= 0.0))
        rz, w = np.nan_to_num(rz).ravel(), w.ravel()
        # amplitude and level (k = 5, 6) leave the spot's profile as it is
        jac = np.column_stack([(model(p + np.eye(7)[k] * steps[k], f if k >= 5 else spot(p + np.eye(7)[k] * steps[k]))
                                - m).ravel() / steps[k] for k in range(7)])
        jw = jac * w[:, None]
        lhs = jac.T @ jw
        lhs += 1e-3 * np.diag(np.diag(lhs) + 1e-9)
        try:
            step = np.linalg.solve(lhs, jw.T @ rz)
        except np.linalg.LinAlgError:
            break
        q = p + step
        q[2:4] = np.clip(q[2:4], lo, hi)
        fq = spot(q)
        new_cost = float(_batch_cost(vh, pen, model(q, fq)[None], cens, wgt, cap2, terms)[0])
        if new_cost >= cost:
            break
        p, cost, f = q, new_cost, fq
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
    ``white``: (n, 3) white field there; ``veil``: (n,) or (n, 3) BGR fitted glare (linear
    light) or ``None``.  Each class predicts ``white * colour + veil`` per channel in linear light,
    re-encoded to compare with the camera; a clipped channel only says that the
    prediction reaches the clip level, the others are compared as usual.  A cream tile under a
    glare spot is all clipped and consistent; a grey rock there would not clip, so it isn't.
    White balancing and Lab would instead turn the clipped tile grey after the veil is taken off.
    The best value of a class is its peak under the profile's Gaussian, so these samples
    weigh like the others.
    """
    pred = to_linear(white)[:, None, :] * pigment_linear(mean_lab)[None, :, :]  # (n, K, 3), linear
    if veil is not None:
        pred = pred + (veil[:, None] if veil.ndim == 1 else veil)[:, None, :]
    pred = to_srgb(pred)
    obs = raw[:, None, :]
    clipped = obs >= SATURATED
    err = np.where(clipped, np.maximum(SATURATED - pred, 0.0), obs - pred) / CLIPPED_SIGMA
    peak = -np.sum(np.log(std_lab), axis=1) + 3 * np.log(3.0)
    return np.maximum(peak[None, :] - 0.5 * np.sum(err * err, axis=2), floor).astype(np.float32)
