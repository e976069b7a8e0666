"""Colour profile from one photo of the calibration layout (``calibrate colours``).

The layout (``companion/vision/calibration_layout.json``, or ``--layout``) says what lies on
which space.  Every sample point of :mod:`companion.vision.layout` whose surface is known
there is white-balanced against the markers, converted to Lab and filed under its class;
each class gets the mean and a widened standard deviation.  A new copy of the game, a warm
lamp or a new camera is then one photo away.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from calibration.intrinsics import load_intrinsics
from companion.tiles import parse
from companion.vision import layout as L
from companion.vision.errors import VisionError
from companion.vision.profile import CLASSES, MIN_STD, ColourProfile
from companion.vision.reader import BoardReader, read_image

LAYOUT_PATH = Path(__file__).resolve().parent.parent / "companion" / "vision" / "calibration_layout.json"
STD_WIDEN = 1.3
"""Standard deviations are widened by this factor (plus MIN_STD) to tolerate light changes."""
L_WIDEN = 1.6
"""Extra widening of lightness: shadows and uneven light move L far more than a and b."""


def load_layout(path: str | Path | None = None) -> dict:
    """The calibration layout (board part of a position)."""
    p = Path(path) if path else LAYOUT_PATH
    try:
        return json.loads(Path(p).read_text())
    except (OSError, ValueError) as exc:
        raise VisionError(f"cannot read calibration layout {p}: {exc}") from exc


def _labels(layout: dict, spaces: list[tuple[int, int]]) -> np.ndarray:
    """int (S, P) class index of every sample point, -1 where unknown or mixed."""
    ci = {c: i for i, c in enumerate(CLASSES)}
    lab = np.full((len(spaces), L.POINTS_PER_SPACE), ci["board"], np.int64)
    index = {h: i for i, h in enumerate(spaces)}

    def at(a) -> int:
        return index[(int(a[0]), int(a[1]))]

    def fill(s: int, cls: str, groups=("centre", "ring", "edges", "diag")) -> None:
        lab[s, :] = -1
        for g in groups:
            lab[s, L.GROUPS[g]] = ci[cls]

    for t in layout.get("tiles", []):
        s = at(t["at"])
        lab[s, :] = -1
        colours = parse(t["paths"]).edge_color
        for e in range(6):
            sl = slice(L.EDGES.start + e * L.POINTS_PER_EDGE, L.EDGES.start + (e + 1) * L.POINTS_PER_EDGE)
            lab[s, sl] = ci[colours[e] or "tile"]
    for r in layout.get("rocks", []):
        fill(at(r), "rock")
    for t in layout.get("trees", []):
        s = at(t["at"])
        fill(s, "tree", ("centre", "ring", "edges"))
        for k, who in enumerate(t.get("mycorrhizae", [None] * 4)):
            sl = slice(L.SLOTS.start + k * L.POINTS_PER_SLOT, L.SLOTS.start + (k + 1) * L.POINTS_PER_SLOT)
            lab[s, sl] = ci[who or "slot"]
            lab[s, sl.start + 1:sl.stop] = -1  # keep only the slot centre: markers are smaller than slots
    for sub in layout.get("substrates", []):
        fill(at(sub["at"]), sub["kind"], ("centre", "ring"))
        lab[at(sub["at"]), L.EDGES] = ci["board"]
    for p, sp in layout.get("spores", {}).items():
        s = at(sp["at"])
        lab[s, :] = -1
        lab[s, L.RING] = ci[p]
        lab[s, L.EDGES] = ci["board"]
        lab[s, L.CENTRE.start] = ci["white"]
    for p, m in layout.get("meeples", {}).items():
        s = at(m)
        lab[s, :] = -1
        lab[s, L.CENTRE] = ci[p]
    return lab


def calibrate_colours(image: str | Path, intrinsics: str | Path | None = None, layout: str | Path | dict | None = None,
                      frame: np.ndarray | None = None) -> tuple[ColourProfile, dict]:
    """Profile from a photo of the layout; returns it and a JSON summary (samples per class)."""
    lay = layout if isinstance(layout, dict) else load_layout(layout)
    intr = load_intrinsics(intrinsics) if intrinsics else None
    dummy = ColourProfile(np.zeros((len(CLASSES), 3), np.float32), np.ones((len(CLASSES), 3), np.float32))
    reader = BoardReader(profile=dummy, intrinsics=intr, tile_codes=[])
    img = frame if frame is not None else read_image(image)
    reg = reader.tracker.register(img)
    lab = reader.sample(img, reg).reshape(-1, 3)
    labels = _labels(lay, list(reader.geo.spaces)).ravel()
    mean = np.zeros((len(CLASSES), 3), np.float32)
    std = np.zeros((len(CLASSES), 3), np.float32)
    counts = {}
    for i, c in enumerate(CLASSES):
        x = lab[labels == i]
        if len(x) < 3:
            raise VisionError(f"calibration layout shows too little {c!r} ({len(x)} samples): check the layout file")
        med = np.median(x, axis=0)
        keep = x[np.all(np.abs(x - med) <= 3 * (np.percentile(np.abs(x - med), 75, axis=0) + 2), axis=1)]
        mean[i] = keep.mean(0)
        std[i] = keep.std(0) * STD_WIDEN + MIN_STD
        std[i, 0] *= L_WIDEN
        counts[c] = int(len(keep))
    summary = {"samples": int(sum(counts.values())), "per_class": counts,
               "reprojection_px": round(float(reg.reprojection_px), 3)}
    return ColourProfile(mean, std), summary
