"""Camera intrinsics: the real chessboard photos and a synthetic ChArUco set."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import cli as calib_cli
from calibration.intrinsics import (
    CHARUCO_SQUARE_MM,
    CHARUCO_SQUARES,
    CalibrationError,
    calibrate_charuco,
    charuco_board,
    load_intrinsics,
    parse_pattern,
)

PHOTOS = sorted((Path(__file__).resolve().parents[1] / "data" / "opencv-calib-left").glob("left*.jpg"))

# Reference from tests/data/opencv-calib-left/README.md (OpenCV 5.0.0, 9x6 inner corners).
REF = {"rms": 0.409, "fx": 536.1, "fy": 536.0, "cx": 342.4, "cy": 235.5}


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    calib_cli.register(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_real_chessboard_photos_match_reference(capsys, tmp_path):
    assert len(PHOTOS) == 13
    out_file = tmp_path / "k.json"
    code, out, _ = run_cli(
        ["calibrate", "camera", "--chessboard", "9x6", *map(str, PHOTOS), "--json", "--out", str(out_file)], capsys
    )
    assert code == 0
    result = json.loads(out)
    assert result["images_used"] == 13
    k = np.array(result["camera_matrix"])
    assert result["rms_px"] == pytest.approx(REF["rms"], rel=0.01)
    assert k[0, 0] == pytest.approx(REF["fx"], rel=0.01)
    assert k[1, 1] == pytest.approx(REF["fy"], rel=0.01)
    assert k[0, 2] == pytest.approx(REF["cx"], rel=0.01)
    assert k[1, 2] == pytest.approx(REF["cy"], rel=0.01)
    assert len(result["dist"]) == 5
    assert result["dist"][0] == pytest.approx(-0.265, abs=0.01)
    saved = load_intrinsics(out_file)
    assert saved.camera_matrix == pytest.approx(k)


def test_wrong_pattern_size_is_a_clear_error(capsys):
    code, _, err = run_cli(["calibrate", "camera", "--chessboard", "12x12", *map(str, PHOTOS[:4])], capsys)
    assert code == 2
    assert "found in 0 of 4 images" in err


def test_unreadable_photo_is_a_clear_error(capsys, tmp_path):
    bad = tmp_path / "not-a-photo.jpg"
    bad.write_text("hello")
    code, _, err = run_cli(["calibrate", "camera", "--chessboard", "9x6", str(bad)], capsys)
    assert code == 2
    assert "cannot read image" in err


@pytest.mark.parametrize("text", ["9", "ax6", "1x6"])
def test_bad_pattern_text(text):
    with pytest.raises(CalibrationError):
        parse_pattern(text)


def _charuco_views(tmp_path: Path, k: np.ndarray, n: int = 8) -> list[Path]:
    """Photos of the ChArUco board through an ideal pinhole camera ``k`` from n poses."""
    cols, rows = CHARUCO_SQUARES
    px_per_mm = 4.0
    art = charuco_board().generateImage((int(cols * CHARUCO_SQUARE_MM * px_per_mm), int(rows * CHARUCO_SQUARE_MM * px_per_mm)))
    art = cv2.copyMakeBorder(art, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    rng = np.random.default_rng(4)
    paths = []
    for i in range(n):
        rvec = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3)])
        tvec = np.array([rng.uniform(-60, -30), rng.uniform(-50, -30), rng.uniform(300, 380)])
        r, _ = cv2.Rodrigues(rvec)
        # plane point (x_mm, y_mm, 0) -> image: K [r1 r2 t]; art pixel -> mm: (u - 40) / px_per_mm
        a = np.array([[1 / px_per_mm, 0, -40 / px_per_mm], [0, 1 / px_per_mm, -40 / px_per_mm], [0, 0, 1]])
        h = k @ np.column_stack([r[:, 0], r[:, 1], tvec]) @ a
        img = cv2.warpPerspective(art, h, (640, 480), flags=cv2.INTER_AREA, borderValue=200)
        p = tmp_path / f"charuco{i}.png"
        cv2.imwrite(str(p), img)
        paths.append(p)
    return paths


def test_charuco_calibration_recovers_focal_length(tmp_path, capsys):
    k = np.array([[600.0, 0, 320], [0, 600.0, 240], [0, 0, 1]])
    views = _charuco_views(tmp_path, k)
    result = calibrate_charuco(views)
    assert result.images_used >= 6
    assert result.rms_px < 1.0
    assert result.camera_matrix[0, 0] == pytest.approx(600, rel=0.03)
    code, out, _ = run_cli(["calibrate", "camera", *map(str, views), "--json"], capsys)
    assert code == 0 and json.loads(out)["images_used"] == result.images_used


def test_charuco_needs_the_board(capsys):
    code, _, err = run_cli(["calibrate", "camera", *map(str, PHOTOS[:3])], capsys)
    assert code == 2
    assert "ChArUco board found in 0 of 3" in err
    assert "--chessboard COLSxROWS" in err   # the way out for a plain chessboard


def test_an_implausible_lens_fit_is_refused_and_nothing_is_written(tmp_path, capsys, monkeypatch):
    # warped prints once gave "RMS reprojection error 7.037 px", fx 16683, cx -580.9, exit 0
    from calibration import intrinsics
    bad = intrinsics.Intrinsics(np.array([[16683.0, 0, -580.9], [0, 16683.0, 240], [0, 0, 1]]),
                                np.array([-53613.0, 0, 0, 0, 0]), (640, 480), 7.037, 8)
    monkeypatch.setattr(intrinsics, "calibrate_charuco", lambda images: bad)
    out = tmp_path / "k.json"
    code, _, err = run_cli(["calibrate", "camera", "a.png", "--out", str(out)], capsys)
    assert code == 2 and "7.04 px" in err and "not written" in err and not out.exists()
    code, _, err = run_cli(["calibrate", "camera", "a.png", "--out", str(out), "--force"], capsys)
    assert code == 0 and out.exists() and "warning" in err
    good = intrinsics.Intrinsics(np.array([[536.1, 0, 342.4], [0, 536.0, 235.5], [0, 0, 1]]),
                                 np.array([-0.27, 0.03, 0, 0, 0.1]), (640, 480), 0.41, 13)
    assert intrinsics.implausible(good) is None
    for broken in (dict(rms_px=1.5), dict(camera_matrix=np.array([[536.1, 0, 900], [0, 536.0, 235.5], [0, 0, 1]])),
                   dict(camera_matrix=np.array([[20.0, 0, 342.4], [0, 20.0, 235.5], [0, 0, 1]])),
                   dict(dist=np.array([40.0, 0, 0, 0, 0]))):
        import dataclasses
        assert intrinsics.implausible(dataclasses.replace(good, **broken)) is not None, broken
