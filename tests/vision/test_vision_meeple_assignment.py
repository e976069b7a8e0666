"""The joint meeple assignment follows where a meeple may stand (rulebook 4, 5.a): a space no
meeple may stand on does not make a placed one doubtful."""

from __future__ import annotations

import numpy as np
from test_vision_covered_side import styled_table

from companion.vision.classify import SpaceReading
from companion.vision.meeple_doubts import may_stand
from companion.vision.pieces import DEDUCED_SURE, PLAYERS, assign_meeples

ORANGE = PLAYERS.index("orange")


def _board() -> list[SpaceReading]:
    # orange's spore (its meeple on it), a wood substrate, a tile and three empty spaces; every
    # player's spore is on the board, so no spore lies hidden under a space read otherwise
    return ([SpaceReading("spore", player="orange", meeple="orange"), SpaceReading("wood"),
             SpaceReading("tile", code="P03")]
            + [SpaceReading("spore", player=p) for p in ("blue", "red", "black")])


def _evidence(on_spore: float, on_wood: float) -> np.ndarray:
    ev = np.full((6, len(PLAYERS)), -8.0, np.float32)
    ev[0, ORANGE], ev[1, ORANGE] = on_spore, on_wood
    return ev


def test_a_substrate_looking_as_orange_does_not_make_orange_meeple_on_its_spore_doubtful():
    # meadow art under the warm lamp: a wood substrate looks about as orange as orange's meeple
    # on its spore; without the rule the meeple was placed at confidence 0.1-0.49 and asked about
    ev = _evidence(on_spore=2.5, on_wood=2.0)
    owner, conf = assign_meeples(ev)
    assert owner[0] == ORANGE and conf[0] < DEDUCED_SURE  # what every space counting gives
    owner, conf = assign_meeples(ev, may_stand=may_stand(_board()))
    assert owner[0] == ORANGE and conf[0] >= DEDUCED_SURE
    assert owner[1] == -1 and conf[1] >= DEDUCED_SURE  # the substrate holds no meeple, surely


def test_where_meeples_are_placed_does_not_change():
    # the reading before meeples is no ground to forbid one (a tile under a meeple may first
    # read as another piece): the rule weighs rivals, it does not move meeples
    ev = _evidence(on_spore=1.5, on_wood=4.0)
    assert np.array_equal(assign_meeples(ev, may_stand=may_stand(_board()))[0], assign_meeples(ev)[0])


def test_a_tile_still_competes_with_the_spore():
    # a tile may hold the meeple: it stays the runner-up and keeps a close call doubtful
    ev = _evidence(on_spore=2.5, on_wood=-8.0)
    ev[2, ORANGE] = 2.2
    owner, conf = assign_meeples(ev, may_stand=may_stand(_board()))
    assert owner[0] == ORANGE and conf[0] < DEDUCED_SURE


def test_orange_meeple_on_its_spore_beside_an_orange_looking_wood_substrate_is_not_asked_about(tmp_path, geo, codes, capsys):
    # meadow art under the warm lamp (bench seed 99, board 2): orange's meeple on its spore was
    # placed at 0.49, "orange's meeple is not clearly seen: on its spore at F1 or on I4", because
    # a wood substrate elsewhere looked about as orange
    reader, frame, board, _, _ = styled_table("meadow", "warm lamp", 99, 2, tmp_path, geo, codes, capsys)
    reading = reader.read(frame.image)
    q, r = board["spores"]["orange"]["at"]
    assert board["meeples"]["orange"] == [q, r]
    assert reading.board["meeples"]["orange"] == [q, r]
    assert f"{q},{r}" not in reading.unsure
    assert not any("meeple is not clearly seen" in why for why in reading.unsure.values())
