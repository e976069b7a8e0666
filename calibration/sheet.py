"""Printable sheets: the four board registration markers at true size, and the ChArUco board.

Pages are drawn with OpenCV at a given DPI (default 300) on A4 paper (210 x 297 mm) and saved
as PNG files and one PDF (Pillow writes the PDF with the same DPI, so printing at 100 % scale
gives true size).  Each marker page says where the marker goes on the board in mm.
"""

from __future__ import annotations

import errno

from pathlib import Path

import cv2
import numpy as np

from calibration.intrinsics import CHARUCO_MARKER_MM, CHARUCO_SQUARE_MM, CHARUCO_SQUARES, charuco_board
from companion.vision.geometry import DEFAULT_EDITION, BoardGeometry, load_board

A4_MM = (210.0, 297.0)
QUIET_ZONE_MM = 8.0
"""White margin kept around each marker (ArUco needs a light border to find the black square)."""


def mm_to_px(mm: float, dpi: int) -> int:
    """Length in mm to whole pixels at ``dpi`` dots per inch (25.4 mm)."""
    return int(round(mm * dpi / 25.4))


def _page(dpi: int) -> np.ndarray:
    return np.full((mm_to_px(A4_MM[1], dpi), mm_to_px(A4_MM[0], dpi)), 255, np.uint8)


def _text(page: np.ndarray, lines: list[str], x_mm: float, y_mm: float, dpi: int, size_mm: float = 4.0) -> None:
    scale = mm_to_px(size_mm, dpi) / 22.0
    thick = max(1, int(round(scale * 1.6)))
    y = mm_to_px(y_mm, dpi)
    for line in lines:
        cv2.putText(page, line, (mm_to_px(x_mm, dpi), y), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick, cv2.LINE_AA)
        y += mm_to_px(size_mm * 1.7, dpi)


def marker_page(geo: BoardGeometry, dpi: int = 300) -> np.ndarray:
    """One A4 page, uint8 (h, w), with the four board markers at true size in a 2 x 2 grid.

    Each marker has a dashed cut line at its quiet zone and its id and board position printed
    under it.
    """
    page = _page(dpi)
    side = mm_to_px(geo.marker_size_mm, dpi)
    dictionary = geo.aruco_dictionary()
    _text(page, [
        "Mycelium Table Companion - board markers (print at 100 %, do not fit to page)",
        f"ArUco {geo.dictionary}, black square {geo.marker_size_mm:g} mm: check with a ruler.",
        "Cut along the dashed lines. Stick each marker flat on the table or board edge with",
        "its TOP edge (text above it) towards the board's first row (A1...), its centre at",
        "(x, y) mm from the centre of space (0,0): x to the right, y towards the last row.",
    ], 12, 14, dpi, 3.2)
    cell_w, cell_h = A4_MM[0] / 2.0, 100.0
    for n, m in enumerate(sorted(geo.markers, key=lambda m: m.id)):
        cx_mm = cell_w * (n % 2) + cell_w / 2.0
        cy_mm = 75.0 + cell_h * (n // 2) + 35.0
        img = cv2.aruco.generateImageMarker(dictionary, m.id, side, borderBits=1)
        x0 = mm_to_px(cx_mm, dpi) - side // 2
        y0 = mm_to_px(cy_mm, dpi) - side // 2
        page[y0:y0 + side, x0:x0 + side] = img
        q = mm_to_px(geo.marker_size_mm / 2.0 + QUIET_ZONE_MM, dpi)
        cxp, cyp = mm_to_px(cx_mm, dpi), mm_to_px(cy_mm, dpi)
        corners = [(cxp - q, cyp - q), (cxp + q, cyp - q), (cxp + q, cyp + q), (cxp - q, cyp + q)]
        for a, b in zip(corners, corners[1:] + corners[:1]):
            _dashed(page, a, b, mm_to_px(3.0, dpi))
        _text(page, ["TOP"], cx_mm - 4, cy_mm - geo.marker_size_mm / 2 - QUIET_ZONE_MM - 2, dpi, 3.0)
        _text(page, [f"id {m.id}: centre at x={m.center_mm[0]:g} mm, y={m.center_mm[1]:g} mm"],
              cx_mm - 45, cy_mm + geo.marker_size_mm / 2 + QUIET_ZONE_MM + 7, dpi, 3.0)
    return page


def _dashed(page: np.ndarray, a: tuple[int, int], b: tuple[int, int], dash: int) -> None:
    length = int(np.hypot(b[0] - a[0], b[1] - a[1]))
    for s in range(0, length, 2 * dash):
        t0, t1 = s / length, min(s + dash, length) / length
        p0 = (int(a[0] + (b[0] - a[0]) * t0), int(a[1] + (b[1] - a[1]) * t0))
        p1 = (int(a[0] + (b[0] - a[0]) * t1), int(a[1] + (b[1] - a[1]) * t1))
        cv2.line(page, p0, p1, 128, max(1, dash // 10))


def charuco_page(dpi: int = 300) -> np.ndarray:
    """One A4 page, uint8 (h, w), with the ChArUco calibration board at true size."""
    page = _page(dpi)
    cols, rows = CHARUCO_SQUARES
    w = mm_to_px(cols * CHARUCO_SQUARE_MM, dpi)
    h = mm_to_px(rows * CHARUCO_SQUARE_MM, dpi)
    img = charuco_board().generateImage((w, h), marginSize=0)
    x0 = (page.shape[1] - w) // 2
    y0 = mm_to_px(45.0, dpi)
    page[y0:y0 + h, x0:x0 + w] = img
    _text(page, [
        "ChArUco calibration board (print at 100 %, glue flat on card)",
        f"{cols} x {rows} squares of {CHARUCO_SQUARE_MM:g} mm, markers {CHARUCO_MARKER_MM:g} mm, DICT_5X5_100.",
        "Take 10-20 photos with the camera you will mount: tilt and move the board so it",
        "covers every part of the frame, then: mycelium-companion calibrate camera PHOTOS...",
    ], 12, 14, dpi, 3.2)
    return page


def write_sheets(out: str | Path, edition_dir: str | Path = DEFAULT_EDITION, dpi: int = 300) -> list[Path]:
    """Write ``out``.pdf (both pages) and ``out``-markers.png, ``out``-charuco.png; return the paths.
    Raises OSError (with the file's name) when one cannot be written."""
    from PIL import Image

    out = Path(out)
    if out.suffix.lower() in (".pdf", ".png"):
        out = out.with_suffix("")
    out.parent.mkdir(parents=True, exist_ok=True)
    pages = [marker_page(load_board(edition_dir), dpi), charuco_page(dpi)]
    paths = [out.parent / f"{out.name}-markers.png", out.parent / f"{out.name}-charuco.png"]
    for page, p in zip(pages, paths):
        if not cv2.imwrite(str(p), page):   # OpenCV says False instead of raising
            raise OSError(errno.EACCES, "cannot write this file", str(p))
    pdf = out.with_suffix(".pdf")
    images = [Image.fromarray(p).convert("L") for p in pages]
    images[0].save(pdf, "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return [pdf, *paths]
