"""``calibrate pieces`` checks every space of a calibration photo against its layout: a photo
with one piece missing, one tile turned or a piece laid on the wrong space is refused (exit 2,
nothing written) with a sentence naming the space as the layout picture names it."""

from __future__ import annotations

import copy

import cv2
import pytest
from test_vision_cli import run
from vision_frames import SIZE, mild, shoot

from calibration.colours import load_layout
from companion.sim.render import make_camera
from companion.tiles import rotate_code

PREVIOUS = '{"previous profile": true}\n'


@pytest.fixture(scope="module")
def camera(geo):
    cond = mild(colour_temperature_k=4800.0)
    return cond, make_camera(geo, cond, SIZE)


def photograph(board, geo, camera, folder, name, seed=70):
    cond, cam = camera
    frame, intr = shoot(board, geo, cond, seed=seed, camera=cam)
    path = folder / name
    cv2.imwrite(str(path), frame.image)
    intr_path = folder / "k.json"
    intr.save(intr_path)
    return path, intr_path


@pytest.fixture(scope="module")
def others(geo, camera, tmp_path_factory):
    """Good photos of layouts 2 and 3 from the same camera: a user gives the three together."""
    folder = tmp_path_factory.mktemp("others")
    return [photograph(load_layout(n), geo, camera, folder, f"layout{n}.png", seed=80 + n)[0] for n in (2, 3)]


def calibrate(photo, intr, tmp_path, capsys, others, *extra):
    prof = tmp_path / "colours.json"
    prof.write_text(PREVIOUS)
    argv = ["calibrate", "pieces", "--intrinsics", str(intr), "--out", str(prof), *extra]
    for p in [photo, *others]:
        argv += ["--image", str(p)]
    code, out, err = run(argv, capsys)
    return code, out, err, prof


def test_a_missing_tree_is_named_by_its_space_and_nothing_is_written(tmp_path, capsys, geo, camera, others):
    board = copy.deepcopy(load_layout(1))
    board["trees"] = [t for t in board["trees"] if t["at"] != [-1, -1]]     # D3, the tree with four markers
    photo, intr = photograph(board, geo, camera, tmp_path, "layout1.png")
    code, out, err, prof = calibrate(photo, intr, tmp_path, capsys, others)
    assert code == 2 and err.count("\n") == 1, err
    assert "layout1.png: D3 should hold a tree with markers blue top-left" in err
    assert "it looks like an empty space" in err
    assert "lay the layout as in hardware/img/calibration_layout_1.png and take the photo again" in err
    assert prof.read_text() == PREVIOUS
    code, out, err, prof = calibrate(photo, intr, tmp_path, capsys, others, "--force")   # the escape stays
    assert code == 0, err
    assert "warning: kept with --force although " in out and "layout1.png: D3 should hold a tree" in out, out
    assert prof.read_text() != PREVIOUS


def test_a_tile_turned_is_named_with_how_it_should_lie(tmp_path, capsys, geo, camera, others):
    board = copy.deepcopy(load_layout(1))
    tile = next(t for t in board["tiles"] if t["at"] == [1, -1])           # D5: G024.P1, turned 1/6 clockwise
    tile["paths"] = rotate_code(tile["paths"], 1)
    photo, intr = photograph(board, geo, camera, tmp_path, "turned.png")
    code, _, err, prof = calibrate(photo, intr, tmp_path, capsys, others)
    assert code == 2 and err.count("\n") == 1, err
    assert "turned.png: D5 should hold a tile G024.P1, turned 1/6 clockwise: it lies as printed" in err
    assert prof.read_text() == PREVIOUS


def test_a_meeple_missing_and_laid_elsewhere_names_both_spaces(tmp_path, capsys, geo, camera, others):
    board = copy.deepcopy(load_layout(1))
    board["meeples"]["red"] = [0, 2]                                        # from F2 to an empty space
    photo, intr = photograph(board, geo, camera, tmp_path, "moved.png")
    code, _, err, prof = calibrate(photo, intr, tmp_path, capsys, others)
    assert code == 2, err
    assert "F2 should hold a red meeple standing on the empty space: it looks like an empty space" in err
    assert "should be empty: it looks like a red piece" in err
    assert prof.read_text() == PREVIOUS


def test_the_photos_as_documented_are_learned(tmp_path, capsys, geo, camera, others):
    photo, intr = photograph(load_layout(1), geo, camera, tmp_path, "layout1.png", seed=81)
    code, out, err, prof = calibrate(photo, intr, tmp_path, capsys, others)
    assert code == 0, err
    assert "should hold" not in out + err and "should be empty" not in out + err
    assert prof.read_text() != PREVIOUS
