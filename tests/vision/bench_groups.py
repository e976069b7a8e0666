"""The tables and boards of a ``bench/vision.py`` group, drawn again for a test: a style's
calibration layouts photographed under the group's lamp and calibrated with ``calibrate pieces``
as a user would, and board ``board_no`` of the group with its camera, light and table."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.sim.calibration import render_calibration_frames
from companion.sim.light import LIGHTS, Light, light_preset
from companion.sim.render import make_camera, random_conditions
from companion.sim.render_scene import random_board
from companion.sim.styles import STYLES, TABLES

SIZE = (1920, 1080)


def group_id(style: str, light_name: str, seed: int) -> int:
    """The bench's group number of a style and light under ``--seed seed``."""
    return seed * 1000 + sorted(STYLES).index(style) * 37 + LIGHTS.index(light_name)


def calibrate_group(style: str, light_name: str, seed: int, folder: Path, geo) -> Path:
    """Calibrates the group's table into ``folder`` (``k.json``, ``profile.json``, the layout
    photos); returns the profile's path.  Raises AssertionError with the command's output when
    ``calibrate pieces`` refuses the photos."""
    from companion.cli import main

    rng = np.random.default_rng(group_id(style, light_name, seed))
    lamp = light_preset(light_name, rng)
    cal_cam = make_camera(geo, random_conditions(rng), SIZE)
    cal = render_calibration_frames(style, Light(**{**lamp.__dict__, "glare": 0.0}), int(rng.integers(1 << 30)), SIZE,
                                    cal_cam, geo, sorted(TABLES)[int(rng.integers(3))])
    k, prof = folder / "k.json", folder / "profile.json"
    Intrinsics(cal_cam.k, cal_cam.dist, SIZE, 0.0).save(k)
    argv = ["calibrate", "pieces", "--intrinsics", str(k), "--out", str(prof)]
    for i, f in enumerate(cal):
        cv2.imwrite(str(folder / f"layout{i}.png"), f.image)
        argv += ["--image", str(folder / f"layout{i}.png")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 0, out.getvalue() + err.getvalue()
    return prof


def group_board(style: str, light_name: str, seed: int, board_no: int, geo, codes):
    """Board ``board_no`` of the group as the bench draws it: (truth board, camera, light, table,
    generator), the generator in the state the bench draws the board's frame from."""
    lamp = light_preset(light_name, np.random.default_rng(group_id(style, light_name, seed)))
    rng = np.random.default_rng((group_id(style, light_name, seed), board_no))
    board = random_board(rng, geo, codes)
    cam = make_camera(geo, random_conditions(rng), SIZE)
    light = Light(**{**lamp.__dict__, "glare_xy": (float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7))),
                     "glare_radius": float(rng.uniform(60, 160))})
    table = sorted(TABLES)[int(rng.integers(3))]
    return board, cam, light, table, rng


def read_group_board(style: str, light_name: str, seed: int, board_no: int, geo, codes, profile):
    """Board ``board_no`` of the group photographed as the bench draws it and read with
    ``profile``: (truth board, :class:`~companion.vision.reader.Reading`)."""
    from companion.sim.render import render_styled
    from companion.vision.reader import BoardReader

    board, cam, light, table, rng = group_board(style, light_name, seed, board_no, geo, codes)
    frame = render_styled(board, geo, style, light, rng=rng, size=SIZE, camera=cam, table=table)
    reader = BoardReader(geo, profile=profile, intrinsics=Intrinsics(cam.k, cam.dist, SIZE, 0.0), tile_codes=codes)
    return board, reader.read(frame.image)
