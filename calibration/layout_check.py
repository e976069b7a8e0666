"""Does every space of the calibration photos show what its layout puts there?

:func:`calibration.photo_check.layout_fit` tells a photo of one layout from one of another, but
a photo of the right layout with one piece missing, or one tile turned, still fits it by
90 % and more: the profile would then learn a rock's colour from an empty space, or a path's
colour from the tile's other path, and misread every board.  So each space is checked on its
own, against colours learned from every other space of the photos given (leave one space out;
the photos share one camera and one light):

- the sample points the layout labels on a space (:func:`calibration.colours._labels`, with a
  meeple's cap and a spore chip (a ring at 0.25 hex sizes) in classes of their own, and the edges of a tile under
  a meeple) are grouped by region (middle, ring, each edge, each slot, the meeple's cap) and
  label, and the median colour (white-balanced Lab) of each group is compared with the median
  of each class on the other spaces;
- a group fails when another class is :data:`CLEARLY_NEARER` than its own; a spore chip only
  against the bare board, a meeple only against what it stands on (players' colours lie close
  under some lamps, orange close to wood), and a class no other space shows is not judged (a
  meeple given in one photo only, the one tree of layout 2 alone);
- a space whose groups fail more often than :data:`MIN_SPACE_FIT` allows does not show its
  piece; an empty space is judged in its middle and its rim apart (a piece laid there shows in
  the middle); a tile is also tried at its other rotations, and when one fits
  :data:`TURN_MARGIN` better than the documented one the tile is turned.

Measured with ``bench/calibration_spaces.py`` (figures in ``hardware/camera.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.tiles import parse, rotate_code
from companion.vision import layout as L
from companion.vision.pieces import RING_POINTS
from companion.vision.profile import CLASSES, PLAYERS

MIN_SPACE_FIT = 0.5
"""Share (0-1) of a space's groups of points that must look like their own class: under it the
space does not show what the layout puts there."""
TURN_MARGIN = 0.25
"""How much better (share of groups) another rotation of a tile must fit than the documented
one for the tile to be called turned."""
CLEARLY_NEARER = 1.5
"""A group of points fails its class only when another class is this many times nearer (Lab
distance of the group's median): two classes a photo barely tells apart (board and tree,
board and soil in some arts) must not fail a good photo."""
LAB_NOISE = 3.0
"""Lab units added to the allowed distance: a group's median wanders this much by noise."""
LIGHTER_L = 8.0
"""Lab L units by which a space lighter than its pieces elsewhere is said to be maybe under a
lamp's reflection (noise and shading move a space's median L by a few units)."""
MIN_CLASS_POINTS = 3
"""A class with fewer points on the other spaces is not known: its groups are not judged."""

WHITE = CLASSES.index("white")
BOARD = CLASSES.index("board")
SPORE = {p: len(CLASSES) + i for i, p in enumerate(PLAYERS)}
"""Check classes of a spore chip (:data:`companion.vision.layout.SYM_MID`), apart from the
player's meeple and markers."""
MEEPLE = {p: len(CLASSES) + len(PLAYERS) + i for i, p in enumerate(PLAYERS)}
"""Check classes of a standing meeple (:data:`MEEPLE_POINTS`)."""

LOOKS = {"board": "an empty space", "tile": "a bare tile", "rock": "a rock", "tree": "a tree",
         "slot": "a tree's empty slot", "wood": "a wood substrate", "soil": "a soil substrate",
         "pink": "a pink path", "yellow": "a yellow path", "green": "a green path"}


def looks_like(cls: int) -> str:
    """What a space looks like when most of its points are nearest to check class ``cls``.  A
    player's meeple, spore chip and markers share one colour: any of them is "a red piece"."""
    for p in PLAYERS:
        if cls in _family(CLASSES.index(p)):
            return f"{'an' if p[0] in 'aeiou' else 'a'} {p} piece"
    return LOOKS.get(CLASSES[cls], "something else") if 0 <= cls < len(CLASSES) else "something else"


@dataclass
class SpaceMismatch:
    """One space that does not show its piece.  ``photo``: index of the photo; ``space``:
    (q, r); ``fit``: share (0-1) of its piece points nearest to their own class; ``looks``:
    what it looks like instead (``"an empty space"``); ``turn``: for a tile that fits better
    turned, by how many sixth-turns anticlockwise (as the camera sees the board) it lies from
    where the layout puts it."""

    photo: int
    space: tuple[int, int]
    fit: float
    looks: str
    turn: int | None = None
    lighter: float = 0.0
    """How much lighter (Lab L) the space is than its pieces elsewhere: a lamp's reflection
    lightens a space, and can make a board look like a rock or hide a tree (a missing dark
    piece lightens it too, so the message only says "if a lamp reflects there")."""
    part: str = "piece"
    """Which part fails: ``"meeple"`` (the meeple standing there), ``"piece"`` (what lies on
    the space) or ``"empty"`` (a space the layout leaves empty)."""


def check_labels(layout: dict, spaces: list[tuple[int, int]]) -> np.ndarray:
    """int (S, P) check class per sample point of ``layout``: :func:`calibration.colours._labels`
    with spore rings and meeple centres in classes of their own (:data:`SPORE`,
    :data:`MEEPLE`), and the edges of a tile a meeple stands on labelled by its paths."""
    from calibration.colours import _labels

    lab = _labels(layout, spaces)
    index = {h: i for i, h in enumerate(spaces)}
    meeples = {p: index[(int(a[0]), int(a[1]))] for p, a in layout.get("meeples", {}).items()}
    for p, sp in layout.get("spores", {}).items():
        s = index[(int(sp["at"][0]), int(sp["at"][1]))]
        if meeples.get(p) != s and s not in meeples.values():
            # halfway out on the chip: a chip printed smaller than the layout's 0.5 hex sizes
            # leaves the ring at 0.4 on the board, and the used side's X crosses few of these
            lab[s, L.RING] = -1
            lab[s, L.SYM_MID] = SPORE[p]
    for sub in layout.get("substrates", []):
        s = index[(int(sub["at"][0]), int(sub["at"][1]))]
        if s not in meeples.values():
            # halfway out, like a spore chip: its middle holds a printed symbol, and a token
            # printed smaller than 0.5 hex sizes leaves the ring at 0.4 on the board
            lab[s, L.CENTRE] = -1
            lab[s, L.RING] = -1
            lab[s, L.SYM_MID] = CLASSES.index(sub["kind"])
    for p, s in meeples.items():
        lab[s, L.CENTRE] = -1
        lab[s, MEEPLE_POINTS] = MEEPLE[p]   # where the reader looks for a standing meeple
    ci = {c: i for i, c in enumerate(CLASSES)}
    for t in layout.get("tiles", []):
        s = index[(int(t["at"][0]), int(t["at"][1]))]
        if s in meeples.values():
            colours = parse(t["paths"]).edge_color
            for e in range(6):
                lab[s, L.EDGES.start + e * L.POINTS_PER_EDGE:L.EDGES.start + (e + 1) * L.POINTS_PER_EDGE] = \
                    ci[colours[e] or "tile"]
    return lab


MEEPLE_POINTS = np.r_[np.arange(L.CAP.start, L.CAP.stop), RING_POINTS["core"]]
"""A meeple's cap (raised through the camera pose) and the core of its space, as
:mod:`calibration.colours` learns the meeple from."""
REGIONS = [("meeple", MEEPLE_POINTS), ("chip", L.SYM_MID), ("centre", L.CENTRE), ("ring", L.RING), ("diag", L.DIAG)] + \
    [(f"edge {e}", slice(L.EDGES.start + e * L.POINTS_PER_EDGE, L.EDGES.start + (e + 1) * L.POINTS_PER_EDGE))
     for e in range(6)] + \
    [(f"slot {k}", slice(L.SLOTS.start + k * L.POINTS_PER_SLOT, L.SLOTS.start + (k + 1) * L.POINTS_PER_SLOT))
     for k in range(4)]
"""Parts of a space judged one by one: each region's points of one label are a group whose
median colour is classified (a single point of a textured piece is too noisy to judge)."""


def _family(c: int) -> set[int]:
    """Check classes that count as ``c``: a player's meeple, spore chip and markers share one
    colour, and a spore chip may look like its meeple."""
    for p in PLAYERS:
        fam = {CLASSES.index(p), SPORE[p], MEEPLE[p]}
        if c in fam:
            return fam
    return {c}


def _fit(x: np.ndarray, y: np.ndarray, medians: dict[int, np.ndarray],
         against: set[int] | None = None) -> tuple[float, list[int]]:
    """Share (0-1) of the groups of points ``x`` (P, 3) labelled ``y`` (P,) (per :data:`REGIONS`
    and label) whose median colour is nearest to their own class, and the nearest known class
    of each judged group.  The piece groups (labels other than the board) are judged when
    there are any; a group of a class no other space shows is not judged, and a spore chip's
    ring is only compared with the bare board.  1.0 when nothing can be judged."""
    y = np.where(y == WHITE, -1, y)
    piece = bool(np.any((y >= 0) & (y != BOARD)))
    if not medians:
        return 1.0, []
    cls = np.array(sorted(medians))
    m = np.array([medians[c] for c in cls])
    ok, nearest = [], []
    for _, sl in REGIONS:
        xs, ys = x[sl], y[sl]
        for c in np.unique(ys):
            c = int(c)
            if c < 0 or (piece and c == BOARD):
                continue
            d = np.linalg.norm(m - np.median(xs[ys == c], axis=0), axis=1)
            # a meeple is judged by the meeples of the other photos only: its cap, lit from the
            # side and seen from above, may look unlike its player's spore chip and markers
            own = np.isin(cls, [c] if c in MEEPLE.values() else list(_family(c)))
            if not own.any() or own.all():
                continue   # no other space shows this class: its colour is not known
            # a spore chip's ring is judged against the bare board only: chips vary in size and
            # their two sides in colour, so a chip of the right player may sit nearer another class
            # a meeple only has to look unlike what it stands on (``against``): players' colours
            # lie close together under some lamps, and orange close to wood
            other = ((cls == BOARD) if c in SPORE.values()
                     else np.isin(cls, list(against)) & ~own if c in MEEPLE.values() and against is not None
                     else ~own)
            if not other.any():
                continue
            d_own, d_other = d[own].min(), d[other].min()
            ok.append(d_own <= CLEARLY_NEARER * d_other + LAB_NOISE)
            nearest.append(int(cls[d.argmin()]))
    return (float(np.mean(ok)), nearest) if ok else (1.0, [])


def check_spaces(labs: list[np.ndarray], layouts: list[dict], spaces: list[tuple[int, int]]) -> list[SpaceMismatch]:
    """The spaces of the calibration photos that do not show what their layout puts there,
    worst first.

    ``labs``: per photo, float (S, P, 3) white-balanced Lab samples
    (:meth:`companion.vision.reader.BoardReader.sample`); ``layouts``: per photo, the board part
    of a position; ``spaces``: the (q, r) of each row.  Empty spaces are checked too (a piece
    laid on the wrong space).  The colour of each class is the median of its points on every
    other space of every photo."""
    labels = [check_labels(lay, spaces) for lay in layouts]
    x_all = np.concatenate([x.reshape(-1, 3) for x in labs])
    y_all = np.concatenate([y.reshape(-1) for y in labels])
    per = labels[0].shape[1]
    whole = {}
    for c in np.unique(y_all):
        if c >= 0 and c != WHITE and np.count_nonzero(y_all == c) >= MIN_CLASS_POINTS:
            whole[int(c)] = np.median(x_all[y_all == c], axis=0)
    found = []
    for k, (lab, y_photo, lay) in enumerate(zip(labs, labels, layouts)):
        index = {h: i for i, h in enumerate(spaces)}
        tiles = {index[(int(t["at"][0]), int(t["at"][1]))]: t for t in lay.get("tiles", [])}
        for s, h in enumerate(spaces):
            y = y_photo[s]
            if not np.any(y >= 0):
                continue
            start = (sum(len(v) for v in labels[:k]) * per) + s * per
            others = np.ones(len(y_all), bool)
            others[start:start + per] = False
            medians = dict(whole)
            for c in np.unique(y[y >= 0]):
                c = int(c)
                pts = x_all[others & (y_all == c)]
                if c == WHITE or len(pts) < MIN_CLASS_POINTS:
                    medians.pop(c, None)
                else:
                    medians[c] = np.median(pts, axis=0)
            fit, nearest, part = _space_fit(lab[s], y, medians)
            turn = None
            if s in tiles:
                tile_fit = _fit(lab[s], np.where(np.isin(y, list(MEEPLE.values())), -1, y), medians)[0]
                turn = _turned(lab[s], tiles[s], s, spaces, medians, tile_fit)
            if fit >= MIN_SPACE_FIT and turn is None:
                continue
            if turn is not None:
                part = "piece"
            looks = looks_like(int(np.bincount(nearest).argmax())) if len(nearest) else "something else"
            known = np.array([c in medians for c in y])
            lighter = float(np.median(lab[s][known, 0] - np.array([medians[c][0] for c in y[known]]))) if known.any() else 0.0
            found.append(SpaceMismatch(k, h, fit, looks, turn, lighter, part))
    return sorted(found, key=lambda m: m.fit)


def _space_fit(x: np.ndarray, y: np.ndarray, medians) -> tuple[float, list[int], str]:
    """The worst part of one space: (fit, nearest class per group, ``"meeple"``, ``"piece"`` or
    ``"empty"``).  A meeple is judged apart from what it stands on (it covers only the middle),
    and an empty space's middle apart from the rest (a piece laid there shows in the middle)."""
    meeple = np.isin(y, list(MEEPLE.values()))
    parts = []
    if meeple.any():
        parts.append(("meeple", np.where(meeple, y, -1)))
        rest = np.where(meeple, -1, y)
        if np.any((rest >= 0) & (rest != BOARD)):
            parts.append(("piece", rest))
    elif np.any((y >= 0) & (y != BOARD)):
        parts.append(("piece", y))
    else:
        middle = np.full_like(y, -1)
        middle[L.CENTRE] = y[L.CENTRE]
        parts += [("empty", middle), ("empty", np.where(middle >= 0, -1, y))]
    under = {int(c) for c in np.unique(y[~meeple]) if c >= 0} | {BOARD}
    scored = [(*_fit(x, part, medians, under if name == "meeple" else None), name) for name, part in parts]
    return min(scored, key=lambda t: t[0])


def _turned(x, tile: dict, s: int, spaces, medians, fit: float) -> int | None:
    """Sixth-turns (1-5) by which the tile at row ``s`` lies turned from the layout, when one
    rotation fits :data:`TURN_MARGIN` better than the documented one; else ``None``."""
    laid = parse(tile["paths"]).edge_color
    best, best_k = fit, None
    for k in range(1, 6):
        code = rotate_code(tile["paths"], k)
        if parse(code).edge_color == laid:
            continue  # a symmetric tile looks the same turned
        f, _ = _fit(x, check_labels({"tiles": [{**tile, "paths": code}]}, spaces)[s], medians)
        if f > best:
            best, best_k = f, k
    return best_k if best_k is not None and best >= fit + TURN_MARGIN else None


TURNS = ("as printed", "turned 1/6 anticlockwise", "turned 1/3 anticlockwise", "turned half round",
         "turned 1/3 clockwise", "turned 1/6 clockwise")
"""How far a tile is turned, in the words of the layout pictures
(:data:`companion.sim.layout_picture.TURNS`)."""


def _what(layout: dict, h: tuple[int, int], part: str) -> str:
    """What ``layout`` puts on space ``h``, as the list beside its picture says it."""
    from companion.sim.layout_picture import piece_lines

    lines = [what for (label, what) in piece_lines(layout, {h: "here"}) if label == "here"]
    if part == "meeple":
        lines = [w for w in lines if "meeple" in w]
    elif part == "piece":
        lines = [w for w in lines if "meeple" not in w] or lines
    return " and ".join(_an(w.replace("tree: ", "tree with markers ")) for w in lines) or "nothing"


def _an(words: str) -> str:
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


def describe(m: SpaceMismatch, layout: dict, label: str) -> str:
    """One clause for the user: ``C3 should hold a tree, four empty slots: it looks like an empty
    space``.  ``label``: the space as the dashboard and the layout pictures name it."""
    glare = (f" (it is lighter than the same pieces elsewhere: if a lamp reflects there, move the lamp)"
             if m.lighter > LIGHTER_L else "")
    if m.part == "empty":
        return f"{label} should be empty: it looks like {m.looks}{glare}"
    what = _what(layout, m.space, m.part)
    if m.turn is not None:
        tile = next(t for t in layout.get("tiles", []) if tuple(t["at"]) == tuple(m.space))
        laid = (int(tile.get("rotation", 0)) + m.turn) % 6
        where = TURNS[laid] if tile.get("tile") else f"turned {m.turn} sixth-turn(s) anticlockwise from there"
        return f"{label} should hold {what}: it lies {where}"
    return f"{label} should hold {what}: it looks like {m.looks}{glare}"
