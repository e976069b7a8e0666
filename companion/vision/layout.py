"""Where the reader samples colour on each space, in units of the hex size s.

Offsets are (x, y) from the space centre with x right and y down (board frame).  The pieces
as the reader expects them (the synthetic art in :mod:`companion.sim.render_art` follows the
same sizes; measure a real copy against these):

* a tile path is a band about 0.34 s wide running from an edge midpoint inwards, so the edge
  zone (0.6 s and 0.74 s out along the edge normal, 3 points across the band) shows its colour;
* a path with 2+ edges through opposite sides crosses the centre;
* tokens (spores, substrates) are discs of radius 0.5 s: the ring at 0.4 s shows them and the
  edge zone shows the board around them;
* a spore's centre shows its white symbol: a dot (unused side) or an X along the diagonals
  (used side), so the diagonal points tell the sides apart and a meeple on it hides the centre;
* a tree's mycorrhiza slots are discs at 0.52 s, slot k at -135 + 90 k degrees
  (top-left, top-right, bottom-right, bottom-left as seen by the camera);
* a meeple's cap is :data:`CAP_HEIGHT_MM` above the table: the ``CAP`` points are a small disc
  at that height over the centre.  Their offsets here are where they lie seen from straight
  above; the reader projects them through the camera pose (:mod:`companion.vision.pose`), so
  under a tilted camera they follow the cap, displaced from the centre towards the image edge.

Groups, as index slices into the per-space point list: ``CENTRE`` (7 points), ``RING`` (12),
``EDGES`` (6 edges x 6 points, edge-major), ``DIAG`` (8), ``SLOTS`` (4 slots x 5 points),
``CAP`` (7, raised), and three rings sampled at all angles so that what they show does not
depend on how a round piece was turned: ``SYM_IN`` (8 points at 0.14 s, under a meeple's
footprint), ``SYM_MID`` (16 at 0.25 s) and ``SYM_OUT`` (24 at 0.37 s, on a spore's chip
beyond a meeple standing on it).
"""

from __future__ import annotations

import math

import numpy as np

from companion.hexgrid import DIRECTIONS, hex_to_pixel

SLOT_DISTANCE = 0.52
CAP_HEIGHT_MM = 13.0
"""Height above the table (mm) of the middle of a meeple's cap (an 18 mm meeple, cap 0.5-1.0 of it)."""
SLOT_ANGLES_DEG = (-135.0, -45.0, 45.0, 135.0)


def _polar(r: float, deg: float) -> tuple[float, float]:
    return (r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg)))


def _edge_unit(edge: int) -> tuple[float, float]:
    x, y = hex_to_pixel(DIRECTIONS[edge], 1.0)
    n = math.hypot(x, y)
    return (x / n, y / n)


def _build() -> tuple[np.ndarray, dict[str, slice]]:
    pts: list[tuple[float, float]] = []
    groups: dict[str, slice] = {}

    def add(name: str, new: list[tuple[float, float]]) -> None:
        groups[name] = slice(len(pts), len(pts) + len(new))
        pts.extend(new)

    add("centre", [(0.0, 0.0)] + [_polar(0.04, 60 * i) for i in range(6)])
    add("ring", [_polar(0.40, 30 * i) for i in range(12)])
    edge_pts = []
    for e in range(6):
        ux, uy = _edge_unit(e)
        for depth in (0.60, 0.74):
            for across in (-0.07, 0.0, 0.07):
                edge_pts.append((ux * depth - uy * across, uy * depth + ux * across))
    add("edges", edge_pts)
    add("diag", [_polar(r, a) for a in (45, 135, 225, 315) for r in (0.22, 0.40)])
    slot_pts = []
    for a in SLOT_ANGLES_DEG:
        cx, cy = _polar(SLOT_DISTANCE, a)
        slot_pts.append((cx, cy))
        slot_pts.extend((cx + dx, cy + dy) for dx, dy in ((0.05, 0), (-0.05, 0), (0, 0.05), (0, -0.05)))
    add("slots", slot_pts)
    add("cap", [(0.0, 0.0)] + [_polar(0.11, 60 * i + 30) for i in range(6)])
    # rings read without regard to rotation: a spore's symbol, what a meeple hides
    add("sym_in", [_polar(0.14, 45 * i + 22.5) for i in range(8)])
    add("sym_mid", [_polar(0.25, 22.5 * i) for i in range(16)])
    add("sym_out", [_polar(0.37, 15 * i + 7.5) for i in range(24)])
    return np.array(pts, np.float32), groups


OFFSETS, GROUPS = _build()
"""OFFSETS: float32 (P, 2) sample offsets in units of s; GROUPS: name -> slice into them."""
CENTRE, RING, EDGES, DIAG, SLOTS, CAP = (GROUPS[k] for k in ("centre", "ring", "edges", "diag", "slots", "cap"))
SYM_IN, SYM_MID, SYM_OUT = (GROUPS[k] for k in ("sym_in", "sym_mid", "sym_out"))
POINTS_PER_SPACE = len(OFFSETS)
POINTS_PER_EDGE = 6
POINTS_PER_SLOT = 5
WHITE_POINTS_PER_MARKER = 16


def white_reference_offsets_mm(marker_size_mm: float, quiet_mm: float = 8.0) -> np.ndarray:
    """float32 (16, 2) points in the white quiet zone around a marker, relative to its centre (mm)."""
    d = marker_size_mm / 2.0 + quiet_mm / 2.0
    t = np.linspace(-d, d, 5)[:-1]
    side = [(x, -d) for x in t] + [(d, y) for y in t] + [(-x, d) for x in t] + [(-d, -y) for y in t]
    return np.array(side, np.float32)
