"""Hex grid geometry in axial coordinates (q, r), pointy-top.

Conventions follow Red Blob Games' "Hexagonal Grids" guide
(https://www.redblobgames.com/grids/hexagons/): axial (q, r) with the implied cube
coordinate s = -q - r.  Direction/edge index i faces the neighbour at ``DIRECTIONS[i]``::

    0: (+1, 0)  east          3: (-1, 0)  west
    1: (+1, -1) north-east    4: (-1, +1) south-west
    2: (0, -1)  north-west    5: (0, +1)  south-east

so the edge opposite edge i is (i + 3) mod 6, and rotating a piece by k x 60 degrees
counter-clockwise (as seen from above, y up) moves edge e to (e + k) mod 6.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple


class Hex(NamedTuple):
    """An axial hex coordinate; a tuple so it is hashable and JSON-friendly."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate, -q - r."""
        return -self.q - self.r

    def neighbor(self, direction: int) -> "Hex":
        """The neighbour across edge ``direction`` (0..5)."""
        dq, dr = DIRECTIONS[direction % 6]
        return Hex(self.q + dq, self.r + dr)

    def neighbors(self) -> list["Hex"]:
        """The six neighbours, in edge order 0..5."""
        return [Hex(self.q + dq, self.r + dr) for dq, dr in DIRECTIONS]


DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Axial offsets for edges 0..5 (fixed by the tile path code, see docs/edition.md)."""

ORIGIN = Hex(0, 0)


def opposite(edge: int) -> int:
    """The edge index facing back across a shared side: (edge + 3) mod 6."""
    return (edge + 3) % 6


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hex distance in steps between two axial coordinates (Red Blob: cube distance)."""
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def direction_between(a: tuple[int, int], b: tuple[int, int]) -> int | None:
    """Edge index of ``a`` that faces ``b`` when they are neighbours, else ``None``."""
    delta = (b[0] - a[0], b[1] - a[1])
    try:
        return DIRECTIONS.index(delta)
    except ValueError:
        return None


def ring(center: tuple[int, int], radius: int) -> list[Hex]:
    """All hexes at exactly ``radius`` steps from ``center`` (radius 0 gives the centre).

    Order: starting at the corner in direction 4 and walking edges 0..5 (Red Blob's ring
    algorithm).  Raises ``ValueError`` for a negative radius.
    """
    if radius < 0:
        raise ValueError(f"ring radius must be >= 0, got {radius}")
    c = Hex(*center)
    if radius == 0:
        return [c]
    dq, dr = DIRECTIONS[4]
    h = Hex(c.q + dq * radius, c.r + dr * radius)
    out: list[Hex] = []
    for i in range(6):
        for _ in range(radius):
            out.append(h)
            h = h.neighbor(i)
    return out


def spiral(center: tuple[int, int], radius: int) -> Iterator[Hex]:
    """Every hex within ``radius`` of ``center``, ring by ring from the centre out."""
    for k in range(radius + 1):
        yield from ring(center, k)


def rotate_about_origin(h: tuple[int, int], k: int) -> Hex:
    """Rotate a coordinate k x 60 degrees about (0, 0) in the same sense as edge rotation.

    Rotating direction i gives direction (i + k) mod 6 (cube rotation (q, r, s) -> (-s, -q, -r)
    per step).
    """
    q, r = h
    s = -q - r
    for _ in range(k % 6):
        q, r, s = -s, -q, -r
    return Hex(q, r)


# Pointy-top layout (Red Blob "Hex to pixel"): x to the right, y *down* as in images.
_SQRT3 = math.sqrt(3.0)


def hex_to_pixel(h: tuple[int, int], size: float, origin: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Centre of hex ``h`` in a plane with x right and y down (image convention).

    ``size`` is the centre-to-corner distance (same unit as the result: px or mm).
    Pointy-top: x = size * (sqrt(3) q + sqrt(3)/2 r), y = size * 3/2 r.  Edge 2 (0, -1)
    then points up-left and edge 0 (+1, 0) points right.
    """
    q, r = h
    x = size * (_SQRT3 * q + _SQRT3 / 2.0 * r)
    y = size * (1.5 * r)
    return (x + origin[0], y + origin[1])


def pixel_to_hex(x: float, y: float, size: float, origin: tuple[float, float] = (0.0, 0.0)) -> Hex:
    """The hex containing point (x, y) (inverse of :func:`hex_to_pixel`, cube rounding)."""
    px = (x - origin[0]) / size
    py = (y - origin[1]) / size
    qf = _SQRT3 / 3.0 * px - 1.0 / 3.0 * py
    rf = 2.0 / 3.0 * py
    return hex_round(qf, rf)


def hex_round(qf: float, rf: float) -> Hex:
    """Round fractional axial coordinates to the nearest hex (Red Blob cube rounding)."""
    sf = -qf - rf
    q, r, s = round(qf), round(rf), round(sf)
    dq, dr, ds = abs(q - qf), abs(r - rf), abs(s - sf)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


def edge_midpoint_angle(edge: int) -> float:
    """Angle in radians (image convention: x right, y down) from a hex centre to the
    midpoint of side ``edge`` in the pointy-top layout."""
    dx, dy = hex_to_pixel(DIRECTIONS[edge % 6], 1.0)
    return math.atan2(dy, dx)
