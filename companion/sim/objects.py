"""Things that end up over the board between moves: hands, arms in sleeves, a phone, a mug, a
mushroom card, crumpled paper, the rulebook.

Each object is a set of flat 3D polygons (board mm, z < 0 above the table, as
:meth:`companion.sim.render.Camera.project` takes them), drawn into the printed-art frame
before :func:`companion.sim.light.expose` lights it, so an object takes the lamp's colour, its
pool of light, glare, blur, noise and JPEG like everything else.  A raised object casts a
shadow on the board away from the lamp (farther and softer the higher it is); one lying flat
casts a thin contact shadow.

The objects vary beyond anything the reader assumes: skin from light to dark, sleeves of any
colour (a third of them within a few levels of one of the style's own colours: tile, board,
path, substrate or player colour), dark glass with a reflection or a lit screen, mugs of any
colour, cards with their art and tile-coloured cost dots, paper facets, a booklet's text and
pictures; lying flat or held 2-15 cm up; over one to about twenty spaces.  Everything comes
from the ``rng`` given (seeded by the caller).

:func:`covered_fractions` is the truth: per space, the share of its hex the object hides from
the camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.geometry import BoardGeometry

KINDS = ("hand", "sleeve", "phone", "mug", "card", "paper", "rulebook")
"""What :func:`random_object` draws, each as likely."""

SKIN_RGB = ((255, 224, 196), (241, 194, 167), (224, 172, 138), (198, 134, 103), (160, 105, 75), (120, 78, 55), (88, 57, 40))
"""Skin tones from light to dark (sRGB), interpolated between neighbours."""

SHIFT = 4
"""Sub-pixel bits of the polygon fills."""


@dataclass
class Layer:
    """One flat polygon of an object: ``pts`` float64 (n, 3) board mm (z < 0 above the
    table), ``bgr`` its printed sRGB colour (0-255 floats), ``alpha`` its opacity."""

    pts: np.ndarray
    bgr: tuple[float, float, float]
    alpha: float = 1.0


@dataclass
class BoardObject:
    """An object over the board: ``kind`` (:data:`KINDS`), its ``layers`` drawn in order,
    ``height_mm`` (how far its lowest part is above the table: 0 lying flat), and its
    ``footprint`` layers (the parts that hide the board and cast the shadow)."""

    kind: str
    layers: list[Layer]
    height_mm: float
    footprint: list[np.ndarray] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"kind": self.kind, "height_mm": round(self.height_mm, 1), "layers": len(self.layers)}


def _skin(rng: np.random.Generator) -> tuple[float, float, float]:
    t = rng.uniform(0, len(SKIN_RGB) - 1)
    i = min(int(t), len(SKIN_RGB) - 2)
    a, b = np.array(SKIN_RGB[i], float), np.array(SKIN_RGB[i + 1], float)
    r, g, bl = a + (b - a) * (t - i)
    return (bl, g, r)


def _cloth(rng: np.random.Generator, style=None) -> tuple[float, float, float]:
    """A sleeve's colour: any colour, or (a third of the time, with a style) near one of the
    style's own colours, so that the reader cannot rely on an object's colour being foreign."""
    if style is not None and rng.random() < 0.35:
        keys = ("tile", "board", "pink", "yellow", "green", "wood", "soil", "rock", "blue", "orange", "red", "black", "tree")
        base = np.array(style.colours[keys[int(rng.integers(len(keys)))]], float)
        return tuple(float(v) for v in np.clip(base + rng.normal(0, 8, 3), 0, 255))
    h = rng.uniform(0, 180)
    s = rng.uniform(0, 255)
    v = rng.uniform(25, 245)
    bgr = cv2.cvtColor(np.array([[[h, s, v]]], np.float32).astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return tuple(float(x) for x in bgr)


def _shade(bgr, k: float) -> tuple[float, float, float]:
    return tuple(float(np.clip(v * k, 0, 255)) for v in bgr)


def _rot(pts: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return pts @ np.array([[c, s], [-s, c]])


def _capsule(a: np.ndarray, b: np.ndarray, width: float, n: int = 10) -> np.ndarray:
    """float64 (m, 2) outline of a stadium of ``width`` mm from ``a`` to ``b`` (mm)."""
    d = b - a
    ang = math.atan2(d[1], d[0])
    half = np.linspace(-math.pi / 2, math.pi / 2, n)
    end_b = b + 0.5 * width * np.column_stack([np.cos(ang + half), np.sin(ang + half)])
    end_a = a + 0.5 * width * np.column_stack([np.cos(ang + math.pi + half), np.sin(ang + math.pi + half)])
    return np.vstack([end_b, end_a])


def _ellipse(c: np.ndarray, rx: float, ry: float, angle: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return c + _rot(np.column_stack([rx * np.cos(t), ry * np.sin(t)]), angle)


def _rounded_rect(w: float, h: float, r: float, n: int = 6) -> np.ndarray:
    out = []
    for cx, cy, a0 in ((w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180), (w / 2 - r, -h / 2 + r, 270)):
        for t in np.radians(np.linspace(a0, a0 + 90, n)):
            out.append((cx + r * math.cos(t), cy + r * math.sin(t)))
    return np.array(out)


def _at(pts2: np.ndarray, z: float | np.ndarray) -> np.ndarray:
    return np.column_stack([pts2, -np.broadcast_to(np.asarray(z, float), (len(pts2),))])


def _hand(rng, centre, angle, height, style, sleeve: bool) -> BoardObject:
    """A hand (palm and fingers) at ``centre`` pointing along ``angle``, the arm running back
    out past the board's rim, rising as it goes; in a sleeve from some point of the forearm
    (from the wrist for ``sleeve``)."""
    skin = _skin(rng)
    u = np.array([math.cos(angle), math.sin(angle)])
    n = np.array([-u[1], u[0]])
    palm_w, palm_l = rng.uniform(70, 95), rng.uniform(80, 105)
    layers: list[Layer] = []
    foot: list[np.ndarray] = []
    arm_len = rng.uniform(260, 420)
    wrist = centre - u * palm_l * 0.45
    elbow = wrist - u * arm_len
    arm_w = rng.uniform(60, 85)
    rise = rng.uniform(0.05, 0.35)  # the forearm rises towards the elbow (mm per mm)
    arm2 = _capsule(elbow, wrist, arm_w)
    along = (arm2 - wrist) @ -u
    arm_z = height + np.maximum(along, 0) * rise
    start = 0.0 if sleeve else rng.uniform(0.0, 1.2)  # the sleeve starts this share of the forearm from the wrist
    if start < 1.0:
        cut = wrist - u * arm_len * start
        bare = _capsule(cut, wrist, arm_w * 0.92)
        cloth = _capsule(elbow, cut, arm_w * 1.15)
        layers.append(Layer(_at(bare, height + np.maximum((bare - wrist) @ -u, 0) * rise), _shade(skin, 0.92)))
        layers.append(Layer(_at(cloth, height + np.maximum((cloth - wrist) @ -u, 0) * rise), _cloth(rng, style)))
        foot += [bare, cloth]
    else:
        layers.append(Layer(_at(arm2, arm_z), _shade(skin, 0.92)))
        foot.append(arm2)
    palm = _ellipse(centre, palm_l / 2, palm_w / 2, angle)
    layers.append(Layer(_at(palm, height), skin))
    foot.append(palm)
    spread = rng.uniform(0.0, 0.25)
    curl = rng.uniform(0.55, 1.0)  # fingers curled in look shorter from above
    for k, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
        fa = angle + (off * spread * 2)
        fu = np.array([math.cos(fa), math.sin(fa)])
        base = centre + u * palm_l * 0.38 + n * off * palm_w
        length = rng.uniform(55, 80) * (0.85 if k in (0, 3) else 1.0) * curl
        finger = _capsule(base, base + fu * length, rng.uniform(15, 21))
        layers.append(Layer(_at(finger, height), _shade(skin, rng.uniform(0.9, 1.05))))
        foot.append(finger)
    side = 1 if rng.random() < 0.5 else -1
    tb = centre - u * palm_l * 0.1 + n * side * palm_w * 0.45
    ta = angle + side * rng.uniform(0.5, 1.1)
    thumb = _capsule(tb, tb + np.array([math.cos(ta), math.sin(ta)]) * rng.uniform(45, 65), rng.uniform(19, 24))
    layers.append(Layer(_at(thumb, height), _shade(skin, 0.95)))
    foot.append(thumb)
    # knuckle creases and nails: small marks a real hand shows
    for off in (-0.24, 0.0, 0.24):
        p = centre + u * palm_l * 0.3 + n * off * palm_w
        layers.append(Layer(_at(_ellipse(p, 3, 7, angle, 10), height), _shade(skin, 0.8), 0.6))
    return BoardObject("sleeve" if sleeve else "hand", layers, height, foot)


def _phone(rng, centre, angle, height) -> BoardObject:
    w, h = rng.uniform(68, 80), rng.uniform(140, 165)
    body = centre + _rot(_rounded_rect(w, h, rng.uniform(6, 12)), angle)
    glass = centre + _rot(_rounded_rect(w - 5, h - 5, 6), angle)
    tilt = rng.normal(0, 0.15, 2) if height > 0 else np.zeros(2)
    def z(p):
        return height + 8 + np.maximum((p - centre) @ tilt, -height)
    case = _cloth(rng) if rng.random() < 0.5 else (30.0, 30.0, 32.0)
    layers = [Layer(_at(body, z(body)), case)]
    dark = float(rng.uniform(8, 30))
    layers.append(Layer(_at(glass, z(glass)), (dark + rng.uniform(0, 10), dark, dark)))
    if rng.random() < 0.35:
        # a lit screen: an app's coloured blocks
        for _ in range(int(rng.integers(3, 8))):
            bw, bh = rng.uniform(15, w - 10), rng.uniform(8, 40)
            c = centre + _rot(np.array([[rng.uniform(-w / 2 + bw / 2 + 4, w / 2 - bw / 2 - 4), rng.uniform(-h / 2 + bh / 2 + 4, h / 2 - bh / 2 - 4)]]), angle)[0]
            block = c + _rot(_rounded_rect(bw, bh, 2), angle)
            layers.append(Layer(_at(block, z(block)), tuple(float(v) for v in rng.uniform(40, 255, 3))))
    else:
        # a window's reflection across the glass
        off = rng.uniform(-h / 3, h / 3)
        band = np.array([[-w / 2 + 3, off - 12], [w / 2 - 3, off + 8], [w / 2 - 3, off + 30], [-w / 2 + 3, off + 10]])
        band = centre + _rot(band, angle)
        level = float(rng.uniform(60, 200))
        layers.append(Layer(_at(band, z(band)), (level, level, level * 0.97), float(rng.uniform(0.2, 0.6))))
    lens = centre + _rot(np.array([[-w / 2 + 12, h / 2 - 14]]), angle)[0]
    layers.append(Layer(_at(_ellipse(lens, 4, 4, 0, 10), z(lens[None])[0]), (5.0, 5.0, 5.0)))
    return BoardObject("phone", layers, height, [body])


def _mug(rng, centre, height) -> BoardObject:
    r = rng.uniform(36, 46)
    tall = rng.uniform(80, 105)
    base = height
    colour = _cloth(rng) if rng.random() < 0.7 else (235.0, 235.0, 232.0)
    t = np.linspace(0, 2 * math.pi, 32, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    bottom, top = centre + r * ring, centre + r * ring
    hang = rng.uniform(0, 2 * math.pi)
    hc = centre + (r + 12) * np.array([math.cos(hang), math.sin(hang)])
    handle = _ellipse(hc, 14, 6, hang, 16)
    layers = [Layer(_at(handle, base + tall * 0.55), _shade(colour, 0.85)),
              # the side: drawn as a stack of rings from the foot up, so parallax shows it
              *[Layer(_at(bottom, base + f * tall), _shade(colour, 0.7 + 0.25 * f)) for f in np.linspace(0, 1, 6)],
              Layer(_at(top, base + tall), _shade(colour, 1.0)),
              Layer(_at(centre + (r - 4) * ring, base + tall), _shade(colour, 0.75))]
    drink = rng.choice([(20.0, 32.0, 48.0), (40.0, 80.0, 140.0), (200.0, 210.0, 220.0), (30.0, 60.0, 90.0)])
    layers.append(Layer(_at(centre + (r - 5) * ring, base + tall - 12), tuple(float(v) for v in drink)))
    return BoardObject("mug", layers, height, [bottom, top])


def _card(rng, centre, angle, height, style) -> BoardObject:
    w, h = rng.uniform(60, 66), rng.uniform(85, 92)
    tilt = rng.normal(0, 0.3, 2) if height > 0 else np.zeros(2)

    def place(p2):
        p = centre + _rot(p2, angle)
        return _at(p, height + 1 + np.maximum((p - centre) @ tilt, -height))

    border = tuple(float(v) for v in rng.choice([(225, 238, 244), (40, 40, 44), (170, 200, 220), (120, 160, 90)]))
    layers = [Layer(place(_rounded_rect(w, h, 3)), border)]
    sky = tuple(float(v) for v in rng.uniform(40, 220, 3))
    layers.append(Layer(place(_rounded_rect(w - 7, h * 0.55, 2) + [0, -h * 0.12]), sky))
    cap = tuple(float(v) for v in rng.choice([(40, 40, 200), (40, 120, 230), (60, 90, 150), (50, 60, 120)]))
    layers.append(Layer(place(_ellipse(np.array([0, -h * 0.14]), w * 0.28, h * 0.12, 0, 20)), cap))
    layers.append(Layer(place(np.array([[-4, -h * 0.05], [4, -h * 0.05], [5, h * 0.13], [-5, h * 0.13]])), (200, 225, 235)))
    for k in range(int(rng.integers(1, 4))):  # the cost: dots in the path colours
        key = ("pink", "yellow", "green")[int(rng.integers(3))]
        col = style.colours[key] if style is not None else (150, 80, 220)
        layers.append(Layer(place(_ellipse(np.array([-w / 2 + 9 + 11 * k, h / 2 - 10]), 4.5, 4.5, 0, 12)), tuple(float(v) for v in col)))
    layers.append(Layer(place(np.array([[-w / 2 + 5, h * 0.22], [w / 2 - 5, h * 0.22], [w / 2 - 5, h * 0.27], [-w / 2 + 5, h * 0.27]])),
                        (60, 60, 60)))
    return BoardObject("card", layers, height, [place(_rounded_rect(w, h, 3))[:, :2]])


def _paper(rng, centre, height) -> BoardObject:
    """A crumpled ball or sheet: an irregular outline cut into facets of varying brightness."""
    k = int(rng.integers(9, 15))
    ang = np.sort(rng.uniform(0, 2 * math.pi, k))
    rad = rng.uniform(30, 70) * rng.uniform(0.7, 1.3, k)
    outline = centre + np.column_stack([rad * np.cos(ang), rad * np.sin(ang)])
    white = np.array(rng.choice([(240, 245, 248), (215, 235, 245), (235, 235, 235), (200, 225, 240)]), float)
    z_out = height + rng.uniform(2, 20, k)
    z_mid = height + rng.uniform(20, 45)
    mid = centre + rng.normal(0, 6, 2)
    layers = []
    for i in range(k):
        j = (i + 1) % k
        tri = np.array([[*mid, -z_mid], [*outline[i], -z_out[i]], [*outline[j], -z_out[j]]])
        layers.append(Layer(tri, tuple(float(v) for v in white * rng.uniform(0.62, 1.0))))
        if rng.random() < 0.3:  # a printed line on the paper
            a, b = outline[i] * 0.6 + mid * 0.4, outline[j] * 0.6 + mid * 0.4
            layers.append(Layer(_at(_capsule(a, b, 1.5, 4), (z_out[i] + z_mid) / 2), (70, 70, 70)))
    return BoardObject("paper", layers, height, [outline])


def _rulebook(rng, centre, angle, height) -> BoardObject:
    w, h = rng.uniform(140, 215), rng.uniform(180, 300)
    scale = rng.uniform(0.55, 1.0)  # folded open at one page, or half off the board
    w, h = w * scale, h * scale

    def place(p2, lift=0.0):
        return _at(centre + _rot(p2, angle), height + 3 + lift)

    page = tuple(float(v) for v in rng.choice([(228, 240, 246), (240, 240, 240), (200, 226, 236)]))
    layers = [Layer(place(_rounded_rect(w, h, 2)), page)]
    y = -h / 2 + 10
    while y < h / 2 - 10:
        if rng.random() < 0.18:
            ph = min(rng.uniform(25, 60), h / 2 - 10 - y)
            layers.append(Layer(place(np.array([[-w / 2 + 10, y], [w / 2 - 10, y], [w / 2 - 10, y + ph], [-w / 2 + 10, y + ph]])),
                                tuple(float(v) for v in rng.uniform(30, 230, 3))))
            y += ph + 5
            continue
        length = rng.uniform(0.5, 1.0) * (w - 20)
        layers.append(Layer(place(np.array([[-w / 2 + 10, y], [-w / 2 + 10 + length, y], [-w / 2 + 10 + length, y + 1.6],
                                            [-w / 2 + 10, y + 1.6]])), (50, 50, 50), 0.8))
        y += rng.uniform(4.5, 6.5)
    return BoardObject("rulebook", layers, height, [place(_rounded_rect(w, h, 2))[:, :2]])


def random_object(rng: np.random.Generator, geo: BoardGeometry, style=None, kind: str | None = None,
                  at: tuple[float, float] | None = None, flat: bool | None = None) -> BoardObject:
    """One object over the board, at a random place, turn and height: ``kind`` one of
    :data:`KINDS` (random when ``None``); ``style`` (:class:`companion.sim.styles.Style`), when
    given, lends its colours to some sleeves and to a card's cost dots; ``at``: its centre
    (board mm; random over the spaces when ``None``); ``flat``: lying on the board, or held up
    (random when ``None``).  Raises ``KeyError`` for an unknown kind."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    if kind not in KINDS:
        raise KeyError(f"unknown object {kind!r}; known: {', '.join(KINDS)}")
    # over the spaces (anywhere on them, the rim too), never centred on a corner marker
    centre = np.array(geo.center_mm(tuple(geo.spaces[int(rng.integers(len(geo.spaces)))]))) + rng.normal(0, 0.6 * geo.hex_size_mm, 2)
    if at is not None:
        centre = np.array(at, float)
    angle = rng.uniform(0, 2 * math.pi)
    lying = rng.random() < 0.5
    flat = lying if flat is None else flat
    if kind in ("hand", "sleeve"):
        # the arm comes from outside the board: point the hand away from the nearest rim
        out = centre / max(np.linalg.norm(centre), 1e-6)
        angle = math.atan2(-out[1], -out[0]) + rng.normal(0, 0.6)
        return _hand(rng, centre, angle, rng.uniform(8, 20) if flat else rng.uniform(30, 150), style, kind == "sleeve")
    if kind == "phone":
        return _phone(rng, centre, angle, 4.0 if flat else rng.uniform(40, 150))
    if kind == "mug":
        return _mug(rng, centre, 2.0 if flat else rng.uniform(20, 80))
    if kind == "card":
        return _card(rng, centre, angle, 0.5 if flat else rng.uniform(20, 120), style)
    if kind == "paper":
        return _paper(rng, centre, 0.0 if flat else rng.uniform(5, 60))
    return _rulebook(rng, centre, angle, 0.0 if flat else rng.uniform(10, 60))


def _fill(img: np.ndarray, px: np.ndarray, colour, alpha: float = 1.0) -> None:
    pts = [np.round(px * (1 << SHIFT)).astype(np.int32)]
    if alpha >= 1.0:
        cv2.fillPoly(img, pts, colour, cv2.LINE_AA, SHIFT)
        return
    over = img.copy()
    cv2.fillPoly(over, pts, colour, cv2.LINE_AA, SHIFT)
    cv2.addWeighted(over, alpha, img, 1.0 - alpha, 0.0, dst=img)


def object_mask(cam, objects: list[BoardObject], size: tuple[int, int]) -> np.ndarray:
    """uint8 (h, w) mask, 255 where the camera sees one of ``objects`` in a frame of ``size``
    (w, h) px (every layer, projected at its height)."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    for ob in objects:
        for layer in ob.layers:
            _fill(mask, cam.project(layer.pts), 255)
    return mask


def draw_objects(img: np.ndarray, shade: np.ndarray, cam, objects: list[BoardObject], lamp_dir_deg: float,
                 strength: float, rng: np.random.Generator) -> None:
    """Paint ``objects`` into the printed-art frame ``img`` (BGR uint8 (h, w, 3), before
    exposure) and their shadows into ``shade`` (float32 (h, w), 1 = unshadowed), both in place.

    A shadow falls away from the lamp (``lamp_dir_deg``, as :attr:`companion.sim.light.Light.lamp_dir_deg`),
    0.4-0.9 mm along the table per mm of height, blurred by a third of that, at ``strength``
    (0-1) more than the lamp's meeple shadows and never on the object itself."""
    h, w = img.shape[:2]
    a = math.radians(lamp_dir_deg + 180.0)
    away = np.array([math.cos(a), math.sin(a)])
    for ob in objects:
        dark = np.zeros((h, w), np.float32)
        reach = ob.height_mm * rng.uniform(0.4, 0.9) + 2.0
        for poly in ob.footprint:
            p2 = np.asarray(poly)[:, :2] + away * reach
            px = cam.project(np.column_stack([p2, np.zeros(len(p2))]))
            cv2.fillPoly(dark, [np.round(px * (1 << SHIFT)).astype(np.int32)], 1.0, cv2.LINE_AA, SHIFT)
        blur_mm = 1.0 + ob.height_mm / 3.0
        px_per_mm = np.linalg.norm(cam.project(np.array([[0, 0, 0], [10, 0, 0]]))[1] - cam.project(np.array([[0, 0, 0]]))[0]) / 10
        dark = cv2.GaussianBlur(dark, (0, 0), max(blur_mm * px_per_mm, 0.8))
        own = object_mask(cam, [ob], (w, h)).astype(np.float32) / 255.0
        shade *= 1.0 - np.clip(strength, 0, 1) * dark * (1.0 - own)
        for layer in ob.layers:
            _fill(img, cam.project(layer.pts), tuple(float(v) for v in layer.bgr), layer.alpha)


def hex_points(geo: BoardGeometry, h: tuple[int, int], n: int = 9) -> np.ndarray:
    """float64 (m, 2) board mm points filling space ``h``'s hexagon (a grid of ``n`` by ``n``
    across it, kept inside the hex)."""
    s = geo.hex_size_mm
    c = np.array(geo.center_mm(h))
    g = np.linspace(-s, s, n)
    xy = np.array([(x, y) for x in g for y in g])
    # inside a hex of circumradius s (either orientation: the incircle plus the corner wedges)
    r = np.linalg.norm(xy, axis=1)
    return c + xy[r <= s * 0.9]


def covered_fractions(cam, geo: BoardGeometry, objects: list[BoardObject], size: tuple[int, int]) -> dict[tuple[int, int], float]:
    """(q, r) -> share (0-1) of the space's hexagon the camera sees an object over, for every
    space that has any (the truth of what is hidden)."""
    mask = object_mask(cam, objects, size)
    out = {}
    for h in geo.spaces:
        px = cam.project(np.column_stack([hex_points(geo, h), np.zeros(len(hex_points(geo, h)))]))
        x = np.clip(np.round(px[:, 0]).astype(int), 0, size[0] - 1)
        y = np.clip(np.round(px[:, 1]).astype(int), 0, size[1] - 1)
        f = float((mask[y, x] > 127).mean())
        if f > 0:
            out[tuple(h)] = f
    return out
