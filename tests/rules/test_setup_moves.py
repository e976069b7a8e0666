"""What ``legal-moves`` offers during the set-up: nothing to choose while the opening draws are
due (a draw is the bag's), then the spores, each of them legal (rulebook 3)."""

from __future__ import annotations

import random

from companion.edition import load_edition
from companion.movegen import legal_moves
from companion.rules import apply, check
from companion.setup import GameConfig, new_game
from companion.bag_contents import tiles_in_bag

ED = load_edition()


def test_a_real_table_offers_no_spore_before_the_opening_draws_and_every_one_after():
    pos, _ = new_game(GameConfig(), ED, random.Random(1), deal=False)   # hands empty
    assert legal_moves(pos, ED) == []
    for color in pos.colors:
        for _ in range(3):
            tile = sorted(tiles_in_bag(pos, ED))[0]
            pos = apply(pos, {"player": color, "action": "draw", "tile": tile}, ED).position
    spores = legal_moves(pos, ED)
    assert spores and all(m["action"] == "spore" for m in spores)
    assert all(check(pos, m, ED).legal for m in spores)
