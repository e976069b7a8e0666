"""A reading the game cannot hold is never confident.

Mycorrhiza markers are their player's colour (rulebook 2.g) and every player's spore is on the
board from the first round (rulebook 3): a mug beside a tree had its rim and shadow read as a
black (or red) mycorrhiza marker at 0.96-0.99 in a blue and orange game, next to the covered
region the mug was rightly reported as.  Such a marker is now unsure, with the reason; given
the game's colours (``read-board --colors``), a spore or a meeple of another colour is too."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_vision_cli import run
from test_vision_hand_not_glare import board_of, drawn
from test_vision_objects import _confident_misreads

from companion.sim.cli import photo
from companion.sim.objects import random_object
from companion.sim.render import make_camera, random_conditions, render
from companion.vision.classify import SpaceReading
from companion.vision.game_colours import FOREIGN_CONFIDENCE, doubt_foreign_colours
from companion.vision.reader import BoardReader
from companion.vision.unsure import LOW_CONFIDENCE


def test_a_marker_of_a_colour_with_no_spore_on_the_board_is_unsure_beside_an_object():
    readings = [SpaceReading("spore", player="blue", confidence=0.9), SpaceReading("spore", player="orange", confidence=0.9),
                SpaceReading("tree", slots=("red", None, "blue", None), confidence=0.98),
                SpaceReading("tree", slots=("orange", "blue", None, None), confidence=0.97)]
    # nothing unreadable: a board laid out to check the camera may hold any marker
    assert doubt_foreign_colours(readings) == [] and readings[2].confidence == 0.98
    readings.append(SpaceReading("empty", reason="something covers B2: move it off the board"))
    assert doubt_foreign_colours(readings) == [2]
    assert readings[2].confidence == FOREIGN_CONFIDENCE < LOW_CONFIDENCE
    assert "a red mycorrhiza marker, but no red spore is seen on the board" in readings[2].doubt
    assert readings[3].confidence == 0.97 and readings[3].doubt is None
    # twice (a committed reading in play) says it once
    doubt_foreign_colours(readings)
    assert readings[2].doubt.count("no red spore") == 1


def test_a_marker_may_belong_to_a_spore_the_camera_cannot_see():
    readings = [SpaceReading("spore", player="blue", confidence=0.9),
                SpaceReading("empty", reason="something covers B2: move it off the board"),
                SpaceReading("tree", slots=("orange", None, None, None), confidence=0.98)]
    doubt_foreign_colours(readings)
    # still unsure (the table asks), and the sentence says only what is seen
    assert readings[2].confidence < LOW_CONFIDENCE and "no orange spore is seen on the board" in readings[2].doubt


def test_the_games_colours_make_other_spores_and_meeples_unsure():
    readings = [SpaceReading("spore", player="red", confidence=0.9), SpaceReading("tile", code="P03", meeple="black", confidence=0.8),
                SpaceReading("spore", player="blue", meeple="blue", confidence=0.9)]
    assert doubt_foreign_colours(readings, ["blue", "orange"]) == [0, 1]
    assert "red is not a colour of this game (blue, orange)" in readings[0].doubt
    assert "black's meeple" in readings[1].doubt and readings[2].doubt is None


def test_read_board_colors_lists_a_piece_of_another_colour_as_unsure(tmp_path, capsys):
    board = board_of(1)   # blue and orange, orange's spore on the board
    path = tmp_path / "board.png"
    import cv2
    cv2.imwrite(str(path), photo(board, seed=1).image)
    code, out, _ = run(["read-board", str(path), "--json", "--colors", "blue,red"], capsys)
    got = json.loads(out)
    at = ",".join(str(v) for v in board["spores"]["orange"]["at"])
    assert code == 0 and got["confidence"][at] < LOW_CONFIDENCE
    assert "orange is not a colour of this game (blue, red)" in got["unsure"][at]
    code, out, _ = run(["read-board", str(path), "--json", "--colors", "blue,orange"], capsys)
    assert code == 0 and json.loads(out)["confidence"][at] >= LOW_CONFIDENCE
    code, _, err = run(["read-board", str(path), "--colors", "blue,purple"], capsys)
    assert code == 2 and "'purple' is not a player colour" in err


@pytest.mark.parametrize("n,tree,k", [(2, (1, -1), 1), (2, (1, -1), 2), (3, (-1, 0), 0), (3, (1, -1), 0)])
def test_a_mug_beside_a_tree_gives_no_confident_marker(n, tree, k, geo):
    # the frames where the mug's rim or shadow was read as a black marker at 0.96-0.99
    board = drawn(board_of(n))
    rng = np.random.default_rng(n)
    cond = random_conditions(rng)
    cam = make_camera(geo, cond, (1920, 1080))
    angle = (0, 2.1, 4.2)[k]
    at = np.array(geo.center_mm(tree)) + 1.1 * geo.hex_size_mm * np.array([np.cos(angle), np.sin(angle)])
    mug = random_object(np.random.default_rng((n, k)), geo, None, "mug", at=at)
    frame = render(board, geo, cond, rng, camera=cam, objects=[mug])
    reading = BoardReader(geo).read(frame.image)
    assert _confident_misreads(reading, board, geo.spaces) == []
    assert any(w.startswith("something covers") for w in reading.unreadable.values())
