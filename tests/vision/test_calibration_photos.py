"""``calibrate pieces`` refuses, in one sentence and with exit 2, a photo it cannot learn from
(no colour, another layout than the one it is filed under), and keeps the previous profile."""

from __future__ import annotations

import cv2
import pytest
from test_vision_cli import run
from vision_frames import SIZE, mild, shoot

from calibration.colours import load_layout
from companion.sim.render import make_camera

PREVIOUS = '{"previous profile": true}\n'


@pytest.fixture(scope="module")
def photos(tmp_path_factory, geo):
    """Files of the three layouts from one camera, a greyscale copy of layout 1, the intrinsics."""
    folder = tmp_path_factory.mktemp("layouts")
    cond = mild(colour_temperature_k=4200.0)
    cam = make_camera(geo, cond, SIZE)
    out = {}
    for n in (1, 2, 3):
        frame, intr = shoot(load_layout(n), geo, cond, seed=60 + n, camera=cam)
        out[n] = folder / f"layout{n}.png"
        cv2.imwrite(str(out[n]), frame.image)
    grey = cv2.cvtColor(cv2.imread(str(out[1])), cv2.COLOR_BGR2GRAY)
    out["grey"] = folder / "grey.png"
    cv2.imwrite(str(out["grey"]), grey)
    out["k"] = folder / "k.json"
    intr.save(out["k"])
    return out


def calibrate(photos, images, tmp_path, capsys, *extra):
    prof = tmp_path / "colours.json"
    if not prof.exists():
        prof.write_text(PREVIOUS)
    argv = ["calibrate", "pieces", "--intrinsics", str(photos["k"]), "--out", str(prof), *extra]
    for img in images:
        argv += ["--image", str(img)]
    code, out, err = run(argv, capsys)
    return code, out, err, prof


def test_a_greyscale_photo_is_refused_and_the_previous_profile_kept(photos, tmp_path, capsys):
    code, _, err, prof = calibrate(photos, [photos["grey"]], tmp_path, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "grey.png: the frame has no usable colour" in err
    assert "needs a colour photo of the board set up as calibration layout 1" in err
    assert prof.read_text() == PREVIOUS


def test_a_photo_of_another_layout_is_refused_naming_the_layout_it_shows(photos, tmp_path, capsys):
    code, _, err, prof = calibrate(photos, [photos[2]], tmp_path, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "layout2.png does not show calibration layout 1" in err and "it looks like calibration layout 2" in err
    assert prof.read_text() == PREVIOUS
    code, _, err, prof = calibrate(photos, [photos[1], photos[3], photos[2]], tmp_path, capsys)  # out of order
    assert code == 2 and "layout3.png does not show calibration layout 2" in err and "like calibration layout 3" in err
    assert prof.read_text() == PREVIOUS


def test_the_same_photos_in_their_order_or_named_with_layout_are_learned(photos, tmp_path, capsys):
    code, out, err, prof = calibrate(photos, [photos[2], photos[1]], tmp_path, capsys, "--layout", "2", "1")
    assert code == 0, err
    assert prof.read_text() != PREVIOUS and "2 photo(s)" in out


def test_a_profile_that_cannot_be_written_is_one_line(photos, tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    out = tmp_path / "a-file" / "colours.json"      # its folder is a file: fails even as root
    code, _, err = run(["calibrate", "pieces", "--intrinsics", str(photos["k"]), "--out", str(out),
                        "--image", str(photos[1])], capsys)
    assert code == 2 and err.count("\n") == 1 and f"cannot write {out}" in err


def test_a_photo_under_glare_is_refused_naming_the_colours_and_the_glare(tmp_path, capsys, geo):
    """Glare washes wood and yellow into one colour: the profile would misread them, so it
    is refused (the previous profile kept) unless --force, and the message says why (a photo of
    the earlier layout 1, whose pieces the spot leaves in place)."""
    import re

    from companion.sim.render import Conditions, render

    glared = tmp_path / "glared.png"
    cv2.imwrite(str(glared), render(load_layout("old-1"), geo, Conditions(glare=220.0, glare_radius=180.0, noise_sigma=1.5)).image)
    prof = tmp_path / "colours.json"
    prof.write_text(PREVIOUS)
    argv = ["calibrate", "pieces", "--image", str(glared), "--layout", "old-1", "--out", str(prof)]
    code, out, err = run(argv, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert re.search(r"wood and yellow \(0\.\d\) barely differ", err) and "glared.png: glare makes" in err and "--force" in err
    assert prof.read_text() == PREVIOUS
    code, out, err = run(argv + ["--force"], capsys)
    assert code == 0 and "warning: kept with --force although" in out
    assert prof.read_text() != PREVIOUS


def test_a_photo_glare_washed_past_recognition_is_refused_naming_the_glare(tmp_path, capsys, geo):
    """Under the same spot the pieces of layout 1 no longer look like any layout: the refusal says
    the glare is the likely cause, not only that the photo shows another layout."""
    from companion.sim.render import Conditions, render

    glared = tmp_path / "glared.png"
    cv2.imwrite(str(glared), render(load_layout(1), geo, Conditions(glare=220.0, glare_radius=180.0, noise_sigma=1.5)).image)
    prof = tmp_path / "colours.json"
    prof.write_text(PREVIOUS)
    code, out, err = run(["calibrate", "pieces", "--image", str(glared), "--out", str(prof)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "likely cause: " in err and "glared.png: glare makes" in err and "move the lamp" in err
    assert prof.read_text() == PREVIOUS


def test_a_wrong_layout_number_or_intrinsics_file_says_what_is_expected(photos, tmp_path, capsys):
    code, _, err, prof = calibrate(photos, [photos[1]], tmp_path, capsys, "--layout", "4")
    assert code == 2 and "there is no calibration layout 4: give 1, 2 or 3" in err
    wrong = tmp_path / "markers.json"
    wrong.write_text('{"0": [[1, 2]]}')
    code, out, err = run(["calibrate", "pieces", "--image", str(photos[1]), "--intrinsics", str(wrong),
                          "--out", str(prof)], capsys)
    assert code == 2 and "is not an intrinsics file (it has no 'camera_matrix')" in err and "calibrate camera --out" in err
    assert prof.read_text() == PREVIOUS


def test_good_photos_of_a_plain_art_are_kept_with_a_warning_on_tile_and_slot(tmp_path, capsys):
    """Tile and slot of a plain art lie under 0.5 apart in good light, but the reader tells them
    apart by place: the profile is written (exit 0), with a warning naming them."""
    from companion.sim.calibration import render_calibration_frames

    argv = ["calibrate", "pieces", "--out", str(tmp_path / "colours.json")]
    for i, frame in enumerate(render_calibration_frames("meadow", "daylight", 5)):
        cv2.imwrite(str(tmp_path / f"layout{i + 1}.png"), frame.image)
        argv += ["--image", str(tmp_path / f"layout{i + 1}.png")]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "warning: slot and tile (0." in out and "only just told apart" in out
    assert "add the other layouts' photos" not in out and "or retake the photos" in out   # all three are given


def test_a_player_colour_close_to_a_substrate_is_warned_about_not_refused():
    """Under a warm lamp orange and wood may lie under 0.5 apart; the reader tells a meeple
    from a substrate token by the learned look of each piece, so only colour pairs the reader
    tells apart by colour alone refuse a profile (hardware/camera.md)."""
    from calibration.colours import close_pairs

    sep = {"orange": {"nearest": "wood", "distance": 0.45}, "wood": {"nearest": "orange", "distance": 0.45},
           "yellow": {"nearest": "pink", "distance": 0.4}, "pink": {"nearest": "yellow", "distance": 0.4}}
    assert close_pairs(sep, 0.5, by_place=False) == [("pink", "yellow", 0.4)]
    assert close_pairs(sep, 0.5) == [("pink", "yellow", 0.4), ("orange", "wood", 0.45)]


def test_a_soft_photo_is_refused_naming_it_unless_forced(photos, tmp_path, capsys):
    """The assistant's focus verdict holds for calibration photos too: a soft photo teaches
    blurred colours (edges of paths mixed with the substrate)."""
    soft = tmp_path / "soft.png"
    cv2.imwrite(str(soft), cv2.GaussianBlur(cv2.imread(str(photos[1])), (0, 0), 2.5))
    code, _, err, prof = calibrate(photos, [soft], tmp_path, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "soft.png: the whole" in err and "out of focus" in err and "--force" in err
    assert prof.read_text() == PREVIOUS
    code, _, err, prof = calibrate(photos, [soft], tmp_path, capsys, "--force")
    assert code == 0, err
    assert prof.read_text() != PREVIOUS


def test_a_small_glare_spot_is_named_in_a_warning_when_the_colours_separate(photos, tmp_path, capsys, geo):
    """A spot too small to merge two colours leaves spaces the camera check would send back: the
    profile is kept (its separations say whether the colours suffered) with a warning naming the
    photo and the glare."""
    from companion.sim.render import Conditions, render

    spot = tmp_path / "spot.png"
    cv2.imwrite(str(spot), render(load_layout(1), geo, Conditions(glare=220.0, glare_radius=70.0, noise_sigma=1.5)).image)
    prof = tmp_path / "colours.json"
    prof.write_text(PREVIOUS)
    code, out, err = run(["calibrate", "pieces", "--image", str(spot), "--out", str(prof)], capsys)
    assert code == 0, err
    assert "warning: " in out and "spot.png: glare makes" in out and "barely differ" not in out + err
    assert prof.read_text() != PREVIOUS


def test_sharp_photos_of_plain_art_get_no_focus_warning(tmp_path, capsys, geo):
    """Sharp, straight-down photos of a plain art style (empty spaces with faint lines and a
    mottled board) were called soft by areas of the board, which a user looking at them would
    never say: they calibrate without a word about focus."""
    from companion.sim.calibration import render_calibration_frames
    from companion.sim.render import Conditions
    from companion.vision.assistant import assess

    full_hd = (1920, 1080)
    cam = make_camera(geo, Conditions(), full_hd)
    frames = render_calibration_frames("meadow", "daylight", 4, full_hd, cam, geo)
    paths = []
    for i, f in enumerate(frames, 1):
        paths.append(tmp_path / f"plain{i}.jpg")
        cv2.imwrite(str(paths[-1]), f.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    for p in paths:
        assert not [a.text for a in assess(cv2.imread(str(p))).advice if a.code == "focus"], p
    prof = tmp_path / "colours.json"
    prof.write_text(PREVIOUS)
    code, out, err = run(["calibrate", "pieces", *[a for p in paths for a in ("--image", str(p))], "--out", str(prof)],
                         capsys)
    assert code == 0, err
    assert prof.read_text() != PREVIOUS
    assert "soft" not in out and "focus" not in out
