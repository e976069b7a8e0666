"""A frame of the wrong size gets one sentence about its size from every command that reads
the board, the same sentence ``camera check`` gives, and no advice that sends the user to the
markers or the lamp instead."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_cli import run
from vision_frames import mild

from calibration.intrinsics import Intrinsics
from companion.cli import main as companion_main
from companion.sim.render import make_camera, render
from companion.vision.assistant import resolution_problem

CASES = Path(__file__).resolve().parent.parent / "data" / "cases" / "vision"
HD = (1920, 1080)
SMALL = (960, 540)   # 18 px per hex side on the case photos, the reader needs 35


@pytest.fixture(scope="module")
def small_photo(tmp_path_factory):
    """The glare case photo (a 1080p frame of the independent renderer) scaled to 960x540."""
    path = tmp_path_factory.mktemp("small") / "small.png"
    cv2.imwrite(str(path), cv2.resize(cv2.imread(str(CASES / "hard_017.jpg")), SMALL, interpolation=cv2.INTER_AREA))
    return path


def test_intrinsics_of_another_size_get_the_size_sentence_and_nothing_about_the_markers(tmp_path, capsys, geo):
    frame = render({}, geo, mild(), np.random.default_rng(0), size=HD, camera=make_camera(geo, mild(), HD)).image
    img, k = tmp_path / "frame.png", tmp_path / "k720.json"
    cv2.imwrite(str(img), frame)
    # a lens calibrated at 1280x720: at 1920x1080 its model puts the markers off their places
    Intrinsics(np.array([[933.0, 0, 640], [0, 933.0, 360], [0, 0, 1]]), np.array([-0.3, 0, 0, 0, 0]), (1280, 720), 0.3, 12).save(k)
    code = companion_main(["camera", "check", "--image", str(img), "--intrinsics", str(k), "--json"])
    advice = json.loads(capsys.readouterr().out)["advice"]
    assert code == 1 and [a["code"] for a in advice] == ["resolution"], advice
    assert "the frame is 1920x1080 px but the intrinsics were calibrated on 1280x720 px photos" in advice[0]["text"]


def test_read_board_refuses_a_frame_too_small_with_camera_checks_sentence(small_photo, capsys):
    code, out, err = run(["read-board", str(small_photo)], capsys)
    sentence = resolution_problem(SMALL)
    assert code == 2 and out == "" and sentence in err
    assert "960x540 px" in sentence and "35 px per hex side" in sentence
    companion_main(["camera", "check", "--image", str(small_photo), "--json"])
    advice = {a["code"]: a["text"] for a in json.loads(capsys.readouterr().out)["advice"]}
    assert advice["resolution"] == sentence


def test_calibrate_pieces_refuses_a_photo_too_small_and_keeps_the_old_profile(small_photo, tmp_path, capsys):
    prof = tmp_path / "colours.json"
    prof.write_text("{}\n")
    code, _, err = run(["calibrate", "pieces", "--image", str(small_photo), "--layout", "old-1", "--out", str(prof)], capsys)
    assert code == 2 and resolution_problem(SMALL) in err and "--force" in err
    assert prof.read_text() == "{}\n"


def test_a_frame_too_small_for_any_profile_is_not_sent_back_to_calibration(small_photo, tmp_path, capsys):
    # a profile made at 1920x1080 and a 960x540 frame: the only way out is the resolution, since
    # a profile calibrated at 960x540 would read no better ("calibrate again at this size" was wrong)
    prof = json.loads((Path(__file__).resolve().parents[2] / "companion" / "vision" / "default_profile.json").read_text())
    prof["frame_size"] = list(HD)
    path = tmp_path / "colours.json"
    path.write_text(json.dumps(prof))
    code = companion_main(["camera", "check", "--image", str(small_photo), "--profile", str(path), "--json"])
    advice = [a["text"] for a in json.loads(capsys.readouterr().out)["advice"] if a["code"] == "resolution"]
    assert code == 1 and advice == [resolution_problem(SMALL)]
    code, _, err = run(["read-board", str(small_photo), "--profile", str(path)], capsys)
    assert code == 2 and resolution_problem(SMALL) in err and "calibrate again" not in err

def test_a_frame_smaller_than_the_profiles_but_big_enough_names_the_profiles_size(tmp_path, capsys):
    # a profile made at 2560x1440 and a 1920x1080 frame: readable, so calibrating again is a way out
    frame = cv2.imread(str(CASES / "hard_017.jpg"))
    img = tmp_path / "hd.png"
    cv2.imwrite(str(img), frame)
    prof = json.loads((Path(__file__).resolve().parents[2] / "companion" / "vision" / "default_profile.json").read_text())
    prof["frame_size"] = [2560, 1440]
    path = tmp_path / "colours.json"
    path.write_text(json.dumps(prof))
    companion_main(["camera", "check", "--image", str(img), "--profile", str(path), "--json"])
    advice = [a["text"] for a in json.loads(capsys.readouterr().out)["advice"] if a["code"] == "resolution"]
    assert len(advice) == 1 and advice[0].startswith("the frame is 1920x1080 px, smaller than the 2560x1440 px")
