"""Find the board's true place from the printed hex grid, when the markers are a few mm off.

Players stick the four corner markers by hand.  Markers stuck a few millimetres from their
documented place still agree with each other (any four points fit a homography), so the marker
registration looks perfect while every space is sampled a few mm off: at 3 mm 12 % of spaces
read wrong, at 5 mm 57 %.  The board itself says where it is: the outlines of its spaces (and
the edges of the tiles laid on them, which follow the same grid).

:func:`refine_registration` rectifies the frame with the marker homography, measures the
edge strength across each of the three directions of hex edges (the gradient of the blurred
grey image along each edge normal), and searches the offset of each marker (dx, dy in mm)
that puts the model grid's edges on the strongest edges.  A coarse-to-fine coordinate search
(a pattern search: each marker in turn moves to the best of its eight neighbours, in
steps of 2, 1, 0.5 and 0.25 mm, within :data:`MAX_OFFSET_MM`) on maps
blurred to match the step keeps it from locking onto a path or a piece.

Strong edges depend on the art: a copy of the game whose tiles are cut a little smaller than
their space puts the strongest edges 1-2 mm inside every outline, and the search above then
"finds" markers 3-5 mm off on a board whose markers are exactly in place.  So the offsets it
proposes must pass an art-free test before they move anything (:func:`line_evidence`): the
outline between two spaces is a *symmetric* feature in every print (a printed line, or the
gap between two tiles, is the same seen from either side), while the edge of a single tile is a
step and has no centre.  The symmetric response of each hex edge (the product of the opposite
intensity gradients found at equal distances on either side of the model edge) is compared
under the marker homography and under the proposed offsets, edge by edge; the proposal is
kept only when it raises that response by :data:`MIN_LINE_GAIN` overall and by
:data:`MIN_EVIDENCE_T` standard errors of the per-edge differences (the noise of the fit).
Otherwise the marker homography stays (markers agree with each other to 0.2 px) and no marker
is reported.  Accepted offsets are finished by the same pattern search on the symmetric
response (:data:`POLISH_STEPS_MM`), which an inset tile edge cannot pull, then kept in
``Registration.marker_offsets_mm`` and the
homography is refitted with each marker at its documented place plus its offset;
:func:`displaced_markers` names the markers more than :data:`REPORT_OFFSET_MM` off (a
registration problem, not moved pieces).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.geometry import BoardGeometry
from companion.vision.registration import Registration, fit_markers

MAX_OFFSET_MM = 8.0
"""Largest marker offset searched (mm).  The hex grid repeats every 37.5 mm across and 43 mm
along a row, so a search much wider than this could lock onto the neighbouring space."""
REPORT_OFFSET_MM = 1.5
"""A marker found farther than this (mm) from its documented place is reported as off."""
MIN_GAIN = 1.05
"""The refined fit must align the grid at least this much better than the markers alone
(ratio of edge scores), or the marker registration is kept: a board without visible grid
(covered by a cloth, a hand) cannot move the registration."""
PX_PER_MM = 2.0
"""Scale of the rectified view searched (px per mm)."""
SEARCH_LEVELS = ((2.0, 2.5), (1.0, 1.5), (0.5, 1.25), (0.25, 1.25))
"""(step mm, blur mm) of each level of the pattern search.  The blur is never below 1.25 mm:
a thin printed line gives two gradient peaks, one each side, that must merge into one."""
MAX_MOVES = 12
"""Most rounds of moves per level (a round tries every marker's eight neighbours)."""
EDGE_SAMPLES = 5
"""Points sampled along each hex edge (its middle 70 %: corners are ambiguous)."""
LINE_SIGMA_MM = 0.5
"""Blur (mm) of the signed gradients used by :func:`line_evidence`: keeps a 0.5 mm printed line."""
LINE_REACH_MM = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
"""Distances (mm) either side of a model edge at which :func:`line_evidence` pairs gradients:
a printed line is under 1 mm wide, the gap between two tiles up to about 5 mm."""
MIN_LINE_GAIN = 1.15
"""Least ratio (proposed / marker homography) of the summed symmetric edge response for the
proposed offsets to be kept.  Measured at 1920x1080: 1.2-3.0 (mostly 1.7-3.0; the lowest on a
board showing few outlines) with markers really 3-6 mm off in four art styles of our renderer;
0.60-0.72 for the phantom offsets on the independent renderer's three boards."""
MIN_EVIDENCE_T = 3.0
"""Least mean per-edge gain of the symmetric response, in standard errors of that mean.
Measured: 3.8-15 with markers really off (mostly 7-15), -6.6 to -9.8 for phantom offsets."""
MIN_LINE_RESPONSE = 5.0
"""Least mean symmetric response per edge (:func:`_edge_symmetry`, in Sobel units of the
rectified grey view) under the proposed offsets for it to count as evidence at all: a board
under a cloth gives 0.2-0.5 (noise, where any ratio is meaningless), a board in view 47-170."""
POLISH_STEPS_MM = (0.5, 0.25)
"""Steps (mm) of the pattern search on the symmetric response that finishes accepted offsets."""


def grid_model(geo: BoardGeometry) -> tuple[np.ndarray, np.ndarray]:
    """float64 (n, 2) points on the hex edges in board mm and int (n,) the edge direction of
    each: 0, 1, 2 for edge normals at 0, 60 and 120 degrees (pointy-top hexes).  Each edge
    shared by two spaces is sampled once."""
    s = geo.hex_size_mm
    seen, pts, kind = set(), [], []
    t = np.linspace(0.15, 0.85, EDGE_SAMPLES)
    for q in geo.spaces:
        cx, cy = geo.center_mm(q)
        corners = [(cx + s * math.cos(math.radians(-90 + 60 * i)), cy + s * math.sin(math.radians(-90 + 60 * i)))
                   for i in range(6)]
        for i in range(6):
            a, b = np.array(corners[i]), np.array(corners[(i + 1) % 6])
            key = tuple(np.round((a + b) / 2, 1))
            if key in seen:
                continue
            seen.add(key)
            pts.append(a[None] + t[:, None] * (b - a)[None])
            normal_deg = (-60 + 60 * i) % 180  # 0, 60 or 120
            kind.append(np.full(EDGE_SAMPLES, normal_deg // 60, int))
    return np.vstack(pts), np.concatenate(kind)


def _edge_maps(view_gray: np.ndarray, sigma_px: float) -> list[np.ndarray]:
    """float32 maps of |gradient . normal| for the three edge normals, blurred by ``sigma_px``."""
    g = cv2.GaussianBlur(view_gray.astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    out = []
    for deg in (0.0, 60.0, 120.0):
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        m = np.abs(gx * c + gy * s)
        out.append(cv2.GaussianBlur(m, (0, 0), sigma_px) if sigma_px > 0 else m)
    return out


class _Scorer:
    """Edge score of the grid model under candidate marker offsets, on one rectified view."""

    def __init__(self, geo: BoardGeometry, reg: Registration, view_gray: np.ndarray, origin_mm: tuple[float, float]):
        self.pts, kind = grid_model(geo)
        self.origin = np.asarray(origin_mm, np.float64)
        self.view = view_gray
        self.width = view_gray.shape[1]
        # the three direction maps side by side: one remap samples each point in its own map
        self.shift = (kind * self.width).astype(np.float32)
        self.ids = sorted(reg.markers_px)
        self.centres = np.array([next(m.center_mm for m in geo.markers if m.id == i) for i in self.ids], np.float32)
        self.maps = np.zeros((1, 1), np.float32)

    def blur(self, sigma_px: float) -> None:
        if getattr(self, "_sigma", None) != sigma_px:
            self.maps, self._sigma = np.hstack(_edge_maps(self.view, sigma_px)), sigma_px

    def correction(self, off: dict[int, np.ndarray]) -> np.ndarray:
        """float64 (3, 3) true board mm -> mm of the view rectified by the marker homography: the
        inverse of the projective map moving each marker centre by its offset."""
        moved = self.centres + np.array([off[i] for i in self.ids], np.float32)
        return cv2.getPerspectiveTransform(moved, self.centres).astype(np.float64)

    def score(self, off: dict[int, np.ndarray]) -> float:
        c = self.correction(off)
        p = cv2.perspectiveTransform(self.pts.reshape(-1, 1, 2), c).reshape(-1, 2)
        px = ((p - self.origin) * PX_PER_MM - 0.5).astype(np.float32)
        inside = (px[:, 0] >= 0) & (px[:, 0] <= self.width - 1)
        x = np.where(inside, px[:, 0] + self.shift, -10.0).astype(np.float32)
        v = cv2.remap(self.maps, x.reshape(-1, 1), px[:, 1].reshape(-1, 1), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        return float(v.sum()) / len(self.pts)


def _line_maps(view_gray: np.ndarray, sigma_px: float) -> np.ndarray:
    """float32 (h, 3 w): the signed intensity gradient along the normals 0, 60 and 120 degrees,
    side by side (the layout of :class:`_Scorer` maps)."""
    g = cv2.GaussianBlur(view_gray.astype(np.float32), (0, 0), sigma_px)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return np.hstack([gx * math.cos(math.radians(d)) + gy * math.sin(math.radians(d)) for d in (0.0, 60.0, 120.0)])


def _edge_symmetry(sc: _Scorer, maps: np.ndarray, off: dict[int, np.ndarray]) -> np.ndarray:
    """float64 (edges,) symmetric response of each model hex edge under marker offsets ``off``:
    sqrt(sum over reach t of max(0, -g(p + t n) g(p - t n))), averaged over the edge's samples,
    with g the signed gradient along the edge normal n.  A line or a gap centred on the edge
    gives gradients of opposite sign at equal distances (a large response); a single step
    edge, flat paper or art gives about none, wherever the model edge sits."""
    kind = np.round(sc.shift / sc.width).astype(int)
    ang = np.radians(kind * 60.0)
    normal = np.stack([np.cos(ang), np.sin(ang)], 1)
    p = cv2.perspectiveTransform(sc.pts.reshape(-1, 1, 2), sc.correction(off)).reshape(-1, 2)
    reach = np.asarray(LINE_REACH_MM, np.float64)

    def sample(pts_mm: np.ndarray) -> np.ndarray:
        px = ((pts_mm - sc.origin) * PX_PER_MM - 0.5).astype(np.float32)
        inside = (px[..., 0] >= 0) & (px[..., 0] <= sc.width - 1)
        x = np.where(inside, px[..., 0] + sc.shift[:, None], -10.0).astype(np.float32)
        return cv2.remap(maps, x, np.ascontiguousarray(px[..., 1]), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float64)

    step = reach[None, :, None] * normal[:, None, :]
    pair = np.maximum(0.0, -sample(p[:, None, :] + step) * sample(p[:, None, :] - step)).sum(1)
    return np.sqrt(pair).reshape(-1, EDGE_SAMPLES).mean(1)


def line_evidence(sc: _Scorer, off: dict[int, np.ndarray]) -> tuple[float, float]:
    """(gain, t) of the art-free test of proposed marker offsets ``off`` (id -> (2,) mm): the
    ratio of the summed symmetric edge response (:func:`_edge_symmetry`) under ``off`` to that
    under the marker homography, and the mean per-edge difference in standard errors.  A
    board that shows no outlines (a cloth over it: a mean response under
    :data:`MIN_LINE_RESPONSE`) gives (1.0, 0.0): no evidence."""
    maps = _line_maps(sc.view, LINE_SIGMA_MM * PX_PER_MM)
    base = _edge_symmetry(sc, maps, {i: np.zeros(2) for i in off})
    moved = _edge_symmetry(sc, maps, off)
    d = moved - base
    if base.sum() <= 1e-9 or len(d) < 2 or moved.mean() < MIN_LINE_RESPONSE:
        return (1.0, 0.0)
    spread = float(d.std(ddof=1)) / math.sqrt(len(d))
    return float(moved.sum() / base.sum()), (float(d.mean()) / spread if spread > 1e-12 else 0.0)


def _view(gray: np.ndarray, reg: Registration, geo: BoardGeometry) -> tuple[np.ndarray, tuple[float, float]]:
    """Grey view of the spaces (plus the search margin) rectified by ``reg``, and its origin in mm."""
    centres = np.array([geo.center_mm(q) for q in geo.spaces])
    m = geo.hex_size_mm + MAX_OFFSET_MM + 6.0
    x0, y0 = centres.min(0) - m
    x1, y1 = centres.max(0) + m
    w, h = int((x1 - x0) * PX_PER_MM), int((y1 - y0) * PX_PER_MM)
    # the lens model on a coarse grid (every 8 px), bilinear in between: smooth, and 60x cheaper
    step = 8
    cx = np.arange(0, w + step, step, dtype=np.float32)
    cy = np.arange(0, h + step, step, dtype=np.float32)
    gx, gy = np.meshgrid((cx + 0.5) / PX_PER_MM + x0, (cy + 0.5) / PX_PER_MM + y0)
    coarse = reg.to_image(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(len(cy), len(cx), 2)
    fx, fy = np.meshgrid(np.arange(w, dtype=np.float32) / step, np.arange(h, dtype=np.float32) / step)
    px = cv2.remap(coarse, fx, fy, cv2.INTER_LINEAR)
    view = cv2.remap(gray, np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1]), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)
    return view, (float(x0), float(y0))


def _pattern_search(score, off: dict[int, np.ndarray], step: float) -> dict[int, np.ndarray]:
    """``off`` (id -> (2,) mm) after rounds of moving each marker to the best-scoring of its eight
    neighbours ``step`` mm away (at most :data:`MAX_MOVES` rounds, within :data:`MAX_OFFSET_MM`)."""
    around = [np.array((dx, dy), np.float64) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    current = score(off)
    for _ in range(MAX_MOVES):
        moved = False
        for i in sorted(off):
            for d in around:
                cand = off[i] + step * d
                if np.hypot(*cand) > MAX_OFFSET_MM:
                    continue
                trial = dict(off)
                trial[i] = cand
                v = score(trial)
                if v > current:
                    current, off, moved = v, trial, True
        if not moved:
            break
    return off


def refine_registration(gray: np.ndarray, reg: Registration, geo: BoardGeometry) -> Registration:
    """``reg`` refitted with each marker at the offset that best aligns the printed hex grid.

    ``gray``: uint8 (h, w) frame; returns a new :class:`Registration` with
    ``marker_offsets_mm`` set (id -> (dx, dy) mm, board frame), or ``reg`` itself (offsets
    all zero) when the grid gives no clearly better fit (:data:`MIN_GAIN`) or the fit found
    fails the art-free test (:func:`line_evidence`, :data:`MIN_LINE_GAIN`,
    :data:`MIN_EVIDENCE_T`); accepted offsets are then finished on the symmetric response
    (:data:`POLISH_STEPS_MM`).  ``grid_evidence`` of the registration returned holds the
    (gain, t) of that test.
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    view, origin = _view(gray, reg, geo)
    sc = _Scorer(geo, reg, view, origin)
    ids = sorted(reg.markers_px)
    off = {i: np.zeros(2) for i in ids}
    for step, sigma_mm in SEARCH_LEVELS:
        sc.blur(sigma_mm * PX_PER_MM)
        off = _pattern_search(sc.score, off, step)
    base, refined = sc.score({i: np.zeros(2) for i in ids}), sc.score(off)
    evidence = line_evidence(sc, off) if refined >= MIN_GAIN * base else (1.0, 0.0)
    if evidence[0] < MIN_LINE_GAIN or evidence[1] < MIN_EVIDENCE_T:
        reg.marker_offsets_mm = {i: (0.0, 0.0) for i in ids}
        reg.grid_evidence = evidence
        return reg
    # accepted: finish on the art-free response itself, which a tile's inset edge cannot pull
    maps = _line_maps(sc.view, LINE_SIGMA_MM * PX_PER_MM)
    for step in POLISH_STEPS_MM:
        off = _pattern_search(lambda o: float(_edge_symmetry(sc, maps, o).sum()), off, step)
    f = fit_markers(geo, reg.markers_px, reg.intrinsics, offsets_mm=off)
    out = Registration(f.h, reg.markers_px, reg.reprojection_px, reg.image_size, reg.intrinsics,
                       reprojection_mm=reg.reprojection_mm, duplicates=reg.duplicates,
                       marker_offsets_mm={i: (float(off[i][0]), float(off[i][1])) for i in ids},
                       grid_evidence=evidence)
    out.grid_note = describe_displaced(out, geo)
    return out


def looks_like_lens_distortion(reg: Registration, geo: BoardGeometry) -> bool:
    """True when, without intrinsics, the offsets found all point the same way along the board's
    diagonals (all outward or all inward): the signature of an uncorrected wide-angle lens
    bending the grid, not of four markers each stuck off in its own direction."""
    if reg.intrinsics is not None or not reg.marker_offsets_mm:
        return False
    radial, total = [], []
    for m in geo.markers:
        d = np.asarray(reg.marker_offsets_mm.get(m.id, (0.0, 0.0)))
        u = np.asarray(m.center_mm, np.float64)
        u = u / (np.linalg.norm(u) or 1.0)
        radial.append(float(d @ u))
        total.append(float(np.linalg.norm(d)))
    radial = np.array(radial)
    return bool(np.all(radial > 0) or np.all(radial < 0)) and float(np.abs(radial).sum()) > 0.6 * float(sum(total))


def displaced_markers(reg: Registration, limit_mm: float = REPORT_OFFSET_MM,
                      geo: BoardGeometry | None = None) -> dict[int, float]:
    """id -> distance (mm) of each marker the grid found more than ``limit_mm`` off its place;
    empty when, without intrinsics, the pattern is that of lens distortion (``geo`` given)."""
    if geo is not None and looks_like_lens_distortion(reg, geo):
        return {}
    return {i: float(np.hypot(*d)) for i, d in reg.marker_offsets_mm.items() if np.hypot(*d) > limit_mm}


def describe_displaced(reg: Registration, geo: BoardGeometry | None = None) -> str:
    """One sentence naming the displaced markers, or ``""``: "marker 2 looks 5 mm off its place".
    With ``geo`` and no intrinsics, a lens-distortion pattern gets its own sentence."""
    if geo is not None and looks_like_lens_distortion(reg, geo) and displaced_markers(reg):
        return ("the printed grid bends away from the markers the way an uncorrected lens bends it: run "
                "'calibrate camera' and pass --intrinsics (the reader follows the grid meanwhile)")
    off = displaced_markers(reg)
    if not off:
        return ""
    parts = [f"marker {i} looks {d:.0f} mm off its place" for i, d in sorted(off.items())]
    return ("; ".join(parts) + ": the reader follows the printed grid instead, but stick "
            + ("it" if len(off) == 1 else "them") + " back at the printed place (hardware/camera.md)")
