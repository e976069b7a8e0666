"""Synthetic frames with ground truth for the board-reader tests (imported by name: a
``conftest`` module cannot be imported from, as several test folders have one)."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.intrinsics import Intrinsics
from companion.tiles import validate
from companion.sim.render import Conditions, make_camera, render
from companion.vision.geometry import load_board, load_tile_codes

SIZE = (1280, 720)


def mild(**kw) -> Conditions:
    """A slightly tilted, slightly noisy photo (the standard bench conditions, fixed)."""
    base = dict(tilt_deg=8.0, tilt_direction_deg=30.0, board_rotation_deg=5.0, fill=0.92, dist=(-0.05, 0.01, 0, 0, 0),
                gradient=0.08, colour_temperature_k=5200.0, noise_sigma=1.5, blur_sigma=0.3, jpeg_quality=90)
    base.update(kw)
    return Conditions(**base)


def shoot(board, geo, cond=None, seed=0, camera=None):
    """Render ``board``; return (frame, intrinsics of the rendering camera)."""
    cond = cond or mild()
    cam = camera or make_camera(geo, cond, SIZE)
    frame = render(board, geo, cond, np.random.default_rng(seed), size=SIZE, camera=cam)
    return frame, Intrinsics(cam.k, cam.dist, SIZE, 0.0)


def normalised(board: dict, seen: dict | None = None) -> dict:
    """Order-free form of a board part for comparisons.  With ``seen`` (a reading's board), a
    spore side the reading reports unknown (``used`` None, under its own meeple) is unknown in
    this form too: the camera does not claim it, so it cannot be wrong."""
    hidden = {p for p, s in (seen or {}).get("spores", {}).items() if s["used"] is None}
    for p in hidden:  # only a meeple on its own spore hides the side
        assert (seen["meeples"].get(p) == seen["spores"][p]["at"]), f"{p}'s spore side unknown with no meeple on it"
    return {
        "tiles": sorted((tuple(t["at"]), validate(t["paths"])) for t in board.get("tiles", [])),
        "rocks": sorted(tuple(r) for r in board.get("rocks", [])),
        "trees": sorted((tuple(t["at"]), tuple(t["mycorrhizae"])) for t in board.get("trees", [])),
        "substrates": sorted((tuple(s["at"]), s["kind"]) for s in board.get("substrates", [])),
        "spores": {p: (tuple(s["at"]), None if p in hidden or s["used"] is None else bool(s["used"]))
                   for p, s in board.get("spores", {}).items()},
        "meeples": {p: tuple(v) for p, v in board.get("meeples", {}).items()},
    }


def shoot_styled(board, geo, style: str, light: str = "daylight", seed: int = 0, cond=None, size=SIZE):
    """Render ``board`` as another copy of the game: art ``style`` (a name in
    :data:`companion.sim.styles.STYLES`) under light preset ``light``; return (frame, intrinsics).

    Tests of the reader must not use the held-out style (:data:`companion.sim.styles.HELD_OUT`)."""
    from companion.sim.render import render_styled

    cond = cond or mild()
    cam = make_camera(geo, cond, size)
    frame = render_styled(board, geo, style, light, cond, np.random.default_rng(seed), size=size, camera=cam)
    return frame, Intrinsics(cam.k, cam.dist, size, 0.0)
