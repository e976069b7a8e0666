"""Under glare, a sure reading of a space with clipped points must rest on its unclipped points."""

from __future__ import annotations

import numpy as np

from companion.vision import layout as L
from companion.vision.classify import classify
from companion.vision.reader import BoardReader


def _space_between_board_and_rock(reader: BoardReader, clipped_share: float):
    """Lab and log-likelihoods (1, P, ...) of one space whose points lie half way between the
    board and the rock (a glared board: the points the camera kept cannot tell the two), whose
    first ``clipped_share`` of points the camera clipped and the censored model scored as a
    rock (what a misfitted spot makes of them), and its camera samples (N, 3)."""
    p = reader.profile
    board, rock = p.mean[p.index("board")], p.mean[p.index("rock")]
    lab = np.repeat(((board + rock) / 2)[None, None, :], L.POINTS_PER_SPACE, axis=1).astype(np.float32)
    ll = p.log_likelihood(lab)
    k = int(clipped_share * L.POINTS_PER_SPACE)
    ll[0, :k] = -12.0
    ll[0, :k, p.index("rock")] = 0.0  # a clipped point "fits" a rock under the fitted veil
    bgr = np.full((len(reader.geo.spaces) * L.POINTS_PER_SPACE + 64, 3), 120.0, np.float32)
    bgr[:k] = 255.0
    return lab, ll, bgr


def test_a_sure_reading_decided_by_clipped_points_becomes_unreadable(geo, codes):
    reader = BoardReader(geo, tile_codes=codes, refine_grid=False)
    cands = reader.candidates_for(None)
    lab, ll, bgr = _space_between_board_and_rock(reader, 0.4)
    first = classify(ll, cands, lab, reader.profile, np.array([-1]))[0]
    assert first.kind == "rock" and first.confidence >= 0.5  # the clipped points decided it, with confidence
    readings = [first] + [classify(ll, cands, lab, reader.profile, np.array([-1]))[0] for _ in geo.spaces[1:]]
    veil = np.full(len(bgr), 40.0, np.float32)  # under a fitted spot
    reader._mark_glare(bgr, readings, rows=np.array([0]), veil=veil, recheck=(ll, lab, cands))
    assert readings[0].reason and "move the lamp" in readings[0].reason and readings[0].confidence == 0.0


def test_a_sure_reading_the_unclipped_points_give_alone_stands(geo, codes):
    # a light tile under the spot clips in its core; its paths at the edges still show it
    reader = BoardReader(geo, tile_codes=codes, refine_grid=False)
    cands = reader.candidates_for(None)
    p = reader.profile
    lab = np.repeat(p.mean[p.index("board")][None, None, :], L.POINTS_PER_SPACE, axis=1).astype(np.float32)
    ll = p.log_likelihood(lab)
    bgr = np.full((len(geo.spaces) * L.POINTS_PER_SPACE + 64, 3), 120.0, np.float32)
    centre = np.r_[np.arange(L.CENTRE.start, L.CENTRE.stop), np.arange(L.SYM_IN.start, L.SYM_IN.stop)]
    bgr[centre] = 255.0  # the middle of the space clips
    ll[0, centre] = -12.0
    ll[0, centre, p.index("board")] = 0.0
    first = classify(ll, cands, lab, p, np.array([-1]))[0]
    assert first.kind == "empty" and first.confidence >= 0.5
    readings = [first] + [classify(ll, cands, lab, p, np.array([-1]))[0] for _ in geo.spaces[1:]]
    reader._mark_glare(bgr, readings, rows=np.array([0]), veil=np.full(len(bgr), 40.0, np.float32),
                       recheck=(ll, lab, cands))
    assert readings[0].reason is None and readings[0].kind == "empty" and readings[0].confidence >= 0.5
