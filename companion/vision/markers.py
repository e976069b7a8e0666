"""Finding the four board markers in a grey frame, including the hard ones.

A marker of DICT_4X4_50 is 6 cells wide; at the mount heights in ``hardware/camera.md`` a cell
is only 6-9 px, so blur, JPEG and a steep tilt wash out its isolated single-cell bits.  The
detector therefore samples each cell at 8x8 px and ignores a fifth of the cell at its border.

When a full-frame pass finds some of the board's markers but not all, the ones found and the
board geometry (the four markers sit at known positions on one plane) predict where each
missing one must be.  :func:`find_missing` looks only there, in an upscaled window, with
contrast-normalised (CLAHE) and sharpened versions of the grey image.  A marker counts only
with the right id and corners within :data:`PREDICTION_TOL` marker sides of the prediction,
so this search cannot invent a marker elsewhere; a covered marker stays missing.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.geometry import BoardGeometry

PREDICTION_TOL = 0.25
"""Largest corner distance from the predicted corners, in marker sides, for a window find."""


def detector_parameters(error_correction: float = 0.6) -> cv2.aruco.DetectorParameters:
    """ArUco parameters tuned for small, blurred, tilted markers (sub-pixel corner refinement)."""
    p = cv2.aruco.DetectorParameters()
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    p.perspectiveRemovePixelPerCell = 8
    p.perspectiveRemoveIgnoredMarginPerCell = 0.2
    p.errorCorrectionRate = error_correction
    return p


class MarkerFinder:
    """Detects the board's markers: id -> float32 (4, 2) corners in px (ArUco corner order)."""

    def __init__(self, geo: BoardGeometry):
        self.geo = geo
        self.ids = {m.id for m in geo.markers}
        self._detector = cv2.aruco.ArucoDetector(geo.aruco_dictionary(), detector_parameters())
        self._lenient = cv2.aruco.ArucoDetector(geo.aruco_dictionary(), detector_parameters(1.0))
        self._clahe = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(4, 4))

    def detect(self, gray: np.ndarray, offset: tuple[int, int] = (0, 0), lenient: bool = False) -> dict[int, np.ndarray]:
        """Board markers in ``gray`` (uint8 (h, w)); corners shifted by ``offset`` px."""
        det = self._lenient if lenient else self._detector
        corners, ids, _ = det.detectMarkers(gray)
        out: dict[int, np.ndarray] = {}
        if ids is None:
            return out
        for c, i in zip(corners, ids.ravel()):
            if int(i) in self.ids and int(i) not in out:
                out[int(i)] = c.reshape(4, 2).astype(np.float32) + np.float32(offset)
        return out

    def detect_all(self, gray: np.ndarray, offset: tuple[int, int] = (0, 0)) -> dict[int, list[np.ndarray]]:
        """Every copy of each board marker in ``gray`` (uint8 (h, w)): id -> list of float32
        (4, 2) corners in px.  A spare printed sheet or a phone showing a marker gives a second
        copy; registration picks the copies that fit the board (see ``registration``)."""
        corners, ids, _ = self._detector.detectMarkers(gray)
        out: dict[int, list[np.ndarray]] = {}
        if ids is None:
            return out
        for c, i in zip(corners, ids.ravel()):
            if int(i) in self.ids:
                out.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float32) + np.float32(offset))
        return out

    def predict(self, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """float32 (4, 2) predicted px corners of each missing marker from >= 2 found ones.

        Two markers (8 corners) or more fix the plane-to-image homography of the board; the
        prediction is in the (distorted) frame, good to a few px for moderate lens distortion.
        """
        if len(found) < 2:
            return {}
        src = np.vstack([self.geo.marker_corners_mm(i) for i in sorted(found)]).astype(np.float64)
        dst = np.vstack([found[i] for i in sorted(found)]).astype(np.float64)
        h, _ = cv2.findHomography(src, dst, 0)
        if h is None:
            return {}
        out = {}
        for i in sorted(self.ids - set(found)):
            pts = self.geo.marker_corners_mm(i).astype(np.float64).reshape(-1, 1, 2)
            out[i] = cv2.perspectiveTransform(pts, h).reshape(4, 2).astype(np.float32)
        return out

    def find_missing(self, gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """``found`` plus any missing marker recovered at its predicted place (see module doc)."""
        out = dict(found)
        h, w = gray.shape[:2]
        for i, pred in self.predict(found).items():
            side = float(np.mean(np.linalg.norm(pred - np.roll(pred, 1, axis=0), axis=1)))
            if not np.isfinite(side) or side < 4:
                continue
            x0, y0 = np.maximum(np.floor(pred.min(0) - side), 0).astype(int)
            x1, y1 = np.minimum(np.ceil(pred.max(0) + side), [w, h]).astype(int)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            hit = self._search_window(gray[y0:y1, x0:x1], i)
            if hit is None:
                continue
            hit = hit + np.float32((x0, y0))
            if float(np.max(np.linalg.norm(hit - pred, axis=1))) <= PREDICTION_TOL * side:
                out[i] = hit
        return out

    def _search_window(self, crop: np.ndarray, marker_id: int) -> np.ndarray | None:
        """Corners (window px) of ``marker_id`` in ``crop`` or ``None``; tries several clean-ups."""
        up = cv2.resize(crop, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
        blur = cv2.GaussianBlur(up, (0, 0), 2.0)
        sharp = cv2.addWeighted(up, 2.0, blur, -1.0, 0)
        for img, lenient in ((crop, False), (up, False), (sharp, False), (self._clahe.apply(up), False),
                             (sharp, True), (self._clahe.apply(sharp), True)):
            got = self.detect(img, lenient=lenient)
            if marker_id in got:
                scale = crop.shape[1] / img.shape[1]
                c = got[marker_id]
                # corner coordinates of the upscaled image -> window px (pixel centres line up at 0.5)
                return ((c + 0.5) * scale - 0.5).astype(np.float32) if scale != 1.0 else c
        return None
