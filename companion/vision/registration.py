"""Board registration: ArUco markers -> homography from board mm to camera px.

:class:`BoardTracker` keeps the last good :class:`Registration` for a fixed camera.  Each frame
it first samples a small grid over each corner marker (:data:`MARKER_GRID`, a few hundred
points): when every marker looks as in the frame it was last found in, nothing moved and the
registration is kept without any search (about 0.1 ms).  Otherwise it re-detects the markers
only in small windows around where they were (a few ms); when they are all still there the
cached homography and sample maps are reused, when they moved (the board was bumped) or
vanished it runs a full detection and re-registers.  With fewer than 4 markers
visible it keeps the last registration only if the visible ones agree with it, and otherwise
raises :class:`BoardNotFoundError`: it never guesses a board.

A marker seen twice (a spare printed sheet, a phone showing it) does not win by being found
first: :func:`compute_registration` fits every combination of the copies and keeps the one that
fits the board geometry, and refuses a fit whose corners miss by more than
:data:`REPROJECTION_MAX_MM` with a :class:`RegistrationError` naming the duplicated or displaced
marker.  Each new registration is then refined on the printed hex grid
(:mod:`companion.vision.gridfit`), which finds markers stuck a few mm off their place.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.vision.change import changed_groups
from companion.vision.errors import BoardNotFoundError, RegistrationError
from companion.vision.geometry import BoardGeometry
from companion.vision.markers import MarkerFinder

AGREE_PX = 3.0
"""Largest marker corner shift (px) still counted as the same board position."""
MARKER_GRID = 9
"""Points per side of the grid sampled over each corner marker and 3 mm of its white paper to
tell whether it moved: 9 points over 56 mm put one every 7 mm (about a cell), so a shift of a
fraction of a cell moves the samples near the black and white edges well past
:data:`companion.vision.change.CHANGE_LEVEL`."""


@dataclass
class Registration:
    """Homography ``h`` float64 (3, 3): board mm -> undistorted image px.

    ``markers_px``: id -> float32 (4, 2) corners as detected (distorted px).
    ``reprojection_px``: RMS distance between the detected corners and the homography's
    prediction, px; ``reprojection_mm``: the same on the board, mm.  ``intrinsics``: used to
    undistort, or ``None``.  ``duplicates``: marker ids seen more than once (the copies that fit
    the board were used).  ``marker_offsets_mm``: id -> (dx, dy) mm, how far each marker sits
    from its documented place as found from the printed grid (empty when not refined); ``grid_note``: the sentence about them
    (:func:`companion.vision.gridfit.describe_displaced`), empty when they are in place.
    ``grid_evidence``: (gain, t) of the art-free test the grid offsets had to pass
    (:func:`companion.vision.gridfit.line_evidence`); ``None`` when not refined.
    """

    h: np.ndarray
    markers_px: dict[int, np.ndarray]
    reprojection_px: float
    image_size: tuple[int, int]
    intrinsics: Intrinsics | None = None
    cache: dict = field(default_factory=dict, repr=False)
    reprojection_mm: float = 0.0
    duplicates: tuple[int, ...] = ()
    marker_offsets_mm: dict[int, tuple[float, float]] = field(default_factory=dict)
    grid_note: str = ""
    grid_evidence: tuple[float, float] | None = None

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """float32 (n, 2) board mm -> (n, 2) camera px (distorted when intrinsics are set)."""
        pts = cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), self.h).reshape(-1, 2)
        if self.intrinsics is None:
            return pts.astype(np.float32)
        k, dist = self.intrinsics.camera_matrix, self.intrinsics.dist
        norm = np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1], np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
        return out.reshape(-1, 2).astype(np.float32)

    def marker_offset(self, marker_id: int) -> np.ndarray:
        """float32 (2,) mm: where marker ``marker_id`` really sits relative to its documented place
        (zero unless the grid refinement found it off)."""
        return np.asarray(self.marker_offsets_mm.get(marker_id, (0.0, 0.0)), np.float32)

    def shift_marker_points(self, pts_mm: np.ndarray, marker_ids: list[int]) -> np.ndarray:
        """float32 (M * P, 2) points placed around each marker of ``marker_ids`` (P per marker, in
        that order, board mm from the documented places) moved to where the markers really sit:
        the white paper around a marker stuck 5 mm off is 5 mm off too."""
        pts = np.asarray(pts_mm, np.float32)
        if not self.marker_offsets_mm:
            return pts
        per = pts.reshape(len(marker_ids), -1, 2) + np.array([self.marker_offset(i) for i in marker_ids])[:, None, :]
        return per.reshape(-1, 2).astype(np.float32)

    def warnings(self) -> list[str]:
        """Sentences about marker trouble the registration worked around: a duplicated marker
        (the copy that fits the board was used), markers found off their place by the grid."""
        out = [f"marker {i} is seen more than once (a spare sheet or a screen near the board?): the copy that fits "
               "the board is used; take the other one away" for i in self.duplicates]
        return out + ([self.grid_note] if self.grid_note else [])

    def to_json(self) -> dict:
        return {
            "markers": sorted(self.markers_px),
            "reprojection_px": round(float(self.reprojection_px), 3),
            "reprojection_mm": round(float(self.reprojection_mm), 3),
            "duplicated_markers": list(self.duplicates),
            "marker_offsets_mm": {str(i): [round(float(v), 2) for v in d] for i, d in self.marker_offsets_mm.items()},
            "warnings": self.warnings(),
            "homography": [[float(v) for v in row] for row in self.h],
        }


def _undistort(pts: np.ndarray, intr: Intrinsics | None) -> np.ndarray:
    if intr is None:
        return pts.astype(np.float64)
    k = intr.camera_matrix
    return cv2.undistortPoints(pts.reshape(-1, 1, 2).astype(np.float64), k, intr.dist, P=k).reshape(-1, 2)


REPROJECTION_MAX_MM = 3.0
"""Largest RMS distance (mm on the board) between the detected marker corners and where the
fitted homography puts them before a registration is refused.  Correct markers fit to 0.2-0.6 mm
with intrinsics and to about 1.3 mm without them under a strong uncorrected lens distortion
(measured on the synthetic bench); a stray copy of a marker or one stuck a marker-width off
fits far worse (the duplicate-marker case: 20 mm)."""

MAX_COPIES = 4
"""Copies of one marker id considered (the first ones detected); more is not a table."""


@dataclass
class MarkerFit:
    """Homography ``h`` fitted to some markers.  ``rms_px`` / ``rms_mm``: RMS corner residual in
    px and in board mm; ``off_mm``: id -> mean corner distance (mm) of that marker from the fit."""

    h: np.ndarray
    rms_px: float
    rms_mm: float
    off_mm: dict[int, float]


def fit_markers(geo: BoardGeometry, chosen: dict[int, np.ndarray], intr: Intrinsics | None = None,
                ids: list[int] | None = None, offsets_mm: dict[int, np.ndarray] | None = None) -> MarkerFit | None:
    """Homography board mm -> undistorted px from the corners of the markers ``ids`` (default:
    all of ``chosen``), each assumed at its documented place plus ``offsets_mm`` (id -> (2,) mm);
    residuals are measured for every marker in ``chosen``.  ``None`` when degenerate."""
    ids = sorted(chosen) if ids is None else sorted(ids)
    offsets_mm = offsets_mm or {}

    def mm(i: int) -> np.ndarray:
        return geo.marker_corners_mm(i).astype(np.float64) + np.asarray(offsets_mm.get(i, (0.0, 0.0)), np.float64)

    src = np.vstack([mm(i) for i in ids])
    dst = _undistort(np.vstack([chosen[i] for i in ids]), intr)
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        return None
    pred = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    rms_px = float(np.sqrt(np.mean(np.sum((pred - dst) ** 2, axis=1))))
    hinv = np.linalg.inv(h)
    off, sq = {}, []
    for i in sorted(chosen):
        back = cv2.perspectiveTransform(_undistort(chosen[i], intr).reshape(-1, 1, 2), hinv).reshape(-1, 2)
        d = np.linalg.norm(back - mm(i), axis=1)
        off[i] = float(d.mean())
        if i in ids:
            sq.extend(d**2)
    return MarkerFit(h, rms_px, float(np.sqrt(np.mean(sq))), off)


def _copies(found: dict[int, np.ndarray | list[np.ndarray]]) -> dict[int, list[np.ndarray]]:
    return {i: (list(c) if isinstance(c, (list, tuple)) else [c])[:MAX_COPIES] for i, c in found.items()}


def _refusal(geo: BoardGeometry, copies: dict[int, list[np.ndarray]], best: MarkerFit | None,
             intr: Intrinsics | None) -> RegistrationError:
    """The sentence for markers that do not fit the board: which is duplicated, which is off."""
    dup = tuple(sorted(i for i, c in copies.items() if len(c) > 1))
    # the three markers that fit best tell where the fourth should be
    three = None
    for combo in itertools.product(*(range(len(copies[i])) for i in sorted(copies))):
        chosen = {i: copies[i][k] for i, k in zip(sorted(copies), combo)}
        for left in sorted(chosen):
            f = fit_markers(geo, chosen, intr, ids=[i for i in chosen if i != left])
            if f is not None and (three is None or f.rms_mm < three[0].rms_mm):
                three = (f, left)
    off = {}
    rms = best.rms_mm if best is not None else float("inf")
    head = (f"the corner markers do not fit the board geometry (residual {rms:.0f} mm RMS, "
            f"at most {REPROJECTION_MAX_MM:.0f} mm allowed)")
    if three is not None and three[0].rms_mm <= REPROJECTION_MAX_MM:
        f, left = three
        off[left] = f.off_mm[left]
        others = ", ".join(str(i) for i in sorted(copies) if i != left)
        where = f"marker {left} is {f.off_mm[left]:.0f} mm from where markers {others} put it"
    else:
        where = ""
    if dup:
        names = ", ".join(f"marker {i}" for i in dup)
        verb = "is" if len(dup) == 1 else "are"
        msg = (f"{names} {verb} seen more than once (a spare marker sheet or a screen showing it near the board?) "
               f"and no choice of the copies fits the board: {head}"
               + (f"; {where}" if where else "")
               + f"; take the extra copy of {names} out of view, and check the one on the board is not covered")
    else:
        msg = (f"{head}" + (f": {where}; if that is a spare copy of marker {left} take it away, otherwise stick "
                            f"marker {left} back at its printed place" if where else
                            ": check that all four markers are stuck at their printed places")
               + " (see hardware/camera.md)")
    return RegistrationError(msg, dup, off)


def compute_registration(
    geo: BoardGeometry, found: dict[int, np.ndarray | list[np.ndarray]], image_size: tuple[int, int],
    intr: Intrinsics | None = None,
) -> Registration:
    """Homography from all four markers' corners (16 points).

    ``found``: id -> float32 (4, 2) corners in px, or a list of such when a marker was seen more
    than once.  Every combination of copies is fitted and the one with the smallest residual
    kept; ``Registration.duplicates`` names the ids seen more than once.  Raises
    :class:`BoardNotFoundError` when a marker is missing and :class:`RegistrationError` (which
    names the duplicated or displaced marker) when the best fit is off by more than
    :data:`REPROJECTION_MAX_MM`.
    """
    copies = _copies(found)
    missing = sorted(m.id for m in geo.markers if m.id not in copies)
    if missing:
        raise BoardNotFoundError(
            f"board markers {missing} not found ({len(copies)} of {len(geo.markers)} visible): "
            "make sure all four corner markers are in view and not covered"
        )
    ids = sorted(copies)
    best: tuple[MarkerFit, dict[int, np.ndarray]] | None = None
    for combo in itertools.product(*(range(len(copies[i])) for i in ids)):
        chosen = {i: copies[i][k] for i, k in zip(ids, combo)}
        f = fit_markers(geo, chosen, intr)
        if f is not None and (best is None or f.rms_mm < best[0].rms_mm):
            best = (f, chosen)
    if best is None:
        raise BoardNotFoundError("board markers are degenerate (all in a line?): cannot register the board")
    if best[0].rms_mm > REPROJECTION_MAX_MM:
        raise _refusal(geo, copies, best[0], intr)
    f, chosen = best
    dup = tuple(i for i in ids if len(copies[i]) > 1)
    return Registration(f.h, chosen, f.rms_px, image_size, intr, reprojection_mm=f.rms_mm, duplicates=dup)


def _refine_on_grid(gray: np.ndarray, reg: Registration, geo: BoardGeometry) -> Registration:
    from companion.vision.gridfit import refine_registration  # gridfit builds on this module

    return refine_registration(gray, reg, geo)


class BoardTracker:
    """Registration for a fixed camera, reused across frames while the board stays put.

    ``last_event`` after :meth:`register`: ``"registered"`` (first time), ``"still"`` (every
    marker's patch looks as in the frame the markers were last found in: no search), ``"cached"``
    (found again in small windows, where they were), ``"cached-partial"`` (some markers hidden,
    the rest agree) or ``"re-registered"`` (bumped).
    """

    def __init__(self, geo: BoardGeometry, intrinsics: Intrinsics | None = None, refine_grid: bool = True):
        self.geo = geo
        self.intrinsics = intrinsics
        self.finder = MarkerFinder(geo)
        self._ids = {m.id for m in geo.markers}
        self.current: Registration | None = None
        self.last_event = ""
        self.refine = _refine_on_grid if refine_grid else None
        """``(gray, Registration, BoardGeometry) -> Registration`` run on every new registration:
        by default the grid refinement of :mod:`companion.vision.gridfit` (markers stuck a few mm
        off their place); ``None`` keeps the marker homography as it is."""
        g = np.linspace(-1.0, 1.0, MARKER_GRID) * (geo.marker_size_mm / 2 + 3.0)
        patch = np.array([(x, y) for y in g for x in g], np.float32)
        self._marker_ids = [m.id for m in geo.markers]
        centres = np.array([m.center_mm for m in geo.markers], np.float32)
        self._patch_pts = (centres[:, None, :] + patch[None]).reshape(-1, 2)
        self.reference: np.ndarray | None = None
        """float32 (M * Q, C) marker patches (:meth:`marker_patches`) of the frame the markers
        were last found in.  It is not renewed while they go unsearched, so a slow drift adds up
        against it instead of hiding in small steps."""

    def reset(self) -> None:
        """Forget the registration: the next frame is registered from a full detection."""
        self.current, self.reference, self.last_event = None, None, ""

    def marker_patches(self, image: np.ndarray, reg: Registration) -> np.ndarray:
        """float32 (M * Q, C) samples of ``image`` (BGR, C = 3, or grey, C = 1) on a
        :data:`MARKER_GRID` square grid over each corner marker and 3 mm of its white paper
        (Q points per marker, markers in board order), where ``reg`` puts them."""
        if "marker-maps" not in reg.cache:
            px = reg.to_image(reg.shift_marker_points(self._patch_pts, self._marker_ids)).astype(np.float32)
            reg.cache["marker-maps"] = (np.ascontiguousarray(px[:, :1]), np.ascontiguousarray(px[:, 1:]))
        mx, my = reg.cache["marker-maps"]
        out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(len(self._patch_pts), -1).astype(np.float32)

    def _still(self, image: np.ndarray) -> bool:
        """Whether every marker's patch looks as in the frame the markers were last found in."""
        if self.reference is None:
            return False
        now = self.marker_patches(image, self.current)
        return now.shape == self.reference.shape and not len(changed_groups(now, self.reference, MARKER_GRID * MARKER_GRID))

    def detect(self, gray: np.ndarray, offset: tuple[int, int] = (0, 0)) -> dict[int, np.ndarray]:
        """Board markers in ``gray`` (uint8 (h, w)): id -> float32 (4, 2) corners in px."""
        return self.finder.detect(gray, offset)

    def _recheck(self, image: np.ndarray) -> dict[int, np.ndarray]:
        """Detect markers only in windows around the cached ones (grey conversion of the windows only)."""
        h, w = image.shape[:2]
        out: dict[int, np.ndarray] = {}
        for i, c in self.current.markers_px.items():
            side = float(np.max(np.ptp(c, axis=0)))
            x0, y0 = np.maximum(np.floor(c.min(0) - side), 0).astype(int)
            x1, y1 = np.minimum(np.ceil(c.max(0) + side), [w, h]).astype(int)
            crop = image[y0:y1, x0:x1]
            if crop.size == 0:
                continue
            found = self.detect(crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (x0, y0))
            if i in found:
                out[i] = found[i]
        return out

    def _likeliest(self, marker_id: int, copies: list[np.ndarray]) -> np.ndarray:
        """Of several copies of one marker, the one nearest where the last registration had it."""
        if len(copies) == 1 or self.current is None or marker_id not in self.current.markers_px:
            return copies[0]
        last = self.current.markers_px[marker_id]
        return min(copies, key=lambda c: float(np.max(np.linalg.norm(c - last, axis=1))))

    def _agrees(self, found: dict[int, np.ndarray]) -> bool:
        return bool(found) and all(
            i in self.current.markers_px and float(np.max(np.linalg.norm(c - self.current.markers_px[i], axis=1))) <= AGREE_PX
            for i, c in found.items()
        )

    def register(self, image: np.ndarray) -> Registration:
        """The registration for this frame (BGR or grey uint8); see the class doc for the cases."""
        size = (image.shape[1], image.shape[0])
        if self.current is not None and self.current.image_size == size:
            if self._still(image):
                self.last_event = "still"
                return self.current
            near = self._recheck(image)
            if len(near) == len(self._ids) and self._agrees(near):
                self.last_event = "cached"
                self.reference = self.marker_patches(image, self.current)
                return self.current
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        copies = self.finder.detect_all(gray)
        found = {i: self._likeliest(i, c) for i, c in copies.items()}
        if 2 <= len(found) < len(self._ids):
            found = self.finder.find_missing(gray, found)
        if len(found) == len(self._ids):
            if self.current is not None and self.current.image_size == size and self._agrees(found):
                self.last_event = "cached"
                self.reference = self.marker_patches(image, self.current)
                return self.current
            event = "registered" if self.current is None else "re-registered"
            reg = compute_registration(self.geo, {i: copies.get(i, [c]) for i, c in found.items()}, size, self.intrinsics)
            if self.refine is not None:
                reg = self.refine(gray, reg, self.geo)
            self.last_event, self.current = event, reg
            self.reference = self.marker_patches(image, reg)
            return self.current
        if self.current is not None and self.current.image_size == size and self._agrees(found):
            self.last_event = "cached-partial"
            return self.current
        seen = sorted(found)
        if self.current is not None and found:
            raise BoardNotFoundError(
                f"only markers {seen} visible and they moved since the last registration: "
                "the board was bumped while a marker is covered; uncover all four markers"
            )
        raise BoardNotFoundError(
            f"no board found: {len(found)} of {len(self._ids)} corner markers visible {seen if seen else ''}".rstrip()
            + "; make sure all four ArUco markers (DICT_4X4_50, ids 0-3) are in view"
        )
