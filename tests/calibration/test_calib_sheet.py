"""The printable marker sheet: true size, detectable markers, PDF written."""

from __future__ import annotations

import cv2

from calibration.sheet import charuco_page, marker_page, mm_to_px, write_sheets
from calibration.intrinsics import charuco_board
from companion.vision.geometry import load_board


def test_marker_page_has_the_four_board_markers_at_true_size():
    geo = load_board()
    dpi = 150
    page = marker_page(geo, dpi=dpi)
    corners, ids, _ = cv2.aruco.ArucoDetector(geo.aruco_dictionary()).detectMarkers(page)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    side_px = [cv2.norm(c[0][0] - c[0][1]) for c in corners]
    expected = mm_to_px(geo.marker_size_mm, dpi)
    assert all(abs(s - expected) <= 2 for s in side_px)


def test_charuco_page_is_detectable():
    page = charuco_page(dpi=150)
    _, ids, _, _ = cv2.aruco.CharucoDetector(charuco_board()).detectBoard(page)
    assert ids is not None and len(ids) >= 20


def test_write_sheets_pdf_and_png(tmp_path):
    paths = write_sheets(tmp_path / "sheet", dpi=100)
    assert [p.suffix for p in paths] == [".pdf", ".png", ".png"]
    assert paths[0].read_bytes().startswith(b"%PDF")
    assert cv2.imread(str(paths[1])).shape[:2] == (mm_to_px(297, 100), mm_to_px(210, 100))
