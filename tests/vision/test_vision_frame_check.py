"""Frames the reader must refuse, with a sentence about the camera: no colour, far too dark or
bright, a strong colour cast, colours far from the calibrated profile."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_frames import SIZE, mild, normalised, shoot

from companion.cli import main as companion_main
from companion.sim.render import random_conditions, render
from companion.sim.render_scene import random_board
from companion.vision.check import check_frame
from companion.vision.errors import FrameQualityError, UnreadableImageError
from companion.vision.profile import load_profile
from companion.vision.reader import BoardReader
from companion.vision.registration import BoardTracker

CASES = Path(__file__).resolve().parent.parent / "data" / "cases"

BOARD = {
    "tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}, {"at": [1, 0], "paths": "P0.Y2.G4"}, {"at": [-2, 1], "paths": "P1.Y4.G03"}],
    "rocks": [[-1, 0]],
    "trees": [{"at": [0, 1], "mycorrhizae": ["blue", None, None, None]}],
    "substrates": [{"at": [2, -1], "kind": "soil"}],
    "spores": {"red": {"at": [-4, 4], "used": False}},
    "meeples": {"red": [-4, 4]},
}


def hue_turn(img: np.ndarray, steps: int) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int32)
    hsv[..., 0] = (hsv[..., 0] + steps) % 180
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


@pytest.fixture(scope="module")
def photo(geo):
    frame, intr = shoot(BOARD, geo, mild(), seed=3)
    return frame.image, intr


def test_grey_frame_case_is_refused_by_read_board(capsys):
    """The shared case: a camera set to greyscale read as 52 rocks at 0.97, exit 0."""
    code = companion_main(["read-board", str(CASES / "grey_frame.jpg"), "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "no usable colour" in err and "monochrome" in err


@pytest.mark.parametrize("kind,spoil", [
    ("no-colour", lambda im: cv2.cvtColor(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)),
    ("no-colour", lambda im: np.clip(cv2.cvtColor(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
                                     * np.array([0.8, 0.95, 1.1]), 0, 255).astype(np.uint8)),  # sepia monochrome
    ("too-dark", lambda im: (im * 0.12).astype(np.uint8)),
    ("too-bright", lambda im: np.clip(im * 3.0, 0, 255).astype(np.uint8)),
    ("colour-cast", lambda im: np.clip(im * np.array([0.3, 0.8, 1.3]), 0, 255).astype(np.uint8)),
    ("colour-cast", lambda im: np.clip(im * np.array([1.2, 0.35, 0.9]), 0, 255).astype(np.uint8)),
    ("off-profile", lambda im: hue_turn(im, 150)),  # hues turned 60 degrees towards red
    ("off-profile", lambda im: hue_turn(im, 90)),
])
def test_unusable_frames_are_refused_with_what_is_wrong(geo, photo, kind, spoil):
    image, intr = photo
    reader = BoardReader(geo, intrinsics=intr)
    with pytest.raises(FrameQualityError) as exc:
        reader.read(spoil(image))
    assert exc.value.kind == kind
    assert isinstance(exc.value, UnreadableImageError)  # the live loop's existing handling applies
    assert "camera" in str(exc.value) or "lamp" in str(exc.value)


def test_read_board_exits_2_on_a_dark_frame(tmp_path, capsys, photo):
    image, _ = photo
    path = tmp_path / "dark.jpg"
    cv2.imwrite(str(path), (image * 0.1).astype(np.uint8))
    code = companion_main(["read-board", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and "far too dark" in err


def test_usable_frames_pass_in_every_light(geo, codes):
    """Normal and hard bench light (gradient, warm and cold lamps, glare spots, boards full of
    tiles) and a dim but usable frame are not refused."""
    profile = load_profile()
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        cond = random_conditions(rng, hard=seed % 2 == 1)
        cond.hands = 0
        board = random_board(rng, geo, codes, n_tiles=(10, 45))
        img = render(board, geo, cond, rng, size=SIZE).image
        reg = BoardTracker(geo).register(img)
        check_frame(img, reg, geo, profile)
        check_frame((img * 0.35).astype(np.uint8), reg, geo, profile)


def test_the_reading_is_unchanged_on_a_good_frame(geo, photo):
    image, intr = photo
    assert normalised(BoardReader(geo, intrinsics=intr).read(image).board) == normalised(BOARD, seen=BoardReader(geo, intrinsics=intr).read(image).board)
