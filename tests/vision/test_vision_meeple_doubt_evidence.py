"""A meeple's doubt offers only the places the evidence allows: a spore showing its symbol holds
no meeple, so it is not offered as where that meeple may stand."""

from __future__ import annotations

import numpy as np

from companion.vision.pieces import HOME_LEAST, PLAYERS, assign_meeples, meeples_at_home

BLUE = PLAYERS.index("blue")


def test_a_spore_showing_its_symbol_keeps_its_reading_and_only_the_other_space_is_in_doubt():
    # blue's meeple seen clearly nowhere (a cup over it, glare); its spore on space 0 shows its
    # symbol (evidence well under HOME_LEAST), a tile on space 2 looks next most like it, a tile
    # on space 3 about as much
    ev = np.full((4, len(PLAYERS)), -6.0, np.float32)
    ev[0, BLUE], ev[2, BLUE], ev[3, BLUE] = HOME_LEAST - 3.0, -1.0, -1.5
    owner, conf = assign_meeples(ev)
    assert owner[0] == -1 and owner[2] == -1
    before = conf[0]
    home = np.array([0, -1, -1, -1])
    owner, conf, doubts = meeples_at_home(ev, owner, conf, home)
    assert owner[0] == -1 and (owner == BLUE).sum() == 0  # placed nowhere
    assert conf[0] == before >= 0.5  # the spore is read as before: no meeple stands on it
    assert conf[2] == 0.0 and doubts == [(0, BLUE, 2)]  # the tile is asked about


def test_a_spore_that_may_hide_its_meeple_is_still_offered():
    ev = np.full((4, len(PLAYERS)), -6.0, np.float32)
    ev[0, BLUE], ev[2, BLUE] = HOME_LEAST + 0.5, HOME_LEAST + 0.3
    owner, conf = assign_meeples(ev)
    owner, conf, doubts = meeples_at_home(ev, owner, conf, np.array([0, -1, -1, -1]))
    assert owner[0] == BLUE and conf[0] < 0.5 and doubts == [(0, BLUE, 2)]
