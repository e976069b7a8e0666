"""Learned appearance of the standing meeples and of both sides of every spore.

Colours alone cannot tell a meeple: a spore's chip is the player's colour too, and a copy of
the game may print its unused side with a tinted symbol that looks like a meeple seen from
above.  So calibration (:mod:`calibration.colours`) also learns, per player, from the spaces
of the calibration layouts:

* the meeple's colour where the camera sees it (the cap points raised to the meeple's height
  and the core of the space, see :mod:`companion.vision.layout`);
* a rotation-free description of each spore side and of a meeple, as *ring statistics*: on
  each ring of points around the centre, the 10th, 50th and 90th percentile of lightness and
  the median a and b (a dot pattern, an X light or dark, a uniform meeple all differ here);

and the reader then decides:

* **meeples** from evidence of a standing piece: on a spore of the same colour, that the core
  looks like the learned meeple rather than like either learned spore side (the meeple hides
  the symbol), over the core points a meeple standing there would hide from this camera
  (:func:`hidden_core`: its cap is seen displaced by the parallax); elsewhere, that the cap and core points fit the learned meeple colour better
  than anything a flat piece there could show.  One meeple per player at most, assigned
  jointly over all spaces (:func:`assign_meeples`, ``scipy.optimize.linear_sum_assignment``):
  two spaces showing one colour are settled by their meeple evidence, never by how sure the
  reading of the piece under them is;
* a meeple seen clearly nowhere, whose player's spore was read, on that spore: a meeple is on
  the board while its spore is, and only on its own spore can it look like the piece under it
  (:func:`meeples_at_home`);
* **spore sides** by distance to the learned sides: nearer the used side than the unused one,
  or, when only the unused side was learned (one calibration photo), far from it
  (:data:`SIDE_DISTANCE`).  Under a meeple only the outer ring counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision import layout as L
from companion.vision.profile import MIN_STD

PLAYERS = ("blue", "orange", "red", "black")
STATS = 5
"""Statistics per ring: L at the 10th, 50th, 90th percentile, median a, median b."""
RINGS = ("core", "mid", "outer")
STAT_STD = np.array([6.0, 5.0, 6.0, 5.0, 5.0], np.float32)
"""Spread (Lab units) expected of each ring statistic between photos of one piece: JPEG,
blur, light and where the printed symbol falls on the points."""
SIDE_DISTANCE = 2.2
"""RMS z-distance from the learned unused side beyond which a spore is read as used when its
used side was never photographed."""
SIDE_SCALE = 0.6
"""z-distance margin that gives a side confidence of 1 - 1/e."""
MEEPLE_MIN_EVIDENCE = 1.0
"""Meeple evidence (log-likelihood units) a space needs for a meeple to be placed there."""
WEAK_EVIDENCE = -4.0
"""Least evidence for a meeple on a space that beats all others by :data:`CLEAR_MARGIN`."""
CLEAR_MARGIN = 3.0
EVIDENCE_CLIP = 6.0
"""Per-point cap on colour evidence, so a few odd pixels (a shadow, a dot) cannot decide."""
SYMBOL_WEIGHT = 2.0
"""Log-likelihood units per unit of z-distance in the symbol evidence."""
SYMBOL_SHOWS = SIDE_DISTANCE
"""RMS z-distance of a spore's core from one of its learned sides within which its symbol is
taken to show: a meeple standing there would hide it, so no other player's meeple stands
there however well its colour fits (a dark symbol looks like a black meeple from above)."""


def _ring_points(name: str) -> np.ndarray:
    if name == "core":
        return np.r_[np.arange(L.CENTRE.start, L.CENTRE.stop), np.arange(L.SYM_IN.start, L.SYM_IN.stop)]
    g = {"mid": L.SYM_MID, "outer": L.SYM_OUT}[name]
    return np.arange(g.start, g.stop)


RING_POINTS = {r: _ring_points(r) for r in RINGS}


def ring_stats(lab: np.ndarray, ring: str) -> np.ndarray:
    """float32 (S, 5) ring statistics of Lab float32 (S, P, 3) on one ring ("core", "mid", "outer")."""
    x = lab[:, RING_POINTS[ring]]
    q = np.percentile(x[:, :, 0], (10, 50, 90), axis=1).T
    ab = np.median(x[:, :, 1:], axis=1)
    return np.concatenate([q, ab], axis=1).astype(np.float32)


def symbol_features(lab: np.ndarray) -> np.ndarray:
    """float32 (S, 3, 5): :func:`ring_stats` of the core, middle and outer rings."""
    return np.stack([ring_stats(lab, r) for r in RINGS], axis=1)


def z_distance(feat: np.ndarray, ref: np.ndarray, rings: slice = slice(None)) -> np.ndarray:
    """RMS z-distance (S,) of features (S, 3, 5) from a reference (3, 5) on the given rings;
    +inf where the reference is unknown (NaN).  Both may carry more leading axes, broadcast
    against each other (a reference per space (S, 3, 5); every space against every reference:
    (S, 1, 3, 5) and (R, 3, 5) give (S, R))."""
    z = (feat[..., rings, :] - ref[..., rings, :]) / STAT_STD
    d = np.sqrt(np.mean(z * z, axis=(-2, -1)))
    return np.where(np.isnan(d), np.inf, d)


@dataclass
class PieceModel:
    """What calibration learned of the pieces.

    ``meeple_mean``, ``meeple_std``: float32 (4, 3) Lab of each player's meeple as the camera
    sees it (cap and core points), in :data:`PLAYERS` order; ``meeple_rings``: float32
    (4, 3, 5) ring statistics of a meeple standing on an empty space; ``spore``: float32
    (4, 2, 3, 5) ring statistics of each player's spore, unused side [:, 0] and used side
    [:, 1], NaN where the calibration photos did not show that side.
    """

    meeple_mean: np.ndarray
    meeple_std: np.ndarray
    meeple_rings: np.ndarray
    spore: np.ndarray
    substrate: np.ndarray | None = None
    """float32 (2, 3, 5) ring statistics of a wood [0] and a soil [1] substrate, or ``None``."""
    meeple_on_spore: np.ndarray | None = None
    """float32 (4, 3, 5) ring statistics of each player's meeple standing on its own spore, or
    ``None`` (calibration photos without that, e.g. layout 1 alone)."""
    side_profile: np.ndarray | None = None
    """float32 (4, 2, R) radial profile (:func:`radial_profile`) of each player's spore, unused
    side [:, 0] and used side [:, 1], NaN where the calibration photos did not show that side
    uncovered, or ``None`` (a profile learned before there were profiles)."""

    def to_json(self) -> dict:
        def arr(a):
            return [[None if np.isnan(v) else round(float(v), 2) for v in row] for row in a.reshape(-1, a.shape[-1])]
        d = {"players": list(PLAYERS), "meeple_mean": arr(self.meeple_mean), "meeple_std": arr(self.meeple_std),
             "meeple_rings": arr(self.meeple_rings), "spore": arr(self.spore)}
        if self.substrate is not None:
            d["substrate"] = arr(self.substrate)
        if self.meeple_on_spore is not None:
            d["meeple_on_spore"] = arr(self.meeple_on_spore)
        if self.side_profile is not None:
            d["side_profile"] = arr(self.side_profile)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "PieceModel":
        """Raises ValueError (or KeyError/TypeError) on a malformed section."""
        def arr(v, shape):
            a = np.array([[np.nan if x is None else x for x in row] for row in v], np.float32)
            return a.reshape(shape)
        if list(d["players"]) != list(PLAYERS):
            raise ValueError(f"pieces: players must be {list(PLAYERS)}")
        sub = arr(d["substrate"], (2, 3, STATS)) if d.get("substrate") is not None else None
        on = arr(d["meeple_on_spore"], (4, 3, STATS)) if d.get("meeple_on_spore") is not None else None
        prof = arr(d["side_profile"], (4, 2, len(PROFILE_RADII))) if d.get("side_profile") is not None else None
        return cls(arr(d["meeple_mean"], (4, 3)), arr(d["meeple_std"], (4, 3)),
                   arr(d["meeple_rings"], (4, 3, STATS)), arr(d["spore"], (4, 2, 3, STATS)), sub, on, prof)

    def sides_learned(self) -> list[str]:
        """Which spore sides the model knows: subset of ["unused", "used"]."""
        return [n for k, n in enumerate(("unused", "used")) if not np.isnan(self.spore[:, k]).any()]

    def meeple_colour_ll(self, lab: np.ndarray) -> np.ndarray:
        """float32 (..., 4) log-likelihood of Lab (..., 3) under each player's meeple colour."""
        d = (lab[..., None, :] - self.meeple_mean) / self.meeple_std
        # the same normalisation as ColourProfile.log_likelihood, so the two compare
        norm = np.sum(np.log(self.meeple_std), axis=-1) - 3 * np.log(MIN_STD[0])
        return (-0.5 * np.sum(d * d, axis=-1) - norm).astype(np.float32)

    def spore_side(self, feat: np.ndarray, player: np.ndarray, covered: np.ndarray,
                   profiles: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Side of each spore: (used bool (S,), confidence float (S,)).

        ``feat``: (S, 3, 5) :func:`symbol_features`; ``player``: int (S,) index into
        :data:`PLAYERS`; ``covered``: bool (S,) a meeple stands on it (only the outer ring is
        compared).  With the used side learned, the nearer side wins; without, used means
        farther than :data:`SIDE_DISTANCE` from the unused side.  An uncovered spore is weighed
        by its radial profile where ``profiles`` (float (S, R), :func:`radial_profile`, NaN
        rows where not sampled) and the learned :attr:`side_profile` of both its sides are
        given (:func:`profile_distance`: the symbol matched at every size a copy may print it),
        else ring by ring, each ring counting at most :data:`RING_OUTLIER` (:func:`ring_vote`).

        Under a meeple, a rim that shows no symbol is no evidence of the side whose symbol
        stays off the rim: the meeple (its radius up to 0.375 s, its lean and its shadow) can
        hide the tips of the other side's symbol too.  So only the side whose learned rim shows
        more of its symbol (:func:`rim_contrast`, by :data:`RIM_SHOWS` or more) can be seen
        there; the other gets confidence 0 (the reader reports it unknown).
        """
        player = np.asarray(player, np.int64)
        covered = np.asarray(covered, bool)
        dtype = np.result_type(feat, self.spore, STAT_STD)
        d_un, d_us = np.zeros(len(feat), dtype), np.zeros(len(feat), dtype)
        for cov, rings in ((False, slice(None)), (True, slice(2, 3))):
            at = np.flatnonzero(covered == cov)
            if len(at):
                d_un[at] = z_distance(feat[at], self.spore[player[at], 0], rings)
                d_us[at] = z_distance(feat[at], self.spore[player[at], 1], rings)
        learned = np.isfinite(d_us)
        used = np.where(learned, d_us < d_un, d_un > SIDE_DISTANCE)
        with np.errstate(invalid="ignore"):  # inf - inf where no side was learned: not taken
            margin = np.where(learned, np.abs(d_un - d_us), np.abs(d_un - SIDE_DISTANCE))
        both = np.flatnonzero(~covered & learned)
        if len(both):
            # with both sides learned, an uncovered spore is weighed ring by ring, each ring
            # counting at most RING_OUTLIER: a symbol larger or smaller than the one photographed
            # moves the one ring its edge crosses far from the learned side
            used[both], margin[both] = ring_vote(feat[both], self.spore[player[both], 0], self.spore[player[both], 1])
        if profiles is not None and self.side_profile is not None:
            profiles = np.asarray(profiles, np.float64)
            ok = (~covered & np.isfinite(profiles).all(axis=1)
                  & np.isfinite(self.side_profile[player]).all(axis=(1, 2)))
            at = np.flatnonzero(ok)
            if len(at):
                # the symbol's radial profile matched at every size a copy may print it: a used
                # side's X smaller than the one photographed still spreads from the centre
                # outwards, where a dot of any size stops short (docs/rules.md)
                d_un_p = profile_distance(profiles[at], self.side_profile[player[at], 0])
                d_us_p = profile_distance(profiles[at], self.side_profile[player[at], 1])
                # both descriptions weigh in: the rings' own colours tell a faint symbol (pale
                # dots) where the profile, scaled to its contrast, is unsure
                # a profile that fits neither side well at any size (a pattern of dots off the
                # space's centre) says nothing of the side: only the rings then decide
                said = np.where(np.minimum(d_un_p, d_us_p) <= PROFILE_FITS, d_un_p - d_us_p, 0.0)
                vote = np.where(used[at], margin[at], -margin[at]) + said
                used[at], margin[at] = vote > 0, np.abs(vote)
        hid = np.flatnonzero(covered & learned)
        if len(hid):
            # under a meeple only the side whose learned rim shows more of its symbol is seen
            contrast = np.stack([rim_contrast(self.spore[q]) for q in player[hid]])
            side = used[hid].astype(np.int64)
            rows = np.arange(len(hid))
            unseen = contrast[rows, side] < contrast[rows, 1 - side] + RIM_SHOWS
            margin[hid[unseen]] = 0.0
        conf = (1.0 - np.exp(-margin / SIDE_SCALE)).astype(np.float32)
        return used, conf


PROFILE_RADII = np.round(np.arange(0.02, 0.36, 0.03), 2).astype(np.float32)
"""Radii (units of s) of the rings of a spore's radial profile: from the centre to 0.35 s, inside
the smallest chip a copy may print (0.375 s, the documented 0.5 s less 25 %)."""
PROFILE_ANGLES = 24
"""Points per ring of the radial profile, evenly spread (15 degrees apart)."""
PROFILE_CHIP = PROFILE_RADII >= 0.28
"""The profile's rings whose median colour is taken for the chip's own: a symbol covers less
than half of each (an X's arms a quarter at most), so the median is the chip's colour."""
PROFILE_STD = 8.0
"""Spread (per cent of the symbol's contrast, :func:`radial_profile`) of one ring's mean colour
difference between photos of one symbol: about 6 Lab units of a contrast of 75."""
PROFILE_FITS = 1.0
"""Most RMS z-distance (:func:`profile_distance`) at which a spore's radial profile fits the
nearer learned side for the profile to weigh in the side (one expected spread per ring)."""
PROFILE_SCALES = np.exp(np.linspace(np.log(0.6), np.log(1 / 0.6), 21)).astype(np.float32)
"""Sizes of a board's symbol relative to the one photographed at calibration that
:func:`profile_distance` tries: each copy prints its symbol within +-25 % of the documented
size, so one instance may be 0.75 / 1.25 = 0.6 to 1.67 times another."""


def profile_offsets() -> np.ndarray:
    """float32 (R * A, 2) sample offsets (units of s) of a radial profile, ring-major: ring
    :data:`PROFILE_RADII` [k] holds points k * A to (k + 1) * A - 1 (A = :data:`PROFILE_ANGLES`)."""
    th = np.radians(np.arange(PROFILE_ANGLES) * 360.0 / PROFILE_ANGLES)
    r = PROFILE_RADII[:, None]
    return np.stack([r * np.cos(th)[None], r * np.sin(th)[None]], -1).reshape(-1, 2).astype(np.float32)


def radial_profile(lab: np.ndarray) -> np.ndarray:
    """float32 (S, R) radial profile of spores from Lab float (S, R * A, 3) sampled at
    :func:`profile_offsets` around each centre: per ring, the mean colour difference (Lab
    units) of its points from the chip's own colour as lit there (:func:`chip_plane`, fitted
    to the :data:`PROFILE_CHIP` rings), in per cent of the largest of them (at least
    :data:`PROFILE_FLOOR`).  It does not depend on how the chip was turned, and a
    symbol printed larger or smaller stretches it along the radius (:func:`profile_distance`)."""
    x = np.asarray(lab, np.float64).reshape(len(lab), -1, 3)
    chip = chip_plane(x)
    d = np.linalg.norm(x - chip, axis=-1).reshape(len(lab), len(PROFILE_RADII), PROFILE_ANGLES).mean(axis=2)
    # in per cent of the symbol's own contrast: glare over the chip or a dim lamp lowers the
    # contrast of both sides alike, not where the symbol reaches
    peak = np.maximum(d.max(axis=1, keepdims=True), PROFILE_FLOOR)
    return (100.0 * d / peak).astype(np.float32)


PROFILE_FLOOR = 15.0
"""Least contrast (Lab units) a profile is divided by: a chip with hardly any symbol in view
(a blank, a glare spot over it) keeps its small differences small."""


CHIP_FIT_KEEP = 0.6
"""Share of the chip rings' points, those nearest a first plane, that the final plane of
:func:`chip_plane` is fitted to: an X's arms cover at most a quarter of them."""


def chip_plane(x: np.ndarray) -> np.ndarray:
    """float64 (S, R * A, 3): the chip's own colour at every profile point of Lab ``x``
    (S, R * A, 3), a plane in the offsets fitted per channel to the :data:`PROFILE_CHIP` rings
    (least squares, again on the :data:`CHIP_FIT_KEEP` of them nearest the first fit).  The
    edge of a glare spot or a shadow brightens one side of a chip more than the other; a single
    chip colour would leave that slope in every ring, growing with the radius, as an X's arms
    do."""
    off = profile_offsets().astype(np.float64)
    design = np.column_stack([np.ones(len(off)), off])
    chip_pts = np.repeat(PROFILE_CHIP, PROFILE_ANGLES)
    a = design[chip_pts]
    out = np.empty_like(x)
    for i, y in enumerate(x[:, chip_pts]):
        coef = np.linalg.lstsq(a, y, rcond=None)[0]
        resid = np.linalg.norm(y - a @ coef, axis=1)
        keep = resid <= np.quantile(resid, CHIP_FIT_KEEP)
        coef = np.linalg.lstsq(a[keep], y[keep], rcond=None)[0]
        out[i] = design @ coef
    return out


def profile_distance(prof: np.ndarray, template: np.ndarray) -> np.ndarray:
    """float (S,) RMS z-distance (:data:`PROFILE_STD`) of radial profiles ``prof`` (S, R) from
    learned ones ``template`` (S, R) or (R,), at the best of :data:`PROFILE_SCALES`: the
    template stretched by f is read at radius r / f, over the radii where that stays within
    :data:`PROFILE_RADII`."""
    prof = np.asarray(prof, np.float64)
    template = np.broadcast_to(np.asarray(template, np.float64), prof.shape)
    best = np.full(len(prof), np.inf)
    for f in PROFILE_SCALES:
        r = PROFILE_RADII / f
        ok = r <= PROFILE_RADII[-1] + 1e-6
        t = np.stack([np.interp(r[ok], PROFILE_RADII, row) for row in template])
        z = (prof[:, ok] - t) / PROFILE_STD
        best = np.minimum(best, np.sqrt(np.mean(z * z, axis=1)))
    return best


RING_OUTLIER = SIDE_DISTANCE
"""Most z-distance one ring counts for in the side of an uncovered spore
(:func:`ring_vote`).  Every printed symbol differs in size by up to 25 % from the
one photographed at calibration: a dot 25 % wider covers the inner core ring the learned dot
left bare (bands, orange's unused dot under the dim warm lamp: core 4.6 from the learned unused
side, 0.7 from the used side's X centre, while the middle and outer rings, where only the X's
arms reach, lay 0.2 and 0.4 from the unused side and 2.5 and 1.9 from the used one).  A ring
farther than :data:`SIDE_DISTANCE` from a side says "not this side" there, and no more."""


def ring_vote(feat: np.ndarray, unused: np.ndarray, used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Side of uncovered spores weighed ring by ring: (used bool (S,), margin float (S,)).

    ``feat``: float32 (S, 3, 5) :func:`symbol_features`; ``unused``, ``used``: (S, 3, 5) or
    (3, 5) the learned sides.  Each ring's evidence for the used side is the difference of its
    squared z-distances (:func:`z_distance`) from the two sides, bounded by
    :data:`RING_OUTLIER` squared; the side is the sign of their mean.  The margin, on the scale
    of a z-distance, is that mean over the sum of the two RMS distances with each ring's
    distance bounded the same way.  With no ring beyond the bound this is the nearer side by the
    RMS over all rings, with margin the difference of the two distances."""
    d_un = np.stack([z_distance(feat, unused, slice(k, k + 1)) for k in range(len(RINGS))], axis=-1)
    d_us = np.stack([z_distance(feat, used, slice(k, k + 1)) for k in range(len(RINGS))], axis=-1)
    cap = RING_OUTLIER * RING_OUTLIER
    vote = np.mean(np.clip(d_un * d_un - d_us * d_us, -cap, cap), axis=-1)
    spread = np.sqrt(np.mean(np.minimum(d_un * d_un, cap), axis=-1)) + np.sqrt(np.mean(np.minimum(d_us * d_us, cap), axis=-1))
    return vote > 0, np.abs(vote) / spread


RIM_SHOWS = 6.0
"""Lightness spread (L units, one :data:`STAT_STD` of the 10th and 90th percentiles) by which a
spore side's learned rim must exceed the other side's for that side to be seen around a meeple."""


def rim_contrast(sides: np.ndarray) -> np.ndarray:
    """float32 (2,): how much of each side's symbol shows on the chip's outer ring, as the
    spread of its lightness (90th minus 10th percentile, L units), from the learned ring
    statistics ``sides`` float32 (2, 3, 5) of one player's unused [0] and used [1] side."""
    return (sides[:, 2, 2] - sides[:, 2, 0]).astype(np.float32)


TOKEN_KINDS = [("spore", p, used) for p in PLAYERS for used in (False, True)] + [("wood", None, None), ("soil", None, None)]
"""What :func:`nearest_token` chooses among: (kind, player, used)."""


def nearest_token(model: PieceModel, feat: np.ndarray, covered: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Which round piece each space shows, by ring statistics: index into :data:`TOKEN_KINDS`
    per space (S,), confidence float (S,) from the margin to the nearest piece of another
    kind or colour, and the distance (S,) to the chosen one.  ``feat``: (S, 3, 5); ``covered``: bool (S,) a meeple stands there (outer
    ring only).  A spore side never photographed is skipped here (its side is then decided by
    :meth:`PieceModel.spore_side`)."""
    refs = [model.spore[PLAYERS.index(p), int(u)] for k, p, u in TOKEN_KINDS[:8]]
    refs += list(model.substrate) if model.substrate is not None else [np.full((3, STATS), np.nan)] * 2
    covered = np.asarray(covered, bool)
    # every space against one reference at a time, in that reference's precision
    d = np.zeros((len(feat), len(refs)), np.result_type(feat, STAT_STD, *refs))
    for cov, rings in ((False, slice(None)), (True, slice(2, 3))):
        at = np.flatnonzero(covered == cov)
        for j, ref in enumerate(refs):
            if len(at):
                d[at, j] = z_distance(feat[at], ref, rings)
    b = np.argmin(d, axis=1)
    dist = d[np.arange(len(feat)), b].astype(np.float32)
    # the nearest piece of another kind or colour than the chosen one
    same = np.array([[t[:2] == u[:2] for u in TOKEN_KINDS] for t in TOKEN_KINDS])
    other = np.where(same[b], np.inf, d).min(1)
    near = d[np.arange(len(feat)), b]
    with np.errstate(invalid="ignore"):  # inf - inf where no reference is known: not taken
        conf = np.where(np.isfinite(near), 1.0 - np.exp(-np.maximum(other - near, 0.0) / SIDE_SCALE), 0.0)
    best = [int(i) for i in b]
    return best, conf.astype(np.float32), dist


HIDDEN_CAP_RADIUS = 0.225
"""Least radius (units of s) of a meeple's cap: the documented 0.3 s less the 25 % a copy of the
game may differ by.  A point of the table within it of where the cap is seen is hidden by it."""


def hidden_core(shift_s: np.ndarray) -> np.ndarray:
    """bool (S, n) which of the core points (:data:`RING_POINTS` ``["core"]``) of each space a
    meeple standing there hides from the camera, from ``shift_s`` float (S, 2): where its cap
    (:data:`layout.CAP_HEIGHT_MM`) is seen on the table, relative to the space centre, in units
    of s (:func:`companion.vision.pose.parallax_shift`).  Its foot hides the centre points; its
    cap every point within :data:`HIDDEN_CAP_RADIUS` of where the cap is seen.  Far from the
    point under the camera the cap is seen well beyond the foot, and the table between, on the
    side towards the camera, shows beside it."""
    core = RING_POINTS["core"]
    off = L.OFFSETS[core]
    near = np.linalg.norm(off[None, :, :] - np.asarray(shift_s, np.float32)[:, None, :], axis=2) < HIDDEN_CAP_RADIUS
    foot = (core >= L.CENTRE.start) & (core < L.CENTRE.stop)
    return near | foot[None, :]


def _hidden_features(lab: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """float32 (S, 1, 5) :func:`ring_stats` of the core of Lab (S, P, 3) over its hidden points
    only (bool (S, n), :func:`hidden_core`)."""
    core = RING_POINTS["core"]
    out = np.empty((len(lab), 1, STATS), np.float32)
    for i in range(len(lab)):
        x = lab[i, core[hidden[i]]]
        out[i, 0, :3] = np.percentile(x[:, 0], (10, 50, 90))
        out[i, 0, 3:] = np.median(x[:, 1:], axis=0)
    return out


TOKEN_MATCH = 2.5
"""RMS z-distance within which a round piece's whole look (all rings) matches a learned piece
well enough to overrule what its colours said."""


def meeple_evidence(lab: np.ndarray, ll: np.ndarray, model: PieceModel, spore_of: np.ndarray,
                    player_class: np.ndarray, flat_classes: np.ndarray, features=None,
                    hidden: np.ndarray | None = None, on_tile: np.ndarray | None = None,
                    tile_flat_classes: np.ndarray | None = None) -> np.ndarray:
    """float32 (S, 4) evidence (log-likelihood units) that each player's meeple stands on each space.

    ``lab``: float32 (S, P, 3) Lab samples; ``ll``: float32 (S, P, K) their clipped class
    log-likelihoods; ``spore_of``: int (S,) the player index whose spore lies on the space, or
    -1; ``player_class``: int (4,) class index of each player colour; ``flat_classes``: int
    array of the classes of flat surfaces (board, tiles, paths, rock, tree, substrates, white).

    Colour evidence: over the best half of the cap and core points, how much better the
    learned meeple colour fits than the best flat surface (and the chip's colour on a spore),
    capped per point at :data:`EVIDENCE_CLIP`.  On a spore of the player's own colour the chip matches the meeple,
    so the symbol decides: how much farther the core lies from the nearest learned spore side
    than from the learned meeple (standing on an empty space, or on its own spore where
    calibration photographed that).  Another player's meeple on a spore must also hide its symbol:
    a core within :data:`SYMBOL_SHOWS` of a learned side gives it the least evidence,
    ``-EVIDENCE_CLIP``.  ``features``: a function giving the :func:`symbol_features` (n, 3, 5)
    of the spaces of an int index array (n,) into ``lab`` (a reader that computed them already);
    ``None`` computes them.  ``hidden``: bool (S, n) the core points a meeple standing on each
    space would hide (:func:`hidden_core`), or ``None`` (all): on its own spore those are
    compared too, since a meeple is a standing piece and, under a tilted camera, the chip and its
    symbol show beside its foot on the side towards the camera; the better of the two views
    (whole core, hidden part) counts, as a meeple leaning or smaller than documented hides
    other points.

    ``on_tile``: bool (S,) spaces read as a tile, with ``tile_flat_classes`` the flat classes
    that may show at a tile's centre (``flat_classes`` less the substrates): a tile laid on a
    substrate covers it and the token is discarded (rulebook 5.a), so no substrate shows on a
    tile, and there the meeple's colour is weighed against the tile's own surfaces only.  Under
    a dim warm lamp an orange meeple on a tile looks about as much like a wood substrate as
    like itself.  ``None``: every flat class everywhere.
    """
    pts = np.r_[np.arange(L.CAP.start, L.CAP.stop), RING_POINTS["core"]]
    x = lab[:, pts]
    m = model.meeple_colour_ll(x)  # (S, n, 4)
    alt = ll[:, pts][:, :, flat_classes].max(2)  # (S, n)
    if on_tile is not None and tile_flat_classes is not None and np.any(on_tile):
        # no substrate lies on a tile (rulebook 5.a): its look is no rival of a meeple there
        t = np.flatnonzero(on_tile)
        alt[t] = ll[t][:, pts][:, :, tile_flat_classes].max(2)
    S = len(lab)
    on_spore = spore_of >= 0
    if on_spore.any():
        chip = np.take_along_axis(ll[:, pts], player_class[np.maximum(spore_of, 0)][:, None, None], axis=2)[:, :, 0]
        alt = np.where(on_spore[:, None], np.maximum(alt, chip), alt)
    # a meeple covers at least half of these points, wherever on the space it stands
    d = np.clip(m - alt[:, :, None], -EVIDENCE_CLIP, EVIDENCE_CLIP)
    k = d.shape[1] // 2
    ev = -np.sort(-d, axis=1)[:, :k].mean(1)
    if on_spore.any():
        sp = np.flatnonzero(on_spore)
        feat = symbol_features(lab[sp]) if features is None else features(sp)
        p = spore_of[sp]
        core = slice(0, 1)
        d_side = np.minimum(z_distance(feat, model.spore[p, 0], core), z_distance(feat, model.spore[p, 1], core))
        if hidden is None:
            own_feat, own_side = feat, d_side
        else:
            # its own meeple, if one stands there, hides these points wherever it stands
            own_feat = _hidden_features(lab[sp], np.asarray(hidden, bool)[sp])
            own_side = np.minimum(z_distance(own_feat, model.spore[p, 0], core),
                                  z_distance(own_feat, model.spore[p, 1], core))

        def d_own_whole(q: int) -> np.ndarray:
            d = z_distance(feat, model.meeple_rings[q], core)
            if model.meeple_on_spore is not None:
                d = np.minimum(d, z_distance(feat, model.meeple_on_spore[q], core))
            return d

        rim = chip_rim_distance(feat, model)
        rim_here = rim[np.arange(len(sp)), p]
        for q in range(len(PLAYERS)):
            d_meeple = z_distance(feat, model.meeple_rings[q], core)
            d_own = z_distance(own_feat, model.meeple_rings[q], core)
            if model.meeple_on_spore is not None:
                # the meeple as calibrated standing on its own spore: under a dim or warm lamp
                # a dark meeple on its dark chip matches it better than its look on an empty space
                d_own = np.minimum(d_own, z_distance(own_feat, model.meeple_on_spore[q], core))
            d_meeple = np.where(p == q, d_own, d_meeple)
            symbol = SYMBOL_WEIGHT * (np.minimum(np.where(p == q, own_side, d_side), 6.0) - d_meeple)
            if hidden is not None:
                # a meeple leaning, or smaller than documented, hides other points than these:
                # its own spore keeps the better of the two views, the whole core or the hidden part
                whole = SYMBOL_WEIGHT * (np.minimum(d_side, 6.0) - np.where(p == q, d_own_whole(q), d_meeple))
                symbol = np.where(p == q, np.maximum(symbol, whole), symbol)
            # another player's meeple would hide the whole symbol: one still showing rules it
            # out, however near the meeple's look the core also lies
            symbol = np.where((p != q) & (d_side < SYMBOL_SHOWS), -EVIDENCE_CLIP, symbol)
            # nor does it stand on a chip whose rim, beyond any meeple's foot, is plainly the
            # other player's (rulebook 4: a meeple never stands on another player's spore): a
            # dark X larger than the one calibrated fills the core like a black meeple
            foreign = (p != q) & (rim_here < SYMBOL_SHOWS) & (rim[:, q] > rim_here + FOREIGN_RIM_MARGIN)
            symbol = np.where(foreign, -EVIDENCE_CLIP, symbol)
            # the spore's own colour fits its meeple anyway: the symbol alone decides; a dark
            # or coloured symbol must not pass for another player's meeple either
            ev[sp, q] = np.where(p == q, symbol, np.minimum(ev[sp, q], symbol))
    return ev.astype(np.float32)


FOREIGN_RIM_MARGIN = SIDE_DISTANCE
"""RMS z-distance by which a spore chip's rim must lie nearer its read player's learned looks
than another player's (:func:`chip_rim_distance`) for that other player's meeple to be ruled
out there (:func:`meeple_evidence`)."""


CHIP_STATS = np.array([1, 3, 4])
"""The ring statistics that give a chip's own colour: median L, median a, median b.  A printed
symbol covers less than half of the chip's outer ring, so it moves the 10th and 90th
percentiles of lightness there (a dark X 25 % larger than the one calibrated reaches the rim
with its arms) and not the medians."""


def chip_rim_distance(feat: np.ndarray, model: PieceModel) -> np.ndarray:
    """float (S, 4) RMS z-distance of each space's chip colour on its outer ring (features
    (S, 3, 5), :func:`symbol_features`; only :data:`CHIP_STATS` count) from the nearest learned
    look of each player's spore there: either side, or its meeple standing on it where
    calibration photographed that.  The outer ring lies on the chip beyond a standing meeple's
    foot, so its colour shows whose chip it is whatever stands on it or is printed on it."""
    f = feat[:, None, 2:3, CHIP_STATS]

    def dist(ref: np.ndarray) -> np.ndarray:
        z = (f - ref[:, 2:3, CHIP_STATS]) / STAT_STD[CHIP_STATS]
        d = np.sqrt(np.mean(z * z, axis=(-2, -1)))
        return np.where(np.isnan(d), np.inf, d)

    d = np.minimum(dist(model.spore[:, 0]), dist(model.spore[:, 1]))
    if model.meeple_on_spore is not None:
        d = np.minimum(d, dist(model.meeple_on_spore))
    return d


def assign_meeples(evidence: np.ndarray, min_evidence: float = MEEPLE_MIN_EVIDENCE,
                   doubtful: np.ndarray | None = None,
                   may_stand: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Place at most one meeple per player and one per space, jointly.

    ``evidence``: float (S, 4).  Returns (player index per space int (S,), -1 for none;
    confidence float (S,) of that space's meeple call).  Maximises the summed evidence with
    ``scipy.optimize.linear_sum_assignment``; a player is left off the board where no space
    gives :data:`MEEPLE_MIN_EVIDENCE`, unless its best space beats every other by
    :data:`CLEAR_MARGIN` and reaches :data:`WEAK_EVIDENCE`.  Confidence grows with the margin to the threshold and
    to the runner-up space of that player.  ``doubtful``: bool (S,) spaces whose evidence is
    unreliable (under a glare spot the veil lifts every colour towards every meeple's): there
    a meeple needs :data:`MEEPLE_MIN_EVIDENCE` in full, and their evidence is no runner-up
    that would keep a clear winner elsewhere off the board.  ``may_stand``: bool (S, 4) the
    spaces each player's meeple may stand on as read
    (:func:`companion.vision.meeple_doubts.may_stand`: a tile or its own spore, rulebook 4,
    5.a), or ``None`` (every space): only there does a space count as a placed meeple's
    runner-up, or keep a space without a meeple from being sure.  A wood substrate under a warm
    lamp looks about as orange as orange's meeple on its spore, but no meeple stands on a
    substrate, so it does not make that placement doubtful.  Where meeples are placed is decided
    on every space all the same: the reading before meeples is no ground to forbid one (a tile
    under a meeple may first read as another piece; in play that put meeples on no space).
    """
    from scipy.optimize import linear_sum_assignment

    S, P = evidence.shape
    big = 1e6
    if doubtful is not None and np.any(doubtful):
        evidence = np.where(np.asarray(doubtful)[:, None] & (evidence < min_evidence), -big, evidence)
    cost = np.full((P, S + P), big)
    cost[:, :S] = -evidence.T
    second = -np.sort(-evidence, axis=0)[1] if S > 1 else np.full(P, -big)
    # under glare or deep shade the evidence of a real meeple drops, but it still stands
    # clear of every other space: a clear winner needs less
    need = np.minimum(min_evidence, np.maximum(WEAK_EVIDENCE, second + CLEAR_MARGIN))
    for p in range(P):
        cost[p, S + p] = -need[p]
    rows, cols = linear_sum_assignment(cost)
    owner = np.full(S, -1, np.int64)
    conf = np.ones(S, np.float32)
    for p, c in zip(rows, cols):
        if c < S:
            owner[c] = p
    # rivals and the spaces sure of holding no meeple: only where a meeple may stand (the
    # evidence a meeple needs, for its confidence, by how clearly it stands out from those)
    rival = evidence if may_stand is None else np.where(np.asarray(may_stand, bool), evidence, -big)
    second = -np.sort(-rival, axis=0)[1] if S > 1 else np.full(P, -big)
    need = np.minimum(min_evidence, np.maximum(WEAK_EVIDENCE, second + CLEAR_MARGIN))
    for p, s in zip(rows, cols):
        if s < S:
            others = np.delete(rival[:, p], s)
            margin = min(evidence[s, p] - need[p], evidence[s, p] - (others.max() if len(others) else -big))
            conf[s] = 1.0 - np.exp(-max(margin, 0.0) / 1.5)
    free = np.flatnonzero(owner < 0)
    # no meeple here: the margin is how far every player's evidence stays below its need (a
    # space no meeple may stand on is sure of it)
    margin = np.min(need[None, :] - rival[free], axis=1).astype(np.float64)
    conf[free] = 1.0 - np.exp(-np.maximum(margin, 0.0) / 1.5)
    return owner, conf


HOME_LEAST = MEEPLE_MIN_EVIDENCE - CLEAR_MARGIN
"""Least evidence of a meeple on its own spore for :func:`meeples_at_home` to put it there:
within :data:`CLEAR_MARGIN` of what places a meeple.  Below it the spore's symbol shows (a spore
without its meeple scores -4 to -7 in the median under the lamps; a meeple on its spore -1 at
worst), and a meeple seen nowhere is hidden from the camera (a hand over it), not on its spore."""
DEDUCED_SURE = 0.5
"""Confidence of a meeple placed by :func:`meeples_at_home` below which the reading says why it
is unsure (the table's bar, ``companion.table.inference.LOW_CONFIDENCE``: below it the table asks)."""


def meeples_at_home(evidence: np.ndarray, owner: np.ndarray, conf: np.ndarray,
                    home: np.ndarray, may_stand: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int, int]]]:
    """Put on its spore the meeple of a player whose spore is on the board and whose meeple
    :func:`assign_meeples` placed nowhere.

    A player's meeple is always on the board while its spore is: it stands on a tile or on its
    own spore, goes back to its spore after a purchase or when its tile is removed, and leaves
    the board only with a displaced spore (rulebook 4, 5.a, 6; docs/rules.md;
    :func:`companion.position.check_against_edition` refuses any other position).  On a tile a
    meeple shows its colour against paths that have none of it; only on its own spore, a chip
    of its own colour, can it look like the flat piece under it (a black meeple on black's dark
    used side under a warm lamp looks like the side's dark X).  So a meeple seen clearly on no
    space stands on its spore: a deduction from the rules, not a guess, as long as the spore's
    own look allows a meeple on it (evidence :data:`HOME_LEAST` or more).  Where it does not (the
    symbol shows: a hand hides the meeple elsewhere), the meeple is placed nowhere and the space
    that looks next most like it is reported unsure (confidence 0); the spore keeps its reading,
    a spore showing its symbol holding no meeple wherever the reader judges it.

    ``evidence``: float (S, 4) meeple evidence (:func:`meeple_evidence`); ``owner``, ``conf``:
    int (S,) and float (S,) from :func:`assign_meeples`; ``home``: int (4,) the space of each
    player's spore as read, -1 where none (or more than one) was read.  Returns new (owner,
    conf) and the doubts: (spore space, player, runner-up space) for each such meeple placed
    with confidence below :data:`DEDUCED_SURE`, or not placed.  ``may_stand``: bool (S, 4) the
    spaces each player's meeple may stand on as read (:func:`companion.vision.meeple_doubts.may_stand`:
    tiles and its own spore, never a substrate, rock or tree), or ``None`` (every space): only
    those compete with the spore.  A wood substrate under a warm lamp looks about as much like
    orange's meeple as orange's spore does, but no meeple stands on a substrate.

    The confidence of such a meeple grows with the margin by which its spore's evidence beats
    every other space that holds no meeple (the same scale as :func:`assign_meeples`).  Where
    another space looks about as much like that meeple (a meeple on a tile under glare), the
    camera cannot tell which of the two holds it: both spaces get that low confidence (the
    table asks), and where the other space looks more like it than the spore does, the meeple
    is placed on neither.
    """
    owner, conf = owner.copy(), conf.copy()
    stand = np.ones(evidence.shape, bool) if may_stand is None else np.asarray(may_stand, bool)
    doubts = []
    for p, h in enumerate(np.asarray(home, np.int64)):
        if h < 0 or p in owner or owner[h] >= 0:
            continue
        if evidence[h, p] < HOME_LEAST:
            # the spore shows its symbol: the meeple is not on it either (hidden by a hand,
            # lost under glare); the camera cannot tell where it is
            others = np.flatnonzero((owner < 0) & (np.arange(len(owner)) != h) & stand[:, p])
            runner = int(others[np.argmax(evidence[others, p])]) if len(others) else -1
            if runner >= 0:
                conf[runner] = 0.0
            doubts.append((int(h), p, runner))
            continue
        others = np.flatnonzero((owner < 0) & stand[:, p])
        others = others[others != h]
        if len(others):
            runner = int(others[np.argmax(evidence[others, p])])
            margin = float(evidence[h, p] - evidence[runner, p])
        else:
            runner, margin = -1, np.inf
        c = float(1.0 - np.exp(-max(margin, 0.0) / 1.5))
        if margin > 0:
            owner[h], conf[h] = p, c
        else:
            conf[h] = min(conf[h], c)
        if runner >= 0:
            conf[runner] = min(conf[runner], c)
        if c < DEDUCED_SURE:
            doubts.append((int(h), p, runner))
    return owner, conf, doubts


def close_calls(evidence: np.ndarray, owner: np.ndarray, conf: np.ndarray,
                may_stand: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """The meeples placed with confidence below :data:`DEDUCED_SURE`, each with the space that
    looks next most like it: (space, player, runner-up space, -1 where none) per such meeple.

    ``evidence``: float (S, 4) (:func:`meeple_evidence`); ``owner``, ``conf``: int (S,) and float
    (S,) of the placed meeples (:func:`assign_meeples`, :func:`meeples_at_home`); ``may_stand``:
    bool (S, 4) the spaces each meeple may stand on as read, or ``None`` (every space): the
    runner-up is one of them.  On its own
    spore a meeple is judged by the symbol alone, and a spore without its meeple can look about
    as much like one as a meeple on a tile does (inkline under the dim warm lamp: 3.98 on the
    spore against 3.74 on the tile that held it): the reading then names both spaces."""
    out = []
    stand = np.ones(evidence.shape, bool) if may_stand is None else np.asarray(may_stand, bool)
    for s in np.flatnonzero((owner >= 0) & (conf < DEDUCED_SURE)):
        p = int(owner[s])
        others = np.flatnonzero((owner < 0) & stand[:, p])
        runner = int(others[np.argmax(evidence[others, p])]) if len(others) else -1
        out.append((int(s), p, runner))
    return out
