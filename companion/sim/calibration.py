"""Calibration photos of a simulated copy: the documented calibration layouts, drawn in one art
style under one light, as a user would photograph them with the mounted camera.

The layouts are the position-format boards in ``companion/vision/calibration_layouts/*.json``
(every file, in name order) or, where that folder does not exist, the single
``companion/vision/calibration_layout.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from companion.sim.render import Camera, Frame, make_camera, random_conditions, render_styled
from companion.vision.geometry import BoardGeometry, load_board

VISION_DIR = Path(__file__).resolve().parent.parent / "vision"
BOARD_KEYS = ("tiles", "rocks", "trees", "substrates", "spores", "meeples")


def calibration_layouts(vision_dir: Path = VISION_DIR) -> list[Path]:
    """Paths of the calibration layouts, in the order a user photographs them."""
    folder = vision_dir / "calibration_layouts"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return files or [vision_dir / "calibration_layout.json"]


def load_layout_board(path: Path) -> dict:
    """The board part of a layout file (comments and other keys dropped); raises ``ValueError``."""
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read calibration layout {path}: {exc}") from exc
    return {k: d[k] for k in BOARD_KEYS if k in d}


def render_calibration_frames(style, light, seed: int, size: tuple[int, int] = (1920, 1080),
                              camera: Camera | None = None, geo: BoardGeometry | None = None,
                              table: str = "wood", layouts: list[Path] | None = None) -> list[Frame]:
    """One photo per calibration layout, in ``style`` under ``light`` (a Light or preset name;
    a preset is drawn once from ``seed``, so all photos share one lamp).  ``camera``: the
    mounted camera (default: a mild random pose from ``seed``).  ``layouts``: the layout files
    to photograph (default :func:`calibration_layouts`).  Each frame's truth also has
    ``layout`` (the file's path).
    """
    from companion.sim.light import light_preset

    geo = geo or load_board()
    rng = np.random.default_rng(seed)
    if isinstance(light, str):
        light = light_preset(light, rng)
    cam = camera or make_camera(geo, random_conditions(rng), size)
    frames = []
    for path in layouts or calibration_layouts():
        f = render_styled(load_layout_board(path), geo, style, light, rng=rng, size=size, camera=cam, table=table)
        f.truth["layout"] = str(path)
        frames.append(f)
    return frames


def render_calibration(style, light, seed: int, size: tuple[int, int] = (1920, 1080)) -> list[np.ndarray]:
    """BGR uint8 (h, w, 3) photos of every calibration layout in ``style`` under ``light``."""
    return [f.image for f in render_calibration_frames(style, light, seed, size)]
