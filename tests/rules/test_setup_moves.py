"""What ``legal-moves`` offers during the set-up: nothing to choose while the substrate tokens
are still to lay (2.c) or the opening draws are due (a draw is the bag's), then the spores, each
of them legal (rulebook 3); ``check`` refuses a spore or a first tile before the tokens, naming
the token still to lay, and the hint says the same."""

from __future__ import annotations

import random

from companion.edition import load_edition
from companion.hints import hint
from companion.movegen import legal_moves
from companion.rules import apply, check
from companion.setup import GameConfig, new_game
from companion.bag_contents import tiles_in_bag
from companion.hexgrid import Hex
from companion.position import Spore

ED = load_edition()


def draw_hands(pos):
    for color in pos.colors:
        for _ in range(3):
            tile = sorted(tiles_in_bag(pos, ED))[0]
            pos = apply(pos, {"player": color, "action": "draw", "tile": tile}, ED).position
    return pos


def lay_tokens(pos, kinds=("wood", "wood", "soil", "soil")):
    """Lay the set-up's tokens of ``kinds`` on the first token spaces free (2.c)."""
    for kind in kinds:
        at = next(h for h in ED.substrate_tokens[kind] if h not in pos.substrates and h not in pos.trees)
        pos = apply(pos, {"player": "table", "action": "substrate", "kind": kind, "at": [at.q, at.r]}, ED).position
    return pos


def test_a_real_table_offers_no_spore_before_the_opening_draws_and_every_one_after():
    pos, _ = new_game(GameConfig(), ED, random.Random(1), deal=False)   # hands empty
    assert legal_moves(pos, ED) == []
    pos = draw_hands(lay_tokens(pos))
    spores = legal_moves(pos, ED)
    assert spores and all(m["action"] == "spore" for m in spores)
    assert all(check(pos, m, ED).legal for m in spores)


def test_a_spore_before_the_substrate_tokens_is_refused_naming_the_token_still_to_lay():
    pos, _ = new_game(GameConfig(), ED, random.Random(1), deal=False)
    pos = draw_hands(lay_tokens(pos, ("wood", "soil", "soil")))      # the hands drawn, one wood token still out
    blue = pos.colors[0]
    spore = {"player": blue, "action": "spore", "at": [4, 0]}
    v = check(pos, spore, ED)
    assert (v.legal, v.reason) == (False, "setup_order")
    assert v.message.startswith("Lay the 2nd wood substrate first (2.c)") and "before the spores (3)" in v.message
    # legal-moves and the hint agree: nothing to choose, the tokens come first
    assert legal_moves(pos, ED) == []
    h = hint(pos, ED)
    assert h.move is None and h.reason.startswith("the set-up comes first: lay the substrate tokens: 1 wood (2.c)")
    assert check(lay_tokens(pos, ("wood",)), spore, ED).legal


def test_a_first_tile_before_the_substrate_tokens_is_refused():
    # a position whose spores are down while no token was laid (a file, or a log of a table that
    # put the spores first): the first player's first tile waits for the tokens too
    pos, _ = new_game(GameConfig(), ED, random.Random(1), deal=False)
    pos = draw_hands(pos)
    blue, orange = pos.colors
    pos.spores = {blue: Spore(Hex(4, 0), False), orange: Spore(Hex(-4, 0), False)}
    pos.meeples = {blue: Hex(4, 0), orange: Hex(-4, 0)}
    tile = next(c for c in pos.hands[blue] if c != "ROCK")
    v = check(pos, {"player": blue, "action": "discard", "tile": tile}, ED)
    assert v.reason == "setup_order"
    assert v.message.startswith("Lay the 1st and 2nd wood and the 1st and 2nd soil substrates first (2.c)")
    assert "before the first turn (3)" in v.message
    assert [m for m in legal_moves(pos, ED) if m["player"] == blue] == []
    h = hint(pos, ED)
    assert h.move is None and h.reason == "the set-up comes first: lay the 1st and 2nd wood and the 1st and 2nd soil substrates (2.c)"
    assert check(lay_tokens(pos), {"player": blue, "action": "discard", "tile": tile}, ED).legal


def test_a_token_replaced_in_play_holds_up_no_turn_action():
    # 5.a: a degraded substrate waits for its replacement; that is no set-up step
    from builders import make_position
    pos = make_position(substrates={(3, 0): "wood"}, hands={"blue": ["P03", "P03", "Y03"], "orange": ["Y03"] * 3})
    pos = apply(pos, {"player": "blue", "action": "place", "tile": "P03", "at": [3, 0], "rotation": 0}, ED).position
    assert pos.pending_substrates == ["wood"]
    assert check(pos, {"player": "blue", "action": "end_turn"}, ED).reason != "setup_order"
    assert check(pos, {"player": "blue", "action": "move", "to": [3, 0], "color": "pink"}, ED).legal


def test_with_only_the_market_left_the_hint_places_the_spore_as_legal_moves_does():
    # 2.d may be finished after the spores (docs/rules.md): the hint proposes the spore and names the market
    pos, _ = new_game(GameConfig(), ED, random.Random(1), deal=False)
    pos = draw_hands(lay_tokens(pos))
    h = hint(pos, ED)
    assert h.move is not None and h.move in legal_moves(pos, ED)
    assert "still to do: turn up 3 cards per deck" in h.reason
