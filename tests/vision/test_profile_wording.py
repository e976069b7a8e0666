"""A frame far from the profile names the profile it was compared with: the built-in one of the
reference copy (nothing was calibrated, so nothing "changed since calibration"), or the table's."""

from __future__ import annotations

import pytest
from test_vision_frame_check import hue_turn, photo  # noqa: F401 - the fixture is used by name

from companion.vision.errors import FrameQualityError
from companion.vision.profile import DEFAULT_PROFILE_PATH, load_profile
from companion.vision.reader import BoardReader


def test_off_profile_with_the_built_in_profile_asks_for_a_calibration(geo, photo, tmp_path):  # noqa: F811
    image, intr = photo
    spoiled = hue_turn(image, 90)
    with pytest.raises(FrameQualityError) as exc:
        BoardReader(geo, intrinsics=intr).read(spoiled)
    assert "built-in colour profile" in str(exc.value) and "since calibration" not in str(exc.value)
    assert "calibrate pieces" in str(exc.value)
    own = tmp_path / "colours.json"
    own.write_text(DEFAULT_PROFILE_PATH.read_text())      # a profile of this table (same numbers)
    profile = load_profile(own)
    assert not profile.builtin and load_profile().builtin
    with pytest.raises(FrameQualityError) as exc:
        BoardReader(geo, intrinsics=intr, profile=profile).read(spoiled)
    assert "changed since calibration" in str(exc.value)
    assert "another copy of the game" in str(exc.value)   # a photo of another copy looks the same
