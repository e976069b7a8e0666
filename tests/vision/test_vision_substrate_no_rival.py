"""A substrate is never named as where a meeple may stand.

Inkline art under the dim warm lamp: orange's meeple stands on its spore, whose chip first reads
as the board around the meeple, so while orange's spore was read nowhere a wood substrate
(orange too under that lamp) counted as a space orange's meeple might stand on.  Once the chip
is read as orange's spore under its meeple, the wood is no such space (rulebook 4, 5.a), yet
the doubt named it: "orange's meeple is not clearly seen: on its spore at H1 or on C1" (6 boards
of 60 of the bench's seed 321), and the wood and the spore went below the table's bar."""

from __future__ import annotations

import pytest
from bench_groups import calibrate_group, read_group_board

from companion.vision.profile import load_profile


@pytest.fixture(scope="module")
def inkline_dim(tmp_path_factory, geo):
    return load_profile(calibrate_group("inkline", "dim warm lamp", 321, tmp_path_factory.mktemp("cal"), geo))


@pytest.mark.parametrize("board_no", [9, 14])
def test_a_wood_substrate_is_no_rival_of_a_meeple_on_its_spore(board_no, inkline_dim, geo, codes):
    board, reading = read_group_board("inkline", "dim warm lamp", 321, board_no, geo, codes, inkline_dim)
    assert board["meeples"]["orange"] == board["spores"]["orange"]["at"]
    assert reading.board["meeples"]["orange"] == board["meeples"]["orange"]
    for s in board["substrates"]:
        key = f"{s['at'][0]},{s['at'][1]}"
        assert "meeple" not in reading.unsure.get(key, ""), reading.unsure[key]
        assert reading.confidence[key] >= 0.5
