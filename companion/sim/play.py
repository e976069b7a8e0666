"""Frames of a table in play: the same photo a move later, and with a hand over the board.

Rendering a board again draws every piece anew (each instance's size, offset and turn are
random), so two renders of nearly the same board differ on every piece.  A real camera sees
the pieces nobody touched exactly as before.  :func:`later_frame` therefore takes the pixels of
the spaces that changed (with a margin for a meeple's height, parallax and shadow) from a render
of the new board and every other pixel from the earlier frame, then adds the sensor noise of a
new exposure.  :func:`hand_over` lays a still arm and hand across part of the board, as a
player resting a hand between moves.
"""

from __future__ import annotations

import numpy as np
import cv2

from companion.sim.render import Camera
from companion.vision.geometry import BoardGeometry

REACH_MM = 25.0
"""Height above the table (mm) up to which a changed space's mask reaches: a meeple of the
largest size (18 mm + 25 %) and its cap's parallax stay inside it."""
MARGIN = 1.2
"""Changed spaces' masks cover the hex grown by this factor: a meeple's shadow falls up to
0.85 hex sizes from its centre."""


def board_spaces(board: dict) -> dict[tuple[int, int], tuple]:
    """(q, r) -> what stands on the space (piece and meeple) for every occupied space of a board part."""
    out: dict[tuple[int, int], list] = {}
    for t in board.get("tiles", []):
        out.setdefault(tuple(t["at"]), []).append(("tile", t["paths"]))
    for r in board.get("rocks", []):
        out.setdefault(tuple(r), []).append(("rock",))
    for t in board.get("trees", []):
        out.setdefault(tuple(t["at"]), []).append(("tree", tuple(t["mycorrhizae"])))
    for s in board.get("substrates", []):
        out.setdefault(tuple(s["at"]), []).append(("substrate", s["kind"]))
    for p, s in board.get("spores", {}).items():
        out.setdefault(tuple(s["at"]), []).append(("spore", p, bool(s["used"])))
    for p, at in board.get("meeples", {}).items():
        out.setdefault(tuple(at), []).append(("meeple", p))
    return {h: tuple(sorted(v)) for h, v in out.items()}


def changed_spaces(before: dict, after: dict) -> list[tuple[int, int]]:
    """The spaces whose pieces differ between two board parts, sorted."""
    a, b = board_spaces(before), board_spaces(after)
    return sorted(h for h in set(a) | set(b) if a.get(h) != b.get(h))


def space_mask(cam: Camera, geo: BoardGeometry, spaces, size: tuple[int, int]) -> np.ndarray:
    """uint8 (h, w) mask (255 inside) of the image area where ``spaces`` ((q, r) list) and what
    stands on them up to :data:`REACH_MM` show, for a frame of ``size`` (w, h) px."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    s = geo.hex_size_mm * MARGIN
    ang = np.radians(np.arange(6) * 60.0 + 30.0)
    for h in spaces:
        c = geo.center_mm(tuple(h))
        ring = np.column_stack([c[0] + s * np.cos(ang), c[1] + s * np.sin(ang)])
        pts = np.vstack([np.column_stack([ring, np.zeros(6)]), np.column_stack([ring, np.full(6, -REACH_MM)])])
        hull = cv2.convexHull(cam.project(pts).astype(np.float32))
        cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), 255)
    return mask


def later_frame(before: np.ndarray, after: np.ndarray, cam: Camera, geo: BoardGeometry, spaces,
                rng: np.random.Generator, noise: float = 2.0) -> np.ndarray:
    """BGR uint8 (h, w, 3): ``before`` with the area of ``spaces`` taken from ``after`` (a render
    of the board a move later, same camera and light), plus Gaussian sensor noise of ``noise``
    8-bit levels (a new exposure)."""
    mask = space_mask(cam, geo, spaces, (before.shape[1], before.shape[0]))
    out = np.where(mask[..., None] > 0, after, before).astype(np.float32)
    out += rng.normal(0.0, noise, out.shape).astype(np.float32)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


SKIN_BGR = (120, 150, 205)


def hand_over(image: np.ndarray, cam: Camera, geo: BoardGeometry, at: tuple[int, int], rng: np.random.Generator,
              shadow: float = 0.55) -> np.ndarray:
    """BGR uint8 (h, w, 3): ``image`` with an arm reaching in from the nearest frame edge to a
    hand resting over space ``at``, 30 mm above the table, with its shadow (the surface under it
    at ``shadow`` of its light) falling beside it.  The arm may cross a corner marker when
    ``at`` lies between it and the frame edge (the reader then searches the markers again)."""
    h, w = image.shape[:2]
    c = np.array(geo.center_mm(tuple(at)), np.float64)
    tip = cam.project(np.array([[c[0], c[1], -30.0]]))[0]
    hand_r = float(np.linalg.norm(cam.project(np.array([[c[0] + 1.3 * geo.hex_size_mm, c[1], -30.0]]))[0] - tip))
    edges = {"top": tip[1], "bottom": h - tip[1], "left": tip[0], "right": w - tip[0]}
    side = min(edges, key=edges.get)
    start = {"top": (tip[0], -60), "bottom": (tip[0], h + 60), "left": (-60, tip[1]), "right": (w + 60, tip[1])}[side]
    start = np.array(start, np.float64) + rng.normal(0, 20, 2)
    out = image.astype(np.float32)
    # the shadow first, offset as by a lamp above and to one side
    off = np.array([0.5, 0.35]) * hand_r
    shade = np.zeros((h, w), np.uint8)
    cv2.line(shade, tuple(np.round(start + off).astype(int)), tuple(np.round(tip + off).astype(int)), 255, int(1.1 * hand_r))
    cv2.circle(shade, tuple(np.round(tip + off).astype(int)), int(hand_r), 255, -1)
    soft = cv2.GaussianBlur(shade.astype(np.float32) / 255.0, (0, 0), 0.25 * hand_r)
    out *= (1.0 - (1.0 - shadow) * soft)[..., None]
    arm = np.zeros((h, w), np.uint8)
    cv2.line(arm, tuple(np.round(start).astype(int)), tuple(np.round(tip).astype(int)), 255, int(1.1 * hand_r), cv2.LINE_AA)
    cv2.ellipse(arm, tuple(np.round(tip).astype(int)), (int(hand_r), int(0.8 * hand_r)),
                float(np.degrees(np.arctan2(tip[1] - start[1], tip[0] - start[0]))), 0, 360, 255, -1, cv2.LINE_AA)
    a = (arm.astype(np.float32) / 255.0)[..., None]
    skin = np.array(SKIN_BGR, np.float32) * (0.85 + 0.15 * rng.random())
    out = out * (1 - a) + skin * a
    return np.clip(np.round(out), 0, 255).astype(np.uint8)
