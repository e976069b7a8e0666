"""Readings of the rulebook that players could dispute, each as a player would see it:
Forest Communication's reward of choice (7.c), the mycorrhiza marker supply (components, 5.b),
spores in growth and flow (4.a.1, 4.b II), and discarding above the cap (5)."""

from companion.edition import load_edition
from companion.hexgrid import Hex
from companion.rules import apply, check, choices_needed
from builders import SIX_TILE_TREES, make_position

ED = load_edition()


# --- 7.c Forest Communication: "all players gain 2 nutrients of their choice" ------------------

def forest_communication_move(**move_extra):
    from test_missions_and_results import green_network_through
    # trees whose last green tile also forms three mycorrhizae (5.b) beside Forest Communication
    trees = [Hex(*at) for at in SIX_TILE_TREES]
    tiles = green_network_through(trees)
    last = next(iter(tiles))
    code = tiles.pop(last)
    pos = make_position(mode="cooperative", difficulty="easy", trees=trees, tiles=tiles,
                        hands={"blue": [code], "orange": []}, meeples={"blue": next(iter(tiles)), "orange": (-4, 0)},
                        spores={"blue": (4, 0), "orange": (-4, 0)}, nutrients={"orange": {"pink": 3}})
    return pos, {"player": "blue", "action": "place", "tile": code, "at": list(last), "rotation": 0, **move_extra}


def test_every_player_chooses_the_forest_communication_colours():
    # blue gains 5 cubes of their choice: 3 mycorrhizae (5.b), then 2 for 7.c
    pos, move = forest_communication_move(choose={"blue": ["pink"] * 5, "orange": ["pink", "white"]})
    out = apply(pos, move)
    assert "forest_communication" in out.position.missions
    # The last tile may also form mycorrhizae: blue's list serves those first, then 7.c.
    assert out.position.nutrients["blue"]["pink"] == out.position.nutrient_total("blue") >= 2
    assert out.position.nutrients["orange"] == {"pink": 4, "yellow": 0, "white": 1}
    assert not [a for a in out.choices if a["why"] == "Forest Communication"]


def test_unnamed_players_are_asked_and_get_the_default_meanwhile():
    pos, move = forest_communication_move(choose=["yellow"] * 5)   # a list: the mover's own choice
    asked = choices_needed(pos, move)
    fc = [(a["player"], a["kind"], a["count"]) for a in asked if a["why"] == "Forest Communication"]
    assert fc == [("orange", "gain", 2)]
    out = apply(pos, move)
    assert out.position.nutrients["blue"]["yellow"] == out.position.nutrient_total("blue") >= 2
    # Default reading: the colours orange holds fewest of (yellow, then white).
    assert out.position.nutrients["orange"] == {"pink": 3, "yellow": 1, "white": 1}


# --- components: 8 mycorrhiza markers per colour -----------------------------------------------

def test_no_marker_left_forms_no_mycorrhiza():
    # Blue's 8 markers are all on other trees: the tile is placed, no marker, no nutrient.
    trees = {(3, -1): [None] * 4, (0, 0): ["blue"] * 4, (-2, 2): ["blue"] * 4}
    pos = make_position(trees=trees, hands={"blue": ["P03.G2"], "orange": []})
    move = {"player": "blue", "action": "place", "tile": "P03.G2", "at": [3, 0], "rotation": 0}
    assert check(pos, move).legal
    out = apply(pos, move)
    assert out.position.trees[(3, -1)] == [None] * 4
    assert out.position.nutrient_total("blue") == 0
    assert any("no mycorrhiza marker left" in n for n in out.notes)
    # With one marker back in front of blue, the same tile forms the mycorrhiza.
    trees[(0, 0)] = ["blue", "blue", "blue", None]
    pos = make_position(trees=trees, hands={"blue": ["P03.G2"], "orange": []})
    assert apply(pos, move).position.trees[(3, -1)][0] == "blue"


# --- 4.a.1 / 4.b II: spores in growth and flow -------------------------------------------------

# Pink row along the outermost row r = -4; a spore sits in the middle of it at (2, -4).
ROW = {(0, -4): "P03", (1, -4): "P03", (3, -4): "P03", (4, -4): "P03"}


def row(spore_owner="blue", **opts):
    spores = {"blue": (4, 0), "orange": (-4, 4)}
    spores[spore_owner] = (2, -4)
    meeples = {"blue": (4, -4), "orange": spores["orange"]}
    return make_position(tiles=ROW, spores=spores, meeples=meeples, options=opts or None)


def walk(to):
    return {"player": "blue", "action": "move", "to": list(to), "color": "pink"}


def test_a_meeple_crosses_its_own_spore_but_not_another_players():
    assert check(row(), walk((0, -4))).legal
    assert check(row(), walk((2, -4))).legal                     # it may also stop on it
    v = check(row("orange"), walk((0, -4)))
    assert v.reason == "move_over_spore" and "orange's spore" not in v.message and "crosses a spore" in v.message
    assert check(row("orange"), walk((2, -4))).reason == "move_over_spore"


def test_table_rule_own_spore_is_an_end_point():
    v = check(row(own_spore_joins_networks=False), walk((0, -4)))
    assert v.reason == "move_over_own_spore" and "your spore" in v.message
    assert check(row(own_spore_joins_networks=False), walk((2, -4))).legal


def test_growth_reads_the_own_spore_the_same_way():
    # From (4, -4) the walk reaches blue's spore; (2, -3) touches only the spore.
    grow = {"player": "blue", "action": "place", "tile": "P03", "at": [2, -3], "rotation": 2}
    joined = check(row(), grow)
    assert joined.legal, joined.message
    assert check(row(own_spore_joins_networks=False), grow).reason == "meeple_not_on_network"


# --- 5: above 8 nutrients the player discards what they choose -----------------------------------

def gift_position(**opts):
    return make_position(tiles={(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"},
                         meeples={"blue": (3, 0), "orange": (1, 0)},
                         nutrients={"blue": {"pink": 2}, "orange": {"white": 5, "yellow": 3}}, options=opts or None)


GIFT = {"player": "blue", "action": "give", "to": "orange", "nutrients": {"pink": 1}}


def test_a_gift_over_the_cap_makes_the_receiver_discard_their_most_plentiful_colour():
    out = apply(gift_position(), GIFT)
    assert out.position.nutrients["orange"] == {"pink": 1, "yellow": 3, "white": 4}
    assert out.choices[0]["player"] == "orange" and out.choices[0]["kind"] == "discard"


def test_the_receiver_chooses_the_discard():
    out = apply(gift_position(), {**GIFT, "drop": {"orange": {"yellow": 1}}})
    assert out.position.nutrients["orange"] == {"pink": 1, "yellow": 2, "white": 5}
    assert out.choices == []


def test_table_rule_refuses_a_gift_over_the_cap():
    assert check(gift_position(refuse_gift_over_cap=True), GIFT).reason == "nutrient_cap"
