"""A dark meeple on its own dark spore under a dim warm lamp is still seen."""

from __future__ import annotations

from test_vision_covered_side import styled_table


def test_a_black_meeple_on_its_used_spore_under_a_dim_warm_lamp_is_not_lost(tmp_path, geo, codes, capsys):
    # meadow art under the dim warm lamp (bench seed 2024, board 5): black's meeple stands on
    # black's used spore (a dark X on a black chip); from above its top looked about as much
    # like the dark X as like a black meeple on an empty space, so no meeple was placed.
    # Far from the point under the camera the flat core of the space shows the chip, and the
    # dark X on it, beside the meeple's foot; the points raised to the meeple's height see its
    # top (black's evidence 0.86 from the flat core alone).
    reader, frame, board, _, _ = styled_table("meadow", "dim warm lamp", 2024, 5, tmp_path, geo, codes, capsys)
    at = board["spores"]["black"]["at"]
    assert board["meeples"]["black"] == at and board["spores"]["black"]["used"] is True
    reading = reader.read(frame.image)
    assert reading.board["meeples"].get("black") == at
    assert reading.board["spores"]["black"]["at"] == at
    # and no other player's meeple appears where none stands
    for p, h in reading.board["meeples"].items():
        assert board["meeples"].get(p) == h


def test_a_meeple_hides_the_core_beneath_its_cap_not_the_chip_beside_its_foot():
    import numpy as np

    from companion.vision import layout as L
    from companion.vision.pieces import RING_POINTS, hidden_core

    off = L.OFFSETS[RING_POINTS["core"]]
    under, far = hidden_core(np.array([[0.0, 0.0], [0.15, 0.0]], np.float32))
    # straight under the camera the meeple hides the whole core
    assert under.all()
    # seen from the left, its cap appears 0.15 s to the right: the core's left side shows,
    # its right side and its centre (the foot) stay hidden
    assert far[off[:, 0] > 0.05].all() and far[np.abs(off[:, 0]) < 0.05].all()
    assert not far[off[:, 0] < -0.1].any()
