"""Where raised things appear: the camera pose from a board registration.

The homography maps the table plane only.  A meeple stands up from it, so under a tilted or
wide-angle camera its cap is seen displaced from the space centre, away from the point under
the camera, by up to half a hex side.  To look where the cap really is, the reader recovers
the camera pose from the homography: with the camera matrix K (from saved intrinsics, or, when
there are none, a focal length estimated from the homography itself with the principal point
at the image centre), ``H ~ K [r1 r2 t]``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision.registration import Registration

DEFAULT_HFOV_DEG = 66.0
"""Horizontal field of view assumed when neither intrinsics nor the homography tell the focal length."""


def estimate_focal(h: np.ndarray, image_size: tuple[int, int]) -> float:
    """Focal length (px) of a camera with square pixels and the principal point at the image
    centre, from one plane homography (Zhang's two constraints, least squares in 1/f^2).
    Falls back to :data:`DEFAULT_HFOV_DEG` when the view is too frontal to tell."""
    w, hh = image_size
    default = (w / 2.0) / math.tan(math.radians(DEFAULT_HFOV_DEG) / 2.0)
    t = np.array([[1.0, 0.0, -w / 2.0], [0.0, 1.0, -hh / 2.0], [0.0, 0.0, 1.0]])
    m = t @ h
    m = m / np.linalg.norm(m[:, :2])
    a1, b1 = m[0, 0] * m[0, 1] + m[1, 0] * m[1, 1], m[2, 0] * m[2, 1]
    a2 = m[0, 0] ** 2 + m[1, 0] ** 2 - m[0, 1] ** 2 - m[1, 1] ** 2
    b2 = m[2, 0] ** 2 - m[2, 1] ** 2
    # a / f^2 + b = 0 for both constraints
    den = a1 * a1 + a2 * a2
    if den <= 0:
        return default
    inv_f2 = -(a1 * b1 + a2 * b2) / den
    if not np.isfinite(inv_f2) or inv_f2 <= 0 or abs(b1) + abs(b2) < 1e-12:
        return default
    f = 1.0 / math.sqrt(inv_f2)
    return float(f) if 0.3 * w <= f <= 5.0 * w else default


def camera_pose(reg: Registration) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(K, dist, rvec, tvec) of the camera of ``reg``: board mm (z into the table) -> camera px."""
    if reg.intrinsics is not None:
        k = np.asarray(reg.intrinsics.camera_matrix, np.float64)
        dist = np.asarray(reg.intrinsics.dist, np.float64).ravel()
    else:
        w, hh = reg.image_size
        f = estimate_focal(reg.h, reg.image_size)
        k = np.array([[f, 0.0, w / 2.0], [0.0, f, hh / 2.0], [0.0, 0.0, 1.0]])
        dist = np.zeros(5)
    m = np.linalg.inv(k) @ reg.h
    lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] < 0:
        lam = -lam
    r1, r2, tv = lam * m[:, 0], lam * m[:, 1], lam * m[:, 2]
    r = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(r)
    r = u @ vt
    if np.linalg.det(r) < 0:
        r = u @ np.diag([1.0, 1.0, -1.0]) @ vt
    rvec, _ = cv2.Rodrigues(r)
    return k, dist, rvec.ravel(), tv


def project_raised(reg: Registration, pts_mm: np.ndarray, height_mm: float | np.ndarray) -> np.ndarray:
    """float32 (n, 2) camera px of board points (n, 2) raised ``height_mm`` above the table."""
    k, dist, rvec, tvec = camera_pose(reg)
    pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
    z = -np.broadcast_to(np.asarray(height_mm, np.float64), (len(pts),))
    obj = np.column_stack([pts, z]).reshape(-1, 1, 3)
    out, _ = cv2.projectPoints(obj, rvec, tvec, k, dist)
    return out.reshape(-1, 2).astype(np.float32)


def parallax_shift(reg: Registration, pts_mm: np.ndarray, height_mm: float) -> np.ndarray:
    """float32 (n, 2) mm: where on the table plane a point ``height_mm`` above each board point
    (n, 2) is seen, relative to that board point (away from the point under the camera).

    The ray from the camera centre C (board mm, z into the table, from :func:`camera_pose`)
    through the raised point meets the table at ``p + (p - C_xy) h / (H - h)``, H the camera's
    height above the table (similar triangles; the lens distortion moves both alike and is left out).
    """
    _, _, rvec, tvec = camera_pose(reg)
    r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    c = -r.T @ np.asarray(tvec, np.float64).reshape(3)
    height = max(-float(c[2]), height_mm + 1.0)
    pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
    return ((pts - c[None, :2]) * height_mm / (height - height_mm)).astype(np.float32)
