"""A spore under its own meeple: the side the camera cannot see is not claimed."""

from __future__ import annotations

import json

import cv2
import pytest
from bench_groups import SIZE, calibrate_group, group_board
from test_vision_cli import run

from calibration.intrinsics import Intrinsics
from companion.sim.render import render_styled
from companion.vision.profile import load_profile
from companion.vision.reader import COVERED_SIDE_REASON, BoardReader


def styled_table(style: str, light_name: str, seed: int, board_no: int, tmp_path, geo, codes, capsys):
    """A table as ``bench/vision.py`` draws it: the layouts photographed and calibrated with
    ``calibrate pieces`` as a user would, then board ``board_no`` of that style and light.
    Returns (reader, frame, truth board, intrinsics path, profile path)."""
    prof = calibrate_group(style, light_name, seed, tmp_path, geo)
    board, cam, light, table, rng = group_board(style, light_name, seed, board_no, geo, codes)
    frame = render_styled(board, geo, style, light, rng=rng, size=SIZE, camera=cam, table=table)
    intr = Intrinsics(cam.k, cam.dist, SIZE, 0.0)
    reader = BoardReader(geo, profile=load_profile(prof), intrinsics=intr, tile_codes=codes)
    intr.save(tmp_path / "board_k.json")
    return reader, frame, board, tmp_path / "board_k.json", prof


def test_a_spore_side_hidden_by_its_meeple_is_not_claimed(tmp_path, geo, codes, capsys):
    # bands art in daylight, board 2 of the bench's seed 2024: blue's meeple stands on blue's
    # used spore and the chip's rim alone once read "unused" (a confident-looking wrong side)
    reader, frame, board, k, prof = styled_table("bands", "daylight", 2024, 2, tmp_path, geo, codes, capsys)
    assert board["meeples"]["blue"] == board["spores"]["blue"]["at"] and board["spores"]["blue"]["used"] is True
    reading = reader.read(frame.image)
    q, r = board["spores"]["blue"]["at"]
    assert reading.board["spores"]["blue"] == {"at": [q, r], "used": None}
    assert reading.side_unknown[f"{q},{r}"] == COVERED_SIDE_REASON
    # every spore is where it lies; its side is right, or unknown only under its own meeple
    for p, s in reading.board["spores"].items():
        assert s["at"] == board["spores"][p]["at"]
        if s["used"] is None:
            assert board["meeples"].get(p) == s["at"]
            assert reading.side_unknown[f"{s['at'][0]},{s['at'][1]}"] == COVERED_SIDE_REASON
        else:
            assert s["used"] == board["spores"][p]["used"]

    # the same board read again in play (nothing moved) keeps the side unknown
    again = reader.read(frame.image, previous=reading)
    assert again.board["spores"]["blue"]["used"] is None and again.side_unknown == reading.side_unknown

    # read-board shows it, in JSON and in words
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), frame.image)
    argv = ["read-board", str(image), "--profile", str(prof), "--intrinsics", str(k)]
    code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    # a valid position's board: the side not seen is given unused, and listed under side_unknown
    assert got["board"]["spores"]["blue"]["used"] is False
    assert got["side_unknown"] == reading.side_unknown
    code, out, _ = run(argv, capsys)
    assert code == 0 and f"(side not visible: {COVERED_SIDE_REASON})" in out, out


@pytest.mark.parametrize("used", [None, True, False])
def test_the_table_keeps_the_side_it_knows_under_a_meeple(used):
    # the table loop compares what the camera sees with the committed position: under its own
    # meeple a spore's side counts for neither, so an unknown side is no disagreement
    from companion.table.inference import view_of_board

    seen = view_of_board({"spores": {"blue": {"at": [0, -4], "used": used}}, "meeples": {"blue": [0, -4]}})
    known = view_of_board({"spores": {"blue": {"at": [0, -4], "used": True}}, "meeples": {"blue": [0, -4]}})
    assert seen.spaces == known.spaces
