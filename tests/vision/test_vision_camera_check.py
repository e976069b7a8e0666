"""``camera check`` as the person mounting the camera uses it, on rendered 1080p frames: each
way of getting the mount wrong gives its advice, and a good mount gives none."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from marker_frames import shoot_shifted, stray_marker
from vision_frames import mild

from calibration.intrinsics import Intrinsics
from companion.cli import main as companion_main
from companion.sim.render import make_camera, render
from companion.vision.profile import DEFAULT_PROFILE_PATH

HD = (1920, 1080)
BOARD = {
    "tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}, {"at": [1, 0], "paths": "P0.Y2.G4"}, {"at": [-2, 2], "paths": "P1.Y4.G03"},
              {"at": [2, -2], "paths": "P0.Y2.G4"}, {"at": [-1, -2], "paths": "P03.Y12.G45"}],
    "rocks": [[-1, 0]],
    "trees": [{"at": [0, 1], "mycorrhizae": ["blue", None, None, None]}],
    "substrates": [{"at": [2, -1], "kind": "soil"}],
    "spores": {"red": {"at": [-4, 4], "used": False}},
    "meeples": {"red": [-4, 4]},
}


def check(tmp_path, capsys, image, *extra):
    path = tmp_path / "frame.png"
    out = tmp_path / "check.png"
    cv2.imwrite(str(path), image)
    code = companion_main(["camera", "check", "--image", str(path), "--out", str(out), "--json", *extra])
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    report = json.loads(captured.out)
    assert (code == 0) == report["ok"]
    picture = cv2.imread(str(out))
    assert picture is not None and picture.shape[1] > 1280  # the frame and the text panel
    return report, {a["code"]: a["text"] for a in report["advice"]}


def shoot(geo, cond, seed=0):
    return render(BOARD, geo, cond, np.random.default_rng(seed), size=HD, camera=make_camera(geo, cond, HD))


def test_a_good_mount_needs_nothing_and_shows_the_confidence_map(tmp_path, capsys, geo):
    report, advice = check(tmp_path, capsys, shoot(geo, mild()).image, "--profile", str(DEFAULT_PROFILE_PATH))
    assert advice == {} and report["ok"]
    assert report["markers"] == {"found": [0, 1, 2, 3], "missing": [], "duplicated": []}
    assert report["px_per_hex_side"]["farthest"] >= 35
    assert len(report["confidence"]) == len(geo.spaces) and min(report["confidence"].values()) > 0.5


@pytest.mark.parametrize("what,cond,code,words", [
    ("too far", mild(fill=0.5), "lower", "lower the camera"),
    ("markers cut off", mild(fill=1.12), "raise", "raise the camera"),
    ("tilted", mild(tilt_deg=35.0), "turn", "turn it"),
    ("soft focus", mild(blur_sigma=2.5), "focus", "out of focus"),
    ("glare", mild(glare=140.0, glare_radius=120.0), "lamp", "move the lamp"),
])
def test_each_mount_problem_gives_its_advice(tmp_path, capsys, geo, what, cond, code, words):
    _, advice = check(tmp_path, capsys, shoot(geo, cond).image)
    assert code in advice, (what, advice)
    assert words in advice[code]


def test_a_covered_marker_is_named(tmp_path, capsys, geo):
    frame = shoot(geo, mild())
    img = frame.image.copy()
    c = np.array(frame.truth["markers_px"][2])
    x0, y0 = np.floor(c.min(0)).astype(int) - 15
    x1, y1 = np.ceil(c.max(0)).astype(int) + 15
    img[y0:y1, x0:x1] = (60, 110, 150)  # a cup on it
    report, advice = check(tmp_path, capsys, img)
    assert report["markers"]["missing"] == [2]
    assert "marker 2 should be in view but cannot be read" in advice["marker-missing"]


def test_a_duplicated_marker_is_named(tmp_path, capsys, geo):
    cond = mild()
    cam = make_camera(geo, cond, HD)
    frame = render(BOARD, geo, cond, np.random.default_rng(0), size=HD, camera=cam)
    img = stray_marker(frame.image, geo, cam, 1, (330.0, 40.0), 20.0, 40.0)
    report, advice = check(tmp_path, capsys, img)
    assert report["markers"]["duplicated"] == [1]
    assert "marker 1 is seen more than once" in advice["marker-duplicated"]


def test_a_marker_stuck_off_its_place_is_named(tmp_path, capsys, geo):
    """With the lens calibrated (``--intrinsics``), as after README step 6."""
    frame, cam = shoot_shifted(BOARD, geo, {3: (-4.0, 3.0)}, mild(), HD)
    k = tmp_path / "k.json"
    Intrinsics(cam.k, cam.dist, HD, 0.0).save(k)
    _, advice = check(tmp_path, capsys, frame.image, "--intrinsics", str(k))
    assert advice["marker-off"].startswith("marker 3 looks 5 mm off its place")


def test_camera_check_reads_a_live_source_and_says_when_it_cannot(tmp_path, capsys):
    """``--camera`` with a folder source (the same code path as a webcam or the Pi camera)."""
    from pathlib import Path

    cases = Path(__file__).resolve().parent.parent / "data" / "cases"
    folder = tmp_path / "cam"
    folder.mkdir()
    (folder / "f00.jpg").write_bytes((cases / "dup_marker_frame.jpg").read_bytes())
    code = companion_main(["camera", "check", "--camera", str(folder), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["markers"]["duplicated"] == [0]
    assert {"marker-duplicated", "lower"} <= {a["code"] for a in report["advice"]}

    code = companion_main(["camera", "check", "--camera", str(tmp_path / "nothing-here")])
    assert code == 2 and "cannot open camera" in capsys.readouterr().err


def test_focus_says_where_it_is_soft_and_an_empty_board_is_not_soft(geo):
    from companion.vision.assistant import assess

    cond = mild()
    frame = shoot(geo, cond).image
    soft = frame.copy()
    # a lens focused on the right: the left third of the board is out of focus
    ramp = np.clip((950 - np.arange(frame.shape[1])) / 50.0, 0, 1)[None, :, None]
    soft = (ramp * cv2.GaussianBlur(frame, (0, 0), 3.0) + (1 - ramp) * frame).astype(np.uint8)
    rep = assess(soft, geo)
    assert "left" in rep.soft_areas and not {"centre", "right", "top right", "bottom right"} & set(rep.soft_areas)
    assert any(a.code == "focus" and "soft at the" in a.text for a in rep.advice)

    empty = {"tiles": [], "rocks": [], "trees": [], "substrates": [], "spores": {}, "meeples": {}}
    bare = render(empty, geo, cond, np.random.default_rng(0), size=HD, camera=make_camera(geo, cond, HD)).image
    assert assess(bare, geo).soft_areas == []


def test_a_bright_meeple_clipping_one_channel_is_not_glare(tmp_path, capsys, geo):
    """A saturated piece colour clips the camera's red channel with no lamp in view: that is not
    glare (glare lifts every channel), so the board is readable and the check says ready."""
    image = shoot(geo, mild()).image
    empty = dict(BOARD)
    del empty["meeples"]
    without = render(empty, geo, mild(), np.random.default_rng(0), size=HD, camera=make_camera(geo, mild(), HD)).image
    meeple = np.abs(image.astype(int) - without).sum(2) > 40
    bright = image.copy()
    red = bright[..., 2].astype(float)
    red[meeple] *= 1.6  # the red channel clips on the meeple, blue and green stay low
    bright[..., 2] = np.clip(red, 0, 255).astype(np.uint8)
    assert (bright[meeple][:, 2] == 255).mean() > 0.3 and bright[meeple][:, :2].max() < 200
    report, advice = check(tmp_path, capsys, bright, "--profile", str(DEFAULT_PROFILE_PATH))
    assert "glare" not in advice and report["ok"], advice


@pytest.mark.parametrize("extra,words", [
    (["--out", "{tmp}/check.txt"], "give a name ending in .png or .jpg"),
    (["--out", "{tmp}/check"], "give a name ending in .png or .jpg"),
    (["--camera", "{tmp}", "--web", "--pin", "12"], "--pin 12: the table PIN must be 6 to 8 digits"),
])
def test_bad_arguments_get_one_line_and_exit_2(tmp_path, capsys, extra, words):
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.zeros((64, 64, 3), np.uint8))
    source = [] if "--camera" in extra else ["--image", str(frame)]
    code = companion_main(["camera", "check", *source, *[e.format(tmp=tmp_path) for e in extra]])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err


def test_errors_with_json_are_json(tmp_path, capsys):
    code = companion_main(["camera", "check", "--image", str(tmp_path / "none.png"), "--json"])
    out = capsys.readouterr().out
    assert code == 2 and json.loads(out)["ok"] is False and "none.png" in json.loads(out)["error"]


def test_a_mirrored_picture_is_named(tmp_path, capsys, geo):
    _, advice = check(tmp_path, capsys, cv2.flip(shoot(geo, mild()).image, 1))
    assert "flip" in advice["mirrored"] and "markers" not in advice  # not "raise the camera"


def test_markers_too_small_to_decode_say_lower_not_raise(tmp_path, capsys, geo):
    _, advice = check(tmp_path, capsys, shoot(geo, mild(fill=0.12)).image)
    assert "lower the camera" in advice["lower"] and "too small to decode" in advice["lower"]
    assert not any("raise" in text for text in advice.values())


def test_a_frame_too_small_asks_for_a_higher_resolution(tmp_path, capsys, geo):
    small = cv2.resize(shoot(geo, mild()).image, (64, 36), interpolation=cv2.INTER_AREA)
    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), small)
    code = companion_main(["camera", "check", "--image", str(path), "--json"])
    advice = {a["code"]: a["text"] for a in json.loads(capsys.readouterr().out)["advice"]}
    assert code == 1 and "64x36 px" in advice["resolution"] and "higher resolution" in advice["resolution"]


def test_a_plain_empty_board_is_not_called_soft_but_a_blurred_one_is(geo):
    """The empty spaces of a plain art have no texture: focus is judged on the edges there are."""
    from vision_frames import shoot_styled

    from companion.vision.assistant import assess

    empty = {"tiles": [], "rocks": [], "trees": [], "substrates": [], "spores": {}, "meeples": {}}
    bare = shoot_styled(empty, geo, "meadow", size=HD)[0].image
    assert assess(bare, geo).soft_areas == []
    blurred = assess(cv2.GaussianBlur(bare, (0, 0), 2.5), geo)
    assert len(blurred.soft_areas) >= 8 and any(a.code == "focus" for a in blurred.advice)


def test_a_file_that_is_not_an_image_is_not_called_a_folder(tmp_path, capsys):
    bad = tmp_path / "notimage.jpg"
    bad.write_bytes(b"this is not a picture")
    code = companion_main(["camera", "check", "--camera", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and "notimage.jpg: not an image or a video OpenCV can read" in err and "folder" not in err


@pytest.mark.parametrize("sigma", [6, 9])
def test_a_blurred_frame_says_focus_not_raise(geo, sigma):
    from companion.vision.assistant import assess

    advice = {a.code: a.text for a in assess(cv2.GaussianBlur(shoot(geo, mild()).image, (0, 0), sigma), geo).advice}
    assert "focus" in advice and "LensPosition" in advice["focus"]
    assert not any("raise" in text or "not in view" in text for text in advice.values())


@pytest.mark.parametrize("size", [(640, 360), (480, 270), (800, 450)])
def test_a_small_frame_asks_for_1080p_not_lower_and_judges_no_focus(geo, size):
    from companion.vision.assistant import assess

    rep = assess(cv2.resize(shoot(geo, mild(fill=0.95)).image, size, interpolation=cv2.INTER_AREA), geo)
    advice = {a.code: a.text for a in rep.advice}
    assert list(advice) == ["resolution"]  # no "lower by 51 %", no soft zones on 15 px hexes
    assert f"the frame is {size[0]}x{size[1]} px: set the camera to 1920x1080" in advice["resolution"]


@pytest.mark.parametrize("fill", [0.5, 0.3])
def test_a_far_board_is_not_called_soft(geo, fill):
    """At fill 0.3 a sharp frame's bottom-right ninth measured an edge ratio of 0.000."""
    from companion.vision.assistant import assess

    rep = assess(shoot(geo, mild(fill=fill)).image, geo)
    assert "lower" in {a.code for a in rep.advice} and rep.soft_areas == []
    assert "focus" not in {a.code for a in rep.advice}


def test_a_mirrored_picture_gets_only_the_mirror_advice(geo):
    from companion.vision.assistant import assess

    rep = assess(cv2.flip(shoot(geo, mild()).image, 1), geo)
    assert [a.code for a in rep.advice] == ["mirrored"]


@pytest.mark.parametrize("style", ["bands", "woodcut"])
def test_a_sharp_photo_gets_no_focus_advice_and_a_soft_one_does(geo, style):
    """Judged as a user sees it: the softest camera the simulator calls sharp (a 0.9 px blur)
    gets no word about focus, whatever lies on the board; a 1.5 px blur is out of focus."""
    import dataclasses

    from companion.sim.calibration import calibration_layouts, load_layout_board
    from companion.sim.light import light_preset
    from companion.sim.render import Conditions, render_styled
    from companion.vision.assistant import assess

    board = load_layout_board(calibration_layouts()[0])
    said = {}
    for blur in (0.9, 1.5):
        rng = np.random.default_rng(115)
        light = dataclasses.replace(light_preset("daylight", rng), blur_sigma=blur, jpeg_quality=92)
        frame = render_styled(board, geo, style, light, rng=rng, size=HD, camera=make_camera(geo, Conditions(), HD)).image
        said[blur] = [a.text for a in assess(frame, geo).advice if a.code == "focus"]
    assert said[0.9] == []
    assert said[1.5] and "out of focus" in said[1.5][0]
