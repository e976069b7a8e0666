"""A flat sheet of paper over the board is something covering it, not glare; a clean board
under a glare spot is never said to be covered.

A sheet of white paper lying on the board is lit like the board and as white as the markers'
paper: a glare spot fitted to it explains none of the spaces it lifts, yet it covers only a
few, so the allowance for a poorly fitting spot over few spaces (which holds where a
reflection clips the camera) made ``read-board`` say "glare or something over G4 ..." and exit
0.  A reflection strong enough to leave spaces unexplained clips the light pieces under its
core; the paper clips nothing (:func:`companion.vision.covered.spot_explains`).  The other way
round, spaces around a glare core that no piece explains are that glare's skirt
(:func:`companion.vision.reader.glare_regions`), reported as glare, not as an object."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_vision_cli import run
from test_vision_reader import every_piece
from vision_frames import SIZE, mild, shoot

from companion.cli import main
from companion.sim.render import make_camera
from companion.vision.covered import is_covered_reason, spot_explains
from companion.vision.reader import BoardReader

POSITION = Path(__file__).resolve().parents[1] / "fixtures" / "positions" / "spore-connect-legal.json"


def test_a_sheet_of_paper_over_the_board_is_covered_not_glare(tmp_path, capsys):
    photo = tmp_path / "paper.png"
    assert main(["sim-photo", "--position", str(POSITION), "--out", str(photo), "--seed", "7", "--object", "paper"]) == 0
    capsys.readouterr()
    code, text, _ = run(["read-board", str(photo)], capsys)
    assert code == 3, text
    assert "unreadable: something covers" in text and "glare" not in text, text


def test_a_spot_that_explains_none_of_few_spaces_is_glare_only_where_the_camera_clipped():
    lifted = np.zeros(40, bool)
    lifted[:4] = True
    without, with_spot = lifted.copy(), lifted.copy()
    without[3] = False                   # the paper: 3 covered as it is, 4 with the spot off
    assert not spot_explains(with_spot, without, lifted, clipped=False)
    assert spot_explains(with_spot, without, lifted, clipped=True)
    # a mild reflection, nothing clipped: as many spaces covered with it off as with it on
    assert spot_explains(without, without, lifted, clipped=False)


def test_a_clean_board_under_a_glare_spot_is_not_called_covered(geo, codes):
    board = every_piece(codes)
    cond = mild(glare=70.0, glare_xy=(0.45, 0.4), glare_radius=120.0)
    frame, intr = shoot(board, geo, cond, seed=1, camera=make_camera(geo, cond, SIZE))
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False).read(frame.image)
    assert reading.unreadable  # the spot is strong enough to hide spaces
    covered = {k: why for k, why in reading.unreadable.items() if is_covered_reason(why)}
    assert covered == {}, covered
    assert all(why.startswith("glare") for why in reading.unreadable.values())


def test_covered_spaces_joined_to_a_clipped_core_are_its_glare():
    from companion.vision.reader import glare_regions

    spaces = [(q, 0) for q in range(6)]
    covered = np.array([False, True, True, False, True, False])
    clipped = np.array([True, False, False, False, False, False])
    assert glare_regions(covered, clipped, spaces).tolist() == [-1, 0, 0, -1, -1, -1]
    assert glare_regions(covered, None, spaces).tolist() == [-1] * 6
