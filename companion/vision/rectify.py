"""Rectified top-down image of the board: one cached remap that undoes lens and perspective.

The reader itself samples only a few thousand points; the full rectified image is for
debugging, for the web view, and as the speed floor in ``bench/vision.py``.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.geometry import BoardGeometry
from companion.vision.registration import Registration

MARGIN_MM = 30.0
"""Border around the spaces and markers in the rectified image (keeps the markers' white margin)."""


def rectify_maps(reg: Registration, geo: BoardGeometry, px_per_mm: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """float32 (h, w) x and y remap tables from the rectified board image to the camera frame.

    The rectified image covers ``geo.extent_mm(MARGIN_MM)`` at ``px_per_mm``; cached in ``reg``.
    """
    key = ("rectify", px_per_mm)
    if key not in reg.cache:
        x0, y0, x1, y1 = geo.extent_mm(MARGIN_MM)
        w, h = int((x1 - x0) * px_per_mm), int((y1 - y0) * px_per_mm)
        gx, gy = np.meshgrid((np.arange(w, dtype=np.float32) + 0.5) / px_per_mm + x0,
                             (np.arange(h, dtype=np.float32) + 0.5) / px_per_mm + y0)
        px = reg.to_image(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(h, w, 2)
        reg.cache[key] = cv2.convertMaps(px[..., 0].copy(), px[..., 1].copy(), cv2.CV_16SC2)
    return reg.cache[key]


def rectify(frame: np.ndarray, reg: Registration, geo: BoardGeometry, px_per_mm: float = 2.0) -> np.ndarray:
    """BGR uint8 rectified board image (board frame, x right, y down) at ``px_per_mm``."""
    m1, m2 = rectify_maps(reg, geo, px_per_mm)
    return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR)
