"""A meeple on a tile is weighed against the tile's surfaces, not against a substrate.

Bands art under the dim warm lamp, seed 77 of ``bench/vision.py``: orange's meeple there looks
about as much like a wood substrate as like itself, so on a tile its colour evidence stayed
under what places a meeple (0.5 to 0.9 of 1.0) and it was read on no space, on 10 of 40 boards.
A tile laid on a substrate covers it and the token is discarded (rulebook 5.a), so no substrate
shows on a tile: there the meeple's look is compared with the tile's own surfaces only."""

from __future__ import annotations

import numpy as np

from companion.vision.pieces import PLAYERS, PieceModel, STATS, meeple_evidence
from companion.vision.profile import CLASSES
from test_vision_covered_side import styled_table


def test_orange_meeple_on_a_tile_under_the_dim_warm_lamp_is_read(tmp_path, geo, codes, capsys):
    reader, frame, board, _, _ = styled_table("bands", "dim warm lamp", 77, 1, tmp_path, geo, codes, capsys)
    assert board["meeples"] == {"blue": [3, 1], "orange": [0, 2]}
    reading = reader.read(frame.image)
    assert reading.board["meeples"] == board["meeples"]
    assert reading.spaces[(0, 2)].kind == "tile" and reading.spaces[(0, 2)].meeple == "orange"
    assert reading.board["spores"]["orange"] == board["spores"]["orange"]


def _model() -> PieceModel:
    mean = np.array([[40, 20, -55], [55, 25, 58], [36, 55, 39], [11, 1, 3]], np.float32)
    rings = np.zeros((4, 3, STATS), np.float32)
    spore = np.zeros((4, 2, 3, STATS), np.float32)
    return PieceModel(mean, np.full((4, 3), 8.0, np.float32), rings, spore)


def test_a_substrate_look_is_no_rival_of_a_meeple_on_a_tile_only():
    from companion.vision import layout as L

    n = L.OFFSETS.shape[0]
    lab = np.tile(np.array([55, 25, 58], np.float32), (1, n, 1))
    # every flat surface fits poorly but wood, which fits the orange as well as orange's meeple
    ll = np.full((1, n, len(CLASSES)), -20.0, np.float32)
    model = _model()
    ll[..., CLASSES.index("wood")] = model.meeple_colour_ll(lab[0])[:, 1]
    pclass = np.array([CLASSES.index(p) for p in PLAYERS])
    flat = np.array([i for i, c in enumerate(CLASSES) if c not in PLAYERS])
    tile_flat = np.array([i for i in flat if CLASSES[i] not in ("wood", "soil")])
    spore_of = np.array([-1])
    anywhere = meeple_evidence(lab, ll, model, spore_of, pclass, flat)[0]
    off_tile = meeple_evidence(lab, ll, model, spore_of, pclass, flat, on_tile=np.array([False]),
                               tile_flat_classes=tile_flat)[0]
    on_tile = meeple_evidence(lab, ll, model, spore_of, pclass, flat, on_tile=np.array([True]),
                              tile_flat_classes=tile_flat)[0]
    orange = PLAYERS.index("orange")
    assert anywhere[orange] == off_tile[orange] < 1.0
    assert on_tile[orange] >= 1.0
