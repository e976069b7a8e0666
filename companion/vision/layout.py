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


TILE_RADIUS = 0.95
"""A tile's printed hexagon, centre to corner, in units of s (a little inside its space)."""
PATH_HALF_WIDTH = 0.17
"""Half the documented path width (0.34 s)."""
SPUR_END = 0.35
"""Where a one-edge path (a spur) ends, from the centre, in units of s."""


def path_segments(code: str) -> list[tuple[str, list[tuple[np.ndarray, np.ndarray]]]]:
    """Centre lines of the paths of tile ``code`` (as laid), in units of s from the space centre
    (x right, y down): per path its colour and one segment (edge end, hub) per edge, float64 (2,)
    each.  A path leaves the midpoint of its edge of the printed hexagon (:data:`TILE_RADIUS`)
    and runs to its hub: half-way to the mean of its edge ends (the centre when two of its edges
    are opposite, or three are spaced evenly), or :data:`SPUR_END` out along its edge for a
    spur.  Raises :class:`companion.tiles.TileCodeError` for a malformed code."""
    from companion.tiles import parse

    apothem = TILE_RADIUS * math.sqrt(3) / 2
    out = []
    for path in parse(code).paths:
        ends = [np.array(_edge_unit(e)) * apothem for e in sorted(path.edges)]
        if len(ends) == 1:
            hub = np.array(_edge_unit(next(iter(path.edges)))) * SPUR_END
        else:
            hub = 0.5 * np.mean(ends, axis=0)
        out.append((path.color, [(end, hub) for end in ends]))
    return out


def _distance_to_segment(pts: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((pts - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    return np.linalg.norm(pts - (a + t[:, None] * ab), axis=1)


def tile_colour_offsets(code: str, step: float = 0.04, across: float = 0.07, inner: float = 0.56,
                        outer: float = 0.78, clearance: float = 0.3) -> dict[str, np.ndarray]:
    """Where each colour of tile ``code`` (as laid) can be seen for sure: path colour name, and
    ``"tile"`` for the bare tile, -> float32 (n, 2) offsets from the space centre in units of s.

    A path's points lie along the outer part of its centre line (between ``inner`` and ``outer``
    from the centre, ``step`` apart, at 0, +-``across`` / 2 and +-``across`` to the side): where
    every printing draws it straight in from its edge, whatever the shape of its bend or hub,
    and as far out and as wide as the reader's own edge points (:data:`EDGES`: 0.6 and 0.74 s
    out, 0.07 s to either side), so the colour is learned as the reader will see it, the
    path's borders included.  Points within
    ``clearance`` of a path of another colour are left out, so no colour is learned from where
    two paths meet or run side by side.  The bare tile's points lie on a grid inside the printed
    hexagon, at least ``clearance`` from every path and 0.1 s in from the tile's edge (a tile
    lies a millimetre or so off its space).  A colour with no such points is left out (a tile
    with paths on all six edges shows no bare tile for sure)."""
    segments = path_segments(code)
    samples: dict[str, list[np.ndarray]] = {}
    for colour, segs in segments:
        for end, hub in segs:
            length = float(np.linalg.norm(end - hub))
            if length < 1e-6:
                continue
            along, side = (hub - end) / length, np.array([-(hub - end)[1], (hub - end)[0]]) / length
            t = np.arange(0.0, length + 1e-9, step)
            line = end[None, :] + t[:, None] * along[None, :]
            pts = np.concatenate([line + k * across * side[None, :] for k in (-1, -0.5, 0, 0.5, 1)])
            r = np.linalg.norm(pts, axis=1)
            pts = pts[(r >= inner) & (r <= outer)]
            for other, osegs in segments:
                if other != colour and len(pts):
                    near = np.min([_distance_to_segment(pts, a, b) for a, b in osegs], axis=0)
                    pts = pts[near >= clearance]
            samples.setdefault(colour, []).append(pts)
    g = np.arange(-TILE_RADIUS, TILE_RADIUS + 1e-9, step / 2 * 2)
    grid = np.array([(x, y) for y in g for x in g])
    normals = np.array([_edge_unit(e) for e in range(6)])
    inside = np.max(grid @ normals.T, axis=1) <= TILE_RADIUS * math.sqrt(3) / 2 - 0.1
    bare = grid[inside]
    if segments:
        near = np.min([_distance_to_segment(bare, a, b) for _, segs in segments for a, b in segs], axis=0)
        bare = bare[near >= clearance]
    samples.setdefault("tile", []).append(bare)
    out = {}
    for colour, parts in samples.items():
        pts = np.concatenate(parts) if parts else np.zeros((0, 2))
        if len(pts):
            out[colour] = pts.astype(np.float32)
    return out
