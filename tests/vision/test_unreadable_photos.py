"""A photo the commands cannot use says why in the user's terms: a JPEG cut short is called
cut short (OpenCV would decode its first rows and the rest as grey, which read as markers
hidden), and intrinsics of another frame size are named as such, not blamed on the markers."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from vision_frames import SIZE, shoot

from calibration.colours import load_layout
from calibration.intrinsics import Intrinsics
from companion.cli import main


@pytest.fixture(scope="module")
def layout_photo(tmp_path_factory, geo):
    folder = tmp_path_factory.mktemp("photos")
    frame, intr = shoot(load_layout(1), geo, seed=90)
    whole = folder / "layout1.jpg"
    cv2.imwrite(str(whole), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    data = whole.read_bytes()
    cut = folder / "cut.jpg"
    cut.write_bytes(data[: int(len(data) * 0.6)])       # a copy interrupted at 60 %
    k = folder / "k.json"
    intr.save(k)
    return {"whole": whole, "cut": cut, "k": k, "intr": intr, "folder": folder}


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_opencv_alone_would_decode_the_cut_file(layout_photo):
    """The defect this guards against: the partial picture is returned without an error."""
    img = cv2.imread(str(layout_photo["cut"]))
    assert img is not None and img.shape[:2] == (SIZE[1], SIZE[0])


@pytest.mark.parametrize("command", ["read-board", "calibrate pieces", "camera check", "calibrate camera"])
def test_a_cut_jpeg_is_called_cut_short_by_every_command(command, layout_photo, tmp_path, capsys):
    cut = str(layout_photo["cut"])
    prof = tmp_path / "colours.json"
    argv = {"read-board": ["read-board", cut],
            "calibrate pieces": ["calibrate", "pieces", "--image", cut, "--out", str(prof)],
            "camera check": ["camera", "check", "--image", cut],
            "calibrate camera": ["calibrate", "camera", cut, cut, cut]}[command]
    code, out, err = run(argv, capsys)
    assert code == 2, out + err
    assert f"cannot read image {cut}: the JPEG file is cut short" in err
    assert "copy it again from the camera, or take the photo again" in err
    assert "marker" not in err and not prof.exists()


def test_the_whole_file_still_reads(layout_photo, capsys):
    code, out, err = run(["read-board", str(layout_photo["whole"]), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["board"]["rocks"]


def test_intrinsics_of_another_frame_size_are_named_not_the_markers(layout_photo, tmp_path, capsys):
    intr = layout_photo["intr"]
    big = tmp_path / "k1920.json"
    Intrinsics(intr.camera_matrix * np.array([[1.5], [1.5], [1.0]]), intr.dist, (1920, 1080), 0.3).save(big)
    prof = tmp_path / "colours.json"
    prof.write_text("{}\n")
    code, out, err = run(["calibrate", "pieces", "--image", str(layout_photo["whole"]), "--intrinsics", str(big),
                          "--out", str(prof)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    w, h = SIZE
    assert f"layout1.jpg is {w}x{h} px but the intrinsics {big} were calibrated on 1920x1080 px photos" in err
    assert f"take the calibration photos at 1920x1080" in err and f"'calibrate camera' again on {w}x{h} photos" in err
    assert "marker" not in err
    assert prof.read_text() == "{}\n"
