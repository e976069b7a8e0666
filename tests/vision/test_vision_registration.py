"""Registration: cached while the board stays put, re-registered when bumped, never guessed."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from vision_frames import SIZE, mild, normalised, shoot

from companion.sim.render import make_camera
from companion.vision.errors import BoardNotFoundError
from companion.vision.reader import BoardReader

BOARD = {
    "tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}, {"at": [1, 0], "paths": "P0.Y2.G4"}],
    "rocks": [[-1, 0]],
    "trees": [{"at": [0, 1], "mycorrhizae": ["blue", None, None, None]}],
    "substrates": [{"at": [2, -1], "kind": "soil"}],
    "spores": {"red": {"at": [-4, 4], "used": False}},
    "meeples": {"red": [-4, 4]},
}


def cover(image, pts, colour=(140, 172, 224)):
    out = image.copy()
    x0, y0 = np.floor(pts.min(0)).astype(int) - 12
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 12
    out[max(y0, 0):y1, max(x0, 0):x1] = colour
    return out


def test_registration_is_reused_then_redone_when_the_board_is_bumped(geo):
    cond = mild()
    cam = make_camera(geo, cond, SIZE)
    frame, intr = shoot(BOARD, geo, cond, camera=cam)
    reader = BoardReader(geo, intrinsics=intr)
    first = reader.read(frame.image)
    assert reader.tracker.last_event == "registered"
    assert first.registration.reprojection_px < 1.0
    assert sorted(first.registration.markers_px) == [0, 1, 2, 3]

    reader.read(frame.image)
    assert reader.tracker.last_event == "still"  # the markers look as before: no search at all
    shaded = frame.image.copy()
    x, y = np.round(first.registration.markers_px[1].mean(0)).astype(int)
    shaded[y - 40:y + 40, x - 40:x + 40] = (shaded[y - 40:y + 40, x - 40:x + 40] * 0.6).astype(np.uint8)
    reader.read(shaded)
    assert reader.tracker.last_event == "cached"  # a shadow over a marker: looked for, found in place

    bumped_cond = mild(offset_mm=(25.0, -12.0), board_rotation_deg=9.0)
    bumped, _ = shoot(BOARD, geo, bumped_cond, camera=make_camera(geo, bumped_cond, SIZE))
    after = reader.read(bumped.image)
    assert reader.tracker.last_event == "re-registered"
    assert normalised(after.board) == normalised(BOARD, seen=after.board)
    assert not np.allclose(after.registration.h, first.registration.h)


def test_a_covered_marker_keeps_the_last_registration(geo):
    cond = mild()
    cam = make_camera(geo, cond, SIZE)
    frame, intr = shoot(BOARD, geo, cond, camera=cam)
    reader = BoardReader(geo, intrinsics=intr)
    reader.read(frame.image)
    hidden = cover(frame.image, np.array(frame.truth["markers_px"][2]))
    reading = reader.read(hidden)
    assert reader.tracker.last_event == "cached-partial"
    assert normalised(reading.board) == normalised(BOARD, seen=reading.board)

    with pytest.raises(BoardNotFoundError, match="3 of 4 corner markers"):
        BoardReader(geo, intrinsics=intr).read(hidden)


def test_a_bumped_board_with_a_covered_marker_is_not_guessed(geo):
    cond = mild()
    frame, intr = shoot(BOARD, geo, cond, camera=make_camera(geo, cond, SIZE))
    reader = BoardReader(geo, intrinsics=intr)
    reader.read(frame.image)
    moved_cond = mild(offset_mm=(30.0, 20.0))
    moved, _ = shoot(BOARD, geo, moved_cond, camera=make_camera(geo, moved_cond, SIZE))
    hidden = cover(moved.image, np.array(moved.truth["markers_px"][0]))
    with pytest.raises(BoardNotFoundError, match="moved since the last registration"):
        reader.read(hidden)


def test_no_markers_is_a_clear_error(geo):
    blank = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    with pytest.raises(BoardNotFoundError, match="0 of 4 corner markers visible"):
        BoardReader(geo).read(blank)


def test_homography_matches_the_camera(geo):
    cond = mild(dist=(0, 0, 0, 0, 0))
    frame, _ = shoot(BOARD, geo, cond)
    reg = BoardReader(geo).tracker.register(frame.image)
    truth = np.array(frame.truth["homography"])
    pts = np.array([geo.center_mm(h) for h in geo.spaces], np.float64).reshape(-1, 1, 2)
    err = cv2.perspectiveTransform(pts, reg.h) - cv2.perspectiveTransform(pts, truth)
    assert np.abs(err).max() < 1.0  # px


def test_rectified_image_puts_the_markers_where_the_edition_says(geo):
    from companion.vision.rectify import MARGIN_MM, rectify

    frame, intr = shoot(BOARD, geo)
    reader = BoardReader(geo, intrinsics=intr)
    reg = reader.tracker.register(frame.image)
    ppm = 2.0
    top = rectify(frame.image, reg, geo, ppm)
    x0, y0, _, _ = geo.extent_mm(MARGIN_MM)
    found = reader.tracker.detect(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    for i, corners in found.items():
        centre_mm = corners.mean(0) / ppm + (x0, y0)
        expected = next(m.center_mm for m in geo.markers if m.id == i)
        assert np.hypot(*(centre_mm - expected)) < 1.5  # mm


# --- a stray copy of a marker (spare sheet, phone) ---------------------------------------------

from pathlib import Path  # noqa: E402

from marker_frames import stray_marker  # noqa: E402

from companion.cli import main as companion_main  # noqa: E402
from companion.vision.errors import RegistrationError  # noqa: E402
from companion.vision.registration import REPROJECTION_MAX_MM, BoardTracker  # noqa: E402

CASES = Path(__file__).resolve().parent.parent / "data" / "cases"

# (centre mm in the board frame, rotation deg, printed side mm): beside the board, far out at
# the frame's edge, turned, smaller (a phone screen)
STRAYS = [((-300.0, -110.0), 0.0, 40.0), ((330.0, 60.0), 35.0, 40.0), ((-345.0, 170.0), -70.0, 28.0),
          ((300.0, -150.0), 90.0, 33.0)]


def test_duplicate_marker_case_reads_right_through_read_board(capsys):
    """The shared case (a second marker 0 beside the board) reads the board, not a warped one."""
    code = companion_main(["read-board", str(CASES / "dup_marker_frame.jpg"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert result["registration"]["reprojection_px"] < 2.0
    assert len(result["board"]["tiles"]) == 4  # the README of the case: 4 tiles on the board
    assert result["registration"]["warnings"][0].startswith("marker 0 is seen more than once")
    # the text output says it too, not only --json
    assert companion_main(["read-board", str(CASES / "dup_marker_frame.jpg")]) == 0
    out, _ = capsys.readouterr()
    assert "warning: marker 0 is seen more than once" in out


def test_duplicate_marker_case_without_the_real_marker_is_refused_naming_it(tmp_path, capsys, geo):
    img = cv2.imread(str(CASES / "dup_marker_frame.jpg"))
    reg = BoardTracker(geo).register(img)
    assert reg.duplicates == (0,)
    hidden = cover(img, reg.markers_px[0], colour=(190, 200, 205))
    path = tmp_path / "hidden.png"
    cv2.imwrite(str(path), hidden)
    code = companion_main(["read-board", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "marker 0 is" in err and "from where markers 1, 2, 3 put it" in err


@pytest.mark.parametrize("marker_id", [0, 1, 2, 3])
def test_a_stray_copy_of_any_marker_never_wins(geo, marker_id):
    cond = mild()
    cam = make_camera(geo, cond, SIZE)
    frame, intr = shoot(BOARD, geo, cond, camera=cam)
    truth = np.array(frame.truth["homography"])
    pts = np.array([geo.center_mm(h) for h in geo.spaces], np.float64).reshape(-1, 1, 2)
    for centre, rot, side in STRAYS:
        img = stray_marker(frame.image, geo, cam, marker_id, centre, rot, side)
        reg = BoardTracker(geo, intr).register(img)
        assert reg.duplicates == (marker_id,), (centre, rot, side)
        err = cv2.perspectiveTransform(pts, reg.h) - cv2.perspectiveTransform(pts, truth)
        assert np.abs(err).max() < 1.5, (centre, rot, side)  # px

        # the real marker covered: only the stray is left, and it is refused by name
        hidden = cover(img, np.array(frame.truth["markers_px"][marker_id]))
        with pytest.raises(RegistrationError, match=f"marker {marker_id} is [0-9]+ mm from where markers") as exc:
            BoardTracker(geo, intr).register(hidden)
        assert marker_id in exc.value.off and exc.value.off[marker_id] > REPROJECTION_MAX_MM
