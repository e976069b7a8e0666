"""Spaces something covers: a hand, a sleeve, a phone, a mug, a card, the rulebook.

Every piece the profile learned explains its own space well: the score of the piece read
(:attr:`companion.vision.classify.SpaceReading.fit`, the weighted mean clipped log-likelihood per
sample point) stays above a floor per kind on every clean board of the tuning styles and lights
(-3 for the empty board, -7 for a spore), while an object over a space leaves no piece that
explains it: its best piece scores -5 to -12 where the object covers it whole.  An object's rim, or a part of it coloured like a piece (a
beige sleeve over a wood substrate, white paper over a tile), may still score like a poorly
lit piece, so the test is made over regions: a space whose best piece scores under
:data:`SEED_FIT` is covered, and so is every space joined to it through neighbours scoring
under :data:`GROW_FIT` (an object lies over connected spaces; a clean board shows no seed at
all, so growing costs nothing there).  The floors move down with the frame's own level of fit
(:func:`frame_offset`): another copy's art under another lamp explains all its pieces less
well.  Figures: docs/simulated-camera.md, "Objects over the board".

A region whose every seed fits its piece once a faint colourless veil is taken off is the edge
of a lamp's spot, not an object (:func:`glare_explains`): it is reported as glare.
"""

from __future__ import annotations

import numpy as np

from companion.hexgrid import DIRECTIONS

SEED_FIT = {"empty": -3.6, "rock": -3.4, "tile": -6.4, "tree": -7.0, "wood": -5.9, "soil": -5.9, "spore": -7.6}
"""Per kind read, the score under which a space is covered: about 0.5 below the least any
clean space read as that kind scored on the tuning styles under daylight and the warm lamps
(2,200 spaces: empty -2.99, rock -2.67, tile -5.91, tree -6.47 (its mycorrhiza markers fit no
tree colour), substrate -5.34, spore -7.10; docs/simulated-camera.md)."""
GROW_FIT = {"empty": -2.7, "rock": -2.7, "tile": -5.0, "tree": -5.9, "wood": -4.7, "soil": -4.7, "spore": -5.3}
"""Per kind read, the score under which a neighbour of a covered space is covered too: what
about 1 to 5 clean spaces in 100 of that kind score."""
REFERENCE_FIT = {"empty": -1.96, "rock": -1.84, "tile": -3.17, "tree": -4.90, "wood": -3.27, "soil": -3.27, "spore": -3.49}
"""Per kind read, the median score of clean spaces on the tuning styles (the boards the floors
were measured on).  Another copy of the game, or another lamp, may explain all its pieces less
well: on the independent renderer's photos (``../shared/cases/vision``) every kind scored 0.9-1.6
lower (:func:`frame_offset`), and the floors move down with it."""


def fits(readings) -> np.ndarray:
    """float64 (S,) the score of the piece read on each reading
    (:attr:`companion.vision.classify.SpaceReading.fit`), NaN where none was kept."""
    return np.array([np.nan if r.fit is None else r.fit for r in readings], np.float64)


def frame_offset(fit, kinds: list[str]) -> float:
    """How much worse than :data:`REFERENCE_FIT` this frame's pieces fit: the median over the
    spaces not under their kind's :data:`SEED_FIT` of (score - reference of its kind), at most
    0 (floors never rise above the measured ones).  ``fit``: float (S,), NaN where unknown."""
    d = [f - REFERENCE_FIT[k] for f, k in zip(np.asarray(fit, np.float64), kinds)
         if k in REFERENCE_FIT and not np.isnan(f) and f >= SEED_FIT[k]]
    return min(0.0, float(np.median(d))) if d else 0.0


def kind_offsets(fit, kinds: list[str], offset: float = 0.0) -> dict[str, float]:
    """Per kind, how much better or worse than :data:`REFERENCE_FIT` this frame's pieces of that
    kind fit: the median over the spaces of the kind not under its :data:`SEED_FIT` of (score -
    reference), where at least :data:`KIND_MIN_SPACES` such spaces were read, else the same
    median over every kind; never under ``offset`` (:func:`frame_offset`).  A copy whose art the profile knows
    well (the reference copy: its trees score about -3.3 where the tuning styles' score -4.9)
    shows an object's rim over a piece, scoring -5.3, as the poor fit it is there."""
    fit = np.asarray(fit, np.float64)
    names = list(REFERENCE_FIT)
    at = np.array([names.index(k) if k in REFERENCE_FIT else -1 for k in kinds])
    known = at >= 0
    ref = np.array([REFERENCE_FIT[k] for k in names])[at]
    seed = np.array([SEED_FIT[k] for k in names])[at]
    with np.errstate(invalid="ignore"):
        ok = known & ~np.isnan(fit) & (fit >= seed)
    d = fit - ref
    level = float(np.median(d[ok])) if ok.any() else offset
    out = {}
    for i, k in enumerate(names):
        mine = d[ok & (at == i)]
        out[k] = max(offset, float(np.median(mine)) if len(mine) >= KIND_MIN_SPACES else level)
    return out


KIND_MIN_SPACES = 3
"""Least spaces of a kind read on a frame for :func:`kind_offsets` to take that kind's own level."""


def covered_spaces(fit: np.ndarray, kinds: list[str], spaces: list[tuple[int, int]], skip: np.ndarray | None = None,
                   no_seed: np.ndarray | None = None, offset: float = 0.0,
                   grow_offsets: dict[str, float] | None = None, greyed: np.ndarray | None = None) -> np.ndarray:
    """bool (S,): the spaces something covers.

    ``fit``: float (S,) score of the piece read on each space (NaN where a reading was decided
    otherwise: never a seed, never grown into); ``kinds``: the kind read on each; ``spaces``:
    axial (q, r) of each, in the same order; ``skip``: bool (S,) spaces already explained otherwise (unreadable under glare),
    never seeds nor grown through; ``no_seed``: bool (S,) spaces that may be grown into but
    are no seed (a meeple was seen there: the score of the piece read without it says little).
    Seeds score under :data:`SEED_FIT` of their kind; the region grows through neighbours
    scoring under :data:`GROW_FIT` of theirs; both lowered by ``offset`` (:func:`frame_offset`,
    <= 0: how much worse the frame's pieces fit than those the floors were measured on).
    ``grow_offsets``: per kind, the offset of :data:`GROW_FIT` instead (:func:`kind_offsets`: a
    frame whose pieces fit better than the tuning styles' grows into the neighbours that fit
    worse than its own pieces of that kind, as an object's rim does).  ``greyed``: bool (S,)
    spaces grown into whatever they score, never seeds (:func:`glare_greyed`: a rock under a
    glare spot, which added light fakes from any dark surface).
    """
    fit = np.asarray(fit, np.float64)
    ok = ~np.isnan(fit) if skip is None else ~np.isnan(fit) & ~np.asarray(skip, bool)
    seed_at = np.array([SEED_FIT.get(k, -np.inf) for k in kinds]) + min(offset, 0.0)
    if grow_offsets is None:
        grow_at = np.array([GROW_FIT.get(k, -np.inf) for k in kinds]) + min(offset, 0.0)
    else:
        grow_at = np.array([GROW_FIT.get(k, -np.inf) + grow_offsets.get(k, min(offset, 0.0)) for k in kinds])
    with np.errstate(invalid="ignore"):
        seeds = ok & (fit < seed_at)
        weak = ok & (fit < grow_at)
    if greyed is not None:
        weak |= ok & np.asarray(greyed, bool)
    if no_seed is not None:
        seeds &= ~np.asarray(no_seed, bool)
    out = seeds.copy()
    if not seeds.any():
        return out
    where = {tuple(int(v) for v in h): i for i, h in enumerate(spaces)}
    todo = list(np.flatnonzero(seeds))
    while todo:
        q, r = spaces[todo.pop()]
        for dq, dr in DIRECTIONS:
            j = where.get((int(q) + dq, int(r) + dr))
            if j is not None and weak[j] and not out[j]:
                out[j] = True
                todo.append(j)
    return out


GREYED_KINDS = ("rock",)
"""Kinds read as one even grey over the whole space: what a lamp's reflection makes of any dark
surface (a phone's glass, a mug's coffee, a dark sleeve) under its spot (:func:`glare_greyed`)."""


def glare_greyed(kinds: list[str], glared: np.ndarray) -> np.ndarray:
    """bool (S,): the spaces read as one of :data:`GREYED_KINDS` under a glare spot (``glared``,
    bool (S,): lifted by the fitted spot, :meth:`companion.vision.reader.BoardReader._glared`).

    A reflection adds the lamp's light, the same in every channel once white-balanced, so it
    turns any dark surface under it toward an even light grey: a rock's colour.  The spot fitted
    to the frame is fitted to the reading, which already calls that surface a rock, so it takes
    off too little there and the rock fits as well as a printed one (a mug's coffee under
    ``glare 90`` scored -1.7 to -2.1, a clean rock's median is -1.84).  Such a rock says nothing
    against an object: joined to spaces something covers it is covered too
    (:func:`covered_spaces`); elsewhere it stands."""
    rock = np.array([k in GREYED_KINDS for k in kinds], bool)
    return rock & np.asarray(glared, bool)


SPOT_EXPLAINS = 0.75
"""Share of the covered spaces under a fitted glare spot, counted without the spot taken off,
that may stay covered once it is taken off for the spot to be kept as glare
(:func:`spot_explains`): at most 0.5 under the glare spots of the tuning styles, 1.1 or more
under the hands of the user's photos; halfway between."""


SPOT_OBJECT_SPACES = 8
"""Least lifted spaces covered without the spot taken off for :func:`spot_explains` to call a
spot under which the camera clipped an object: the user's hands covered 13-22; a spot that
merely fits poorly (the reference renderer's glare, 8 bits added alike to every surface) leaves
0-5, and stays glare.  A spot under which nothing clipped keeps the allowance only while taking it off
leaves no more spaces covered than before: a flat sheet of paper (as white as the markers'
paper, lit like the board) clips nothing, and the spot fitted to it explains none of its spaces."""


def spot_explains(covered_with: np.ndarray, covered_without: np.ndarray, lifted: np.ndarray,
                  clipped: bool = True) -> bool:
    """Whether a fitted glare spot is a lamp's reflection rather than an object: taking it off
    leaves the spaces it lifts fitting their pieces.

    ``covered_with``, ``covered_without``: bool (S,) the spaces :func:`covered_spaces` finds with
    the spot taken off and on the camera's samples as they are; ``lifted``: bool (S,) the
    unclipped spaces the spot lifts.  A reflection adds light in linear light, the same in every
    channel, so taking it off gives back the pieces under it: on the tuning styles under glare
    45, glare 90 and clipping glare (36 boards), of 4-31 lifted spaces covered as they are, at
    most half stayed covered with the spot off, most often none (docs/simulated-camera.md).  A
    hand, a sleeve or a bright card lying there is not light added to the pieces but a surface
    of its own (skin texture, edges): the spot fitted to it leaves as many spaces covered as
    before, or more (13-22 before, 17-32 after, on hands painted over reference photos).  The spot is kept when at most
    :data:`SPOT_EXPLAINS` of the spaces covered without it stay covered with it, when none is
    covered with it, or when fewer than :data:`SPOT_OBJECT_SPACES` are covered without it and
    either the camera ``clipped`` under the spot or taking it off leaves no more spaces covered
    than before.  A spot fitted to a flat sheet of paper (4 spaces, 3 covered without it and 4
    with it, nothing clipped) is an object; a mild reflection on ``bands`` under glare 45 (12
    spaces lifted, 4 covered with it and without it, nothing clipped) stays glare.
    """
    with_spot = int(np.sum(np.asarray(covered_with, bool) & np.asarray(lifted, bool)))
    without = int(np.sum(np.asarray(covered_without, bool) & np.asarray(lifted, bool)))
    # where nothing clipped, only a spot whose removal leaves more spaces unexplained than
    # before is an object: a reflection taken off gives back at least the pieces it showed
    few = without < SPOT_OBJECT_SPACES and (clipped or with_spot <= without)
    return with_spot == 0 or few or with_spot <= SPOT_EXPLAINS * without


def covered_reason(label: str, glare: bool = False) -> str:
    """The reason a covered space is unreadable, in the words ``read-board`` and the dashboard
    show: ``something covers D4: move it off the board``; under a glare spot (``glare``), where
    what the veil leaves scores low too and the camera cannot tell the two apart, ``glare or
    something over D4: move the lamp or what lies there``."""
    if glare:
        return f"glare or something over {label}: move the lamp or what lies there"
    return f"something covers {label}: move it off the board"


def is_covered_reason(reason: str | None, sure: bool = False) -> bool:
    """Whether an unreadable space's reason is :func:`covered_reason`'s; with ``sure``, only
    where no glare spot may explain it instead."""
    prefixes = ("something covers ",) if sure else ("something covers ", "glare or something over ")
    return bool(reason) and reason.startswith(prefixes)


def covered_sentence(labels: list[str]) -> str:
    """One sentence for all the covered spaces (printed labels, in order): ``something covers
    D4, D5, D6: move it off the board``."""
    return covered_reason(", ".join(labels))


SKIRT_VEILS = (4.0, 8.0, 16.0, 24.0, 32.0, 48.0)
"""Colourless veils (linear levels of 255, in the lamp's colour) tried on the seeds of a covered
region by :func:`glare_explains`.  The faint edge of a lamp's spot adds 4-32 levels to the
spaces it leaves unexplained on the tuning styles (glare 45, glare 90, clipping glare); more
than 48 is met only near a spot's core, where the fitted spot or the camera's clipping already
marks the glare, while an object explained by so strong a veil is no reflection."""


def regions(mask: np.ndarray, spaces: list[tuple[int, int]]) -> list[np.ndarray]:
    """The connected regions of the spaces ``mask`` (bool (S,)) through hex neighbours: a list
    of int arrays of indices into ``spaces`` (axial (q, r) each), one per region."""
    where = {tuple(int(v) for v in h): i for i, h in enumerate(spaces)}
    seen, out = np.zeros(len(spaces), bool), []
    for start in np.flatnonzero(mask):
        if seen[start]:
            continue
        seen[start] = True
        todo, members = [int(start)], []
        while todo:
            i = todo.pop()
            members.append(i)
            q, r = spaces[i]
            for dq, dr in DIRECTIONS:
                j = where.get((int(q) + dq, int(r) + dr))
                if j is not None and mask[j] and not seen[j]:
                    seen[j] = True
                    todo.append(j)
        out.append(np.array(sorted(members), np.int64))
    return out


def glare_explains(covered: np.ndarray, fit: np.ndarray, kinds: list[str], unveiled_fit: np.ndarray,
                   unveiled_kinds: list[str | None], spaces: list[tuple[int, int]], offset: float = 0.0) -> np.ndarray:
    """bool (S,): the ``covered`` spaces (bool (S,), :func:`covered_spaces`) whose region a lamp's
    reflection explains, not an object.

    ``fit``, ``kinds``: the score and kind read on each space (NaN where unknown);
    ``unveiled_fit``, ``unveiled_kinds``: the score of each space with the faint colourless
    veil (one of :data:`SKIRT_VEILS`) taken off its samples that brings it highest above its
    kind's :data:`GROW_FIT`, and the kind then read (NaN and ``None`` where not tried); ``spaces``: axial (q, r) of each; ``offset``: :func:`frame_offset`.
    A reflection adds light, the same in every channel in linear light, on top of whatever lies
    there: at the faint edge of a lamp's spot, beyond what the fitted spot reaches or the camera
    clips, a dark piece (a tree, the inkline board) looks lifted enough to fit no piece, and
    seeds a covered region.  A region is the reflection's when every seed of it (a space under
    its kind's :data:`SEED_FIT`, lowered by ``offset``; every space of a region without one) fits, once such a veil is taken off, as
    well as a clean neighbour must (its kind's :data:`GROW_FIT`, lowered by ``offset``): nothing
    but added light is needed to explain it.  An object (a hand, a phone, a mug, the rulebook)
    is a surface of its own: taking light off leaves its seeds unexplained, and the region stays
    covered.  Figures: docs/simulated-camera.md, "Glare at the edge of the lamp's spot"."""
    unveiled = np.asarray(unveiled_fit, np.float64)
    covered = np.asarray(covered, bool)
    low = min(offset, 0.0)
    seed_set = set(seed_spaces(covered, fit, kinds, offset).tolist())
    out = np.zeros(len(spaces), bool)
    for members in regions(covered, spaces):
        # a region whose seed was read otherwise since (a meeple found on it) is tested whole
        seeds = [i for i in members if i in seed_set] or list(members)
        if seeds and all(unveiled_kinds[i] is not None and grow_margin(unveiled[i], unveiled_kinds[i]) >= low
                         for i in seeds):
            out[members] = True
    return out


def seed_spaces(covered: np.ndarray, fit: np.ndarray, kinds: list[str], offset: float = 0.0) -> np.ndarray:
    """int (k,) the ``covered`` spaces (bool (S,)) that seed their region: scoring (``fit``, float
    (S,)) under their kind's :data:`SEED_FIT` lowered by ``offset`` (:func:`frame_offset`)."""
    fit = np.asarray(fit, np.float64)
    floor = np.array([SEED_FIT.get(k, -np.inf) for k in kinds]) + min(offset, 0.0)
    with np.errstate(invalid="ignore"):
        return np.flatnonzero(np.asarray(covered, bool) & (fit < floor))


def grow_margin(fit: float, kind: str) -> float:
    """How far the score ``fit`` of a space read as ``kind`` lies above that kind's
    :data:`GROW_FIT` (negative: under it, as a covered region's rim scores)."""
    return float(fit) - GROW_FIT.get(kind, np.inf)
