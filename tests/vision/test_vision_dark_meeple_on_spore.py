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
