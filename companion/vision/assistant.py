"""The camera setup assistant: what the companion sees, and what to change on the mount.

:func:`assess` looks at one frame as the person mounting the camera needs it looked at:

- the corner markers: found, missing (and whether out of the frame or in it but unreadable),
  duplicated (a spare copy near the board), stuck off their place (from the printed grid);
- resolution: pixels per hex side at the nearest and at the farthest space against the
  reader's minimum :data:`MIN_PX_PER_HEX_SIDE` (``hardware/camera.md``), giving "lower the
  camera" when the far side is too small, "raise the camera" when markers touch the frame's
  edge, "turn it" when the near side is much larger than the far side (a tilted camera);
- focus: on the edges of the whole frame and of each ninth of the board, the Laplacian's
  energy over the gradient's of the (lightly denoised) grey frame (about 1 / blur width
  squared, whatever the contrast; :data:`FOCUS_EDGE_RATIO`): "out of focus" when the whole
  frame is soft, else "soft" with where (the variance of the Laplacian is reported, not judged:
  it measures what lies on the board as much as the focus);
- exposure: the share of clipped pixels in every space (a heat map), "move the lamp" when the
  board reader finds spaces unreadable under glare (the very verdict ``read-board`` gives on the
  same frame: one source of truth), and the whole-frame checks of
  :mod:`companion.vision.check` (too dark, too bright, no colour, colour cast);
- with a calibrated colour profile, the reader's confidence in every space.

:func:`annotate` draws all of it on the frame with a text panel, for ``camera check --out``
and the dashboard's setup page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.intrinsics import Intrinsics
from companion.vision.check import check_frame
from companion.vision.errors import FrameQualityError, RegistrationError, VisionError
from companion.vision.geometry import DEFAULT_EDITION, BoardGeometry, load_board
from companion.vision.markers import MarkerFinder
from companion.vision.gridfit import describe_displaced, refine_registration
from companion.vision.registration import Registration, compute_registration

MIN_PX_PER_HEX_SIDE = 35.0
"""The reader's minimum resolution: pixels per hex side at the farthest space
(``hardware/camera.md``: below it the X on a used spore is lost)."""
EDGE_MARGIN = 0.02
"""Markers closer than this fraction of the frame to its border: the board is at the edge."""
TILT_RATIO = 1.3
"""Pixels per hex side at the nearest space over the farthest beyond which the camera is
called tilted (a 15 degree tilt gives about 1.15 with the Camera Module 3 at 700 mm)."""
FOCUS_MIN_EDGE_PX = 400
"""Edge pixels an area of the board needs for a focus verdict (a hex side at the reader's
minimum resolution is 35 px, its line dilated 5 px wide about 175 px)."""
FOCUS_EDGE_RATIO = 0.0036
"""Mean squared Laplacian over mean squared gradient on edges (pixels within 2 px of a gradient
above :data:`EDGE_STRENGTH` of the strongest), about 1 / blur width squared whatever the
contrast, below which a picture or an area of the board is soft.  Rendered 1920x1080 frames of
five art styles (``bench``-style light, JPEG 92): the whole frame measures 0.0067-0.0081 at a
blur of 0.6 px, 0.0046-0.0054 at 0.9 px (the sharpest and the softest a sharp camera gives in the
simulator), 0.0023-0.0028 at 1.5 px and 0.0011-0.0016 at 2.5 px; an area of the board holding
pieces 0.0049-0.0059 at 0.9 px, 0.0024-0.0031 at 1.5 px.  An area of empty spaces measures its
board's smooth mottling (0.0067-0.0073 whatever the blur), so it is never called soft on its own:
a blur over the whole picture is judged on the whole frame, whose strongest edges are the markers'."""
EDGE_STRENGTH = 0.3
"""An area's edges: pixels whose gradient is above this share of the area's strongest."""
CLIP_LEVEL = 250
"""A pixel with every channel at or above this is clipped."""
CLIP_SPACE = 0.2
"""Share of clipped pixels drawn at full strength on the glare heat map (which spaces are
unreadable is the board reader's verdict, :attr:`SetupReport.glare_unreadable`)."""
LOW_CONFIDENCE = 0.6
"""Spaces read below this confidence are marked on the confidence map."""


@dataclass
class Advice:
    """One thing to change: ``code`` (``lower``, ``raise``, ``turn``, ``focus``, ``lamp``,
    ``exposure``, ``marker-missing``, ``marker-duplicated``, ``marker-off``, ``markers``) and
    the sentence for the user."""

    code: str
    text: str


@dataclass
class SetupReport:
    """What :func:`assess` found; sizes in px, ``focus`` in grey levels squared."""

    image_size: tuple[int, int]
    found: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    duplicated: list[int] = field(default_factory=list)
    registration: Registration | None = None
    registration_error: str = ""
    px_per_side_near: float | None = None
    px_per_side_far: float | None = None
    focus: float | None = None
    focus_by_area: dict[str, float] = field(default_factory=dict)
    edge_ratio_by_area: dict[str, float] = field(default_factory=dict)
    soft_areas: list[str] = field(default_factory=list)
    clipped_by_space: dict[str, float] = field(default_factory=dict)
    glare_unreadable: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, float] | None = None
    advice: list[Advice] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the user should know that needs no change (``ok`` stays true)."""
    missing_px: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    extra_copies: list[tuple[int, np.ndarray]] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        """True when nothing needs changing."""
        return not self.advice

    def unreadable_spaces(self) -> list[str]:
        """Labels of the spaces the board reader cannot read under glare (as ``read-board``)."""
        return sorted(self.glare_unreadable)

    def to_json(self) -> dict:
        r = lambda v: None if v is None else round(float(v), 1)  # noqa: E731
        return {
            "ok": self.ok, "image_size": list(self.image_size),
            "markers": {"found": self.found, "missing": self.missing, "duplicated": self.duplicated},
            "registered": self.registration is not None, "registration_error": self.registration_error,
            "px_per_hex_side": {"nearest": r(self.px_per_side_near), "farthest": r(self.px_per_side_far),
                                "minimum": MIN_PX_PER_HEX_SIDE},
            "focus": {"laplacian_variance": r(self.focus), "by_area": {k: r(v) for k, v in self.focus_by_area.items()},
                      "edge_ratio_by_area": {k: round(v, 4) for k, v in self.edge_ratio_by_area.items()},
                      "soft": self.soft_areas, "edge_ratio_minimum": FOCUS_EDGE_RATIO},
            "glare": {"unreadable_spaces": self.unreadable_spaces(),
                      "clipped_by_space": {k: round(v, 3) for k, v in self.clipped_by_space.items() if v > 0}},
            "confidence": self.confidence,
            "advice": [{"code": a.code, "text": a.text} for a in self.advice],
            "notes": list(self.notes),
        }


def space_labels(edition_dir: str | Path = DEFAULT_EDITION) -> dict[tuple[int, int], str]:
    """(q, r) -> printed label (``"E5"``) from the edition's board.json; ``"q,r"`` when absent."""
    try:
        d = json.loads((Path(edition_dir) / "board.json").read_text())
        return {(int(s["at"][0]), int(s["at"][1])): str(s.get("label") or f"{s['at'][0]},{s['at'][1]}") for s in d["spaces"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _hex_corners_mm(geo: BoardGeometry, h: tuple[int, int]) -> np.ndarray:
    cx, cy = geo.center_mm(h)
    a = np.radians(-90 + 60 * np.arange(6))
    return np.column_stack([cx + geo.hex_size_mm * np.cos(a), cy + geo.hex_size_mm * np.sin(a)])


AREA_NAMES = (("top left", "top", "top right"), ("left", "centre", "right"), ("bottom left", "bottom", "bottom right"))


def _area_of(geo: BoardGeometry, h: tuple[int, int], bounds: tuple[float, float, float, float]) -> str:
    x0, y0, x1, y1 = bounds
    cx, cy = geo.center_mm(h)
    col = min(2, int(3 * (cx - x0) / (x1 - x0)))
    row = min(2, int(3 * (cy - y0) / (y1 - y0)))
    return AREA_NAMES[row][col]


def _where(names: list[str]) -> str:
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def assess(frame: np.ndarray, geo: BoardGeometry | None = None, intrinsics: Intrinsics | None = None,
           reader=None, labels: dict[tuple[int, int], str] | None = None) -> SetupReport:
    """Look at one BGR uint8 (h, w, 3) frame as the camera setup needs; see the module doc.

    ``reader``: a :class:`~companion.vision.reader.BoardReader` with the calibrated colour
    profile, for the per-space confidence map (``None`` before calibration).  Never raises for
    what it finds: problems become :class:`Advice`.  Raises ``ValueError`` for a frame that is
    not a BGR uint8 image.
    """
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError("frame must be a BGR uint8 image of shape (h, w, 3)")
    geo = geo or load_board()
    labels = labels or space_labels()
    name = lambda h: labels.get(tuple(h), f"{h[0]},{h[1]}")  # noqa: E731
    hgt, wid = frame.shape[:2]
    rep = SetupReport((wid, hgt))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    finder = MarkerFinder(geo)
    copies = finder.detect_all(gray)
    first = {i: c[0] for i, c in copies.items()}
    if 2 <= len(first) < len(geo.markers):
        first = finder.find_missing(gray, first)
        for i, c in first.items():
            copies.setdefault(i, [c])
    ids = sorted(m.id for m in geo.markers)
    rep.found = sorted(copies)
    rep.missing = [i for i in ids if i not in copies]
    rep.duplicated = sorted(i for i, c in copies.items() if len(c) > 1)
    advice = rep.advice

    # a frame of the wrong size: the sizes say more than whatever markers it shows
    wrong_size = size_problem(rep.image_size, geo, getattr(reader, "profile", None), intrinsics)
    if wrong_size:
        advice.append(Advice("resolution", wrong_size))
    if _other_lens(rep.image_size, intrinsics):
        return rep   # with the intrinsics of another size the markers cannot fit the board
    if _frame_too_small(rep.image_size, geo) and len(copies) < 2:
        return rep
    small_frame = bool(advice)
    why = _why_no_markers(gray, finder, geo, len(copies)) if rep.missing and len(copies) < 2 and not small_frame else None
    if why is not None and why.code in ("mirrored", "focus", "lower"):
        advice.append(why)  # it explains every missing marker: listing them would send the user elsewhere
        return rep

    # markers
    if rep.missing:
        pred = finder.predict({i: c[0] for i, c in copies.items()}) if len(copies) >= 2 else {}
        rep.missing_px = pred
        for i in rep.missing:
            p = pred.get(i)
            if p is not None and (np.any(p < 0) or np.any(p[:, 0] >= wid) or np.any(p[:, 1] >= hgt)):
                advice.append(Advice("raise", f"marker {i} is outside the frame: raise the camera, or move it "
                                              f"towards marker {i}, until all four markers are in view"))
            elif p is not None:
                advice.append(Advice("marker-missing", f"marker {i} should be in view but cannot be read: uncover it, "
                                                       "and check it is not in glare or out of focus"))
            else:
                advice.append(Advice("marker-missing", f"marker {i} is not in view"))
        if why is not None:
            advice.append(why)
    reg = None
    if not rep.missing:
        try:
            reg = refine_registration(gray, compute_registration(geo, copies, (wid, hgt), intrinsics), geo)
        except RegistrationError as exc:
            rep.registration_error = str(exc)
            advice.append(Advice("marker-duplicated" if exc.duplicated else "marker-off", str(exc)))
        except VisionError as exc:
            rep.registration_error = str(exc)
            advice.append(Advice("markers", str(exc)))
    rep.registration = reg
    if reg is not None:
        for i in reg.duplicates:
            used = reg.markers_px[i]
            rep.extra_copies += [(i, c) for c in copies[i] if not np.allclose(c, used)]
            advice.append(Advice("marker-duplicated", f"marker {i} is seen more than once: the copy that fits the board "
                                                      f"is used, but take the other copy of marker {i} out of view"))
        off = describe_displaced(reg, geo)
        if off:
            advice.append(Advice("marker-off", off))

    # markers at the frame's edge
    edge = EDGE_MARGIN * max(wid, hgt)
    for i, c in sorted(copies.items()):
        c0 = c[0] if reg is None else reg.markers_px.get(i, c[0])
        if np.any(c0[:, 0] < edge) or np.any(c0[:, 1] < edge) or np.any(c0[:, 0] > wid - edge) or np.any(c0[:, 1] > hgt - edge):
            advice.append(Advice("raise", f"marker {i} touches the edge of the frame: raise the camera a little so a "
                                          "bumped board stays in view"))
            break
    if reg is None:
        return rep

    # resolution and tilt
    sides = {}
    for h in geo.spaces:
        px = reg.to_image(_hex_corners_mm(geo, h))
        sides[h] = float(np.mean(np.linalg.norm(px - np.roll(px, 1, axis=0), axis=1)))
    near, far = max(sides.values()), min(sides.values())
    rep.px_per_side_near, rep.px_per_side_far = near, far
    far_h = min(sides, key=sides.get)
    if far < MIN_PX_PER_HEX_SIDE and not small_frame:
        # one decimal: 34.6 px must not read "35 px, needs 35"
        advice.append(Advice("lower", f"too far: the farthest space ({name(far_h)}) is {far:.1f} px per hex side, the "
                                      f"reader needs at least {MIN_PX_PER_HEX_SIDE:.0f}; lower the camera (by about "
                                      f"{max(1, round(100 * (1 - far / MIN_PX_PER_HEX_SIDE)))} % of its height) "
                                      "or use a narrower lens"))
    if near / far > TILT_RATIO:
        advice.append(Advice("turn", f"the camera is tilted: the nearest space is {near:.0f} px per hex side, the farthest "
                                     f"({name(far_h)}) {far:.0f}; turn it to look straight down at the board's centre"))

    # focus, by ninths of the board
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.8)
    lap = cv2.Laplacian(g, cv2.CV_32F)
    centres = np.array([geo.center_mm(h) for h in geo.spaces])
    bounds = (*(centres.min(0) - geo.hex_size_mm), *(centres.max(0) + geo.hex_size_mm))
    label = np.zeros((hgt, wid), np.int32)  # 1 + index of the space under each pixel, 0 off the board
    for k, h in enumerate(geo.spaces):
        poly = np.round(reg.to_image(_hex_corners_mm(geo, h)) * 4).astype(np.int32)
        cv2.fillConvexPoly(label, poly, k + 1, cv2.LINE_8, 2)
    flat = label.ravel()
    n = np.bincount(flat, minlength=len(geo.spaces) + 1).astype(np.float64)
    clip = np.bincount(flat, weights=np.all(frame >= CLIP_LEVEL, axis=2).ravel(), minlength=len(n))
    for k, h in enumerate(geo.spaces):
        rep.clipped_by_space[name(h)] = float(clip[k + 1] / n[k + 1]) if n[k + 1] else 0.0
    lv = lap.ravel().astype(np.float64)
    s1 = np.bincount(flat, weights=lv, minlength=len(n))
    s2 = np.bincount(flat, weights=lv * lv, minlength=len(n))
    inside = flat > 0
    rep.focus = float(lv[inside].var()) if inside.any() else None
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    grad2 = (gx * gx + gy * gy).ravel().astype(np.float64)
    areas: dict[str, list[int]] = {}
    for k, h in enumerate(geo.spaces):
        areas.setdefault(_area_of(geo, h, bounds), []).append(k + 1)
    order = [a for row in AREA_NAMES for a in row if a in areas]
    area_of_label = np.zeros(len(n), np.int32)   # 0 off the board, else 1 + index in order
    for i, a in enumerate(order):
        area_of_label[areas[a]] = i + 1
    pix_area = area_of_label[flat]
    for i, a in enumerate(order):
        ks = areas[a]
        cnt, t1, t2 = n[ks].sum(), s1[ks].sum(), s2[ks].sum()
        rep.focus_by_area[a] = float(t2 / cnt - (t1 / cnt) ** 2) if cnt else 0.0
        ratio = _edge_ratio(grad2, lv, pix_area == i + 1, hgt, wid)
        if ratio is not None:
            rep.edge_ratio_by_area[a] = ratio
    # only the edges decide: the variance of the Laplacian of a flat stretch of board (the empty
    # spaces of a plain art) is low however sharp the lens; an area with too few edges of its own
    # to measure (empty spaces with faint lines) gives no verdict; a picture blurred as a whole
    # is soft everywhere, empty areas included
    whole_ratio = frame_edge_ratio(gray)
    if whole_ratio < FOCUS_EDGE_RATIO:
        rep.soft_areas = list(order)
    else:
        rep.soft_areas = [a for a in order if rep.edge_ratio_by_area.get(a, 1.0) < FOCUS_EDGE_RATIO]
    if far < MIN_PX_PER_HEX_SIDE:
        # a hex a few px wide has too few edges for a ratio by ninths (it read 0.000 on sharp
        # frames): judge only the whole frame, and only past the resolution advice
        rep.soft_areas = []
        if not small_frame and whole_ratio < FOCUS_EDGE_RATIO:
            advice.append(Advice("focus", f"the whole picture is out of focus (edge ratio {whole_ratio:.4f}, a sharp "
                                          "frame measures about 0.005 or more): focus the lens on the board "
                                          "(its focus ring, or LensPosition on a Camera Module 3)"))
    if rep.soft_areas:
        whole = len(rep.soft_areas) >= len(order) - 1
        measured = [rep.edge_ratio_by_area[a] for a in rep.soft_areas if a in rep.edge_ratio_by_area]
        advice.append(Advice("focus", ("the whole board is out of focus" if whole else
                                       f"the board is soft at the {_where(rep.soft_areas)}")
                             + f" (edge ratio {min(measured + [whole_ratio] if whole else measured):.4f}, a sharp "
                               "picture measures about 0.005 or more): "
                             + ("focus the lens on the board (its focus ring, or LensPosition on a Camera Module 3)" if whole else
                                "focus on the board's centre, or turn the camera to look straight down")))

    # exposure: which spaces glare makes unreadable is the board reader's verdict, as in read-board
    glare_reader = reader if reader is not None else _default_reader(geo, intrinsics)
    reading, read_error = None, None
    try:
        glare_reader.tracker.current = reg  # read on the registration just made, not a second one
        reading = glare_reader.read(frame)
    except VisionError as exc:
        read_error = exc
    if reading is not None:
        rep.glare_unreadable = {name(tuple(int(v) for v in k.split(","))): why
                                for k, why in reading.unreadable.items() if why.startswith("glare")}
    bad = rep.unreadable_spaces()
    if bad:
        advice.append(Advice("lamp", f"glare makes {len(bad)} space{'s' if len(bad) > 1 else ''} unreadable ({', '.join(bad[:6])}"
                                     f"{', ...' if len(bad) > 6 else ''}): move the lamp, or "
                                     "point it at the ceiling, until no bright reflection shows on the board"))
    try:
        check_frame(frame, reg, geo, None)
    except FrameQualityError as exc:
        advice.append(Advice("exposure", str(exc)))

    # after calibration: the reader's confidence in every space
    if reader is not None and read_error is not None:
        advice.append(Advice("exposure", str(read_error)))
    elif reader is not None:
        rep.confidence = {name(h): round(float(r.confidence), 3) for h, r in reading.spaces.items()}
        low = sorted(k for k, v in rep.confidence.items() if v < LOW_CONFIDENCE)
        shown = _calibration_layout_shown(frame, reading, reader) if len(low) > 3 else None
        if shown:
            rep.notes.append(f"this photo shows {shown}, set up to teach the colours (meeples where no game puts "
                             f"them): its {len(low)} spaces read with low confidence say nothing about the colour "
                             "profile; judge the confidence on a photo of the board in play")
        elif len(low) > 3:
            advice.append(Advice("calibrate", f"{len(low)} spaces are read with low confidence ({', '.join(low[:6])}"
                                              f"{', ...' if len(low) > 6 else ''}): fix the advice above, then run "
                                              "'calibrate pieces' again under this light"))
    return rep


def _calibration_layout_shown(frame, reading, reader) -> str | None:
    """The calibration layout the frame shows as documented (:func:`calibration.photo_check.calibration_layout_shown`), or ``None``."""
    from calibration.photo_check import calibration_layout_shown

    try:
        return calibration_layout_shown(frame, reading.registration, reader)
    except (ValueError, OSError):
        return None


_DEFAULT_READERS: dict = {}


def _why_no_markers(gray: np.ndarray, finder: MarkerFinder, geo: BoardGeometry, seen: int) -> Advice:
    """Advice when fewer than 2 markers are found in ``gray`` (uint8 (h, w)): a mirrored
    picture (the markers read when flipped left-right), a frame too small for the reader's
    minimum (checked by the caller), a picture out of focus, markers in view but too small to decode (they read in the frame enlarged 2x: the
    camera is too far), or else the markers are out of view."""
    if len(finder.detect_all(cv2.flip(gray, 1))) >= 2:
        return Advice("mirrored", "the picture is mirrored (the markers read only when it is flipped left-right): "
                                  "turn off the camera's horizontal flip (hflip), or do not film the board in a mirror")
    sharp = frame_edge_ratio(gray)
    if sharp < FOCUS_EDGE_RATIO:
        return Advice("focus", f"only {seen} of 4 corner markers read, and the whole picture is out of focus "
                               f"(edge ratio {sharp:.4f}, a sharp frame measures about 0.005 or more): "
                               "focus the lens on the board (turn its focus ring, or set LensPosition on a "
                               "Camera Module 3) before moving the camera")
    small = _small_markers(gray, geo)
    if len(small) >= 2:
        return Advice("lower", f"only {seen} of 4 corner markers read: {len(small)} are in view but only about "
                               f"{np.median(small):.0f} px wide, too small to decode: lower the camera (or zoom in) "
                               "until the board fills the frame")
    return Advice("markers", f"only {seen} of 4 corner markers seen: point the camera at the "
                             "board, and raise it until all four markers are in view")


def resolution_problem(size: tuple[int, int], geo: BoardGeometry | None = None) -> str | None:
    """The sentence ``camera check`` gives when a frame of ``size`` (w, h px) is too small for
    the reader however the camera is placed (the board filling it would be under
    :data:`MIN_PX_PER_HEX_SIDE` px per hex side), else ``None``.  ``read-board`` refuses such a
    frame and ``calibrate pieces`` such a photo with the same sentence."""
    geo = geo or load_board()
    return _resolution_advice(size, geo).text if _frame_too_small(size, geo) else None


def size_problem(size: tuple[int, int], geo: BoardGeometry | None = None, profile=None, intrinsics=None) -> str | None:
    """The one sentence for a frame of ``size`` (w, h px) the reader should not read, else
    ``None``: intrinsics calibrated at another size; else a frame too small for the reader however
    the camera is placed (:func:`resolution_problem`; a profile made at another size is then not
    offered as the way out, since no profile reads such a frame); else a frame smaller than the
    photos ``profile`` was calibrated on (:func:`companion.vision.profile.frame_size_problem`).
    ``camera check`` and ``read-board`` give the same sentence."""
    from companion.vision.profile import frame_size_problem
    wrong_size = frame_size_problem(size, profile, intrinsics)
    if _other_lens(size, intrinsics):
        return wrong_size
    return resolution_problem(size, geo) or wrong_size


def _other_lens(size: tuple[int, int], intrinsics) -> bool:
    """True when ``intrinsics`` were calibrated on frames of another size than ``size``."""
    return intrinsics is not None and tuple(int(v) for v in intrinsics.image_size) != tuple(int(v) for v in size)


def _frame_too_small(size: tuple[int, int], geo: BoardGeometry) -> bool:
    """True when even a board filling a frame of ``size`` (w, h px) would be under
    :data:`MIN_PX_PER_HEX_SIDE`: no placement of the camera can help, only a higher resolution."""
    x0, y0, x1, y1 = geo.extent_mm()
    fit = min(size[0] / (x1 - x0), size[1] / (y1 - y0))  # px per mm with the board filling the frame
    return fit * geo.hex_size_mm < MIN_PX_PER_HEX_SIDE


def _resolution_advice(size: tuple[int, int], geo: BoardGeometry) -> Advice:
    x0, y0, x1, y1 = geo.extent_mm()
    need = MIN_PX_PER_HEX_SIDE / geo.hex_size_mm  # px per mm the reader needs
    wid, hgt = size
    return Advice("resolution", f"the frame is {wid}x{hgt} px: set the camera to 1920x1080 (a higher resolution); "
                                f"even filling the frame the board would be under {MIN_PX_PER_HEX_SIDE:.0f} px per hex "
                                f"side (it needs about {int(need * (x1 - x0))}x{int(need * (y1 - y0))} px)")


def _edge_ratio(grad2: np.ndarray, lap: np.ndarray, mask: np.ndarray, hgt: int, wid: int) -> float | None:
    """Edge ratio (:data:`FOCUS_EDGE_RATIO`) of the pixels ``mask`` (bool, flat (h*w,)) on
    their own edges: pixels within 2 px of a gradient above 30 % of the area's own strongest
    (99.5th percentile), so a quiet area is judged on its faint lines, not against the
    contrast of a tile elsewhere.  ``grad2``/``lap``: squared gradient and Laplacian, float64
    flat (h*w,).  ``None`` when the area has fewer than :data:`FOCUS_MIN_EDGE_PX` edge pixels:
    too little to tell soft from empty."""
    if not mask.any():
        return None
    strong = float(np.percentile(np.sqrt(grad2[mask]), 99.5))
    if strong <= 0:
        return None
    edges = cv2.dilate(((grad2 > (EDGE_STRENGTH * strong) ** 2) & mask).reshape(hgt, wid).astype(np.uint8),
                       np.ones((5, 5), np.uint8)).ravel().astype(bool) & mask
    if edges.sum() < FOCUS_MIN_EDGE_PX:
        return None
    den = float(grad2[edges].sum())
    return float((lap[edges] ** 2).sum() / den) if den > 0 else None


def frame_edge_ratio(gray: np.ndarray) -> float:
    """Sharpness of a whole grey uint8 (h, w) frame, whatever its contrast: mean squared
    Laplacian over mean squared gradient on its edges (pixels within 2 px of a gradient above
    30 % of the strongest), after a 0.8 px Gaussian; about 1 / blur width squared.  On rendered
    frames: 0.010-0.036 sharp (480x270 to 1080p, board filling 12-95 % of it), 0.0006-0.0017 blurred by 2.5-6 px."""
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.8)
    lap = cv2.Laplacian(g, cv2.CV_32F)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    grad2 = gx * gx + gy * gy
    strong = float(np.percentile(np.sqrt(grad2), 99.5))
    if strong <= 0:
        return 0.0
    edges = cv2.dilate((grad2 > (0.3 * strong) ** 2).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    den = float(grad2[edges].sum())
    return float((lap[edges].astype(np.float64) ** 2).sum() / den) if den > 0 else 0.0


def _small_markers(gray: np.ndarray, geo: BoardGeometry) -> list[float]:
    """Side (px) of each board marker a detector that accepts tiny squares finds in ``gray``
    (uint8 (h, w)), in the frame and enlarged 2x; the normal detector skips squares under about
    14 px at 1080p (``minMarkerPerimeterRate``), where decoding is unsure."""
    from companion.vision.markers import detector_parameters

    params = detector_parameters()
    params.minMarkerPerimeterRate = 0.004
    det = cv2.aruco.ArucoDetector(geo.aruco_dictionary(), params)
    ids = {m.id for m in geo.markers}
    best: dict[int, float] = {}
    for k in (1, 2):
        img = gray if k == 1 else cv2.resize(gray, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
        corners, found, _ = det.detectMarkers(img)
        for c, i in zip(corners, [] if found is None else found.ravel()):
            if int(i) in ids:
                best.setdefault(int(i), cv2.arcLength(c.reshape(4, 2), True) / 4 / k)
    return list(best.values())


def _default_reader(geo: BoardGeometry, intrinsics: Intrinsics | None):
    """A board reader with the built-in profile (what ``read-board`` uses without --profile),
    kept per geometry and intrinsics: the setup page assesses a frame every second."""
    from companion.vision.reader import BoardReader
    key = (id(geo), id(intrinsics))
    if key not in _DEFAULT_READERS:
        _DEFAULT_READERS.clear()
        _DEFAULT_READERS[key] = BoardReader(geo, intrinsics=intrinsics)
    return _DEFAULT_READERS[key]


# --- drawing -----------------------------------------------------------------------------------

GREEN, RED, CYAN, ORANGE, WHITE = (60, 200, 60), (40, 40, 230), (220, 200, 40), (0, 150, 255), (255, 255, 255)


def _text(img: np.ndarray, s: str, org: tuple[int, int], scale: float = 0.5, colour=WHITE, thick: int = 1,
          outline: bool = True) -> None:
    if outline:
        cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _wrap(s: str, width: int) -> list[str]:
    out, line = [], ""
    for word in s.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return out + ([line] if line else [])


def annotate(frame: np.ndarray, rep: SetupReport, geo: BoardGeometry | None = None,
             labels: dict[tuple[int, int], str] | None = None, width: int = 1280) -> np.ndarray:
    """BGR uint8 picture: the frame (scaled to ``width`` px) with markers, the board outline, the
    glare heat map, soft areas and the confidence map drawn on it, and a text panel on the right."""
    geo = geo or load_board()
    labels = labels or space_labels()
    img = frame.copy()
    reg = rep.registration
    lw = max(2, int(round(frame.shape[1] / 640)))
    if reg is not None:
        heat = np.zeros(img.shape[:2], np.float32)
        for h in geo.spaces:
            poly = np.round(reg.to_image(_hex_corners_mm(geo, h))).astype(np.int32)
            name = labels.get(tuple(h), f"{h[0]},{h[1]}")
            c = rep.clipped_by_space.get(name, 0.0)
            if c > 0:
                cv2.fillConvexPoly(heat, poly, min(1.0, c / CLIP_SPACE))
            if rep.confidence is not None and name in rep.confidence:
                v = rep.confidence[name]
                colour = (60, int(60 + 160 * v), int(230 * (1 - v)))
                centre = np.round(reg.to_image(np.array([geo.center_mm(h)]))[0]).astype(int)
                cv2.circle(img, tuple(int(x) for x in centre), max(4, lw * 3), colour, -1, cv2.LINE_AA)
        if heat.any():
            red = np.zeros_like(img)
            red[:] = RED
            a = (0.6 * heat)[:, :, None]
            img = (img * (1 - a) + red * a).astype(np.uint8)
        # board outline: the outer edges of the spaces
        outline = []
        for h in geo.spaces:
            outline.append(reg.to_image(_hex_corners_mm(geo, h)))
        hull = cv2.convexHull(np.vstack(outline).astype(np.float32))
        cv2.polylines(img, [np.round(hull).astype(np.int32)], True, CYAN, lw, cv2.LINE_AA)
        centres = np.array([geo.center_mm(h) for h in geo.spaces])
        bounds = (*(centres.min(0) - geo.hex_size_mm), *(centres.max(0) + geo.hex_size_mm))
        for h in geo.spaces:
            if _area_of(geo, h, bounds) in rep.soft_areas:
                c = np.array(geo.center_mm(h))
                poly = np.round(reg.to_image(c + 0.8 * (_hex_corners_mm(geo, h) - c))).astype(np.int32)
                cv2.polylines(img, [poly], True, ORANGE, lw, cv2.LINE_AA)
    for i, c in (reg.markers_px.items() if reg is not None else []):
        cv2.polylines(img, [np.round(c).astype(np.int32)], True, GREEN, lw + 1, cv2.LINE_AA)
        _text(img, f"{i}", tuple(int(v) for v in c.mean(0) - (0, np.ptp(c[:, 1]) * 0.7)), 0.5 * lw, GREEN, lw)
    for i, c in rep.extra_copies:
        cv2.polylines(img, [np.round(c).astype(np.int32)], True, RED, lw + 1, cv2.LINE_AA)
        _text(img, f"extra {i}", tuple(int(v) for v in c.mean(0) - (np.ptp(c[:, 0]) * 0.6, np.ptp(c[:, 1]) * 0.7)), 0.5 * lw, RED, lw)
    for i, p in rep.missing_px.items():
        q = np.round(p).astype(np.int32)
        cv2.polylines(img, [q], True, RED, lw, cv2.LINE_4)
        x, y = np.clip(p.mean(0), [10, 20], [img.shape[1] - 200, img.shape[0] - 10]).astype(int)
        _text(img, f"marker {i} missing", (int(x), int(y)), 0.5 * lw, RED, lw)
    scale = width / img.shape[1]
    img = cv2.resize(img, (width, int(round(img.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    panel = np.full((img.shape[0], 460, 3), 32, np.uint8)
    y = 28
    status = "camera ready" if rep.ok else "camera needs attention"
    _text(panel, status, (14, y), 0.75, GREEN if rep.ok else ORANGE, 2, outline=False)
    y += 30
    lines = [f"markers found: {rep.found or 'none'}"]
    if rep.missing:
        lines.append(f"missing: {rep.missing}")
    if rep.duplicated:
        lines.append(f"duplicated: {rep.duplicated}")
    if rep.px_per_side_far is not None:
        lines.append(f"px per hex side: nearest {rep.px_per_side_near:.1f}, farthest {rep.px_per_side_far:.1f} "
                     f"(min {MIN_PX_PER_HEX_SIDE:.0f})")
    if rep.focus is not None:
        lines.append(f"focus (Laplacian variance): {rep.focus:.0f}"
                     + (f", soft: {', '.join(rep.soft_areas)}" if rep.soft_areas else ", sharp"))
    if rep.clipped_by_space:
        lines.append(f"spaces unreadable under glare: {len(rep.unreadable_spaces())}")
    if rep.confidence is not None:
        vals = list(rep.confidence.values())
        lines.append(f"confidence: median {np.median(vals):.2f}, lowest {min(vals):.2f}")
    for s in lines:
        for part in _wrap(s, 46):
            _text(panel, part, (14, y), 0.5, outline=False)
            y += 22
    y += 10
    for a in rep.advice:
        for k, part in enumerate(_wrap(a.text, 44)):
            _text(panel, ("- " if k == 0 else "  ") + part, (14, y), 0.48, ORANGE, outline=False)
            y += 20
        y += 6
        if y > panel.shape[0] - 20:
            break
    return np.hstack([img, panel])
