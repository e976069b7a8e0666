"""``read-board`` without ``--json`` speaks the table's language: spaces by their printed labels
(as on the dashboard and the layout pictures), no Python values, and a reason beside every
space it is unsure of or cannot read."""

from __future__ import annotations

import json
import re

import cv2
import pytest
from test_vision_cli import run
from vision_frames import shoot

from companion.vision.assistant import space_labels
from companion.vision.cli import reading_lines
from companion.vision.reader import BoardReader

BOARD = {"tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}], "rocks": [[2, -1]],
         "trees": [{"at": [1, 0], "mycorrhizae": ["blue", None, None, None]}], "substrates": [],
         "spores": {"blue": {"at": [0, -4], "used": True}}, "meeples": {"blue": [0, 0]}}


@pytest.fixture(scope="module")
def photo(tmp_path_factory, geo):
    frame, intr = shoot(BOARD, geo, seed=3)
    folder = tmp_path_factory.mktemp("board")
    img = folder / "board.png"
    cv2.imwrite(str(img), frame.image)
    k = folder / "k.json"
    intr.save(k)
    return img, k, frame, intr


def test_the_text_names_spaces_by_their_labels_without_python_values(photo, capsys):
    img, k, _, _ = photo
    code, out, err = run(["read-board", str(img), "--intrinsics", str(k)], capsys)
    assert code == 0, err
    labels = space_labels()
    e5, tree, rock, spore = (labels[h] for h in ((0, 0), (1, 0), (2, -1), (0, -4)))
    assert f"tiles: {e5} P03.Y12.G45" in out
    assert f"rocks: {rock}" in out and f"trees: {tree} (markers blue top-left)" in out
    assert f"spores: blue at {spore} (used side up)" in out and f"meeples: blue on {e5}" in out
    assert "board registered with markers 0, 1, 2, 3 (reprojection" in out
    for python in ("None", "Piece(", "{'", "['", "True", "False"):
        assert python not in out, out


def test_json_keeps_its_shape(photo, capsys):
    img, k, _, _ = photo
    code, out, _ = run(["read-board", str(img), "--intrinsics", str(k), "--json"], capsys)
    got = json.loads(out)
    assert code == 0 and set(got) == {"board", "complete", "guessed", "confidence", "unreadable", "unsure", "labels",
                                      "side_unknown", "registration"}
    assert got["complete"] is True
    assert got["board"]["tiles"] == [{"at": [0, 0], "paths": "P03.Y12.G45"}]
    assert got["labels"]["0,0"] == space_labels()[(0, 0)] and got["unsure"] == {}


def test_json_gives_the_reason_beside_each_unsure_space_as_the_text_does(photo, capsys, monkeypatch):
    img, k, _, _ = photo
    read = BoardReader.read

    def poorly(self, *a, **kw):   # as if the tile had read poorly
        reading = read(self, *a, **kw)
        reading.confidence["0,0"] = 0.31
        return reading

    monkeypatch.setattr(BoardReader, "read", poorly)
    code, out, _ = run(["read-board", str(img), "--intrinsics", str(k), "--json"], capsys)
    got = json.loads(out)
    assert code == 0 and list(got["unsure"]) == ["0,0"]
    assert got["unsure"]["0,0"].startswith("read as tile P03.Y12.G45")
    code, text, _ = run(["read-board", str(img), "--intrinsics", str(k)], capsys)
    assert f"unsure: {got['labels']['0,0']} 0.31: {got['unsure']['0,0']}" in text


def test_every_unsure_or_unreadable_space_has_its_reason_beside_it(photo, geo):
    _, _, frame, intr = photo
    reading = BoardReader(geo, intrinsics=intr).read(frame.image)
    reading.confidence["0,0"] = 0.31       # as if the tile had read poorly
    reading.confidence["2,-1"] = 0.0
    reading.unreadable["2,-1"] = "glare on F6: move the lamp"
    labels = space_labels()
    lines = reading_lines(reading, labels)
    assert f"unsure: {labels[(0, 0)]} 0.31: read as tile P03.Y12.G45" in "\n".join(lines)
    assert f"unreadable: {labels[(2, -1)]}: glare on F6: move the lamp" in lines
    assert not any(re.search(r"\(-?\d+, ?-?\d+\)", line) for line in lines)   # no axial pairs where labels exist


def test_a_board_without_labels_is_named_in_axial_coordinates(photo, geo):
    _, _, frame, intr = photo
    reading = BoardReader(geo, intrinsics=intr).read(frame.image)
    assert "tiles: (0, 0) P03.Y12.G45" in reading_lines(reading, {})


def test_pieces_on_unreadable_spaces_are_not_listed_and_one_reason_is_one_line(photo, geo):
    # a glare spot over several spaces: the text claims no piece there, and says the reason once
    _, _, frame, intr = photo
    reading = BoardReader(geo, intrinsics=intr).read(frame.image)
    labels = space_labels()
    glared = [(0, 0), (1, 0), (2, -1), (0, -4)]         # the tile and its meeple, the tree, the rock, the spore
    for h in glared:
        reading.confidence[f"{h[0]},{h[1]}"] = 0.0
        reading.unreadable[f"{h[0]},{h[1]}"] = f"glare on {labels[h]}: move the lamp"
    reading.unreadable["3,-3"] = f"glare near {labels[(2, -1)]}: move the lamp"
    lines = reading_lines(reading, labels)
    assert {"tiles: none", "rocks: none", "trees: none", "spores: none", "meeples: none"} <= set(lines), lines
    unreadable = [line for line in lines if line.startswith("unreadable")]
    assert len(unreadable) == 2, unreadable
    names = sorted(labels[h] for h in glared)
    assert f"unreadable: glare on {', '.join(names)}: move the lamp" in unreadable
    assert f"unreadable: {labels[(3, -3)]}: glare near {labels[(2, -1)]}: move the lamp" in unreadable
