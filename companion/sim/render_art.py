"""Top-down art of the board and its pieces, drawn in the board frame (mm, x right, y down).

The art is a BGR uint8 image at ``px_per_mm`` covering the board's extent; the camera model
in :mod:`companion.sim.render` projects it.  Piece sizes are fractions of the hex size s
(centre to corner), matching what the reader expects (``companion.vision.layout``):

* mycelium tile: cream hexagon of radius 0.95 s; each path is a band 0.34 s wide from the
  edge midpoints; a path of 2+ edges meets at its hub (the centre when its edges are
  opposite), a spur ends at 0.35 s from the centre.
* rock: grey hexagon with darker stones.  Tree: dark green hexagon with 4 mycorrhiza slots
  (light discs, radius 0.15 s, at 0.52 s from the centre, slot k at -135 + 90 k degrees,
  i.e. top-left, top-right, bottom-right, bottom-left); a marker is a player-colour disc.
* substrate: round chip of radius 0.5 s, wood (orange-brown with grain) or soil (dark brown).
* spore: round chip of radius 0.5 s in the player colour; unused side: white dot of radius
  0.12 s at the centre; used side: white X (arms 0.09 s wide, reaching 0.45 s from the centre).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.hexgrid import DIRECTIONS, hex_to_pixel

BGR = tuple[int, int, int]


def _rgb(r: int, g: int, b: int) -> BGR:
    return (b, g, r)


COLOURS: dict[str, BGR] = {
    "table": _rgb(120, 92, 64),
    "paper": _rgb(242, 242, 238),
    "board": _rgb(96, 112, 84),
    "board_line": _rgb(140, 155, 120),
    "tile": _rgb(236, 226, 198),
    "pink": _rgb(232, 84, 164),
    "yellow": _rgb(242, 204, 40),
    "green": _rgb(52, 168, 72),
    "rock": _rgb(140, 138, 132),
    "rock_dark": _rgb(104, 102, 98),
    "tree": _rgb(24, 72, 40),
    "slot": _rgb(214, 222, 196),
    "wood": _rgb(196, 120, 64),
    "wood_grain": _rgb(160, 92, 48),
    "soil": _rgb(92, 70, 50),
    "soil_speck": _rgb(70, 54, 40),
    "blue": _rgb(36, 88, 214),
    "orange": _rgb(248, 136, 20),
    "red": _rgb(196, 22, 32),
    "black": _rgb(28, 28, 30),
    "white": _rgb(246, 246, 246),
}
"""Printed colours (BGR) of the synthetic copy of the game."""

TILE_RADIUS = 0.95
PATH_WIDTH = 0.34
SPUR_END = 0.35
CHIP_RADIUS = 0.5
SPORE_DOT = 0.12
X_ARM_WIDTH = 0.09
X_ARM_LENGTH = 0.45
SLOT_RADIUS = 0.15
SLOT_DISTANCE = 0.52
SLOT_ANGLES_DEG = (-135.0, -45.0, 45.0, 135.0)
MARKER_QUIET_MM = 8.0


class Canvas:
    """A BGR uint8 image of the board frame: ``px_per_mm`` and the mm position of pixel (0, 0)."""

    def __init__(self, extent_mm: tuple[float, float, float, float], px_per_mm: float, fill: BGR):
        self.x0, self.y0, x1, y1 = extent_mm
        self.ppm = px_per_mm
        w = int(math.ceil((x1 - self.x0) * px_per_mm))
        h = int(math.ceil((y1 - self.y0) * px_per_mm))
        self.img = np.empty((h, w, 3), np.uint8)
        self.img[:] = fill

    SHIFT = 4

    def pt(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        """Fixed-point pixel coordinates (``SHIFT`` fractional bits) for cv2 drawing."""
        f = 1 << self.SHIFT
        return (int(round((x_mm - self.x0) * self.ppm * f)), int(round((y_mm - self.y0) * self.ppm * f)))

    def length(self, mm: float) -> int:
        return int(round(mm * self.ppm * (1 << self.SHIFT)))

    def poly(self, pts_mm: list[tuple[float, float]], colour: BGR) -> None:
        arr = np.array([self.pt(x, y) for x, y in pts_mm], np.int32)
        cv2.fillPoly(self.img, [arr], colour, cv2.LINE_AA, self.SHIFT)

    def outline(self, pts_mm: list[tuple[float, float]], colour: BGR, width_mm: float) -> None:
        arr = np.array([self.pt(x, y) for x, y in pts_mm], np.int32)
        cv2.polylines(self.img, [arr], True, colour, max(1, int(width_mm * self.ppm)), cv2.LINE_AA, self.SHIFT)

    def disc(self, c_mm: tuple[float, float], r_mm: float, colour: BGR) -> None:
        cv2.circle(self.img, self.pt(*c_mm), self.length(r_mm), colour, -1, cv2.LINE_AA, self.SHIFT)

    def band(self, a_mm: tuple[float, float], b_mm: tuple[float, float], width_mm: float, colour: BGR) -> None:
        """A straight band with round ends."""
        t = max(1, int(round(width_mm * self.ppm)))
        pa = tuple(int(round((v - o) * self.ppm)) for v, o in zip(a_mm, (self.x0, self.y0)))
        pb = tuple(int(round((v - o) * self.ppm)) for v, o in zip(b_mm, (self.x0, self.y0)))
        cv2.line(self.img, pa, pb, colour, t, cv2.LINE_AA)


def hex_corners(center: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """Corners of a pointy-top hexagon (corner at -90 degrees, i.e. straight up)."""
    return [
        (center[0] + radius * math.cos(math.radians(-90 + 60 * i)), center[1] + radius * math.sin(math.radians(-90 + 60 * i)))
        for i in range(6)
    ]


def edge_unit(edge: int) -> tuple[float, float]:
    """Unit vector (x right, y down) from a hex centre towards the midpoint of side ``edge``."""
    x, y = hex_to_pixel(DIRECTIONS[edge % 6], 1.0)
    n = math.hypot(x, y)
    return (x / n, y / n)


def draw_tile(cv: Canvas, c: tuple[float, float], s: float, code: str) -> None:
    """A mycelium tile with its coloured paths (``code`` as placed)."""
    from companion.tiles import parse

    cv.poly(hex_corners(c, TILE_RADIUS * s), COLOURS["tile"])
    cv.outline(hex_corners(c, TILE_RADIUS * s), COLOURS["rock_dark"], 0.4)
    apothem = TILE_RADIUS * s * math.sqrt(3) / 2
    for path in parse(code).paths:
        colour = COLOURS[path.color]
        ends = []
        for e in sorted(path.edges):
            ux, uy = edge_unit(e)
            ends.append((c[0] + ux * apothem, c[1] + uy * apothem))
        if len(ends) == 1:
            ux, uy = edge_unit(next(iter(path.edges)))
            hub = (c[0] + ux * SPUR_END * s, c[1] + uy * SPUR_END * s)
        else:
            mx = sum(p[0] for p in ends) / len(ends) - c[0]
            my = sum(p[1] for p in ends) / len(ends) - c[1]
            hub = (c[0] + 0.5 * mx, c[1] + 0.5 * my)
        for p in ends:
            cv.band(p, hub, PATH_WIDTH * s, colour)
        cv.disc(hub, PATH_WIDTH * s / 2, colour)


def draw_rock(cv: Canvas, c: tuple[float, float], s: float, rng: np.random.Generator) -> None:
    cv.poly(hex_corners(c, TILE_RADIUS * s), COLOURS["rock"])
    for _ in range(5):
        a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.1, 0.6) * s
        cv.disc((c[0] + r * math.cos(a), c[1] + r * math.sin(a)), rng.uniform(0.06, 0.12) * s, COLOURS["rock_dark"])


def draw_tree(cv: Canvas, c: tuple[float, float], s: float, slots: list[str | None]) -> None:
    cv.poly(hex_corners(c, TILE_RADIUS * s), COLOURS["tree"])
    for k, ang in enumerate(SLOT_ANGLES_DEG):
        p = (c[0] + SLOT_DISTANCE * s * math.cos(math.radians(ang)), c[1] + SLOT_DISTANCE * s * math.sin(math.radians(ang)))
        cv.disc(p, SLOT_RADIUS * s, COLOURS["slot"])
        who = slots[k] if k < len(slots) else None
        if who:
            cv.disc(p, 0.85 * SLOT_RADIUS * s, COLOURS[who])


def draw_substrate(cv: Canvas, c: tuple[float, float], s: float, kind: str, rng: np.random.Generator) -> None:
    cv.disc(c, CHIP_RADIUS * s, COLOURS[kind])
    mark = COLOURS["wood_grain" if kind == "wood" else "soil_speck"]
    for _ in range(4):
        a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.0, 0.35) * s
        cv.disc((c[0] + r * math.cos(a), c[1] + r * math.sin(a)), 0.04 * s, mark)


def draw_spore(cv: Canvas, c: tuple[float, float], s: float, player: str, used: bool) -> None:
    cv.disc(c, CHIP_RADIUS * s, COLOURS[player])
    if used:
        d = X_ARM_LENGTH * s / math.sqrt(2)
        cv.band((c[0] - d, c[1] - d), (c[0] + d, c[1] + d), X_ARM_WIDTH * s, COLOURS["white"])
        cv.band((c[0] - d, c[1] + d), (c[0] + d, c[1] - d), X_ARM_WIDTH * s, COLOURS["white"])
    else:
        cv.disc(c, SPORE_DOT * s, COLOURS["white"])


def draw_marker(cv: Canvas, dictionary: cv2.aruco.Dictionary, marker_id: int, c: tuple[float, float], size_mm: float) -> None:
    """An ArUco marker printed on white paper with a quiet zone, axes parallel to the board's."""
    q = size_mm / 2 + MARKER_QUIET_MM
    cv.poly([(c[0] - q, c[1] - q), (c[0] + q, c[1] - q), (c[0] + q, c[1] + q), (c[0] - q, c[1] + q)], COLOURS["paper"])
    side = max(12, int(round(size_mm * cv.ppm)))
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, side, borderBits=1)
    img = np.where(img > 127, COLOURS["paper"][0], 20).astype(np.uint8)
    x0 = int(round((c[0] - size_mm / 2 - cv.x0) * cv.ppm))
    y0 = int(round((c[1] - size_mm / 2 - cv.y0) * cv.ppm))
    cv.img[y0:y0 + side, x0:x0 + side] = img[:, :, None]
