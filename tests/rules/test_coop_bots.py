"""Cooperative bots playing as one team (rulebook 6.b.2, 5.c, 7.a, 7.b)."""

from __future__ import annotations

import random

from companion import tiles as tilecodes
from companion.bots import GreedyBot
from companion.edition import load_edition
from companion.hexgrid import Hex, distance
from companion.rules import Board, check
from tests.builders import SIX_TILE_TREES, make_position

ED = load_edition()


def _coop(**kw):
    base = dict(trees={(0, 0): [None] * 4}, mode="cooperative", difficulty="easy",
                market={"a": ["a01", "a02"], "b": []}, decks={"a": 5, "b": 5})
    base.update(kw)
    return make_position(**base)


def test_every_player_of_the_team_works_toward_the_same_card():
    # 6.b.2: every card is paid by every player (each the cubes under their meeple colour), so
    # cubes gathered for different cards are wasted.  Blue stands on two pink tiles (a01 asks
    # 2 pink tiles, and blue holds its pink cube), orange on three yellow ones (a02 asks 3
    # yellow tiles): each alone would pick the card under their own meeple; the team picks one.
    pos = _coop(tiles={(2, 0): "P03", (3, 0): "P03", (-2, 0): "Y03", (-3, 0): "Y03", (-1, 0): "Y03"},
                meeples={"blue": (3, 0), "orange": (-2, 0)}, spores={"blue": (4, 0), "orange": (-4, 0)},
                hands={"blue": [], "orange": []}, nutrients={"blue": {"pink": 1}})
    bot = GreedyBot(random.Random(1))
    cards = {bot.target(pos, ED, c).card for c in pos.colors}
    assert len(cards) == 1
    solo = GreedyBot(random.Random(1))
    solo.team_target = False
    assert {solo.target(pos, ED, c).card for c in pos.colors} == {"a01", "a02"}


def test_a_player_passes_a_teammate_the_cube_the_team_card_lacks():
    # 5.c: both meeples on one yellow network; orange lacks the yellow cube of its share of
    # the team's card and blue holds two beyond its own share: after placing, blue gives it.
    pos = _coop(tiles={(-2, 0): "Y03", (-1, 0): "Y03", (1, 0): "P03"},
                meeples={"blue": (-1, 0), "orange": (-2, 0)}, spores={"blue": (4, 0), "orange": (-4, 0)},
                hands={"blue": ["Y03"], "orange": []}, taken=["place"],
                nutrients={"blue": {"pink": 1, "yellow": 2}, "orange": {}}, market={"a": ["a01"], "b": []})
    bot = GreedyBot(random.Random(1))
    assert bot.target(pos, ED, "orange").missing == {"yellow": 1}
    mv = bot.next_action(pos, ED)
    assert mv == {"player": "blue", "action": "give", "to": "orange", "nutrients": {"yellow": 1}}
    assert check(pos, mv, ED).legal


def _pink_chain(length: int):
    """A pink network from the three-way green tile at (0, 1) (its one pink end faces (1, 0))
    along ``length - 1`` straight pink tiles, blue's meeple on the last one."""
    tiles = {(0, 1): "P1.G024"}
    at = (1, 0)
    for _ in range(length - 1):
        tiles[at] = "P14"
        at = (at[0] + 1, at[1] - 1)
    last = (at[0] - 1, at[1] + 1)
    return _coop(tiles=tiles, trees={(-2, 0): [None] * 4, (0, -3): [None] * 4, (-3, 3): [None] * 4, (3, 1): [None] * 4},
                 meeples={"blue": last, "orange": (-4, 0)}, hands={"blue": ["Y03"], "orange": []}, taken=["place"],
                 nutrients={"blue": {"pink": 1}, "orange": {"yellow": 1}}, market={"a": ["a01"], "b": []}, bag=30)


def test_a_purchase_never_pays_with_a_three_way_green_tile_before_forest_communication():
    # 6.a lets the buyer choose the tiles within the network; 7.c needs two three-way green
    # paths and the 2-player bag holds two.  The pink network of four tiles starts at the
    # three-way tile, the farthest from the meeple (the default payment would take it).
    pos = _pink_chain(4)
    mv = GreedyBot(random.Random(1)).next_action(pos, ED)
    assert mv["action"] == "buy" and mv["card"] == "a01"
    assert (0, 1) not in map(tuple, mv["tiles"]) and len(mv["tiles"]) == 2
    # With only the three-way tile and one other in the network, the card waits.
    short = _pink_chain(2)
    assert check(short, {"player": "blue", "action": "buy", "card": "a01"}, ED).legal
    assert GreedyBot(random.Random(1)).next_action(short, ED) is None


def test_the_team_grows_toward_a_side_of_a_planned_space_its_tile_can_join():
    # 4.a.1: the planned arm tile on (2, -1) carries green on edges 3 and 4, and pink or yellow
    # on the others.  A tile on (3, -1) faces it across that space's edge 0: a pink end there
    # lets the team lay the planned tile next turn, a green end cannot (the planned tile has
    # no green on edge 0), so the pink end is worth more.
    trees = {at: [None] * 4 for at in SIX_TILE_TREES}
    pos = make_position(trees=trees, mode="cooperative", difficulty="easy", hands={"blue": [], "orange": []})
    bot = GreedyBot(random.Random(1))
    b = Board(pos, ED)
    bp = bot._blueprint(b)
    assert bp.spaces.get(Hex(2, -1)) == frozenset({3, 4})
    pink_end = bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("P03"))
    green_end = bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("G03"))
    assert pink_end > green_end


def _six_tile_blueprint():
    """The blueprint of an empty board with the trees on :data:`SIX_TILE_TREES`, whose arm
    tile on (2, -1) carries green on edges 3 and 4 (the test above)."""
    trees = {at: [None] * 4 for at in SIX_TILE_TREES}
    empty = make_position(trees=trees, mode="cooperative", difficulty="easy", hands={"blue": [], "orange": []})
    bp = GreedyBot(random.Random(1))._blueprint(Board(empty, ED))
    assert bp.spaces.get(Hex(2, -1)) == frozenset({3, 4})
    return trees, bp


def test_a_substrate_on_a_planned_space_pulls_only_ends_of_its_colour():
    # 5.a (table rule substrate_requires_matching_color, on by default): a tile laid on a
    # substrate joins from a network of the substrate's colour.  With soil on the planned
    # space (2, -1), a pink end facing it can never lay the planned tile there, a yellow one can.
    trees, bp = _six_tile_blueprint()
    pos = make_position(trees=trees, substrates={(2, -1): "soil"}, mode="cooperative", difficulty="easy",
                        hands={"blue": [], "orange": []})
    bot = GreedyBot(random.Random(1))
    b = Board(pos, ED)
    pink_end = bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("P03"))
    yellow_end = bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("Y03"))
    assert yellow_end > pink_end
    # Without the table rule either colour joins, as on a bare space.
    free = make_position(trees=trees, substrates={(2, -1): "soil"}, mode="cooperative", difficulty="easy",
                         hands={"blue": [], "orange": []}, options={"substrate_requires_matching_color": False})
    b = Board(free, ED)
    assert bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("P03")) == \
        bot._follow_blueprint(b, bp, Hex(3, -1), tilecodes.parse("Y03"))


def test_the_player_holding_a_planned_tile_walks_to_the_network_that_can_lay_it():
    # 4.b and 4.a.1: blue holds the planned tile of (2, -1) (green on edges 3 and 4, pink on
    # edge 0).  The pink network of (3, -1) and (4, -1) faces that space's edge 0, but blue's
    # meeple stands on (4, 0), whose only path is yellow: from there blue cannot lay it.  After
    # placing, blue walks along yellow onto (4, -1), so next turn the pink network is theirs.
    trees, bp = _six_tile_blueprint()
    pos = make_position(tiles={(3, -1): "P03", (4, -1): "P3.Y5", (4, 0): "Y2"}, trees=trees,
                        spores={"blue": (-4, 4), "orange": (-4, 0)}, meeples={"blue": (4, 0), "orange": (-4, 0)},
                        mode="cooperative", difficulty="easy", taken=["place"],
                        hands={"blue": ["P12.Y03.G45"], "orange": []})
    pos.cache["forest_plan"] = bp
    bot = GreedyBot(random.Random(1))
    b = Board(pos, ED)
    assert Hex(2, -1) not in b.frontier("blue")
    mv = bot.next_action(pos, ED)
    assert mv == {"player": "blue", "action": "move", "to": [4, -1], "color": "yellow"}
    assert check(pos, mv, ED).legal
    # Without the planned shape in hand, blue has no reason to walk there.
    other = make_position(tiles={(3, -1): "P03", (4, -1): "P3.Y5", (4, 0): "Y2"}, trees=trees,
                          spores={"blue": (-4, 4), "orange": (-4, 0)}, meeples={"blue": (4, 0), "orange": (-4, 0)},
                          mode="cooperative", difficulty="easy", taken=["place"], hands={"blue": ["Y03"], "orange": []})
    other.cache["forest_plan"] = bp
    assert GreedyBot(random.Random(1))._move_to_plan(Board(other, ED), "blue") is None
    # The hint names the reason for the walk.
    from companion.hints import hint
    h = hint(pos, ED)
    assert h.move == mv and "Forest Communication" in h.reason


def _at_planned_space(hand, used=False):
    """Blue's meeple on a pink tile whose end faces the planned space (2, -1) across its edge 0
    (the planned tile there carries pink on that edge, so the team can lay it from here)."""
    trees, bp = _six_tile_blueprint()
    pos = make_position(tiles={(3, -1): "P03"}, trees=trees, spores={"blue": ((-4, 4), used), "orange": (-4, 0)},
                        meeples={"blue": (3, -1), "orange": (-4, 0)}, mode="cooperative", difficulty="easy",
                        hands={"blue": hand, "orange": []})
    pos.cache["forest_plan"] = bp
    assert Hex(2, -1) in Board(pos, ED).frontier("blue")
    return pos


def test_a_player_at_a_planned_space_without_its_shape_redraws_with_the_spore():
    # 4.d, first option: discard one tile (a rock too), return the other two to the bag and
    # draw three.  Blue's network reaches the planned space (2, -1) but no tile in hand has
    # the green path the blueprint needs anywhere: blue fishes for it, dropping the rock.
    pos = _at_planned_space(["ROCK", "Y03", "Y12"])
    mv = GreedyBot(random.Random(1)).next_action(pos, ED)
    assert mv == {"player": "blue", "action": "spore_ability", "mode": "redraw", "discard": "ROCK"}
    assert check(pos, mv, ED).legal
    from companion.hints import hint
    h = hint(pos, ED)
    assert h.move == mv and "Forest Communication" in h.reason
    # Far from every planned space, blue grows toward the plan instead.
    far = _at_planned_space(["ROCK", "Y03", "Y12"])
    far.meeples["blue"] = Hex(-4, 4)
    far.cache.clear()
    far.cache["forest_plan"] = pos.cache["forest_plan"]
    assert GreedyBot(random.Random(1)).next_action(far, ED)["action"] != "spore_ability"
    # Holding the planned tile, blue lays it instead.
    holding = _at_planned_space(["ROCK", "Y03", "P12.Y03.G45"])
    mv = GreedyBot(random.Random(1)).next_action(holding, ED)
    assert mv["action"] == "place" and mv["at"] == [2, -1]
    # The ability is spent until a purchase (4.d): blue grows as usual.
    spent = _at_planned_space(["ROCK", "Y03", "Y12"], used=True)
    assert GreedyBot(random.Random(1)).next_action(spent, ED)["action"] != "spore_ability"


def test_no_redraw_for_a_shape_the_bag_no_longer_holds():
    # 4.d: the redraw spends the spore ability for a tile the blueprint needs.  The position
    # does not list the bag, so it is the edition's bag less what is out: every tile type
    # that fits an empty planned space is in the discard pile (under its canonical code,
    # whatever rotation the edition prints), so no draw can bring one and blue grows instead.
    pos = _at_planned_space(["ROCK", "Y03", "Y12"])
    assert pos.bag_tiles is None
    bp = pos.cache["forest_plan"]
    fitting = {c: n for c, n in ED.bag_composition(2).items()
               if c != "ROCK" and GreedyBot._fits_any(bp, bp.todo(pos), c)}
    assert any(tilecodes.canonical(c) != c for c in fitting)   # printed in a rotation of its own
    pos.discard = [tilecodes.canonical(c) for c, n in fitting.items() for _ in range(n)]
    pos.bag = 48 - 1 - 3 - len(pos.discard)
    mv = GreedyBot(random.Random(1)).next_action(pos, ED)
    assert mv["action"] != "spore_ability"
    # With one of them back in the bag, blue fishes for it.
    pos.discard.pop()
    pos.bag += 1
    pos.cache.clear()
    pos.cache["forest_plan"] = bp
    assert GreedyBot(random.Random(1)).next_action(pos, ED)["action"] == "spore_ability"


def test_a_tile_without_green_grows_toward_the_blueprint_too():
    # 4.a.1: a pink or yellow end next to a planned space opens the way to it as well as a
    # green one.  Blue holds only P024.Y1 (no green path; the spore ability is spent, 4.d):
    # of the spaces its pink network reaches, it takes (3, 0) or (4, -2), whose ends face
    # spaces next to the plan, never (4, 0), three spaces from it (whatever the tie-break).
    trees, bp = _six_tile_blueprint()
    for seed in range(6):
        pos = make_position(tiles={(3, -1): "P03"}, trees=trees, spores={"blue": ((4, -1), True), "orange": (-4, 0)},
                            meeples={"blue": (3, -1), "orange": (-4, 0)}, mode="cooperative", difficulty="easy",
                            hands={"blue": ["P024.Y1"], "orange": []})
        pos.cache["forest_plan"] = bp
        assert Hex(4, 0) in Board(pos, ED).frontier("blue")
        mv = GreedyBot(random.Random(seed)).next_action(pos, ED)
        assert mv["action"] == "place" and check(pos, mv, ED).legal
        assert min(distance(Hex(*mv["at"]), h) for h in bp.todo(pos)) == 2


def _beside_the_rim(hand, substrates=None):
    """Blue's meeple on a pink tile at (-3, 4), far from the blueprint: its pink ends face
    (-4, 4) (a corner of the board) and (-2, 4); the spore ability is spent (4.d) and the
    meeple has nowhere to move, so the placement alone decides."""
    trees, bp = _six_tile_blueprint()
    pos = make_position(tiles={(-3, 4): "P03"}, trees=trees, substrates=substrates or {},
                        spores={"blue": ((-4, 0), True), "orange": (0, -4)}, meeples={"blue": (-3, 4), "orange": (0, -4)},
                        mode="cooperative", difficulty="easy", hands={"blue": hand, "orange": []})
    pos.cache["forest_plan"] = bp
    return pos


def _bot(seed, **settings):
    bot = GreedyBot(random.Random(seed))
    for k, v in settings.items():
        setattr(bot, k, v)
    return bot


def test_an_end_off_the_meeples_network_pulls_less_toward_the_blueprint():
    # 4.a.1 and 4.b: the tile P02.Y35.G14 joins blue's pink network on (-2, 4) by its pink path
    # only.  Turned one way (rotation 1) that pink path goes on to (-1, 3), two spaces from the
    # plan; turned the other (rotation 3) its pink path ends at the board's edge and only the
    # yellow and green paths, not joined to blue's network, point at the plan: blue could grow
    # from them only after a meeple move.  Blue turns the tile so its own network grows (the
    # frontier gain, which would prefer it too, is left out here).
    picks = set()
    for seed in range(8):
        mv = _bot(seed, joined_ends=True, frontier_gain=0.0).next_action(_beside_the_rim(["P02.Y35.G14"]), ED)
        assert mv["action"] == "place" and mv["at"] == [-2, 4] and mv["rotation"] == 1
        off = _bot(seed, joined_ends=False, frontier_gain=0.0)
        picks.add(off.next_action(_beside_the_rim(["P02.Y35.G14"]), ED)["rotation"])
    assert 3 in picks   # scored by the nearest end alone, either rotation may be laid


def test_bringing_the_teams_frontier_closer_to_the_blueprint_beats_two_cubes():
    # 7.c with 5.a: (-4, 4) holds a wood substrate (two pink cubes for a pink tile laid there)
    # but leads nowhere; the tile on (-2, 4) brings the spaces blue's network can grow onto
    # one space closer to the blueprint, which no teammate's network is nearer to.
    wood = {(-4, 4): "wood"}
    for seed in range(8):
        pos = _beside_the_rim(["P02.Y35.G14"], wood)
        mv = _bot(seed, joined_ends=True, frontier_gain=12.0).next_action(pos, ED)
        assert mv["action"] == "place" and mv["at"] == [-2, 4] and check(pos, mv, ED).legal
        assert _bot(seed, joined_ends=True, frontier_gain=0.0).next_action(
            _beside_the_rim(["P02.Y35.G14"], wood), ED)["at"] == [-4, 4]
