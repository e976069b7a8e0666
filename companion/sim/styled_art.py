"""Top-down art of a board in one :class:`~companion.sim.styles.Style` (board frame, mm).

Like :mod:`companion.sim.render_art` (the reference copy) but every colour, shape and size
comes from the style, and each piece instance draws its own size factor from the style's
ranges.  :func:`draw_board` returns the canvas (BGR uint8 sRGB as printed, under white light)
and the factors it drew, so tests can check what was drawn.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.sim.render_art import MARKER_QUIET_MM, Canvas, draw_marker, edge_unit, hex_corners
from companion.sim.styles import DOCUMENTED, TABLES, Style
from companion.vision.geometry import BoardGeometry

SLOT_ANGLES_DEG = (-135.0, -45.0, 45.0, 135.0)
"""Mycorrhiza slots: top-left, top-right, bottom-right, bottom-left (the game's tree tiles)."""


class Sizes:
    """Draws per-instance size factors of one style and keeps them (name -> list of factors)."""

    def __init__(self, style: Style, rng: np.random.Generator):
        self.style, self.rng = style, rng
        self.drawn: dict[str, list[float]] = {}

    def __call__(self, name: str) -> float:
        """A fresh factor for size ``name``; returns the size in units of s (or mm for heights)."""
        lo, hi = self.style.factor_range(name)
        f = float(self.rng.uniform(lo, hi))
        self.drawn.setdefault(name, []).append(f)
        key = "meeple_height_mm" if name == "meeple_height" else name
        return f * DOCUMENTED[key]


def _texture(shape: tuple[int, int], rng: np.random.Generator, scale_px: float) -> np.ndarray:
    """float32 (h, w) smooth noise, zero mean and unit std, features about ``scale_px`` wide."""
    h, w = shape
    sh, sw = max(2, int(h / scale_px)), max(2, int(w / scale_px))
    small = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return (big - big.mean()) / (big.std() + 1e-6)


def _table(cv: Canvas, name: str, rng: np.random.Generator) -> None:
    """Fill the canvas with a table surface (drawn at a quarter of the resolution: it only shows
    around the board)."""
    t = TABLES[name]
    base, grain = np.array(t["base"], np.float32), np.array(t["grain"], np.float32)
    H, W = cv.img.shape[:2]
    h, w, ppm = max(2, H // 4), max(2, W // 4), cv.ppm / 4
    if t["kind"] == "grain":
        yy = np.arange(h, dtype=np.float32)[:, None]
        mix = 0.5 + 0.5 * np.sin(yy / (2.5 * ppm) + 3.0 * _texture((h, w), rng, 40 * ppm))
    elif t["kind"] == "weave":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        mix = 0.5 + 0.25 * (np.sin(xx / (0.8 * ppm)) + np.sin(yy / (0.8 * ppm))) + 0.2 * _texture((h, w), rng, 20 * ppm)
    else:
        mix = 0.5 + 0.35 * _texture((h, w), rng, 2 * ppm)
    mix = np.clip(mix, 0, 1)[:, :, None]
    small = np.clip(base * (1 - mix) + grain * mix, 0, 255).astype(np.uint8)
    cv.img[:] = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)


def _polyline(cv: Canvas, pts_mm: list[tuple[float, float]], width_mm: float, colour) -> None:
    arr = np.array([cv.pt(x, y) for x, y in pts_mm], np.int32)
    cv2.polylines(cv.img, [arr], False, colour, max(1, int(round(width_mm * cv.ppm))), cv2.LINE_AA, cv.SHIFT)
    cv.disc(pts_mm[0], width_mm / 2, colour)
    cv.disc(pts_mm[-1], width_mm / 2, colour)


def _wedge(cv: Canvas, a, b, width_a: float, width_b: float, colour) -> None:
    """A straight stroke from ``a`` (``width_a`` mm wide) narrowing to ``b`` (``width_b`` mm)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    cv.poly([(a[0] + nx * width_a / 2, a[1] + ny * width_a / 2), (b[0] + nx * width_b / 2, b[1] + ny * width_b / 2),
             (b[0] - nx * width_b / 2, b[1] - ny * width_b / 2), (a[0] - nx * width_a / 2, a[1] - ny * width_a / 2)], colour)
    cv.disc(b, width_b / 2, colour)


def _bezier(a, ctrl, b, n: int = 16) -> list[tuple[float, float]]:
    t = np.linspace(0, 1, n)[:, None]
    p = (1 - t) ** 2 * np.array(a) + 2 * (1 - t) * t * np.array(ctrl) + t**2 * np.array(b)
    return [tuple(v) for v in p]


def _turned_corners(c, radius: float, turn_deg: float) -> list[tuple[float, float]]:
    a = math.radians(turn_deg)
    return [(c[0] + (x - c[0]) * math.cos(a) - (y - c[1]) * math.sin(a), c[1] + (x - c[0]) * math.sin(a) + (y - c[1]) * math.cos(a))
            for x, y in hex_corners(c, radius)]


def _turned_unit(edge: int, turn_deg: float) -> tuple[float, float]:
    ux, uy = edge_unit(edge)
    a = math.radians(turn_deg)
    return (ux * math.cos(a) - uy * math.sin(a), ux * math.sin(a) + uy * math.cos(a))


def draw_tile(cv: Canvas, c: tuple[float, float], s: float, code: str, st: Style, size: Sizes, turn: float = 0.0) -> None:
    """A mycelium tile with its paths (``code`` as placed) in the style's path shape, laid
    ``turn`` degrees off the grid (a hand never places it exactly)."""
    from companion.tiles import parse

    col = st.colours
    tr = DOCUMENTED["tile_radius"] * s
    cv.poly(_turned_corners(c, tr, turn), col["tile"])
    cv.outline(_turned_corners(c, tr, turn), col["tile_edge"], 0.5)
    apothem = tr * math.sqrt(3) / 2
    width = size("path_width") * s
    for path in parse(code).paths:
        ends = []
        for e in sorted(path.edges):
            ux, uy = _turned_unit(e, turn)
            ends.append((c[0] + ux * apothem, c[1] + uy * apothem))
        if len(ends) == 1:
            ux, uy = _turned_unit(next(iter(path.edges)), turn)
            hub = (c[0] + ux * DOCUMENTED["spur_end"] * s, c[1] + uy * DOCUMENTED["spur_end"] * s)
        else:
            mx = sum(p[0] for p in ends) / len(ends) - c[0]
            my = sum(p[1] for p in ends) / len(ends) - c[1]
            hub = (c[0] + 0.5 * mx, c[1] + 0.5 * my)
        strokes = []
        for p in ends:
            if st.path_shape == "curve" and len(ends) > 1:
                # bend each branch: leave the edge straight in, then swing towards the hub
                inward = (c[0] + 0.55 * (p[0] - c[0]), c[1] + 0.55 * (p[1] - c[1]))
                strokes.append(_bezier(p, inward, hub))
            else:
                strokes.append([p, hub])
        if st.path_shape == "tapered":
            # wide where the path leaves the tile, narrowing to a small hub
            for pts in strokes:
                _wedge(cv, pts[0], pts[-1], 1.25 * width, 0.45 * width, col[path.color])
            continue
        if st.path_shape == "outlined":
            for pts in strokes:
                _polyline(cv, pts, width, col["outline"])
            cv.disc(hub, width / 2, col["outline"])
            inner = width * (1 - 2 * st.outline_frac)
            for pts in strokes:
                _polyline(cv, pts, inner, col[path.color])
            cv.disc(hub, inner / 2, col[path.color])
        else:
            for pts in strokes:
                _polyline(cv, pts, width, col[path.color])
            cv.disc(hub, width / 2 * (1.15 if st.path_shape == "curve" else 1.0), col[path.color])


def draw_rock(cv: Canvas, c, s: float, st: Style, rng: np.random.Generator, turn: float = 0.0) -> None:
    col = st.colours
    cv.poly(_turned_corners(c, DOCUMENTED["tile_radius"] * s, turn), col["rock"])
    if st.rock_art == "cracks":
        for _ in range(4):
            a = rng.uniform(0, 2 * math.pi)
            pts = [c]
            for k in range(1, 4):
                a += rng.uniform(-0.5, 0.5)
                pts.append((c[0] + 0.22 * k * s * math.cos(a), c[1] + 0.22 * k * s * math.sin(a)))
            _polyline(cv, pts, 0.05 * s, col["rock_dark"])
    else:
        for _ in range(5):
            a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.1, 0.6) * s
            cv.disc((c[0] + r * math.cos(a), c[1] + r * math.sin(a)), rng.uniform(0.06, 0.12) * s, col["rock_dark"])


def draw_tree(cv: Canvas, c, s: float, slots: list, st: Style, size: Sizes, rng: np.random.Generator, turn: float = 0.0) -> None:
    col = st.colours
    cv.poly(_turned_corners(c, DOCUMENTED["tile_radius"] * s, turn), col["tree"])
    if st.tree_art == "canopy":
        cv.disc(c, 0.3 * s, col["tree_light"])
        cv.disc(c, 0.12 * s, col["tree"])
    elif st.tree_art == "leaves":
        for k in range(6):
            a = math.radians(60 * k + 30)
            cv.band(c, (c[0] + 0.7 * s * math.cos(a), c[1] + 0.7 * s * math.sin(a)), 0.06 * s, col["tree_light"])
    r_slot = size("slot_radius") * s
    d_slot = DOCUMENTED["slot_distance"] * s * float(rng.uniform(0.94, 1.06))
    for k, ang in enumerate(SLOT_ANGLES_DEG):
        ang += turn
        p = (c[0] + d_slot * math.cos(math.radians(ang)), c[1] + d_slot * math.sin(math.radians(ang)))
        cv.disc(p, r_slot, col["slot"])
        who = slots[k] if k < len(slots) else None
        if who:
            cv.disc(p, 0.85 * r_slot, col[who])


def draw_substrate(cv: Canvas, c, s: float, kind: str, st: Style, size: Sizes, rng: np.random.Generator) -> None:
    col = st.colours
    r = size("chip_radius") * s
    cv.disc(c, r, col[kind])
    mark = col["wood_grain" if kind == "wood" else "soil_speck"]
    tex = st.substrate_texture
    if tex == "grain" and kind == "wood" or tex == "stripes":
        a = rng.uniform(0, math.pi)
        ux, uy = math.cos(a), math.sin(a)
        for off in np.linspace(-0.6, 0.6, 4):
            half = math.sqrt(max(0.0, 1 - off**2)) * 0.85 * r
            m = (c[0] - uy * off * r, c[1] + ux * off * r)
            cv.band((m[0] - ux * half, m[1] - uy * half), (m[0] + ux * half, m[1] + uy * half), 0.05 * s, mark)
    elif tex == "hatch":
        a = rng.uniform(0, math.pi / 2)
        for turn in (0.0, math.pi / 2):
            ux, uy = math.cos(a + turn), math.sin(a + turn)
            for off in np.linspace(-0.7, 0.7, 5):
                half = math.sqrt(max(0.0, 1 - off**2)) * 0.9 * r
                m = (c[0] - uy * off * r, c[1] + ux * off * r)
                cv.band((m[0] - ux * half, m[1] - uy * half), (m[0] + ux * half, m[1] + uy * half), 0.03 * s, mark)
    elif tex == "rings":
        for k in (0.35, 0.65):
            cv2.circle(cv.img, cv.pt(*c), cv.length(k * r), mark, max(1, int(0.04 * s * cv.ppm)), cv2.LINE_AA, cv.SHIFT)
    else:
        for _ in range(5):
            a, rr = rng.uniform(0, 2 * math.pi), rng.uniform(0.0, 0.7) * r
            cv.disc((c[0] + rr * math.cos(a), c[1] + rr * math.sin(a)), 0.045 * s, mark)


def _tint(colour, towards, amount: float):
    return tuple(int(round(a + (b - a) * amount)) for a, b in zip(colour, towards))


def draw_spore(cv: Canvas, c, s: float, player: str, used: bool, st: Style, size: Sizes, turn: float = 0.0) -> None:
    """A spore chip in the player colour, its unused or used side up, in the style's symbols,
    the chip turned ``turn`` degrees (a round chip lies at any turn)."""
    col = st.colours
    chip = size("chip_radius") * s
    cv.disc(c, chip, col[player])
    sym = size("symbol") * s  # the symbol's size scale (the reference dot radius is 0.12 s)
    if used:
        reach = DOCUMENTED["x_arm_length"] * s * sym / (DOCUMENTED["symbol"] * s)
        arm = min(reach, 0.9 * chip) / math.sqrt(2)  # the X stays on its chip
        width = DOCUMENTED["x_arm_width"] * s * sym / (DOCUMENTED["symbol"] * s)
        ca, sa = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        d1, d2 = (arm * (ca - sa), arm * (sa + ca)), (arm * (ca + sa), arm * (sa - ca))
        a1 = ((c[0] - d1[0], c[1] - d1[1]), (c[0] + d1[0], c[1] + d1[1]))
        a2 = ((c[0] - d2[0], c[1] - d2[1]), (c[0] + d2[0], c[1] + d2[1]))
        if st.spore_used == "bar":
            # one dark bar across the chip, at the chip's turn
            half = 0.8 * chip
            cv.band((c[0] - ca * half, c[1] - sa * half), (c[0] + ca * half, c[1] + sa * half), 1.6 * width,
                    col["symbol_dark"])
        elif st.spore_used == "outlined_x":
            for a, b in (a1, a2):
                cv.band(a, b, width * 1.2, col["symbol_dark"])
            for a, b in (a1, a2):
                cv.band(a, b, width * 0.5, col["symbol_light"])
        else:
            ink = col["symbol_dark" if st.spore_used == "dark_x" else "symbol_light"]
            for a, b in (a1, a2):
                cv.band(a, b, width, ink)
    elif st.spore_unused == "pale_dots":
        pale = _tint(col[player], col["symbol_light"], 0.55)
        for k in range(3):
            a = math.radians(-90 + 120 * k + turn)
            cv.disc((c[0] + 1.1 * sym * math.cos(a), c[1] + 1.1 * sym * math.sin(a)), 0.45 * sym, pale)
    elif st.spore_unused == "star":
        star = []
        for k in range(10):
            a = math.radians(-90 + 36 * k + turn)
            rr = 1.5 * sym if k % 2 == 0 else 0.6 * sym
            star.append((c[0] + rr * math.cos(a), c[1] + rr * math.sin(a)))
        cv.poly(star, col["symbol_light"])
    elif st.spore_unused == "dark_dot":
        cv.disc(c, sym, _tint(col[player], col["symbol_dark"], 0.6))
    elif st.spore_unused == "ring":
        cv2.circle(cv.img, cv.pt(*c), cv.length(sym * 1.2), col["symbol_light"], max(1, int(0.35 * sym * cv.ppm)),
                   cv2.LINE_AA, cv.SHIFT)
    else:
        cv.disc(c, sym, col["symbol_light"])


def draw_board(board: dict, geo: BoardGeometry, st: Style, rng: np.random.Generator, px_per_mm: float = 2.5,
               table: str = "wood") -> tuple[Canvas, dict[str, list[float]]]:
    """Top-down art of ``board`` in style ``st`` on table surface ``table`` (a :data:`TABLES` key).

    Returns the canvas (BGR uint8, as printed under white light) and the size factors drawn,
    size name -> list of factors (one per piece instance, in drawing order).
    """
    s = geo.hex_size_mm
    col = st.colours
    cv = Canvas(geo.extent_mm(MARKER_QUIET_MM + 60.0), px_per_mm, TABLES[table]["base"])
    _table(cv, table, rng)
    size = Sizes(st, rng)
    centres = [geo.center_mm(h) for h in geo.spaces]
    xs, ys = [p[0] for p in centres], [p[1] for p in centres]
    m = 1.2 * s
    x0, y0, x1, y1 = min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m
    if st.board_covers_markers:
        x0, y0, x1, y1 = geo.extent_mm(MARKER_QUIET_MM + 6.0)
    cv.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], col["board"])
    if st.board_texture:
        # printed mottling of the board: a smooth lightness pattern over the board's rectangle
        (px0, py0), (px1, py1) = ((v >> cv.SHIFT for v in cv.pt(x, y)) for x, y in ((x0, y0), (x1, y1)))
        px0, py0 = max(px0, 0), max(py0, 0)
        region = cv.img[py0:py1, px0:px1]
        h, w = region.shape[:2]
        n = cv2.resize(_texture((max(2, h // 8), max(2, w // 8)), rng, 12 * cv.ppm / 8), (w, h)) * st.board_texture
        region[:] = np.clip(region + n[:, :, None], 0, 255).astype(np.uint8)
    for p in centres:
        cv.outline(hex_corners(p, s), col["board_line"], 0.8)
    dictionary = geo.aruco_dictionary()
    for mk in geo.markers:
        draw_marker(cv, dictionary, mk.id, mk.center_mm, geo.marker_size_mm)
    def place(at) -> tuple[float, float]:
        # where a hand put the piece: within a millimetre or so of the space centre
        x, y = geo.center_mm(tuple(at))
        return (x + float(rng.uniform(-st.jitter_mm, st.jitter_mm)), y + float(rng.uniform(-st.jitter_mm, st.jitter_mm)))

    def turn() -> float:
        return float(rng.uniform(-st.turn_deg, st.turn_deg))

    for t in board.get("tiles", []):
        draw_tile(cv, place(t["at"]), s, t["paths"], st, size, turn())
    for at in board.get("rocks", []):
        draw_rock(cv, place(at), s, st, rng, turn())
    for t in board.get("trees", []):
        draw_tree(cv, place(t["at"]), s, list(t.get("mycorrhizae", [None] * 4)), st, size, rng, turn())
    for sub in board.get("substrates", []):
        draw_substrate(cv, place(sub["at"]), s, sub["kind"], st, size, rng)
    for player, sp in board.get("spores", {}).items():
        chip_turn = float(rng.uniform(-st.chip_turn_deg, st.chip_turn_deg))
        draw_spore(cv, place(sp["at"]), s, player, bool(sp.get("used", False)), st, size, chip_turn)
    return cv, size.drawn
