"""The learned pieces' decisions, vectorised over the spaces, are exactly the per-space ones.

:func:`~companion.vision.pieces.nearest_token`, :meth:`~companion.vision.pieces.PieceModel.spore_side`,
:func:`~companion.vision.pieces.meeple_evidence` and :func:`~companion.vision.pieces.assign_meeples`
once looped over the spaces in Python; they now work on all spaces at once.  A reading must not
depend on that: these tests hold them to the loops as first written, bit for bit, on inputs
shaped like the reader's (61 spaces), with sides never photographed, covered spores and ties.
"""

import numpy as np
import pytest

from companion.vision import layout as L
from companion.vision.pieces import (CHIP_STATS, CLEAR_MARGIN, EVIDENCE_CLIP, FOREIGN_RIM_MARGIN, MEEPLE_MIN_EVIDENCE, PLAYERS, RING_POINTS, SIDE_DISTANCE,
                                     RIM_SHOWS, RING_OUTLIER, SIDE_SCALE, STAT_STD, STATS, SYMBOL_SHOWS, SYMBOL_WEIGHT, TOKEN_KINDS, WEAK_EVIDENCE, PieceModel,
                                     assign_meeples, meeple_evidence, nearest_token, rim_contrast, symbol_features, z_distance)
from companion.vision.profile import CLASSES


def plain_spore_side(model, feat, player, covered):
    used = np.zeros(len(feat), bool)
    conf = np.zeros(len(feat), np.float32)
    for s in range(len(feat)):
        rings = slice(2, 3) if covered[s] else slice(None)
        d_un = z_distance(feat[s:s + 1], model.spore[player[s], 0], rings)[0]
        d_us = z_distance(feat[s:s + 1], model.spore[player[s], 1], rings)[0]
        if np.isfinite(d_us) and not covered[s]:
            # ring by ring, each ring counting at most RING_OUTLIER
            un, us = (np.array([z_distance(feat[s:s + 1], model.spore[player[s], k], slice(r, r + 1))[0] for r in range(3)])
                      for k in (0, 1))
            cap = RING_OUTLIER * RING_OUTLIER
            vote = np.mean(np.clip(un * un - us * us, -cap, cap))
            spread = np.sqrt(np.mean(np.minimum(un * un, cap))) + np.sqrt(np.mean(np.minimum(us * us, cap)))
            used[s], margin = vote > 0, abs(vote) / spread
            conf[s] = 1.0 - np.exp(-margin / SIDE_SCALE)
            continue
        if np.isfinite(d_us):
            used[s] = d_us < d_un
            margin = abs(d_un - d_us)
            if covered[s]:
                contrast = rim_contrast(model.spore[player[s]])
                if contrast[int(used[s])] < contrast[1 - int(used[s])] + RIM_SHOWS:
                    margin = 0.0
        else:
            used[s] = d_un > SIDE_DISTANCE
            margin = abs(d_un - SIDE_DISTANCE)
        conf[s] = 1.0 - np.exp(-margin / SIDE_SCALE)
    return used, conf


def plain_nearest_token(model, feat, covered):
    refs = [model.spore[PLAYERS.index(p), int(u)] for k, p, u in TOKEN_KINDS[:8]]
    refs += list(model.substrate) if model.substrate is not None else [np.full((3, STATS), np.nan)] * 2
    best, conf = [], np.zeros(len(feat), np.float32)
    dist = np.full(len(feat), np.inf, np.float32)
    for s in range(len(feat)):
        rings = slice(2, 3) if covered[s] else slice(None)
        d = np.array([z_distance(feat[s:s + 1], r, rings)[0] for r in refs])
        b = int(np.argmin(d))
        other = [d[j] for j in range(len(d)) if TOKEN_KINDS[j][:2] != TOKEN_KINDS[b][:2]]
        best.append(b)
        dist[s] = d[b]
        conf[s] = 1.0 - np.exp(-max(min(other) - d[b], 0.0) / SIDE_SCALE) if np.isfinite(d[b]) else 0.0
    return best, conf, dist


def plain_meeple_evidence(lab, ll, model, spore_of, player_class, flat_classes):
    """:func:`meeple_evidence` as first written."""
    pts = np.r_[np.arange(L.CAP.start, L.CAP.stop), RING_POINTS["core"]]
    x = lab[:, pts]
    m = model.meeple_colour_ll(x)  # (S, n, 4)
    alt = ll[:, pts][:, :, flat_classes].max(2)  # (S, n)
    S = len(lab)
    on_spore = spore_of >= 0
    if on_spore.any():
        chip = np.take_along_axis(ll[:, pts], player_class[np.maximum(spore_of, 0)][:, None, None], axis=2)[:, :, 0]
        alt = np.where(on_spore[:, None], np.maximum(alt, chip), alt)
    # a meeple covers at least half of these points, wherever on the space it stands
    d = np.clip(m - alt[:, :, None], -EVIDENCE_CLIP, EVIDENCE_CLIP)
    k = d.shape[1] // 2
    ev = -np.sort(-d, axis=1)[:, :k].mean(1)
    if on_spore.any():
        feat = symbol_features(lab[on_spore])
        core = slice(0, 1)
        for i, s in enumerate(np.flatnonzero(on_spore)):
            p = spore_of[s]
            d_side = min(z_distance(feat[i:i + 1], model.spore[p, k], core)[0] for k in (0, 1))
            # the chip's outer ring, beyond a meeple's foot: how near each player's spore looks
            looks = [[model.spore[q, 0], model.spore[q, 1]] + ([model.meeple_on_spore[q]] if model.meeple_on_spore is not None else [])
                     for q in range(len(PLAYERS))]
            # the chip's colour there: the medians of L, a and b (a symbol moves the percentiles)
            chip = feat[i, 2, CHIP_STATS]
            rim = [min(float(np.nan_to_num(np.sqrt(np.mean(((chip - look[2, CHIP_STATS]) / STAT_STD[CHIP_STATS]) ** 2)), nan=np.inf))
                       for look in looks[q]) for q in range(len(PLAYERS))]
            for q in range(len(PLAYERS)):
                d_meeple = z_distance(feat[i:i + 1], model.meeple_rings[q], core)[0]
                if q == p and model.meeple_on_spore is not None:
                    d_meeple = min(d_meeple, z_distance(feat[i:i + 1], model.meeple_on_spore[q], core)[0])
                symbol = SYMBOL_WEIGHT * (min(d_side, 6.0) - d_meeple)
                if q != p and d_side < SYMBOL_SHOWS:
                    # another player's meeple would hide the whole symbol: one still showing
                    # rules it out, however near the meeple's look the core also lies
                    symbol = -EVIDENCE_CLIP
                if q != p and rim[p] < SYMBOL_SHOWS and rim[q] > rim[p] + FOREIGN_RIM_MARGIN:
                    symbol = -EVIDENCE_CLIP   # the chip's rim is plainly the other player's
                # the spore's own colour fits its meeple anyway: the symbol alone decides; a
                # dark or coloured symbol must not pass for another player's meeple either
                ev[s, q] = symbol if q == p else min(ev[s, q], symbol)
    return ev.astype(np.float32)


def plain_assign_meeples(evidence, min_evidence=MEEPLE_MIN_EVIDENCE, doubtful=None):
    """:func:`assign_meeples` as first written."""
    from scipy.optimize import linear_sum_assignment

    S, P = evidence.shape
    big = 1e6
    if doubtful is not None and np.any(doubtful):
        evidence = np.where(np.asarray(doubtful)[:, None] & (evidence < min_evidence), -big, evidence)
    cost = np.full((P, S + P), big)
    cost[:, :S] = -evidence.T
    second = -np.sort(-evidence, axis=0)[1] if S > 1 else np.full(P, -big)
    # under glare or deep shade the evidence of a real meeple drops, but it still stands
    # clear of every other space: a clear winner needs less
    need = np.minimum(min_evidence, np.maximum(WEAK_EVIDENCE, second + CLEAR_MARGIN))
    for p in range(P):
        cost[p, S + p] = -need[p]
    rows, cols = linear_sum_assignment(cost)
    owner = np.full(S, -1, np.int64)
    conf = np.ones(S, np.float32)
    for p, c in zip(rows, cols):
        if c < S:
            owner[c] = p
    for s in range(S):
        if owner[s] >= 0:
            p = owner[s]
            others = np.delete(evidence[:, p], s)
            margin = min(evidence[s, p] - need[p], evidence[s, p] - (others.max() if len(others) else -big))
        else:
            margin = float(np.min(need - evidence[s]))
        conf[s] = 1.0 - np.exp(-max(margin, 0.0) / 1.5)
    return owner, conf


def random_model(rng, used_learned=True, substrate=True):
    f = lambda *shape: rng.normal(50, 20, shape).astype(np.float32)  # noqa: E731
    spore = f(4, 2, 3, STATS)
    if not used_learned:
        spore[:, 1] = np.nan
    model = PieceModel(f(4, 3), rng.uniform(3, 8, (4, 3)).astype(np.float32), f(4, 3, STATS), spore,
                       f(2, 3, STATS) if substrate else None, f(4, 3, STATS))
    if rng.random() < 0.5:  # half the models also learned each meeple standing on its own spore
        model.meeple_on_spore = f(4, 3, STATS)
    return model


def features_near(rng, model, n):
    """Ring statistics near the learned ones (so distances straddle the thresholds), some far."""
    refs = np.concatenate([np.nan_to_num(model.spore.reshape(-1, 3, STATS), nan=50.0), model.meeple_rings])
    feat = refs[rng.integers(len(refs), size=n)] + rng.normal(0, 1, (n, 3, STATS)).astype(np.float32) * rng.choice([2, 6, 20], (n, 1, 1))
    return feat.astype(np.float32)


@pytest.mark.parametrize("seed", range(8))
def test_spore_sides_and_tokens_are_the_per_space_ones(seed):
    rng = np.random.default_rng(seed)
    model = random_model(rng, used_learned=seed % 2 == 0, substrate=seed % 4 != 3)
    feat = features_near(rng, model, 61)
    covered = rng.random(61) < 0.3
    player = rng.integers(0, 4, 61)
    used, conf = model.spore_side(feat, player, covered)
    p_used, p_conf = plain_spore_side(model, feat, player, covered)
    assert np.array_equal(used, p_used) and conf.dtype == p_conf.dtype and np.array_equal(conf, p_conf)
    best, tconf, dist = nearest_token(model, feat, covered)
    p_best, p_tconf, p_dist = plain_nearest_token(model, feat, covered)
    assert best == p_best
    assert tconf.dtype == p_tconf.dtype and np.array_equal(tconf, p_tconf)
    assert dist.dtype == p_dist.dtype and np.array_equal(dist, p_dist)


@pytest.mark.parametrize("seed", range(6))
def test_meeple_evidence_is_the_per_space_one(seed):
    rng = np.random.default_rng(seed)
    model = random_model(rng, used_learned=seed % 2 == 0)
    S, K = 61, len(CLASSES)
    lab = rng.normal(50, 25, (S, L.POINTS_PER_SPACE, 3)).astype(np.float32)
    # spores whose core shows a learned look (so the veto and the symbol both count), and others
    spore_of = np.where(rng.random(S) < 0.4, rng.integers(0, 4, S), -1)
    looks = np.concatenate([np.nan_to_num(model.spore.reshape(-1, 3, STATS), nan=50.0), model.meeple_rings])
    core = np.r_[np.arange(L.CENTRE.start, L.CENTRE.stop), np.arange(L.SYM_IN.start, L.SYM_IN.stop)]
    for s in np.flatnonzero(spore_of >= 0)[::2]:
        look = looks[rng.integers(len(looks)), 0]
        lab[s, core, 0] = look[1] + rng.normal(0, 4, len(core))
        lab[s, core, 1:] = look[3:] + rng.normal(0, 2, (len(core), 2))
    ll = np.maximum(rng.normal(-5, 4, (S, L.POINTS_PER_SPACE, K)), -12).astype(np.float32)
    pclass = np.array([CLASSES.index(p) for p in PLAYERS])
    flat = np.array([i for i, c in enumerate(CLASSES) if c not in PLAYERS])
    plain = plain_meeple_evidence(lab, ll, model, spore_of, pclass, flat)
    ev = meeple_evidence(lab, ll, model, spore_of, pclass, flat)
    assert ev.dtype == plain.dtype and np.array_equal(ev, plain)
    from companion.vision.reader import _SymbolFeatures
    assert np.array_equal(meeple_evidence(lab, ll, model, spore_of, pclass, flat, _SymbolFeatures(lab)), plain)
    assert (plain == -EVIDENCE_CLIP).any()  # the veto was exercised


@pytest.mark.parametrize("seed", range(8))
def test_meeples_and_their_confidences_are_the_per_space_ones(seed):
    rng = np.random.default_rng(seed)
    S = 61
    evidence = rng.normal(-3, 3, (S, 4)).astype(np.float32)
    for p in range(4):  # a clear meeple, a strong one, a weak one, a doubtful one; one player missing
        if seed % 4 != p:
            evidence[rng.integers(S), p] = [8.0, 2.0, -2.0, 0.5][p]
    evidence[5, 1] = evidence[9, 1] = 3.0  # two spaces tie for one player
    doubtful = rng.random(S) < 0.1 if seed % 2 else None
    owner, conf = assign_meeples(evidence, doubtful=doubtful)
    p_owner, p_conf = plain_assign_meeples(evidence, doubtful=doubtful)
    assert np.array_equal(owner, p_owner)
    assert conf.dtype == p_conf.dtype and np.array_equal(conf, p_conf)
