"""The greedy bot plays the game a person would: it buys mushroom cards (6), collects
nutrients (5), cooperates on the missions (7), and never plays an illegal move."""

import random

from companion.bots import GreedyBot
from companion.rules import check
from companion.selfplay import play_games
from builders import make_position


def test_greedy_games_buy_cards_and_beat_random_bots():
    greedy = play_games("competitive", 2, 40, players=2, bot="greedy")   # invariants checked after every event
    rand = play_games("competitive", 2, 40, players=2, bot="random")
    assert not any(g.violations for g in greedy)
    assert all(g.cards_bought >= 3 for g in greedy)
    assert sum(g.winner_vp for g in greedy) > sum(g.winner_vp for g in rand)


def test_cooperative_greedy_bots_accomplish_missions():
    games = play_games("cooperative", 1, 41, players=2, bot="greedy")
    assert not games[0].violations
    assert {"funga", "forest_symbiosis"} & set(games[0].missions)


def test_the_bot_degrades_a_substrate_it_can_reach():
    # Rulebook 5.a: a pink tile on the wood substrate next to the meeple's pink network.
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, hands={"blue": ["P03", "Y03", "P024.Y1"], "orange": []},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    from companion.edition import load_edition
    mv = GreedyBot(random.Random(1)).next_action(pos, load_edition())
    assert mv["action"] == "place" and mv["at"] == [2, 0]
    assert check(pos, mv).legal


def test_simulated_players_choose_what_their_target_needs():
    from companion.edition import load_edition
    ed = load_edition()
    # 5.b: the mycorrhiza cube "of your choice"; a01 needs 1 pink and 1 yellow.
    pos = make_position(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    move = GreedyBot(random.Random(1)).choose(pos, ed, {"player": "blue", "action": "place", "tile": "P03.G2", "at": [3, 0], "rotation": 0})
    assert move["choose"]["blue"][0] in ("pink", "yellow")


def test_hint_names_an_action_a_reason_and_a_plan_per_card():
    from companion.edition import load_edition
    from companion.hints import hint
    ed = load_edition()
    # 5.a: the wood substrate next to blue's pink network is the obvious move.
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, hands={"blue": ["P03", "Y03", "P024.Y1"], "orange": []},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, market={"a": ["a01", "a03"], "b": []}, decks={"a": 5, "b": 5})
    h = hint(pos, ed)
    assert h.move["action"] == "place" and h.move["at"] == [2, 0]
    assert "blue gains 2 pink (wood substrate degraded)" in h.reason
    plans = {c.card: c for c in h.cards}
    assert set(plans) == {"a01", "a03"}
    # a03 costs white: the plan names a tree to form a mycorrhiza with (5.b), or says none is left.
    assert any("white" in s for s in plans["a03"].steps)


def test_over_the_cap_the_bot_keeps_the_cubes_its_card_needs():
    # Rulebook 5: above 8 nutrients the player discards down to 8, of their choice.  Blue gains
    # 2 pink from the wood substrate (5.a) holding 4 yellow and 4 white; a02 costs 1 pink,
    # 1 yellow and 1 white, and white comes only from mycorrhizae: the surplus yellow goes.
    from companion.edition import load_edition
    from companion.rules import apply
    ed = load_edition()
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, hands={"blue": ["P03", "Y03", "P024.Y1"], "orange": []},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, nutrients={"blue": {"yellow": 4, "white": 4}},
                        market={"a": ["a02"], "b": []}, decks={"a": 5, "b": 5})
    move = GreedyBot(random.Random(1)).choose(pos, ed, {"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0})
    assert move["drop"] == {"blue": {"yellow": 2}}
    assert apply(pos, move, ed).position.nutrients["blue"] == {"pink": 2, "yellow": 2, "white": 4}


def test_the_bot_puts_down_a_second_rock_without_hurting_itself():
    # 4.a.3: a rock cannot be discarded, so two rocks leave one tile to choose from; 4.a.2: it
    # goes next to the meeple.  The bot plays one at once, not on its own tile or spore.
    from companion.edition import load_edition
    pos = make_position(tiles={(3, 0): "P03"}, hands={"blue": ["ROCK", "ROCK", "Y03"], "orange": []},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    mv = GreedyBot(random.Random(1)).next_action(pos, load_edition())
    assert mv["action"] == "rock"
    assert tuple(mv["at"]) not in {(3, 0), (4, 0)}
    assert check(pos, mv).legal


def test_cooperative_bots_pay_for_a_card_with_tiles_off_the_green_network_toward_the_trees():
    # 6.a lets the buyer pick the tiles within one network; 7.c needs a green network that
    # reaches every tree.  The pink tile at D4 also carries the green path touching the tree,
    # so the bot pays a01's two pink tiles with the other two (the default would take D4,
    # the farthest from the meeple).
    from companion.edition import load_edition
    from companion.rules import apply
    ed = load_edition()
    pos = make_position(tiles={(-1, 1): "P03.G12", (0, 1): "P03", (1, 1): "P03"}, trees={(0, 0): [None] * 4},
                        meeples={"blue": (1, 1), "orange": (-4, 0)}, hands={"blue": ["Y03"], "orange": []},
                        nutrients={"blue": {"pink": 1}, "orange": {"yellow": 1}}, mode="cooperative", difficulty="easy",
                        taken=["place"], market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    mv = GreedyBot(random.Random(1)).next_action(pos, ed)
    assert mv["action"] == "buy" and mv["card"] == "a01"
    assert sorted(map(tuple, mv["tiles"])) == [(0, 1), (1, 1)]
    after = apply(pos, mv, ed).position
    assert (-1, 1) in after.tiles and after.tiles[(-1, 1)] == "P03.G12"


def _play_turn(bot, pos, ed):
    """The bot's actions of one turn, each applied (choices filled in as the table does)."""
    from companion.rules import apply
    played = []
    for _ in range(8):
        mv = bot.next_action(pos, ed)
        if mv is None:
            break
        mv = bot.choose(pos, ed, mv)
        assert check(pos, mv, ed).legal, mv
        played.append(mv)
        pos = apply(pos, mv, ed).position
    return played, pos


def test_the_bot_moves_onto_the_paying_network_and_buys_in_the_same_turn():
    # 4.b then 6.a: blue stands on a yellow network; a01 takes 2 pink tiles of the network the
    # meeple stands on, and the pink network of D-tiles (2, 0) and (3, -1) is one yellow step
    # away.  Blue holds a01's cubes (1 pink, 1 yellow), so flowing along the yellow network
    # onto (2, 0) makes the card affordable: the bot moves and buys this turn.
    from companion.edition import load_edition
    ed = load_edition()
    pos = make_position(tiles={(3, 0): "Y03.G5", (2, 0): "P1.Y03.G4", (3, -1): "P024.Y1"},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, hands={"blue": ["Y024.G3", "Y024.G3", "Y03.G5"], "orange": []},
                        nutrients={"blue": {"pink": 1, "yellow": 1}}, market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    assert not check(pos, {"player": "blue", "action": "buy", "card": "a01"}, ed).legal
    played, after = _play_turn(GreedyBot(random.Random(1)), pos, ed)
    actions = [m["action"] for m in played]
    assert "move" in actions and actions[-1] == "buy" and played[-1]["card"] == "a01"
    assert after.cards["blue"] == ["a01"]


def test_the_bot_buys_after_a_placement_completes_the_network_reached_by_a_move():
    # Same board with the placement already made (4.a done): only the move (4.b) and the
    # purchase (6) are left, and the bot takes both.
    from companion.edition import load_edition
    ed = load_edition()
    pos = make_position(tiles={(3, 0): "Y03.G5", (2, 0): "P1.Y03.G4", (3, -1): "P024.Y1"}, taken=["place"],
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, hands={"blue": ["Y024.G3", "Y03.G5"], "orange": []},
                        nutrients={"blue": {"pink": 1, "yellow": 1}}, market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    played, after = _play_turn(GreedyBot(random.Random(2)), pos, ed)
    assert [m["action"] for m in played] == ["move", "buy"]
    assert after.cards["blue"] == ["a01"] and after.nutrients["blue"] == {"pink": 0, "yellow": 0, "white": 0}


def test_a_network_that_cannot_grow_is_not_counted_on_for_a_bigger_card():
    # 4.a.1: tiles grow only from the network the meeple stands on.  Blue's two pink tiles
    # are walled in by rocks, so b01 (3 pink tiles, 3 VP) would need a new network; a01 (2 pink
    # tiles, 2 VP) is paid by the tiles already there and becomes the card to work toward.
    # (Blue holds b01's white cube, which only mycorrhizae give, 5.b.)
    from companion.edition import load_edition
    ed = load_edition()
    pos = make_position(tiles={(1, 0): "P03", (0, 0): "P03"}, rocks=[(2, 0), (-1, 0)], trees=[(0, -3)],
                        meeples={"blue": (1, 0), "orange": (-4, 0)}, hands={"blue": ["Y03.G5"] * 3, "orange": []},
                        nutrients={"blue": {"white": 1}}, market={"a": ["a01"], "b": ["b01"]}, decks={"a": 5, "b": 5})
    assert GreedyBot(random.Random(1)).target(pos, ed, "blue").card == "a01"
    # With an open end the same network is worth growing toward the dearer card.
    pos = make_position(tiles={(1, 0): "P03", (0, 0): "P03"}, rocks=[(2, 0)], trees=[(0, -3)],
                        meeples={"blue": (1, 0), "orange": (-4, 0)}, hands={"blue": ["Y03.G5"] * 3, "orange": []},
                        nutrients={"blue": {"white": 1}}, market={"a": ["a01"], "b": ["b01"]}, decks={"a": 5, "b": 5})
    assert GreedyBot(random.Random(1)).target(pos, ed, "blue").card == "b01"


def test_after_a_purchase_the_spore_restarts_on_what_is_left_of_a_network():
    # 6: the spore goes to "any starting point" after a purchase, and the player's own spore
    # joins the networks whose paths face it (4.a.1).  Blue pays a01 with two of its four pink
    # tiles; the two left end on the outermost space (3, 1), where the spore starts b01 (3 pink
    # tiles) one tile short instead of from nothing.
    from companion.edition import load_edition
    ed = load_edition()
    line = {(3, 0): "P25", (3, -1): "P25", (3, -2): "P25", (3, -3): "P25"}
    pos = make_position(tiles=line, spores={"blue": (-1, 4), "orange": (-4, 0)},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, hands={"blue": ["Y03.G5"] * 3, "orange": []},
                        nutrients={"blue": {"pink": 1, "yellow": 1}}, taken=["place"],
                        market={"a": ["a01"], "b": ["b01"]}, decks={"a": 5, "b": 5})
    mv = GreedyBot(random.Random(1)).next_action(pos, ed)
    assert mv["action"] == "buy" and mv["card"] == "a01"
    assert mv["spore_to"] == [3, 1]


def test_a_card_two_placements_away_is_bought_on_the_second_turn():
    # 6.a: a01 takes 2 pink tiles of the network the meeple stands on; blue holds its cubes
    # (1 pink, 1 yellow) and two pink tiles.  Growing pink from the spore (4.a.1) on each turn
    # completes the network on the second, and the card is bought at once (6).
    from companion.edition import load_edition
    ed = load_edition()
    pos = make_position(hands={"blue": ["P03", "P03", "Y03"], "orange": []}, nutrients={"blue": {"pink": 1, "yellow": 1}},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    bot = GreedyBot(random.Random(1))
    first, pos = _play_turn(bot, pos, ed)
    assert [m["action"] for m in first] == ["place"] and first[0]["tile"] == "P03"
    pos.taken = []   # blue's next turn (the others pass)
    second, pos = _play_turn(bot, pos, ed)
    assert second[-1]["action"] == "buy" and second[-1]["card"] == "a01"
    assert pos.cards["blue"] == ["a01"]
