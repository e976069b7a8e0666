"""Board registration: ArUco markers -> homography from board mm to camera px.

:class:`BoardTracker` keeps the last good :class:`Registration` for a fixed camera.  Each frame
it re-detects the markers only in small windows around where they were (cheap); when they are
all still there the cached homography and sample maps are reused, when they moved (the board
was bumped) or vanished it runs a full detection and re-registers.  With fewer than 4 markers
visible it keeps the last registration only if the visible ones agree with it, and otherwise
raises :class:`BoardNotFoundError`: it never guesses a board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.vision.errors import BoardNotFoundError
from companion.vision.geometry import BoardGeometry
from companion.vision.markers import MarkerFinder

AGREE_PX = 3.0
"""Largest marker corner shift (px) still counted as the same board position."""


@dataclass
class Registration:
    """Homography ``h`` float64 (3, 3): board mm -> undistorted image px.

    ``markers_px``: id -> float32 (4, 2) corners as detected (distorted px).
    ``reprojection_px``: RMS distance between the detected corners and the homography's
    prediction, px.  ``intrinsics``: used to undistort, or ``None``.
    """

    h: np.ndarray
    markers_px: dict[int, np.ndarray]
    reprojection_px: float
    image_size: tuple[int, int]
    intrinsics: Intrinsics | None = None
    cache: dict = field(default_factory=dict, repr=False)

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """float32 (n, 2) board mm -> (n, 2) camera px (distorted when intrinsics are set)."""
        pts = cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), self.h).reshape(-1, 2)
        if self.intrinsics is None:
            return pts.astype(np.float32)
        k, dist = self.intrinsics.camera_matrix, self.intrinsics.dist
        norm = np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1], np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
        return out.reshape(-1, 2).astype(np.float32)

    def to_json(self) -> dict:
        return {
            "markers": sorted(self.markers_px),
            "reprojection_px": round(float(self.reprojection_px), 3),
            "homography": [[float(v) for v in row] for row in self.h],
        }


def _undistort(pts: np.ndarray, intr: Intrinsics | None) -> np.ndarray:
    if intr is None:
        return pts.astype(np.float64)
    k = intr.camera_matrix
    return cv2.undistortPoints(pts.reshape(-1, 1, 2).astype(np.float64), k, intr.dist, P=k).reshape(-1, 2)


def compute_registration(
    geo: BoardGeometry, found: dict[int, np.ndarray], image_size: tuple[int, int], intr: Intrinsics | None = None
) -> Registration:
    """Homography from all four markers' corners (16 points); raise if any is missing."""
    missing = sorted(m.id for m in geo.markers if m.id not in found)
    if missing:
        raise BoardNotFoundError(
            f"board markers {missing} not found ({len(found)} of {len(geo.markers)} visible): "
            "make sure all four corner markers are in view and not covered"
        )
    src = np.vstack([geo.marker_corners_mm(i) for i in sorted(found)]).astype(np.float64)
    dst = _undistort(np.vstack([found[i] for i in sorted(found)]), intr)
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise BoardNotFoundError("board markers are degenerate (all in a line?): cannot register the board")
    pred = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((pred - dst) ** 2, axis=1))))
    return Registration(h, {i: found[i] for i in sorted(found)}, rms, image_size, intr)


class BoardTracker:
    """Registration for a fixed camera, reused across frames while the board stays put.

    ``last_event`` after :meth:`register`: ``"registered"`` (first time), ``"cached"``,
    ``"cached-partial"`` (some markers hidden, the rest agree) or ``"re-registered"`` (bumped).
    """

    def __init__(self, geo: BoardGeometry, intrinsics: Intrinsics | None = None):
        self.geo = geo
        self.intrinsics = intrinsics
        self.finder = MarkerFinder(geo)
        self._ids = {m.id for m in geo.markers}
        self.current: Registration | None = None
        self.last_event = ""

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

    def _agrees(self, found: dict[int, np.ndarray]) -> bool:
        return bool(found) and all(
            i in self.current.markers_px and float(np.max(np.linalg.norm(c - self.current.markers_px[i], axis=1))) <= AGREE_PX
            for i, c in found.items()
        )

    def register(self, image: np.ndarray) -> Registration:
        """The registration for this frame (BGR or grey uint8); see the class doc for the cases."""
        size = (image.shape[1], image.shape[0])
        if self.current is not None and self.current.image_size == size:
            near = self._recheck(image)
            if len(near) == len(self._ids) and self._agrees(near):
                self.last_event = "cached"
                return self.current
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        found = self.detect(gray)
        if 2 <= len(found) < len(self._ids):
            found = self.finder.find_missing(gray, found)
        if len(found) == len(self._ids):
            if self.current is not None and self.current.image_size == size and self._agrees(found):
                self.last_event = "cached"
                return self.current
            self.last_event = "registered" if self.current is None else "re-registered"
            self.current = compute_registration(self.geo, found, size, self.intrinsics)
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
