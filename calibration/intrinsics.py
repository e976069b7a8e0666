"""Camera intrinsics from photos of a plain chessboard or a ChArUco board.

The result is the pinhole camera matrix K (3x3, px) and OpenCV's default distortion model
(k1, k2, p1, p2, k3), with the RMS reprojection error in px.  Saved intrinsics are JSON::

    {"image_size": [w, h], "rms_px": 0.41, "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist": [k1, k2, p1, p2, k3]}

which :func:`load_intrinsics` reads back for the board reader (``read-board --intrinsics``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

SUBPIX_WINDOW = (11, 11)
"""Half-size in px of the ``cornerSubPix`` search window (OpenCV's tutorial value)."""
SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)

CHARUCO_DICTIONARY = cv2.aruco.DICT_5X5_100
"""Markers of the printable ChArUco board (different from the board's DICT_4X4_50, so the
calibration target is never mistaken for the game board)."""
CHARUCO_SQUARES = (7, 5)
"""Squares across x down of the printable ChArUco board."""
CHARUCO_SQUARE_MM = 25.0
CHARUCO_MARKER_MM = 18.0


class CalibrationError(ValueError):
    """Calibration input is unusable (unreadable image, no pattern found, too few views)."""


@dataclass
class Intrinsics:
    """A calibrated pinhole camera with lens distortion.

    ``camera_matrix``: float64 (3, 3) in px; ``dist``: float64 (5,) OpenCV (k1, k2, p1, p2, k3);
    ``image_size``: (width, height) in px of the calibration photos; ``rms_px``: RMS
    reprojection error in px; ``images_used``: photos in which the pattern was found.
    """

    camera_matrix: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    images_used: int = 0
    files_used: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON-ready dict (the ``calibrate camera --json`` output)."""
        return {
            "images_used": self.images_used,
            "rms_px": float(self.rms_px),
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist": [float(v) for v in np.asarray(self.dist).ravel()],
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
        }

    def save(self, path: str | Path) -> None:
        """Write the JSON form to ``path``."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")


MAX_RMS_PX = 1.0
"""Largest RMS reprojection error (px) accepted from ``calibrate camera``: a sharp, flat
pattern gives about 0.2 to 0.5 px; above 1 px the photos (blur, a bent print, a wrong
pattern size) or the fit are at fault, and the board reader's geometry would inherit it."""


def implausible(result: Intrinsics) -> str | None:
    """Why a lens calibration cannot be right, or ``None``: an RMS reprojection error above
    :data:`MAX_RMS_PX`, a principal point outside the image, a focal length under 0.2 or over
    10 image widths (px), or a distortion coefficient beyond +-10 (no lens bends that much)."""
    w, h = result.image_size
    k = np.asarray(result.camera_matrix, float)
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    if not np.isfinite(result.rms_px) or result.rms_px > MAX_RMS_PX:
        return (f"RMS reprojection error {result.rms_px:.2f} px is above {MAX_RMS_PX:g} px: retake the photos "
                "sharp, with the pattern printed flat and seen whole from several angles")
    if not (0 <= cx <= w and 0 <= cy <= h):
        return f"the principal point ({cx:.0f}, {cy:.0f}) px lies outside the {w}x{h} image: the fit failed; retake the photos"
    if not (0.2 * w <= fx <= 10 * w and 0.2 * w <= fy <= 10 * w):
        return f"focal length fx {fx:.0f} fy {fy:.0f} px is not one a {w} px wide camera has: the fit failed; retake the photos"
    if np.any(~np.isfinite(result.dist)) or np.any(np.abs(np.asarray(result.dist, float)) > 10):
        return "the lens distortion found is beyond what a lens gives: the fit failed; retake the photos"
    return None


def load_intrinsics(path: str | Path) -> Intrinsics:
    """Read intrinsics written by :meth:`Intrinsics.save`; raise :class:`CalibrationError`."""
    try:
        d = json.loads(Path(path).read_text())
        k = np.asarray(d["camera_matrix"], dtype=np.float64)
        dist = np.asarray(d["dist"], dtype=np.float64).ravel()
        size = tuple(int(v) for v in d.get("image_size", (0, 0)))
    except (KeyError, TypeError) as exc:
        missing = f"it has no {exc}" if isinstance(exc, KeyError) else str(exc)
        raise CalibrationError(f"{path} is not an intrinsics file ({missing}): give the JSON written by "
                               "'mycelium-companion calibrate camera --out FILE'") from exc
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"cannot read intrinsics from {path}: {exc}") from exc
    if k.shape != (3, 3) or dist.size not in (4, 5, 8, 12, 14):
        raise CalibrationError(f"{path}: camera_matrix must be 3x3 and dist 4, 5, 8, 12 or 14 numbers")
    return Intrinsics(k, dist, size, float(d.get("rms_px", float("nan"))), int(d.get("images_used", 0)))


def parse_pattern(text: str) -> tuple[int, int]:
    """Parse ``"9x6"`` (inner corners across x down) into ``(9, 6)``."""
    try:
        a, b = text.lower().split("x")
        cols, rows = int(a), int(b)
    except ValueError:
        raise CalibrationError(f"chessboard size must look like 9x6 (inner corners), got {text!r}") from None
    if cols < 2 or rows < 2:
        raise CalibrationError(f"chessboard needs at least 2x2 inner corners, got {text!r}")
    return cols, rows


def _read_gray(path: str | Path) -> np.ndarray:
    from companion.vision.image_file import decode_whole

    try:
        img, why = decode_whole(path, cv2.IMREAD_GRAYSCALE)
    except OSError as exc:
        raise CalibrationError(f"cannot read image {path}: {exc.strerror}") from None
    if img is None:
        raise CalibrationError(f"cannot read image {path}: {why}")
    return img


def find_chessboard(gray: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Inner corners of a chessboard, refined to sub-pixel, or ``None`` when not found.

    ``gray``: uint8 (h, w).  Returns float32 (cols*rows, 1, 2) in px, row by row.
    """
    found, corners = cv2.findChessboardCorners(gray, pattern, None)
    if not found:
        return None
    return cv2.cornerSubPix(gray, corners, SUBPIX_WINDOW, (-1, -1), SUBPIX_CRITERIA)


def calibrate_chessboard(
    images: Sequence[str | Path], pattern: tuple[int, int], square_mm: float = 1.0
) -> Intrinsics:
    """Calibrate from photos of a plain chessboard with ``pattern`` inner corners.

    Photos without the full pattern are skipped; at least 3 views are needed.  ``square_mm``
    only scales the (unused) extrinsics, not K or the distortion.
    """
    cols, rows = pattern
    grid = np.zeros((cols * rows, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    obj_pts, img_pts, used = [], [], []
    size: tuple[int, int] | None = None
    for path, gray, size in _gray_views(images):
        corners = find_chessboard(gray, pattern)
        if corners is not None:
            obj_pts.append(grid)
            img_pts.append(corners)
            used.append(str(path))
    if len(used) < 3:
        raise CalibrationError(
            f"chessboard {cols}x{rows} found in {len(used)} of {len(images)} images; need at least 3"
        )
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return Intrinsics(k, dist.ravel(), size, float(rms), len(used), used)


def _gray_views(images: Sequence[str | Path]):
    """Yield ``(path, grey uint8 (h, w) image, (w, h) px)`` for each photo; raises
    :class:`CalibrationError` for an unreadable photo or one whose size differs from the first
    (one camera, one resolution: the intrinsics belong to both)."""
    size: tuple[int, int] | None = None
    for path in images:
        gray = _read_gray(path)
        here = (gray.shape[1], gray.shape[0])
        if size is None:
            size = here
        elif here != size:
            raise CalibrationError(f"{path} is {here[0]}x{here[1]}, the others {size[0]}x{size[1]}")
        yield path, gray, size


def charuco_board() -> cv2.aruco.CharucoBoard:
    """The printable ChArUco calibration board (sizes in mm, see :mod:`calibration.sheet`)."""
    dictionary = cv2.aruco.getPredefinedDictionary(CHARUCO_DICTIONARY)
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM, dictionary)


def calibrate_charuco(images: Sequence[str | Path], board: cv2.aruco.CharucoBoard | None = None) -> Intrinsics:
    """Calibrate from photos of the ChArUco board; views with fewer than 6 corners are skipped."""
    board = board or charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts, img_pts, used = [], [], []
    size: tuple[int, int] | None = None
    for path, gray, size in _gray_views(images):
        ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
        if ch_ids is None or len(ch_ids) < 6:
            continue
        obj, img = board.matchImagePoints(ch_corners, ch_ids)
        if obj is None or len(obj) < 6:
            continue
        obj_pts.append(obj.astype(np.float32))
        img_pts.append(img.astype(np.float32))
        used.append(str(path))
    if len(used) < 3:
        raise CalibrationError(f"ChArUco board found in {len(used)} of {len(images)} images; need at least 3")
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return Intrinsics(k, dist.ravel(), size, float(rms), len(used), used)
