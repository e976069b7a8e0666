"""Per-space classification from the Lab samples of :mod:`companion.vision.layout`.

For every space, every hypothesis (empty, rock, tree, wood, soil, a spore of each colour on
either side, and each candidate tile code in each rotation) gets a score: the weighted mean of
its regions' clipped log-likelihoods (:mod:`companion.vision.profile`).  The best wins; the
confidence grows with its margin over the runner-up.  Where a meeple stands (decided by the
caller from learned evidence, :mod:`companion.vision.pieces`; or, for a profile without
learned pieces, guessed by :func:`meeple_colour`: a player colour at the centre, or at the
cap points where the camera sees its raised cap) the space under it is scored without the
centre and with a trimmed ring, since the meeple hides them.  Everything is vectorised over
the spaces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.tiles import distinct_rotations, parse
from companion.vision import layout as L
from companion.vision.profile import CLASSES, PATHS, PLAYERS, ColourProfile

CI = {c: i for i, c in enumerate(CLASSES)}
TILE_LIKE = [CI["tile"], *(CI[p] for p in PATHS)]
MEEPLE_FLAT_PRIOR = 1.0
"""Score (mean log-likelihood units) taken off rock, tree and substrate readings under a meeple."""
CONFIDENCE_SCALE = 1.5
"""Score margin (mean log-likelihood units) that gives confidence 1 - 1/e."""


@dataclass
class TileCandidates:
    """Tile codes as placed and what each shows: ``edge_class`` int (M, 6) class index per edge,
    ``centre_ok`` bool (M, K): classes acceptable at the centre."""

    codes: list[str]
    edge_class: np.ndarray
    centre_ok: np.ndarray


def tile_candidates(type_codes: list[str]) -> TileCandidates:
    """Every distinct rotation of every type code (``ROCK`` is scored separately)."""
    placed: list[str] = []
    for code in type_codes:
        if code == "ROCK":
            continue
        for _, c in distinct_rotations(parse(code).code):
            if c not in placed:
                placed.append(c)
    edge = np.full((len(placed), 6), CI["tile"], np.int64)
    centre = np.zeros((len(placed), len(CLASSES)), bool)
    for m, code in enumerate(placed):
        tile = parse(code)
        for e, colour in enumerate(tile.edge_color):
            if colour:
                edge[m, e] = CI[colour]
        through = [p.color for p in tile.paths if len(p.edges) >= 2]
        for colour in through:
            centre[m, CI[colour]] = True
        if not through or not any(_opposite_pair(p.edges) for p in tile.paths if len(p.edges) >= 2):
            centre[m, CI["tile"]] = True
    return TileCandidates(placed, edge, centre)


def tile_candidates_one(code: str) -> np.ndarray:
    """int (6,) class index shown at each edge of one tile code as placed."""
    return tile_candidates([code]).edge_class[0]


def _opposite_pair(edges: frozenset[int]) -> bool:
    return any((e + 3) % 6 in edges for e in edges)


def open_candidates() -> TileCandidates:
    """With no catalogue: every assignment of {bare, pink, yellow, green} to the 6 edges with at
    least one path, each colour forming one path."""
    codes = []
    letters = {"pink": "P", "yellow": "Y", "green": "G"}
    for n in range(1, 4**6):
        digits = [(n // 4**e) % 4 for e in range(6)]
        parts = []
        for ci, colour in enumerate(PATHS, start=1):
            edges = [str(e) for e in range(6) if digits[e] == ci]
            if edges:
                parts.append(letters[colour] + "".join(edges))
        codes.append(".".join(parts))
    return tile_candidates(codes)


def _robust_mean(x: np.ndarray, axis: int, keep: float) -> np.ndarray:
    """Mean of the best ``keep`` fraction along ``axis`` (occlusion-tolerant)."""
    n = x.shape[axis]
    k = max(1, int(round(n * keep)))
    if k >= n:
        return x.mean(axis=axis)
    s = np.partition(x, n - k, axis=axis)  # the k largest last
    return np.take(s, np.arange(n - k, n), axis=axis).mean(axis=axis)


@dataclass
class SpaceReading:
    """What one space holds: ``kind`` in empty/tile/rock/tree/wood/soil/spore, details, confidence."""

    kind: str
    code: str | None = None
    player: str | None = None
    used: bool | None = False
    """The spore's side; ``None`` when the camera cannot tell it (see ``side_unknown``)."""
    slots: tuple[str | None, ...] = ()
    meeple: str | None = None
    confidence: float = 0.0
    reason: str | None = None
    """Why the space could not be read (then ``confidence`` is 0), e.g. glare; else ``None``."""
    side_unknown: str | None = None
    """Why a spore's side is not read (then ``used`` is ``None``), e.g. "covered by its meeple"."""
    fit: float | None = None
    """How well the chosen piece explains the space's samples: its score, the weighted mean
    clipped log-likelihood per sample point (:func:`classify`; ``None`` where a reading was
    decided otherwise).  Every piece a profile learned scores far above what a hand or a cup
    over the space gives (:data:`companion.vision.covered.FIT_FLOOR`)."""
    doubt: str | None = None
    """Why a reading that stands is unsure (its confidence is below the table's bar), e.g. which
    two spaces a meeple may stand on when the camera cannot tell; else ``None``."""
    slot_margins: tuple[float, ...] = ()
    """A tree's four mycorrhiza slots: how much better (unclipped log-likelihood of the slot's
    mean colour) the owner read there fits than the next colour or an empty slot
    (:func:`slot_owners`)."""
    runner_up: str | None = None
    """What the space looks next most like, as :func:`companion.vision.meeple_doubts.describe`
    words a piece ("a rock", "tile P03", "the black spore", "an empty space"): the hypothesis
    whose score the confidence's margin is measured to (:func:`classify`); ``None`` where a
    reading was decided otherwise."""


SIDE_DL = 9.0
"""Lightness step (Lab L units) between the X of a used spore and the chip around it that
separates the used side from the unused one (a blurred, JPEG-softened X still shows > 12)."""
SIDE_SCALE = 4.0
"""L units of distance from :data:`SIDE_DL` that give a side confidence of 1 - 1/e."""


def spore_side_contrast(lightness: np.ndarray, has_meeple: np.ndarray) -> np.ndarray:
    """float32 (S,) lightness of the diagonal points over the chip (median ring L), L units.

    ``lightness``: float32 (S, P) Lab L of every sample point.  The white X of the used side
    lies on the diagonals; the ring points sit between its arms and show the chip.  Under a
    meeple only the X's tips can peek out, so the best two outer diagonal points count.
    """
    chip = np.median(lightness[:, L.RING], axis=1)
    diag = lightness[:, L.DIAG]
    tips = -np.sort(-diag[:, 1::2], axis=1)[:, :2].mean(1)
    return np.where(has_meeple, tips, diag.mean(1)) - chip


def slot_log_likelihood(lab: np.ndarray, profile: ColourProfile) -> np.ndarray:
    """float32 (S, 4, K) unclipped log-likelihood of each slot's mean Lab (S, P, 3) per class.

    A player disc fills only most of its slot, so blur mixes it with the light slot rim and
    the dark tree: no class fits well and clipped scores would tie.  Unclipped, the nearest
    class still wins.
    """
    return unclipped_log_likelihood(lab[:, L.SLOTS].reshape(lab.shape[0], 4, L.POINTS_PER_SLOT, 3).mean(2), profile)


def unclipped_log_likelihood(lab: np.ndarray, profile: ColourProfile) -> np.ndarray:
    """float32 (..., K) unclipped log-likelihood of Lab (..., 3) per class."""
    d = (lab[..., None, :] - profile.mean) / profile.std
    return (-0.5 * np.sum(d * d, axis=-1) - np.sum(np.log(profile.std), axis=-1)).astype(np.float32)


CAP_LL_MIN = -10.0
"""Unclipped log-likelihood of the cap points' mean colour above which a player colour there
counts as a meeple's cap (a good fit: about 3 standard deviations)."""
CAP_CENTRE_SLACK = 6.0
"""How far (log-likelihood) the player colour may trail the best class at the centre when the
cap says meeple: the centre shows the meeple's shaded stem, or the cap's rim."""


def meeple_colour(lab: np.ndarray, profile: ColourProfile, centre_ll: np.ndarray) -> np.ndarray:
    """int (S,) class index of the meeple on each space, or -1.

    A player colour rules the centre (nearest class of the centre's mean colour, unclipped:
    under glare or blur no class fits well and clipped scores would tie); or, when the camera
    sees the meeple from the side and its stem is all the centre shows, the cap points (raised,
    projected through the camera pose) fit a player colour well and the centre does not refute
    it.  A spore's chip under the cap points is refuted by its white centre.
    """
    pidx = np.array([CI[p] for p in PLAYERS])
    is_player = np.zeros(len(CLASSES), bool)
    is_player[pidx] = True
    if lab is None or profile is None:
        best = centre_ll.argmax(1)
        return np.where(is_player[best], best, -1)
    cen = unclipped_log_likelihood(lab[:, L.CENTRE].mean(1), profile)
    best = cen.argmax(1)
    out = np.where(is_player[best], best, -1)
    cap = unclipped_log_likelihood(lab[:, L.CAP].mean(1), profile)
    c = cap.argmax(1)
    rows = np.arange(len(c))
    by_cap = is_player[c] & (cap[rows, c] > CAP_LL_MIN) & (cen[rows, c] >= cen.max(1) - CAP_CENTRE_SLACK)
    return np.where(out >= 0, out, np.where(by_cap, c, -1))


def classify(ll: np.ndarray, cands: TileCandidates, lab: np.ndarray | None = None,
             profile: ColourProfile | None = None, meeple: np.ndarray | None = None,
             not_rivals: frozenset[str] = frozenset()) -> list[SpaceReading]:
    """One :class:`SpaceReading` per space.

    ``ll``: float32 (S, P, K) clipped per-sample log-likelihoods.  ``lab`` (float32 (S, P, 3))
    and ``profile``, when given, decide spore sides by lightness contrast and mycorrhiza slots
    by unclipped likelihood (more robust under blur); without them both come from ``ll``.
    ``meeple``: int (S,) class index of the meeple already decided on each space (-1 none), as
    :func:`companion.vision.pieces.assign_meeples` gives; ``None`` guesses it from colour
    (:func:`meeple_colour`), for profiles that learned no pieces.

    ``not_rivals``: kinds (``"wood"``, ``"soil"``...) whose hypotheses are no rivals of a space
    read as another kind: its confidence is measured to the best hypothesis of any other kind,
    which ``runner_up`` names (a substrate kind the board already holds all of, rulebook 2.c,
    5.a: :meth:`companion.vision.reader.BoardReader.full_substrates`).  They may still be read.
    """
    S = ll.shape[0]
    e = ll[:, L.EDGES].reshape(S, 6, L.POINTS_PER_EDGE, -1)
    centre = ll[:, L.CENTRE].mean(1)  # (S, K)
    ring_full = ll[:, L.RING].mean(1)
    ring_trim = _robust_mean(ll[:, L.RING], 1, 0.5)
    diag = ll[:, L.DIAG]  # (S, 8, K)
    diag_mean = diag.mean(1)

    def slot_scores(rows: np.ndarray) -> np.ndarray:
        """(n, 4, K) of the spaces ``rows`` (only trees need them)."""
        if lab is not None and profile is not None:
            return slot_log_likelihood(lab[rows], profile)
        return ll[rows][:, L.SLOTS].reshape(len(rows), 4, L.POINTS_PER_SLOT, -1).mean(2)

    # meeple: a player colour at the centre, or at the cap seen from the side
    pidx = np.array([CI[p] for p in PLAYERS])
    best_centre = meeple_colour(lab, profile, centre) if meeple is None else np.asarray(meeple)
    has_meeple = best_centre >= 0
    best_centre = np.maximum(best_centre, 0)
    ring = np.where(has_meeple[:, None], ring_trim, ring_full)
    w_c = np.where(has_meeple, 0.0, 1.0)
    w_d = np.where(has_meeple, 0.0, 2.0)
    if has_meeple.any():
        # points showing the meeple's own colour neither support nor refute what lies under it
        own = np.take_along_axis(e, best_centre[:, None, None, None], axis=3)
        e = np.where(has_meeple[:, None, None, None], np.maximum(e, own - 0.5), e)
    edge_mean = _robust_mean(e, 2, 0.67)  # (S, 6, K)
    # spore side under a meeple: the tips of the X (outer diagonal points) peek out around it
    outer = diag[:, 1::2]  # (S, 4, K)
    x_seen = -np.sort(-outer, axis=1)[:, :2].mean(1)  # best two points per class
    x_all = np.sort(outer, axis=1)[:, :2].mean(1)  # worst two points per class

    def score(edge_cls: int | None, ring_cls, centre_cls, diag_cls, spore: str | None = None, used: bool = False) -> np.ndarray:
        tot = np.zeros(S, np.float32)
        wsum = np.zeros(S, np.float32)
        if edge_cls is not None:
            tot += edge_mean[:, :, edge_cls].sum(1)
            wsum += 6
        tot += 2 * _pick(ring, ring_cls)
        wsum += 2
        if centre_cls is not None:
            tot += w_c * _pick(centre, centre_cls)
            wsum += w_c
        if diag_cls is not None:
            tot += w_d * _pick(diag_mean, diag_cls)
            wsum += w_d
        if spore is not None:
            hidden = x_seen[:, CI["white"]] if used else x_all[:, CI[spore]]
            w_x = np.where(has_meeple, 1.0, 0.0)
            tot += w_x * hidden
            wsum += w_x
        return tot / wsum

    names: list[tuple] = []
    scores: list[np.ndarray] = []
    b, t = CI["board"], CI["tree"]
    for kind, cls in (("empty", b), ("rock", CI["rock"]), ("tree", t)):
        names.append((kind,))
        scores.append(score(cls, cls, cls, cls))
    for kind in ("wood", "soil"):
        names.append((kind,))
        scores.append(score(b, CI[kind], CI[kind], CI[kind]))
    for p in PLAYERS:
        if lab is None:
            for used in (False, True):
                names.append(("spore", p, used))
                scores.append(score(b, CI[p], CI["white"], CI["white"] if used else CI[p], p, used))
        else:
            # either side: each diagonal point shows the chip or the white X
            x_or_chip = np.maximum(diag[:, :, CI[p]], diag[:, :, CI["white"]]).mean(1)
            base = score(b, CI[p], CI["white"], None)
            names.append(("spore", p, None))
            scores.append((base * (8 + w_c) + w_d * x_or_chip) / (8 + w_c + w_d))
    fixed = np.stack(scores, 1)  # (S, H)

    # tiles: (S, M)
    m_edges = edge_mean[:, np.arange(6)[None, :], cands.edge_class]  # (S, M, 6)
    tile_edge = m_edges.sum(2)
    # the best allowed class at the centre, once per distinct set of allowed classes (a few
    # for all the candidates), then per candidate
    patterns, of_candidate = _centre_patterns(cands)
    centre_tile = np.where(patterns[None, :, :], centre[:, None, :], -np.inf).max(2)[:, of_candidate]  # (S, M)
    ring_tile = _allowed_mean(ll[:, L.RING], TILE_LIKE, has_meeple)
    diag_tile = _allowed_mean(diag, TILE_LIKE, has_meeple)
    tile_scores = (tile_edge + 2 * ring_tile[:, None] + w_c[:, None] * centre_tile + w_d[:, None] * diag_tile[:, None]) / (
        8 + w_c + w_d
    )[:, None]

    # a meeple stands on a tile, its spore or an empty space, never on a rock, tree or
    # substrate: under a meeple those need clearly better evidence (a substrate's colour can
    # pass for a spore's chip once the meeple hides the symbol)
    flat = np.array([n[0] in ("rock", "tree", "wood", "soil") for n in names])
    fixed = fixed - np.where(has_meeple[:, None] & flat[None, :], MEEPLE_FLAT_PRIOR, 0.0)
    all_scores = np.concatenate([fixed, tile_scores], axis=1)  # (S, H + M)
    rows = np.arange(S)
    best_all = all_scores.argmax(1)
    top = all_scores[rows, best_all]
    all_scores[rows, best_all] = -np.inf
    chosen = [names[b] if b < len(names) else ("tile",) for b in best_all]
    second = all_scores.argmax(1)  # the runner-up
    confs = 1.0 - np.exp(-(top - all_scores[rows, second]) / CONFIDENCE_SCALE)
    if not_rivals:
        # hypotheses of these kinds may be read, but are no rivals of a space read otherwise
        rival = all_scores.copy()
        rival[:, [i for i, n in enumerate(names) if n[0] in not_rivals]] = -np.inf
        other = np.array([n[0] not in not_rivals for n in chosen])
        second = np.where(other, rival.argmax(1), second)
        confs = 1.0 - np.exp(-(top - all_scores[rows, second]) / CONFIDENCE_SCALE)
    # spore sides and mycorrhiza slots only where a spore or a tree was read
    sided = np.array([s for s, n in enumerate(chosen) if n[0] == "spore" and n[2] is None], np.int64)
    side_dl = dict(zip(sided.tolist(), spore_side_contrast(lab[sided][..., 0], has_meeple[sided]))) if len(sided) else {}
    trees = np.array([s for s, n in enumerate(chosen) if n[0] == "tree"], np.int64)
    slots = dict(zip(trees.tolist(), slot_scores(trees))) if len(trees) else {}
    out: list[SpaceReading] = []
    for s in range(S):
        best = int(best_all[s])
        conf = float(confs[s])
        meeple = PLAYERS[list(pidx).index(best_centre[s])] if has_meeple[s] else None
        if best < len(names):
            name = names[best]
            r = SpaceReading(name[0], meeple=meeple, confidence=conf, fit=float(top[s]))
            if name[0] == "spore":
                r.player, r.used = name[1], name[2]
                if r.used is None:
                    dl = float(side_dl[s])
                    r.used = dl > SIDE_DL
                    r.confidence = min(conf, float(1.0 - np.exp(-abs(dl - SIDE_DL) / SIDE_SCALE)))
            if name[0] == "tree":
                r.slots, r.slot_margins = slot_owners(slots[s])
                # a marker read about as well as another colour (or an empty slot) makes the
                # tree as unsure as that marker: on the same log-likelihood scale as the pieces
                r.confidence = min(r.confidence, float(1.0 - np.exp(-min(r.slot_margins) / CONFIDENCE_SCALE)))
        else:
            r = SpaceReading("tile", code=cands.codes[best - len(names)], meeple=meeple, confidence=conf, fit=float(top[s]))
        r.runner_up = hypothesis_words(names[second[s]] if second[s] < len(names) else ("tile", cands.codes[second[s] - len(names)]))
        if meeple and r.kind in ("rock", "tree", "wood", "soil", "empty"):
            # meeples stand on tiles and spores only; a player colour elsewhere is doubtful
            r.confidence *= 0.5
        out.append(r)
    return out


def hypothesis_words(name: tuple) -> str:
    """A hypothesis of :func:`classify` (``("rock",)``, ``("spore", "black", None)``, ``("tile",
    "P03")``) in words, as every reason names a piece: "a rock", "the black spore", "tile P03",
    "an empty space", "a wood substrate"."""
    kind = name[0]
    if kind == "tile":
        return f"tile {name[1]}"
    if kind == "spore":
        return f"the {name[1]} spore"
    if kind == "empty":
        return "an empty space"
    return f"a {kind}" if kind in ("rock", "tree") else f"a {kind} substrate"


def _centre_patterns(cands: TileCandidates) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``cands.centre_ok`` (bool (U, K)) and which one each candidate has
    (int (M,)); kept on ``cands``."""
    if getattr(cands, "_patterns", None) is None:
        patterns, of_candidate = np.unique(cands.centre_ok, axis=0, return_inverse=True)
        cands._patterns = (patterns, of_candidate.reshape(-1))
    return cands._patterns


def _pick(x: np.ndarray, cls) -> np.ndarray:
    return x[:, cls]


def _allowed_mean(pts: np.ndarray, allowed: list[int], trimmed: np.ndarray) -> np.ndarray:
    """Mean over points of the best allowed class per point; trimmed where ``trimmed`` (S,)."""
    per_point = pts[:, :, allowed].max(2)  # (S, P)
    full = per_point.mean(1)
    trim = _robust_mean(per_point, 1, 0.5)
    return np.where(trimmed, trim, full)


SLOT_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
"""A tree's mycorrhiza slots in the order of ``slots`` (the position format's)."""


def slot_owners(slot_ll: np.ndarray) -> tuple[tuple[str | None, ...], tuple[float, ...]]:
    """The marker in each mycorrhiza slot of a tree, from ``slot_ll`` float32 (4, K) (per slot,
    :func:`slot_log_likelihood`): the player colour or ``None`` (an empty slot), and the margin
    (log-likelihood units) by which it beats the next colour or the empty slot."""
    options = ["slot", *PLAYERS]
    ll = slot_ll[:, [CI[o] for o in options]]
    order = np.argsort(-ll, axis=1)
    rows = np.arange(len(ll))
    owners = tuple(None if options[b] == "slot" else options[b] for b in order[:, 0])
    return owners, tuple(float(m) for m in ll[rows, order[:, 0]] - ll[rows, order[:, 1]])


def slot_doubt(r: SpaceReading) -> str | None:
    """Which marker of a tree read with low confidence (``r``) the camera could not tell, e.g.
    "the marker in its bottom-right slot looks almost as much like another colour, or none"; or
    ``None`` where every marker was read with the margin the tree's confidence asks."""
    if r.kind != "tree" or not r.slot_margins:
        return None
    k = int(np.argmin(r.slot_margins))
    if 1.0 - np.exp(-r.slot_margins[k] / CONFIDENCE_SCALE) > r.confidence + 1e-6:
        return None
    what = f"the {r.slots[k]} marker in its {SLOT_NAMES[k]} slot" if r.slots[k] else f"its empty {SLOT_NAMES[k]} slot"
    return f"{what} looks almost as much like another colour or an empty slot"
