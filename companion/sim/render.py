"""Synthetic overhead camera: draw a position as the table camera would see it, with ground truth.

:func:`render` takes the board part of a position (plain JSON dict), a :class:`Camera` and
:class:`Conditions` and returns a :class:`Frame`: a BGR uint8 (h, w, 3) image and the truth
(board, homography, marker corners in px).  The pipeline: top-down art in the board frame
(:mod:`companion.sim.render_art`), meeple shadows, projection through a pinhole camera with lens
distortion, 3D meeples, hands entering the frame, lighting (gradient, colour temperature,
glare), blur, sensor noise and JPEG.  Everything random comes from the ``rng`` passed in, so a
seed gives the same image.

:func:`render` draws the reference copy (the art the reader was first written against, lit in
8-bit).  :func:`render_styled` draws other copies: an art style of :mod:`companion.sim.styles`
under a light of :mod:`companion.sim.light` (modelled in linear light), with each style's
meeple shape standing in 3D (docs/simulated-camera.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sim import render_art as art
from companion.vision.geometry import BoardGeometry

PLAYERS = ("blue", "orange", "red", "black")
MEEPLE_HEIGHT_MM = 18.0
"""Height of a mushroom meeple; the cap (radius 0.3 hex) sits on a stem (radius 0.13 hex)."""


@dataclass
class Camera:
    """Pinhole camera looking at the board.

    ``k``: float64 (3, 3) px; ``dist``: float64 (5,) OpenCV (k1, k2, p1, p2, k3);
    ``rvec``, ``tvec``: float64 (3,) board frame (mm, z into the table) to camera frame.
    """

    width: int
    height: int
    k: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray

    def homography(self) -> np.ndarray:
        """float64 (3, 3): board mm (x, y, 1) -> undistorted image px."""
        r, _ = cv2.Rodrigues(self.rvec)
        h = self.k @ np.column_stack([r[:, 0], r[:, 1], self.tvec])
        return h / h[2, 2]

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """float64 (n, 3) board points (z < 0 is above the table) -> (n, 2) distorted px."""
        out, _ = cv2.projectPoints(np.asarray(pts_mm, np.float64).reshape(-1, 1, 3), self.rvec, self.tvec, self.k, self.dist)
        return out.reshape(-1, 2)


@dataclass
class Conditions:
    """How one photo is taken.  Angles in degrees, lengths in px of the output frame."""

    tilt_deg: float = 0.0
    tilt_direction_deg: float = 0.0
    board_rotation_deg: float = 0.0
    fill: float = 0.9
    hfov_deg: float = 66.0
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    colour_temperature_k: float = 5000.0
    glare: float = 0.0
    glare_xy: tuple[float, float] = (0.5, 0.5)
    glare_radius: float = 150.0
    noise_sigma: float = 0.0
    blur_sigma: float = 0.0
    jpeg_quality: int = 0
    hands: int = 0
    offset_mm: tuple[float, float] = (0.0, 0.0)


def random_conditions(rng: np.random.Generator, hard: bool = False) -> Conditions:
    """Photo conditions of the bench suites.

    Standard: tilt <= 15 degrees, mild lighting, light noise and JPEG.  Hard: tilt up to 30
    degrees, strong gradient and glare, blur, stronger noise, sometimes a hand in the frame.
    """
    if not hard:
        return Conditions(
            tilt_deg=float(rng.uniform(0, 15)), tilt_direction_deg=float(rng.uniform(0, 360)),
            board_rotation_deg=float(rng.uniform(-20, 20) + 90 * rng.integers(4)), fill=float(rng.uniform(0.8, 0.95)),
            hfov_deg=float(rng.uniform(60, 72)),
            dist=(float(rng.uniform(-0.12, 0.02)), float(rng.uniform(0, 0.05)), 0.0, 0.0, 0.0),
            gradient=float(rng.uniform(0, 0.15)), gradient_angle_deg=float(rng.uniform(0, 360)),
            colour_temperature_k=float(rng.uniform(4200, 6500)), noise_sigma=float(rng.uniform(1, 3)),
            blur_sigma=float(rng.uniform(0, 0.6)), jpeg_quality=int(rng.integers(80, 96)),
            offset_mm=(float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20))),
        )
    return Conditions(
        tilt_deg=float(rng.uniform(10, 30)), tilt_direction_deg=float(rng.uniform(0, 360)),
        board_rotation_deg=float(rng.uniform(-45, 45) + 90 * rng.integers(4)), fill=float(rng.uniform(0.75, 0.95)),
        hfov_deg=float(rng.uniform(60, 75)),
        dist=(float(rng.uniform(-0.2, 0.05)), float(rng.uniform(0, 0.08)), 0.0, 0.0, 0.0),
        gradient=float(rng.uniform(0.2, 0.4)), gradient_angle_deg=float(rng.uniform(0, 360)),
        colour_temperature_k=float(rng.uniform(3000, 7500)), glare=float(rng.uniform(40, 90)),
        glare_xy=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))), glare_radius=float(rng.uniform(60, 150)),
        noise_sigma=float(rng.uniform(3, 7)), blur_sigma=float(rng.uniform(0.8, 1.8)),
        jpeg_quality=int(rng.integers(60, 85)), hands=int(rng.random() < 0.3),
        offset_mm=(float(rng.uniform(-30, 30)), float(rng.uniform(-30, 30))),
    )


def _rot(axis: str, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def make_camera(geo: BoardGeometry, cond: Conditions, size: tuple[int, int] = (1920, 1080)) -> Camera:
    """A camera that sees the whole board (markers included) filling ``cond.fill`` of the frame."""
    w, h = size
    f = (w / 2.0) / math.tan(math.radians(cond.hfov_deg) / 2.0)
    k = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1]])
    # world -> camera: turn about the table normal, then tilt about an axis in the image plane.
    tilt_axis = _rot("z", cond.tilt_direction_deg)
    r = tilt_axis @ _rot("x", cond.tilt_deg) @ tilt_axis.T @ _rot("z", cond.board_rotation_deg)
    axis_world = r.T @ np.array([0.0, 0.0, 1.0])
    target = np.array([cond.offset_mm[0], cond.offset_mm[1], 0.0])
    x0, y0, x1, y1 = geo.extent_mm(art.MARKER_QUIET_MM)
    corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)
    rvec, _ = cv2.Rodrigues(r)
    dist = np.array(cond.dist, np.float64)
    d = 800.0
    for _ in range(4):
        c = target - d * axis_world
        tvec = -r @ c
        p, _ = cv2.projectPoints(corners.reshape(-1, 1, 3), rvec, tvec, k, np.zeros(5))
        p = p.reshape(-1, 2)
        # half-extent of the projection relative to the frame centre, worst axis
        need = max(np.abs(p[:, 0] - w / 2).max() / (w / 2), np.abs(p[:, 1] - h / 2).max() / (h / 2))
        d *= need / cond.fill
    c = target - d * axis_world
    return Camera(w, h, k, dist, rvec.ravel(), (-r @ c).ravel())


@dataclass
class Frame:
    """A rendered camera frame: ``image`` BGR uint8 (h, w, 3) and ``truth`` (JSON-ready dict)."""

    image: np.ndarray
    truth: dict = field(default_factory=dict)


def draw_board_art(board: dict, geo: BoardGeometry, rng: np.random.Generator, px_per_mm: float = 2.5) -> art.Canvas:
    """Top-down art of ``board`` (tiles, rocks, trees, substrates, spores, markers) in the board frame."""
    s = geo.hex_size_mm
    cv = art.Canvas(geo.extent_mm(art.MARKER_QUIET_MM + 60.0), px_per_mm, art.COLOURS["table"])
    centres = [geo.center_mm(h) for h in geo.spaces]
    xs, ys = [c[0] for c in centres], [c[1] for c in centres]
    m = 1.2 * s
    cv.poly([(min(xs) - m, min(ys) - m), (max(xs) + m, min(ys) - m), (max(xs) + m, max(ys) + m), (min(xs) - m, max(ys) + m)],
            art.COLOURS["board"])
    for c in centres:
        cv.outline(art.hex_corners(c, s), art.COLOURS["board_line"], 0.8)
    dictionary = geo.aruco_dictionary()
    for mk in geo.markers:
        art.draw_marker(cv, dictionary, mk.id, mk.center_mm, geo.marker_size_mm)
    for t in board.get("tiles", []):
        art.draw_tile(cv, geo.center_mm(tuple(t["at"])), s, t["paths"])
    for at in board.get("rocks", []):
        art.draw_rock(cv, geo.center_mm(tuple(at)), s, rng)
    for t in board.get("trees", []):
        art.draw_tree(cv, geo.center_mm(tuple(t["at"])), s, list(t.get("mycorrhizae", [None] * 4)))
    for sub in board.get("substrates", []):
        art.draw_substrate(cv, geo.center_mm(tuple(sub["at"])), s, sub["kind"], rng)
    for player, sp in board.get("spores", {}).items():
        art.draw_spore(cv, geo.center_mm(tuple(sp["at"])), s, player, bool(sp.get("used", False)))
    return cv


def _shadows(cv: art.Canvas, board: dict, geo: BoardGeometry, light_dir: tuple[float, float]) -> None:
    """Soft shadows of the meeples on the art, cast away from the light."""
    s = geo.hex_size_mm
    mask = np.zeros(cv.img.shape[:2], np.uint8)
    for at in board.get("meeples", {}).values():
        c = geo.center_mm(tuple(at))
        p = cv.pt(c[0] + light_dir[0] * 0.3 * s, c[1] + light_dir[1] * 0.3 * s)
        cv2.ellipse(mask, p, (cv.length(0.42 * s), cv.length(0.3 * s)), math.degrees(math.atan2(light_dir[1], light_dir[0])),
                    0, 360, 255, -1, cv2.LINE_AA, cv.SHIFT)
    if mask.any():
        k = max(3, int(0.15 * s * cv.ppm) | 1)
        mask = cv2.GaussianBlur(mask, (k, k), 0)
        shade = 1.0 - 0.3 * (mask.astype(np.float32) / 255.0)
        cv.img[:] = np.clip(cv.img * shade[:, :, None], 0, 255).astype(np.uint8)


def _project_art(cv: art.Canvas, cam: Camera, fill: tuple | None = None, img: np.ndarray | None = None) -> np.ndarray:
    """Warp the art (or ``img``, an image of the canvas's size) into the camera frame
    (distortion through a coarse remap grid)."""
    src_img = cv.img if img is None else img
    a = np.array([[cv.ppm, 0, -cv.x0 * cv.ppm], [0, cv.ppm, -cv.y0 * cv.ppm], [0, 0, 1]])
    h_art = cam.homography() @ np.linalg.inv(a)  # art px -> undistorted image px
    fill = fill if fill is not None else tuple(int(v) for v in art.COLOURS["table"])
    if not np.any(cam.dist):
        return cv2.warpPerspective(src_img, h_art, (cam.width, cam.height), flags=cv2.INTER_LINEAR, borderValue=fill)
    step = 8
    gx, gy = np.meshgrid(np.arange(0, cam.width + step, step, dtype=np.float32), np.arange(0, cam.height + step, step, dtype=np.float32))
    pts = np.stack([gx.ravel(), gy.ravel()], 1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, cam.k, cam.dist, P=cam.k).reshape(-1, 2)
    src = cv2.perspectiveTransform(und.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(h_art)).reshape(gx.shape + (2,))
    # bilinear upsampling of the grid: grid node (i, j) sits on frame pixel (i*step, j*step)
    fx, fy = np.meshgrid(np.arange(cam.width, dtype=np.float32) / step, np.arange(cam.height, dtype=np.float32) / step)
    full = cv2.remap(src.astype(np.float32), fx, fy, cv2.INTER_LINEAR)
    return cv2.remap(src_img, np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1]), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=fill)


def _draw_turned(img: np.ndarray, cam: Camera, c: tuple[float, float], profile, radius_mm: float, height_mm: float,
                 ang: np.ndarray, base: np.ndarray, shade: tuple[float, float, float]) -> None:
    """Draw a solid of revolution standing at ``c`` (board mm) as projected hulls between
    consecutive rings.  ``profile``: (height, radius) pairs from the table up, as fractions
    of ``height_mm`` and ``radius_mm``; ``ang``: ring angles (rad); ``base``: BGR float32;
    ``shade`` (a, b, lift): a ring pair at height fraction z is drawn ``base*(a+b*z)+lift*z``,
    lighter toward the top."""
    a, b, lift = shade
    prev = None
    for z, rad in profile:
        ring = np.stack([c[0] + rad * radius_mm * np.cos(ang), c[1] + rad * radius_mm * np.sin(ang),
                         np.full_like(ang, -z * height_mm)], 1)
        p = cam.project(ring)
        if prev is not None:
            hull = cv2.convexHull(np.vstack([prev, p]).astype(np.float32))
            col = tuple(float(v) for v in np.clip(base * (a + b * z) + lift * z, 0, 255))
            cv2.fillConvexPoly(img, np.round(hull * 16).astype(np.int32), col, cv2.LINE_AA, 4)
        prev = p


def _meeples(img: np.ndarray, board: dict, geo: BoardGeometry, cam: Camera) -> None:
    """Draw each meeple as a shaded stem and cap, projected from 3D."""
    s = geo.hex_size_mm
    hm = MEEPLE_HEIGHT_MM
    ang = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    # (height, radius) profile from the table up; z < 0 is above the table
    levels = [(0.0, 0.13), (0.25, 0.13), (0.5, 0.13), (0.5, 0.28), (0.62, 0.31), (0.75, 0.29), (0.87, 0.22), (0.95, 0.13), (1.0, 0.05)]
    order = sorted(board.get("meeples", {}).items(), key=lambda kv: -np.linalg.norm(cam.project(np.array([[*geo.center_mm(tuple(kv[1])), 0.0]]))[0] - (cam.width / 2, cam.height / 2)))
    for player, at in order:
        c = geo.center_mm(tuple(at))
        base = np.array(art.COLOURS[player], np.float32)
        _draw_turned(img, cam, c, levels, s, hm, ang, base, shade=(0.55, 0.5, 12.0))


def _hands(img: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """Skin-coloured arms reaching in from the frame border."""
    h, w = img.shape[:2]
    for _ in range(n):
        side = int(rng.integers(4))
        t = rng.uniform(0.2, 0.8)
        start = [(t * w, -50), (w + 50, t * h), (t * w, h + 50), (-50, t * h)][side]
        reach = rng.uniform(0.1, 0.3) * min(w, h)
        direction = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
        end = (start[0] + direction[0] * reach * 1.5, start[1] + direction[1] * reach * 1.5)
        skin = (140, 172, 224)
        cv2.line(img, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), skin, int(0.12 * min(w, h)), cv2.LINE_AA)
        cv2.circle(img, (int(end[0]), int(end[1])), int(0.09 * min(w, h)), (150, 182, 232), -1, cv2.LINE_AA)


def _temperature_gains(kelvin: float) -> np.ndarray:
    """BGR gains relative to 5000 K: warm light boosts red, cool light boosts blue."""
    t = (kelvin - 5000.0) / 2500.0
    return np.array([1.0 + 0.18 * t, 1.0, 1.0 - 0.15 * t], np.float32)


def _lighting(img: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    if cond.blur_sigma > 0:
        f = cv2.GaussianBlur(f, (0, 0), cond.blur_sigma)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(cond.gradient_angle_deg)
    ramp = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / (0.5 * math.hypot(w, h))
    gain = 1.0 + cond.gradient * ramp
    f *= gain[:, :, None]
    f *= _temperature_gains(cond.colour_temperature_k)[None, None, :]
    if cond.glare > 0:
        gx, gy = cond.glare_xy[0] * w, cond.glare_xy[1] * h
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * cond.glare_radius**2))
        f += cond.glare * spot[:, :, None]
    if cond.noise_sigma > 0:
        f += rng.normal(0, cond.noise_sigma, f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if cond.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


MEEPLE_PROFILES: dict[str, tuple[tuple[float, float], ...]] = {
    "mushroom": ((0.0, 0.43), (0.5, 0.43), (0.5, 0.93), (0.62, 1.03), (0.75, 0.97), (0.87, 0.73), (0.95, 0.43), (1.0, 0.17)),
    "round_cap": ((0.0, 0.75), (0.1, 0.75), (0.12, 0.45), (0.5, 0.4), (0.55, 0.6), (0.65, 0.72), (0.78, 0.75), (0.9, 0.62),
                  (0.97, 0.4), (1.0, 0.15)),
    "cylinder": ((0.0, 0.75), (1.0, 0.75), (1.0, 0.72)),
    "cone": ((0.0, 1.0), (0.68, 0.32), (0.72, 0.45), (0.82, 0.55), (0.93, 0.45), (1.0, 0.15)),
}
"""Meeple silhouettes of revolution: (height, radius) from the table up, as fractions of the
meeple's height and of its radius (about 0.3 hex, :data:`companion.sim.styles.DOCUMENTED`)."""


def _figure_outline() -> np.ndarray:
    head = [(0.28 * math.cos(math.radians(a)), 0.86 + 0.28 * math.sin(math.radians(a))) for a in range(-40, 221, 20)]
    right = [(-0.6, 0.0), (-0.15, 0.0), (0.0, 0.3), (0.15, 0.0), (0.6, 0.0), (0.38, 0.45), (1.0, 0.55), (0.95, 0.68), (0.3, 0.72)]
    left = [(-0.3, 0.72), (-0.95, 0.68), (-1.0, 0.55), (-0.38, 0.45)]
    out = np.array(right + head + left, np.float64)
    out[:, 1] /= out[:, 1].max()  # the head's top at the full height
    return out


FIGURE_OUTLINE = _figure_outline()
"""Front outline of a classic meeple figure: (x, z), x in half-widths, z in heights, counter-clockwise."""
FIGURE_THICKNESS = 0.5
"""Thickness of a figure meeple as a fraction of its width."""


def _draw_figure(img: np.ndarray, cam: Camera, c: tuple[float, float], half_w: float, height: float, facing: float,
                 colour: np.ndarray, eye: np.ndarray) -> None:
    """A flat meeple figure (the outline extruded), standing at ``c`` (mm) and facing ``facing``
    radians; faces drawn furthest from the camera first so nearer ones hide them."""
    u = np.array([math.cos(facing), math.sin(facing)])  # across the figure
    n = np.array([-u[1], u[0]])  # the way it faces
    t = FIGURE_THICKNESS * 2 * half_w
    def pts(side: float) -> np.ndarray:
        xy = np.array(c) + FIGURE_OUTLINE[:, :1] * half_w * u + side * t * n
        return np.column_stack([xy, -FIGURE_OUTLINE[:, 1] * height])
    front, back = pts(0.5), pts(-0.5)
    faces = [(back, 0.75), (front, 0.95)]
    k = len(FIGURE_OUTLINE)
    for i in range(k):
        j = (i + 1) % k
        quad = np.array([front[i], front[j], back[j], back[i]])
        up = FIGURE_OUTLINE[j, 1] - FIGURE_OUTLINE[i, 1]
        faces.append((quad, 0.65 + 0.3 * (abs(FIGURE_OUTLINE[j, 0] - FIGURE_OUTLINE[i, 0]) > abs(up))))
    faces.sort(key=lambda f: -np.linalg.norm(f[0].mean(0) - eye))
    for poly, shade in faces:
        p = cam.project(poly)
        col = tuple(float(v) for v in np.clip(colour * shade, 0, 255))
        cv2.fillPoly(img, [np.round(p * 16).astype(np.int32)], col, cv2.LINE_AA, 4)


def _camera_centre(cam: Camera) -> np.ndarray:
    r, _ = cv2.Rodrigues(cam.rvec)
    return -r.T @ cam.tvec


def _styled_meeples(img: np.ndarray, board: dict, geo: BoardGeometry, cam: Camera, style, sizes: dict,
                    rng_sizes: np.random.Generator) -> list[dict]:
    """Draw each meeple of ``board`` as a solid of revolution of ``style.meeple_shape`` (or a flat
    figure, ``"figure"``, turned at random), projected
    from 3D (the cap is displaced by parallax and hides what lies behind it), furthest from the
    camera first.  Appends the drawn factors to ``sizes``; returns per meeple its radius (mm),
    height (mm) and projected cap centre (px)."""
    from companion.sim.styles import DOCUMENTED

    s = geo.hex_size_mm
    profile = None if style.meeple_shape == "figure" else MEEPLE_PROFILES[style.meeple_shape]
    ang = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    eye = _camera_centre(cam)
    drawn = []
    items = sorted(board.get("meeples", {}).items(), key=lambda kv: -np.linalg.norm(np.array([*geo.center_mm(tuple(kv[1])), 0.0]) - eye))
    for player, at in items:
        c = geo.center_mm(tuple(at))
        lo, hi = style.factor_range("meeple_radius")
        fr = float(rng_sizes.uniform(lo, hi))
        lo, hi = style.factor_range("meeple_height")
        fh = float(rng_sizes.uniform(lo, hi))
        sizes.setdefault("meeple_radius", []).append(fr)
        sizes.setdefault("meeple_height", []).append(fh)
        rad_mm = DOCUMENTED["meeple_radius"] * fr * s
        hm = DOCUMENTED["meeple_height_mm"] * fh
        base = np.array(style.colours["meeple_" + player], np.float32)
        if profile is None:
            _draw_figure(img, cam, c, rad_mm, hm, float(rng_sizes.uniform(0, 2 * np.pi)), base, eye)
            top = cam.project(np.array([[c[0], c[1], -hm]]))[0]
            drawn.append({"player": player, "radius_mm": rad_mm, "height_mm": hm, "cap_px": top.tolist()})
            continue
        _draw_turned(img, cam, c, profile, rad_mm, hm, ang, base, shade=(0.6, 0.4, 10.0))
        top = cam.project(np.array([[c[0], c[1], -profile[-1][0] * hm]]))[0]
        drawn.append({"player": player, "radius_mm": rad_mm, "height_mm": hm, "cap_px": top.tolist()})
    return drawn


def _shadow_mask(cv: art.Canvas, board: dict, geo: BoardGeometry, light) -> np.ndarray:
    """float32 (h, w) in the art frame: 1 in the light, 1 - ``light.shadow`` under a meeple's shadow."""
    s = geo.hex_size_mm
    mask = np.zeros(cv.img.shape[:2], np.uint8)
    a = math.radians(light.lamp_dir_deg + 180.0)
    d = (math.cos(a), math.sin(a))
    for at in board.get("meeples", {}).values():
        c = geo.center_mm(tuple(at))
        p = cv.pt(c[0] + d[0] * 0.35 * s, c[1] + d[1] * 0.35 * s)
        cv2.ellipse(mask, p, (cv.length(0.5 * s), cv.length(0.3 * s)), math.degrees(a), 0, 360, 255, -1, cv2.LINE_AA, cv.SHIFT)
    out = np.ones(mask.shape, np.float32)
    if mask.any():
        k = max(3, int(0.2 * s * cv.ppm) | 1)
        out -= light.shadow * cv2.GaussianBlur(mask, (k, k), 0).astype(np.float32) / 255.0
    return out


def render_styled(
    board: dict,
    geo: BoardGeometry,
    style,
    light,
    cond: Conditions | None = None,
    rng: np.random.Generator | None = None,
    size: tuple[int, int] = (1920, 1080),
    camera: Camera | None = None,
    px_per_mm: float = 2.5,
    table: str = "wood",
    objects: list | None = None,
) -> Frame:
    """Draw ``board`` in art ``style`` (:class:`companion.sim.styles.Style` or its name) under
    ``light`` (:class:`companion.sim.light.Light` or a preset name of
    :data:`companion.sim.light.LIGHTS`), on table surface ``table``.

    ``cond`` gives the camera pose and lens (its lighting fields are ignored: light is
    ``light``'s, in linear light) and ``cond.hands``.  The truth has the keys of :func:`render`
    plus ``style``, ``light`` (the light's fields), ``table``, ``sizes`` (size name -> factors
    drawn per piece instance) and ``meeples_drawn`` (radius, height, projected cap px).
    ``objects``: things over the board (:func:`companion.sim.objects.random_object`), lit like
    the board and casting shadows; the truth then adds ``objects`` and ``covered`` ("q,r" ->
    share of the space the camera sees an object over, :func:`companion.sim.objects.covered_fractions`).
    """
    from dataclasses import asdict

    from companion.sim import styled_art
    from companion.sim.light import expose, light_preset
    from companion.sim.styles import TABLES, get_style

    cond = cond or Conditions()
    rng = rng or np.random.default_rng(0)
    style = get_style(style) if isinstance(style, str) else style
    light = light_preset(light, rng) if isinstance(light, str) else light
    cam = camera or make_camera(geo, cond, size)
    cv, sizes = styled_art.draw_board(board, geo, style, rng, px_per_mm, table)
    fill = tuple(int(v) for v in TABLES[table]["base"])
    img = _project_art(cv, cam, fill)
    shade = _project_art(cv, cam, (1.0,), _shadow_mask(cv, board, geo, light))
    drawn = _styled_meeples(img, board, geo, cam, style, sizes, rng)
    if cond.hands:
        _hands(img, cond.hands, rng)
    if objects:
        from companion.sim.objects import draw_objects

        # their own generator: the board's noise and JPEG stay those of the frame without them
        draw_objects(img, shade, cam, objects, light.lamp_dir_deg, min(1.0, light.shadow * 1.6),
                     np.random.default_rng(len(objects)))
    img = expose(img, light, rng, shade)
    markers = {mk.id: cam.project(np.column_stack([geo.marker_corners_mm(mk.id), np.zeros(4)])).tolist() for mk in geo.markers}
    truth = {
        "board": board,
        "homography": cam.homography().tolist(),
        "camera": {"k": cam.k.tolist(), "dist": cam.dist.tolist(), "rvec": cam.rvec.tolist(), "tvec": cam.tvec.tolist()},
        "markers_px": markers,
        "style": style.name,
        "light": asdict(light),
        "table": table,
        "sizes": sizes,
        "meeples_drawn": drawn,
    }
    if objects:
        from companion.sim.objects import covered_fractions

        truth["objects"] = [o.to_json() for o in objects]
        truth["covered"] = {f"{q},{r}": round(f, 3) for (q, r), f in covered_fractions(cam, geo, objects, size).items()}
    return Frame(img, truth)


def render(
    board: dict,
    geo: BoardGeometry,
    cond: Conditions | None = None,
    rng: np.random.Generator | None = None,
    size: tuple[int, int] = (1920, 1080),
    camera: Camera | None = None,
    px_per_mm: float = 2.5,
    objects: list | None = None,
) -> Frame:
    """Draw ``board`` as the camera sees it; the truth has the board, homography and markers.

    ``size``: (width, height) px.  ``camera`` overrides the one made from ``cond`` (a fixed
    camera over several frames).  Truth keys: ``board``, ``homography`` (board mm -> undistorted
    px, 3x3), ``camera`` (k, dist, rvec, tvec), ``markers_px`` (id -> 4 corners, distorted px).
    ``objects``: things over the board (:func:`companion.sim.objects.random_object`), shadows
    cast away from the light's gradient; the truth then adds ``objects`` and ``covered`` as
    :func:`render_styled` does.
    """
    cond = cond or Conditions()
    rng = rng or np.random.default_rng(0)
    cam = camera or make_camera(geo, cond, size)
    cv = draw_board_art(board, geo, rng, px_per_mm)
    a = math.radians(cond.gradient_angle_deg + 180.0)
    _shadows(cv, board, geo, (math.cos(a), math.sin(a)))
    img = _project_art(cv, cam)
    _meeples(img, board, geo, cam)
    if cond.hands:
        _hands(img, cond.hands, rng)
    if objects:
        from companion.sim.objects import draw_objects

        shade = np.ones(img.shape[:2], np.float32)
        # the brighter side of the gradient stands for the lamp; their own generator, as in render_styled
        draw_objects(img, shade, cam, objects, cond.gradient_angle_deg, 0.5, np.random.default_rng(len(objects)))
        img = np.clip(img * shade[:, :, None], 0, 255).astype(np.uint8)
    img = _lighting(img, cond, rng)
    markers = {mk.id: cam.project(np.column_stack([geo.marker_corners_mm(mk.id), np.zeros(4)])).tolist() for mk in geo.markers}
    truth = {
        "board": board,
        "homography": cam.homography().tolist(),
        "camera": {"k": cam.k.tolist(), "dist": cam.dist.tolist(), "rvec": cam.rvec.tolist(), "tvec": cam.tvec.tolist()},
        "markers_px": markers,
    }
    if objects:
        from companion.sim.objects import covered_fractions

        truth["objects"] = [o.to_json() for o in objects]
        truth["covered"] = {f"{q},{r}": round(f, 3) for (q, r), f in covered_fractions(cam, geo, objects, size).items()}
    return Frame(img, truth)
