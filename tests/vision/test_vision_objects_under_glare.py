"""An object under the lamp's glare spot is something that may cover the board, never pieces.

A new player photographed ``bands`` art under ``glare 90`` (``sim-photo --seed 4``, the
position ``tests/fixtures/positions/spore-connect-legal.json``) with objects over D1-E2, and
read it with the profile ``calibrate pieces`` made from ``sim-calibration`` photos of the same
table:

* a mug: its coffee, greyed by the reflection added over it, was read as three rocks (D1, E1,
  E2) at confidence 0.70-0.79, and the frame exited 4 ("glare or something over" its rim);
* a phone: its dark glass read as four rocks (D1, E1, E2, F1) at 0.79-0.88;
* a card (position ``rock-on-tree.json``): its light art clipped a few points, and D1 and E1,
  which it hides whole, were called "glare on D1, E1: move the lamp": moving the lamp changes
  nothing there (still open: the test is marked so).

A reflection adds the lamp's light over whatever lies there: it greys any dark surface toward a
rock's colour, so a rock under the spot next to something covering the board is covered too
(:func:`companion.vision.covered.glare_greyed`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main
from companion.vision.covered import is_covered_reason

POSITIONS = Path(__file__).resolve().parents[1] / "fixtures" / "positions"
TABLE = ["--style", "bands", "--light", "glare 90", "--seed", "4"]


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    """The profile of the ``bands`` table under the ``glare 90`` lamp of seed 4, calibrated as a
    user does (``sim-calibration``, then ``calibrate pieces`` on its photos)."""
    folder = tmp_path_factory.mktemp("cal")
    assert main(["sim-calibration", *TABLE, "--out", str(folder)]) == 0
    out = folder / "profile.json"
    photos = [a for p in sorted(folder.glob("layout*.png")) for a in ("--image", str(p))]
    assert main(["calibrate", "pieces", *photos, "--out", str(out)]) == 0
    return out


def read_with(obj: str, position: str, profile: Path, tmp_path: Path, capsys) -> tuple[int, dict, dict]:
    """Photograph ``position`` with ``obj`` over it on the seed-4 table, read it back:
    (exit status of ``read-board``, its JSON, the photo's truth)."""
    photo, truth = tmp_path / f"{obj}.png", tmp_path / f"{obj}.json"
    assert main(["sim-photo", "--position", str(POSITIONS / position), *TABLE, "--object", obj,
                 "--out", str(photo), "--truth", str(truth)]) == 0
    capsys.readouterr()
    code = main(["read-board", str(photo), "--profile", str(profile), "--json"])
    return code, json.loads(capsys.readouterr().out), json.loads(truth.read_text())


@pytest.mark.parametrize("obj", ["mug", "phone"])
def test_a_dark_object_under_the_spot_is_covered_not_rocks(obj, profile, tmp_path, capsys):
    code, reading, truth = read_with(obj, "spore-connect-legal.json", profile, tmp_path, capsys)
    assert truth["board"]["rocks"] == []
    assert reading["board"]["rocks"] == [], reading["board"]["rocks"]
    hidden = [k for k, share in truth["covered"].items() if share >= 0.9]
    assert {reading["labels"][k] for k in hidden} >= {"D1", "E1"}
    for k in hidden:
        assert is_covered_reason(reading["unreadable"].get(k)), (k, reading["unreadable"].get(k))
    assert code in (3, 4) and not reading["complete"]


@pytest.mark.xfail(strict=True, reason="open: a white card's clipped points under the spot are taken for glare")
def test_a_card_under_the_spot_is_covered_not_glare(profile, tmp_path, capsys):
    code, reading, truth = read_with("card", "rock-on-tree.json", profile, tmp_path, capsys)
    hidden = [k for k, share in truth["covered"].items() if share >= 0.9]
    assert {reading["labels"][k] for k in hidden} == {"D1", "E1"}
    for k in hidden:
        assert reading["unreadable"][k] == f"something covers {reading['labels'][k]}: move it off the board"
    assert not [w for w in reading["unreadable"].values() if w.startswith("glare")], reading["unreadable"]
    assert code == 3


def test_a_rock_under_the_spot_joins_the_covered_region_it_touches():
    from companion.vision.covered import covered_spaces, glare_greyed

    spaces = [(q, 0) for q in range(5)]
    kinds = ["empty", "rock", "rock", "empty", "rock"]
    fit = np.array([-5.0, -1.8, -1.9, -1.7, -1.8])     # 0 seeds; the rocks fit as well as printed ones
    under_spot = np.array([True, True, True, True, False])
    greyed = glare_greyed(kinds, under_spot)
    assert greyed.tolist() == [False, True, True, False, False]
    assert covered_spaces(fit, kinds, spaces, greyed=greyed).tolist() == [True, True, True, False, False]
    # away from the spot, or with nothing covered beside it, a rock stands
    assert covered_spaces(fit, kinds, spaces).tolist() == [True, False, False, False, False]
    fit[0] = -1.5
    assert not covered_spaces(fit, kinds, spaces, greyed=greyed).any()
