"""``read-board`` and ``calibrate colours`` as a user runs them."""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np
from vision_frames import SIZE, mild, normalised, shoot

from calibration import cli as calib_cli
from calibration.colours import load_layout
from companion.vision import cli as vision_cli


def run(argv, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    vision_cli.register(sub)
    calib_cli.register(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


BOARD = {"tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}], "rocks": [], "trees": [], "substrates": [],
         "spores": {"blue": {"at": [0, -4], "used": True}}, "meeples": {"blue": [0, 0]}}


def _intrinsics_file(tmp_path, intr):
    p = tmp_path / "k.json"
    intr.save(p)
    return p


def test_read_board_json(tmp_path, capsys, geo):
    frame, intr = shoot(BOARD, geo)
    img = tmp_path / "frame.jpg"
    cv2.imwrite(str(img), frame.image)
    code, out, err = run(["read-board", str(img), "--intrinsics", str(_intrinsics_file(tmp_path, intr)), "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert set(result) == {"board", "complete", "guessed", "confidence", "unreadable", "unsure", "labels",
                           "side_unknown", "registration"}
    assert result["unreadable"] == {} and result["complete"] is True
    assert result["guessed"]["tiles"] == [] and result["guessed"]["meeples"] == {}
    assert normalised(result["board"]) == normalised(BOARD, seen=result["board"])
    assert result["registration"]["markers"] == [0, 1, 2, 3]
    assert result["registration"]["reprojection_px"] < 1.0
    assert len(result["confidence"]) == len(geo.spaces)

    code, out, _ = run(["read-board", str(img), "--intrinsics", str(tmp_path / "k.json"), "--hand", "P0.Y2.G4"], capsys)
    assert code == 0 and "tiles: E5 P0.Y2.G4 (P0.Y2.G4, as printed)\nrocks: none" in out, out   # one tile, from the hand


def test_read_board_errors_exit_2(tmp_path, capsys):
    code, _, err = run(["read-board", str(tmp_path / "missing.jpg"), "--json"], capsys)
    assert code == 2 and "cannot read image" in err
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    code, _, err = run(["read-board", str(junk)], capsys)
    assert code == 2 and "cannot read image" in err
    empty = tmp_path / "table.png"
    cv2.imwrite(str(empty), np.full((1080, 1920, 3), 90, np.uint8))  # big enough to be looked at
    code, out, err = run(["read-board", str(empty), "--json"], capsys)
    assert code == 2 and out == "" and "no board found" in err
    code, _, err = run(["read-board", str(empty), "--hand", "Q9"], capsys)
    assert code == 2 and "Q9" in err
    code, _, err = run(["read-board", str(empty), "--profile", str(junk)], capsys)
    assert code == 2 and "colour profile" in err


def test_colour_calibration_adapts_to_a_warm_lamp(tmp_path, capsys, geo, codes):
    from companion.vision.profile import load_profile
    from companion.vision.reader import BoardReader

    warm = mild(colour_temperature_k=2600.0, gradient=0.1)
    layout_frame, intr = shoot(load_layout(), geo, warm, seed=5)
    photo = tmp_path / "layout.png"
    cv2.imwrite(str(photo), layout_frame.image)
    k = _intrinsics_file(tmp_path, intr)
    prof = tmp_path / "warm.json"
    code, out, err = run(["calibrate", "colours", "--image", str(photo), "--intrinsics", str(k), "--out", str(prof), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["per_class"]["white"] >= 3
    board = {"tiles": [{"at": [q, -1], "paths": c} for q, c in zip(range(-2, 3), codes)],
             "substrates": [{"at": [0, 1], "kind": "wood"}, {"at": [1, 1], "kind": "soil"}],
             "spores": {"orange": {"at": [4, -4], "used": False}, "red": {"at": [-4, 4], "used": True}}}
    frame, _ = shoot(board, geo, warm, seed=6)
    reading = BoardReader(geo, profile=load_profile(prof), intrinsics=intr, tile_codes=codes).read(frame.image)
    assert normalised(reading.board) == normalised(board, seen=reading.board)


def test_colour_calibration_without_board_is_exit_2(tmp_path, capsys):
    empty = tmp_path / "table.png"
    cv2.imwrite(str(empty), np.full((1080, 1920, 3), 90, np.uint8))  # big enough to be looked at
    code, _, err = run(["calibrate", "colours", "--image", str(empty), "--out", str(tmp_path / "p.json")], capsys)
    assert code == 2 and "no board found" in err
