"""Colour profile and piece appearance from 1-3 photos of the calibration layouts
(``calibrate pieces``, formerly ``calibrate colours``).

A layout (``companion/vision/calibration_layouts/N.json``, or a file of the same format) says
what lies on which space.  Every sample point of :mod:`companion.vision.layout` whose surface
is known there is white-balanced against the markers, converted to Lab and filed under its
class; each class gets the mean and a widened standard deviation.  A tile shows several path
colours side by side, so its colours are taken instead from where its code and rotation put
each path (:func:`companion.vision.layout.tile_colour_offsets`): each path colour along the
outer part of its own path, the bare tile away from every path.  The meeples and spores
shown are learned as pieces (:mod:`companion.vision.pieces`): each meeple's colour as the
camera sees it and the ring statistics of each spore side.  Layout 1 alone (the only one
older versions knew) teaches every colour and the unused spore sides; layouts 2 and 3 add
the used sides and meeples standing on tiles and on spores.  A new copy of the game, a warm
lamp or a new camera is then one to three photos away.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from calibration.intrinsics import load_intrinsics
from companion.tiles import parse
from companion.vision import layout as L
from companion.vision.errors import VisionError
from companion.vision.pieces import (PLAYERS, PROFILE_RADII, RING_POINTS, STATS, PieceModel, profile_distance,
                                     profile_offsets, radial_profile, symbol_features, z_distance)
from companion.vision.profile import CLASSES, MIN_STD, ColourProfile, fit_white_field, white_balance
from companion.vision.reader import BoardReader, read_image
from companion.vision.registration import BoardTracker

LAYOUTS_DIR = Path(__file__).resolve().parent.parent / "companion" / "vision" / "calibration_layouts"
LAYOUT_PATH = LAYOUTS_DIR / "1.json"
LAYOUT_NUMBERS = (1, 2, 3)
OLD_LAYOUTS_DIR = LAYOUTS_DIR / "old"
"""The layouts of earlier versions (``--layout old-1``, ``old-2``, ``old-3``): their tiles carry
one path colour each (``P03``, ``Y024``...), which no copy of the game has.  Photos of them
(taken with a home-made set, or by a simulator) still calibrate."""
OLD_LAYOUT_NAMES = tuple(f"old-{n}" for n in LAYOUT_NUMBERS)
STD_WIDEN = 1.3
"""Standard deviations are widened by this factor (plus MIN_STD) to tolerate light changes."""
L_WIDEN = 1.6
"""Extra widening of lightness: shadows and uneven light move L far more than a and b."""


def load_layout(path: str | Path | int | None = None) -> dict:
    """A calibration layout (board part of a position): ``None`` or 1-3 for the documented
    layouts, ``old-1`` to ``old-3`` for those of earlier versions (:data:`OLD_LAYOUTS_DIR`),
    else a JSON file.  Raises VisionError."""
    if path is None or str(path) in {str(n) for n in LAYOUT_NUMBERS}:
        p = LAYOUTS_DIR / f"{int(path or 1)}.json"
    elif str(path) in OLD_LAYOUT_NAMES:
        p = OLD_LAYOUTS_DIR / f"{str(path)[4:]}.json"
    else:
        p = Path(path)
        if (str(path).isdigit() or str(path).startswith("old-")) and not p.exists():
            raise VisionError(f"there is no calibration layout {path}: give 1, 2 or 3 (hardware/camera.md#calibration-layouts), "
                              "old-1, old-2 or old-3 for the layouts of earlier versions, or a layout JSON file")
    try:
        return json.loads(Path(p).read_text())
    except (OSError, ValueError) as exc:
        raise VisionError(f"cannot read calibration layout {p}: {exc}") from exc


def tiles_not_in_edition(layout: dict, edition_dir: str | Path | None = None) -> list[str]:
    """Codes of the tiles of ``layout`` that are no tile type of the edition (the layouts of
    earlier versions used tiles of one path colour, such as ``P03``), in layout order, each once."""
    from companion.tiles import canonical
    from companion.vision.geometry import DEFAULT_EDITION, load_tile_codes

    known = {canonical(c) for c in load_tile_codes(edition_dir or DEFAULT_EDITION)}
    out = []
    for t in layout.get("tiles", []):
        code = str(t.get("paths", ""))
        try:
            unknown = canonical(code) not in known
        except ValueError:
            unknown = True
        if unknown and code not in out:
            out.append(code)
    return out


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
    """Profile from one photo of a layout (layout 1 by default); see :func:`calibrate_pieces`."""
    return calibrate_pieces([image], intrinsics, [layout], frames=None if frame is None else [frame])


MEEPLE_STD_WIDEN = 1.0
"""A meeple's colour spreads more than a flat piece's: its sides are shaded."""


def calibrate_pieces(images: list, intrinsics=None, layouts: list | None = None,
                     frames: list | None = None) -> tuple[ColourProfile, dict]:
    """Profile (colours and pieces) from photos of the calibration layouts.

    ``images``: 1-3 paths; ``intrinsics``: a path or :class:`Intrinsics`; ``layouts``: for each image a layout number (1-3), file or dict,
    default 1, 2, 3 in order; ``frames``: already decoded BGR uint8 (h, w, 3) images instead
    of reading ``images``.  Returns the profile and a JSON summary: samples per class, per
    class separation (:func:`separation`), what was learned of the pieces and the photos'
    registration.  Raises VisionError when a photo shows no board or too little of a class.
    """
    n = len(frames) if frames is not None else len(images)
    if not 1 <= n <= 3:
        raise VisionError(f"give 1 to 3 calibration photos, got {n}")
    layouts = list(layouts or []) + [None] * n
    lays = []
    for k in range(n):
        lay = layouts[k] if layouts[k] is not None else (LAYOUT_NUMBERS[k] if k < 3 else None)
        lays.append(lay if isinstance(lay, dict) else load_layout(lay))
    intr = load_intrinsics(intrinsics) if isinstance(intrinsics, (str, Path)) else intrinsics
    dummy = ColourProfile(np.zeros((len(CLASSES), 3), np.float32), np.ones((len(CLASSES), 3), np.float32))
    reader = BoardReader(profile=dummy, intrinsics=intr, tile_codes=[])
    spaces = list(reader.geo.spaces)
    labs, labels, reproj, regs = [], [], [], []
    if frames is None:
        frames = [read_image(p) for p in images]
    for k in range(n):
        img = frames[k]
        reg = BoardTracker(reader.geo, intr).register(img)  # each photo registered on its own
        regs.append(reg)
        lab = reader.sample(img, reg)
        labs.append(lab)
        labels.append(_labels(lays[k], spaces))
        reproj.append(round(float(reg.reprojection_px), 3))
    # the colours of the tiles come from where the layout says each path runs (one tile shows
    # all three path colours), not from the reader's fixed sample points
    tile_lab, tile_labels = [], []
    for k in range(n):
        for cls, x in _tile_samples(reader.geo, frames[k], regs[k], lays[k]).items():
            tile_lab.append(x)
            tile_labels.append(np.full(len(x), CLASSES.index(cls), np.int64))
        for t in lays[k].get("tiles", []):
            labels[k][spaces.index((int(t["at"][0]), int(t["at"][1])))] = -1
    flat_lab = np.concatenate([x.reshape(-1, 3) for x in labs] + tile_lab)
    flat_labels = np.concatenate([x.ravel() for x in labels] + tile_labels)
    mean = np.zeros((len(CLASSES), 3), np.float32)
    std = np.zeros((len(CLASSES), 3), np.float32)
    counts = {}
    for i, c in enumerate(CLASSES):
        x = flat_lab[flat_labels == i]
        if len(x) < 3:
            raise VisionError(f"calibration layouts show too little {c!r} ({len(x)} samples): check the layout files")
        mean[i], std[i], counts[c] = _robust_class(x)
        std[i, 0] *= L_WIDEN
    sizes = {(int(f.shape[1]), int(f.shape[0])) for f in frames}
    if len(sizes) > 1:
        raise VisionError("the calibration photos differ in size (" + ", ".join(f"{w}x{h}" for w, h in sorted(sizes))
                          + " px): take them all with the mounted camera at the size it plays at")
    profile = ColourProfile(mean, std, frame_size=sizes.pop())
    profile.pieces, piece_summary = _learn_pieces(labs, lays, spaces)
    profile.pieces.side_profile = prof = _learn_side_profiles(reader.geo, frames, regs, lays)
    for p_i, p in enumerate(PLAYERS):
        if np.isfinite(prof[p_i]).all():
            # how far the used side's profile stays from the unused one's at every size tried
            piece_summary["spores"][p]["profile_distance"] = round(float(profile_distance(prof[p_i, 1][None], prof[p_i, 0])[0]), 2)
    odd = [(k, tiles_not_in_edition(lay)) for k, lay in enumerate(lays)]
    names = [str(images[k]) if images and k < len(images) else f"photo {k + 1}" for k in range(n)]
    summary = {"layout_notes": [f"the layout of {names[k]} has tiles no copy of the game has ({', '.join(codes)}): "
                                "the photo was learned from as it is; the current layouts 1, 2, 3 "
                                "(hardware/camera.md#calibration-layouts) use the game's own tiles"
                                for k, codes in odd if codes],
               "samples": int(sum(counts.values())), "per_class": counts,
               "separation": separation(profile), "pieces": piece_summary,
               "reprojection_px": reproj[0] if n == 1 else reproj}
    return profile, summary


def sample_board_points(geo, frame: np.ndarray, reg, pts_mm: np.ndarray) -> np.ndarray:
    """White-balanced Lab float32 (n, 3) of ``frame`` (BGR uint8) at board points ``pts_mm``
    (float (n, 2), mm), balanced against the white paper around the markers the registration
    ``reg`` saw, as the reader balances its own sample points
    (:meth:`companion.vision.reader.BoardReader.balance`)."""
    import cv2

    ids = [m.id for m in geo.markers]
    marker_xy = np.array([m.center_mm for m in geo.markers], np.float32)
    wref = L.white_reference_offsets_mm(geo.marker_size_mm)
    white_pts = reg.shift_marker_points((marker_xy[:, None, :] + wref[None]).reshape(-1, 2), ids)
    px = reg.to_image(np.vstack([np.asarray(pts_mm, np.float32).reshape(-1, 2), white_pts]))
    bgr = cv2.remap(frame, np.ascontiguousarray(px[:, :1]), np.ascontiguousarray(px[:, 1:]), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
    n = len(pts_mm)
    white_bgr = bgr[n:].reshape(len(ids), -1, 3)
    seen = [k for k, i in enumerate(ids) if i in reg.markers_px]
    marker_white = np.median(white_bgr[seen], axis=1) if seen else np.zeros((0, 3), np.float32)
    return white_balance(bgr[:n], fit_white_field(marker_xy[seen], marker_white, np.asarray(pts_mm, np.float32)))


def _learn_side_profiles(geo, frames: list, regs: list, lays: list[dict]) -> np.ndarray:
    """float32 (4, 2, R) radial profile (:func:`companion.vision.pieces.radial_profile`) of
    each player's spore, unused [:, 0] and used [:, 1] side, averaged over the photos that show
    it with no meeple on it; NaN where none does (one photo of layout 1: the used sides)."""
    out = np.full((len(PLAYERS), 2, len(PROFILE_RADII)), np.nan, np.float32)
    offsets = geo.hex_size_mm * profile_offsets()
    for p_i, p in enumerate(PLAYERS):
        sides: dict[int, list] = {0: [], 1: []}
        for frame, reg, lay in zip(frames, regs, lays):
            sp = lay.get("spores", {}).get(p)
            if sp is None or lay.get("meeples", {}).get(p) == sp["at"]:
                continue
            centre = np.asarray(geo.center_mm((int(sp["at"][0]), int(sp["at"][1]))), np.float32)
            lab = sample_board_points(geo, frame, reg, centre[None] + offsets)
            sides[int(bool(sp["used"]))].append(radial_profile(lab[None])[0])
        for k in (0, 1):
            if sides[k]:
                out[p_i, k] = np.mean(sides[k], axis=0)
    return out


def _tile_samples(geo, frame: np.ndarray, reg, layout: dict) -> dict[str, np.ndarray]:
    """Lab float32 (n, 3) per class (a path colour, ``tile`` for the bare tile) from every tile
    of ``layout`` no meeple stands on, taken where the tile's code and rotation put that colour
    (:func:`companion.vision.layout.tile_colour_offsets`)."""
    under_meeples = {tuple(int(v) for v in m) for m in layout.get("meeples", {}).values()}
    pts, classes = [], []
    for t in layout.get("tiles", []):
        at = (int(t["at"][0]), int(t["at"][1]))
        if at in under_meeples:
            continue  # a standing meeple hides a different part of its tile from every camera
        centre = np.array(geo.center_mm(at), np.float32)
        for cls, off in L.tile_colour_offsets(t["paths"]).items():
            pts.append(centre + geo.hex_size_mm * off)
            classes += [cls] * len(off)
    if not pts:
        return {}
    lab = sample_board_points(geo, frame, reg, np.concatenate(pts))
    classes = np.array(classes)
    return {c: lab[classes == c] for c in np.unique(classes)}


def _robust_class(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    med = np.median(x, axis=0)
    keep = x[np.all(np.abs(x - med) <= 3 * (np.percentile(np.abs(x - med), 75, axis=0) + 2), axis=1)]
    return keep.mean(0), keep.std(0) * STD_WIDEN + MIN_STD, int(len(keep))


POOR_SEPARATION = 0.5
"""Separation (pooled standard deviations, :func:`separation`) under which two classes are
confused: ``calibrate pieces`` refuses the photos (glare, mixed-up layouts).  Sharp photos of the
three layouts give 0.7-0.8 for the closest pairs (board/tree, tile/slot), one photo under a
glare spot 0.0 (tile/slot)."""
TOLD_APART_BY_PLACE = {("slot", "tile")}
"""Class pairs (sorted) the reader tells apart by where they lie on a space (a tree's
mycorrhiza slot is only ever read on a tree), so a small separation is warned about, never
refused: plain art gives slot and tile 0.3-0.45 in good light (``meadow`` in the simulator)."""
TOLD_APART_BY_LOOK = {tuple(sorted((p, sub))) for p in ("blue", "orange", "red", "black") for sub in ("wood", "soil")}
"""Class pairs (sorted) the reader also tells apart by the learned look of the piece (a meeple
is a standing piece; a substrate token is read by its texture rings,
:func:`companion.vision.pieces.nearest_token`), so a small colour separation is warned about,
never refused: a warm lamp brings orange and wood to 0.5 in the simulator's ``bands`` art, which
the reader still reads (``bench/vision.py``)."""
FAIR_SEPARATION = 0.65
"""Separation under which ``calibrate pieces`` keeps the profile but warns."""
SEPARATION_SKIP = ("white",)
"""Classes left out of :func:`separation`: the spore symbol is judged by its own ring
statistics (:mod:`companion.vision.pieces`), not by one colour."""


def separation(profile: ColourProfile) -> dict:
    """Per class: its nearest other class and how far apart their means are, in pooled
    (widened) standard deviations.  Under 1 the two are told apart only by where they lie on
    the space (a tree slot and a tile, say); under 0.5 the photo or the light is poor."""
    out = {}
    for i, c in enumerate(CLASSES):
        best = (np.inf, "")
        if c in SEPARATION_SKIP:
            continue
        for j, o in enumerate(CLASSES):
            if i == j or o in SEPARATION_SKIP:
                continue
            d = (profile.mean[i] - profile.mean[j]) / np.sqrt(profile.std[i] ** 2 + profile.std[j] ** 2)
            best = min(best, (float(np.sqrt(np.mean(d * d)) * np.sqrt(3)), o))
        out[c] = {"nearest": best[1], "distance": round(best[0], 2)}
    return out


def _learn_pieces(labs: list[np.ndarray], lays: list[dict], spaces: list) -> tuple[PieceModel, dict]:
    """Meeple colours and ring statistics, spore sides, from the layouts' meeples and spores."""
    index = {h: i for i, h in enumerate(spaces)}
    occupied = []
    for lay in lays:
        occ = {tuple(t["at"]) for t in lay.get("tiles", [])} | {tuple(r) for r in lay.get("rocks", [])}
        occ |= {tuple(t["at"]) for t in lay.get("trees", [])} | {tuple(s["at"]) for s in lay.get("substrates", [])}
        occ |= {tuple(s["at"]) for s in lay.get("spores", {}).values()}
        occupied.append(occ)
    cap_core = np.r_[np.arange(L.CAP.start, L.CAP.stop), RING_POINTS["core"]]
    meeple_mean = np.zeros((4, 3), np.float32)
    meeple_std = np.zeros((4, 3), np.float32)
    meeple_rings = np.full((4, 3, STATS), np.nan, np.float32)
    spore = np.full((4, 2, 3, STATS), np.nan, np.float32)
    on_spore = np.full((4, 3, STATS), np.nan, np.float32)
    summary: dict = {"meeples": {}, "spores": {}}
    for p_i, p in enumerate(PLAYERS):
        px, rings = [], []
        for lab, lay, occ in zip(labs, lays, occupied):
            at = lay.get("meeples", {}).get(p)
            if at is None:
                continue
            s = index[(int(at[0]), int(at[1]))]
            px.append(lab[s, cap_core])
            if tuple(at) not in occ:  # ring statistics of a meeple on an empty space
                rings.append(symbol_features(lab[s:s + 1])[0])
        if not px:
            raise VisionError(f"the calibration layouts show no {p} meeple: check the layout files")
        x = np.concatenate(px)
        m, sd, _ = _robust_class(x)
        meeple_mean[p_i], meeple_std[p_i] = m, sd * MEEPLE_STD_WIDEN
        if rings:
            meeple_rings[p_i] = np.mean(rings, axis=0)
        sides: dict[int, list] = {0: [], 1: []}
        covered = []
        for lab, lay in zip(labs, lays):
            sp = lay.get("spores", {}).get(p)
            if sp is not None and lay.get("meeples", {}).get(p) == sp["at"]:
                # a covered spore shows little of its side, but its chip around the meeple
                covered.append(symbol_features(lab[index[(int(sp["at"][0]), int(sp["at"][1]))]][None])[0])
            if sp is None or lay.get("meeples", {}).get(p) == sp["at"]:
                continue
            s = index[(int(sp["at"][0]), int(sp["at"][1]))]
            sides[int(bool(sp["used"]))].append(symbol_features(lab[s:s + 1])[0])
        for k in (0, 1):
            if sides[k]:
                spore[p_i, k] = np.mean(sides[k], axis=0)
        if covered:
            on_spore[p_i] = np.mean(covered, axis=0)
    if np.isnan(meeple_rings).any():
        raise VisionError("the calibration layouts need every meeple once on an empty space (layout 1 has them)")
    if np.isnan(spore[:, 0]).any():
        raise VisionError("the calibration layouts need every spore once uncovered on its unused side (layout 1 has them)")
    substrate = np.full((2, 3, STATS), np.nan, np.float32)
    for k, kind in enumerate(("wood", "soil")):
        feats = [symbol_features(lab[index[(int(sub["at"][0]), int(sub["at"][1]))]][None])[0]
                 for lab, lay in zip(labs, lays) for sub in lay.get("substrates", []) if sub["kind"] == kind
                 and list(sub["at"]) not in [list(v) for v in lay.get("meeples", {}).values()]]
        if feats:
            substrate[k] = np.mean(feats, axis=0)
    model = PieceModel(meeple_mean, meeple_std, meeple_rings, spore, None if np.isnan(substrate).any() else substrate,
                       None if np.isnan(on_spore).any() else on_spore)
    for p_i, p in enumerate(PLAYERS):
        d_core = float(z_distance(spore[p_i, 0][None], meeple_rings[p_i], slice(0, 1))[0])
        summary["meeples"][p] = {"lab": [round(float(v), 1) for v in meeple_mean[p_i]],
                                 "core_distance_from_unused_spore": round(d_core, 2)}
        entry = {"sides_learned": [n for k, n in enumerate(("unused", "used")) if not np.isnan(spore[p_i, k]).any()]}
        if len(entry["sides_learned"]) == 2:
            entry["side_distance"] = round(float(z_distance(spore[p_i, 1][None], spore[p_i, 0])[0]), 2)
        summary["spores"][p] = entry
    return model, summary


def close_pairs(sep: dict, bound: float, by_place: bool = True) -> list[tuple[str, str, float]]:
    """The class pairs of :func:`separation` ``sep`` closer than ``bound``, each once, closest
    first: (class, nearest class, distance); without the pairs of :data:`TOLD_APART_BY_PLACE`
    and :data:`TOLD_APART_BY_LOOK` when ``by_place`` is False."""
    pairs = {}
    for c, v in sep.items():
        pair = tuple(sorted((c, v["nearest"])))
        if v["distance"] < bound and (by_place or pair not in TOLD_APART_BY_PLACE | TOLD_APART_BY_LOOK):
            pairs.setdefault(pair, v["distance"])
    return sorted(((a, b, d) for (a, b), d in pairs.items()), key=lambda t: t[2])

