"""Nutrients, mushroom cards and their effects (rulebook sections 5 and 6), each with the
reason code or the cubes a player would see."""

import pytest

from companion.purchase import can_buy
from companion.rules import apply, check
from builders import make_position

ROW = {(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}
MARKET = {"a": ["a01", "a04", "a02"], "b": ["b01", "b05", "b07"]}


def buy(card, player="blue", **extra):
    return {"player": player, "action": "buy", "card": card, **extra}


def reason(pos, move):
    return check(pos, move).reason


def row_position(**kw):
    # Purchases come after the turn's placement (Turn Sequence Summary): it is already made.
    args = dict(tiles=dict(ROW), meeples={"blue": (3, 0), "orange": (-4, 0)}, market=MARKET,
                decks={"a": 5, "b": 5}, taken=["place"])
    args.update(kw)
    return make_position(**args)


# --- 6 buying ------------------------------------------------------------------------------

def test_buying_pays_tiles_and_cubes_and_restarts_at_the_spore():
    pos = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}})
    out = apply(pos, buy("a01", refill="a05", spore_to=[0, 4]))
    p = out.position
    assert p.cards["blue"] == ["a01"]
    assert set(ROW) - set(p.tiles) == {(1, 0), (2, 0)}          # 2 pink tiles paid, far end first
    assert p.nutrients["blue"] == {"pink": 0, "yellow": 0, "white": 0}
    assert p.market["a"] == ["a04", "a02", "a05"] and p.decks["a"] == 4
    assert p.spores["blue"].at == (0, 4) and p.meeples["blue"] == (0, 4) and not p.spores["blue"].used
    assert sorted(p.discard) == ["P03", "P03"]


@pytest.mark.parametrize("used", [False, True])
def test_the_spore_ability_is_said_ready_again_only_when_it_had_been_used(used):
    """The note said "ready again" after every purchase, even when the ability was never used (4.d)."""
    pos = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}},
                       spores={"blue": ((4, 0), used), "orange": ((-4, 0), False)})
    notes = apply(pos, buy("a01")).notes
    spore_note = next(n for n in notes if n.startswith("blue's spore is on"))
    assert ("ready again" in spore_note) is used, spore_note


def test_purchases_come_last_in_the_turn():
    pos = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}}, taken=[])
    assert reason(pos, buy("a01")) == "must_place_or_discard"
    after = apply(row_position(nutrients={"blue": {"pink": 1, "yellow": 1}}), buy("a01")).position
    assert reason(after, {"player": "blue", "action": "move", "to": [3, 0], "color": "pink"}) == "purchase_ends_actions"
    assert reason(after, {"player": "blue", "action": "end_turn"}) in (None, "must_draw")


def test_purchase_messages_name_the_real_problem():
    pos = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}})
    v = check(pos, buy("a01", tiles=[[1, 0], [1, 0]]))
    assert v.reason == "wrong_payment" and "twice" in v.message
    gone = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}}, spores={"blue": None, "orange": (-4, 0)},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    gone.spores["blue"] = __import__("companion.position", fromlist=["Spore"]).Spore(None, False)
    assert reason(gone, buy("a01")) == "spore_displaced"


def test_buying_re_enables_the_spore_ability():
    pos = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}},
                       spores={"blue": ((4, 0), True), "orange": (-4, 0)})
    assert apply(pos, buy("a01")).position.spores["blue"].used is False


@pytest.mark.parametrize("kw,card,extra,code", [
    ({}, "a01", {}, "insufficient_nutrients"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1, "white": 1}}, "tiles": {(3, 0): "P03", (2, 0): "P03"}},
     "a04", {}, "insufficient_mycelia"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1}}, "tiles": {(3, 0): "P03", (2, 0): "P03", (-1, 0): "P03"}},
     "a01", {"tiles": [[3, 0], [-1, 0]]}, "mycelia_not_one_network"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1}}, "tiles": {**ROW, (0, 3): "Y03"},
      "meeples": {"blue": (0, 3), "orange": (-4, 0)}}, "a01", {}, "meeple_not_on_payment_network"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1, "white": 1}}, "meeples": {"blue": (3, 0), "orange": (2, 0)}},
     "a04", {}, "meeple_on_payment_tiles"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1}}}, "b05", {}, "card_not_in_market"),
    ({"nutrients": {"blue": {"pink": 1, "yellow": 1}}}, "a01", {"tiles": [[3, 0]]}, "wrong_payment"),
])
def test_purchase_reason_codes(kw, card, extra, code):
    pos = row_position(**kw)
    if card == "b05":
        pos.market["b"] = ["b01", "b07"]
    assert reason(pos, buy(card, **extra)) == code


def test_cooperative_payment_is_shared_by_meeple_colour():
    # a01 costs blue 1 pink and orange 1 yellow (6.b.2); red is not playing so its cost is not paid.
    pos = row_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1}, "orange": {"white": 1}})
    v = check(pos, buy("a01"))
    assert v.reason == "insufficient_nutrients" and "orange needs 1 more yellow" in v.message
    pos = row_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1}, "orange": {"yellow": 1}})
    p = apply(pos, buy("a01")).position
    assert p.nutrients["blue"]["pink"] == 0 and p.nutrients["orange"]["yellow"] == 0


def test_team_payment_by_both_members_only():
    teams = {"blue": "1", "orange": "2", "red": "1", "black": "2"}
    pos = row_position(mode="team", players=("blue", "orange", "red", "black"), teams=teams,
                       spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)},
                       meeples={"blue": (3, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)},
                       nutrients={"blue": {"pink": 1}, "red": {"yellow": 1}, "orange": {"yellow": 3}})
    # a01: blue pays 1 pink (its printed blue cost); red pays what the card prints for red.
    from companion.edition import load_edition
    card = load_edition().cards["a01"]
    need_red = card.nutrients_by_meeple["red"]
    pos.nutrients["red"] = {k: need_red.get(k, 0) for k in ("pink", "yellow", "white")}
    p = apply(pos, buy("a01")).position
    assert sum(p.nutrients["red"].values()) == 0 and p.nutrients["orange"]["yellow"] == 3


def test_team_payment_table_rule_lets_the_buyer_pay_all():
    pos = row_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1, "yellow": 1}},
                       options={"team_payment": "buyer_pays_all"})
    p = apply(pos, buy("a01")).position
    assert p.nutrients["blue"] == {"pink": 0, "yellow": 0, "white": 0}


# --- card effects, one worked example each --------------------------------------------------

def test_permanent_pink_nutrient_reduces_pink_never_white():
    market = {"a": ["a04", "a02"], "b": []}
    pos = row_position(cards={"blue": ["a01"]}, nutrients={"blue": {"yellow": 1, "white": 1}}, market=market)
    p = apply(pos, buy("a04")).position  # a04 costs 1 pink 1 yellow 1 white: pink is waived
    assert p.nutrients["blue"] == {"pink": 0, "yellow": 0, "white": 0}
    pos = row_position(cards={"blue": ["a01"]}, nutrients={"blue": {"yellow": 1}}, market=market)
    assert "1 more white" in check(pos, buy("a04")).message


def test_permanent_yellow_nutrient():
    pos = row_position(cards={"blue": ["a06"]}, nutrients={"blue": {"pink": 1}})
    assert check(pos, buy("a01")).legal   # a01: 1 pink + 1 yellow; the yellow is waived


def test_permanent_wood_mycelium_pays_one_tile_less():
    pos = row_position(cards={"blue": ["a02"]}, nutrients={"blue": {"pink": 1, "yellow": 1}},
                       market={"a": ["a01"], "b": []})
    p = apply(pos, buy("a01")).position
    assert len(set(ROW) - set(p.tiles)) == 1


@pytest.mark.parametrize("card,color,tiles", [
    ("a07", "yellow", {(3, 0): "Y03", (2, 0): "Y03", (1, 0): "Y03"}),
    ("a12", "green", {(3, 0): "G03", (2, 0): "G03", (1, 0): "G03"}),
])
def test_permanent_soil_and_mycorrhizal_mycelium(card, color, tiles):
    target = {"yellow": "a02", "green": "a06"}[color]   # 3-tile cards of that colour
    pos = row_position(tiles=tiles, cards={"blue": [card]}, nutrients={"blue": {"pink": 1, "yellow": 1, "white": 1}},
                       market={"a": [target], "b": []})
    p = apply(pos, buy(target)).position
    assert len(set(tiles) - set(p.tiles)) == 2


def test_degradation_bonuses_stack():
    # Two wood bonus cards (a04, b01): 2 + 1 + 1 = 4 pink cubes (rulebook 'IMPORTANT').
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, cards={"blue": ["a04", "b01"]},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    p = apply(pos, {"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0}).position
    assert p.nutrients["blue"]["pink"] == 4
    pos = make_position(tiles={(3, 0): "Y03"}, substrates={(2, 0): "soil"}, cards={"blue": ["a09"]},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    p = apply(pos, {"player": "blue", "action": "place", "tile": "Y03", "at": [2, 0], "rotation": 0}).position
    assert p.nutrients["blue"]["yellow"] == 3


def test_swap_nutrient_colour_once_per_turn():
    swap = {"player": "blue", "action": "swap", "give": "pink", "take": "yellow"}
    pos = make_position(nutrients={"blue": {"pink": 2}})
    assert reason(pos, swap) == "no_swap_card"
    pos = make_position(nutrients={"blue": {"pink": 2}}, cards={"blue": ["a11"]})
    p = apply(pos, swap).position
    assert p.nutrients["blue"]["pink"] == 1 and p.nutrients["blue"]["yellow"] == 1
    assert reason(p, swap) == "swap_already_used"


# --- 5.b mycorrhizae -------------------------------------------------------------------------

def green_to_tree(**kw):
    # P03.G2 at (3, 0): pink edge 0 joins blue's spore, green edge 2 faces the tree at (3, -1).
    return make_position(**kw), {"player": "blue", "action": "place", "tile": "P03.G2", "at": [3, 0], "rotation": 0,
                                 "choose": ["yellow"]}


def test_mycorrhiza_gives_one_nutrient_of_choice_and_a_marker():
    pos, move = green_to_tree(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []})
    p = apply(pos, move).position
    assert p.trees[(3, -1)] == ["blue", None, None, None] and p.nutrients["blue"]["yellow"] == 1


def test_a_mycorrhiza_with_every_cube_taken_says_the_player_gains_none():
    # Four players hold all 32 cubes (11 pink, 11 yellow, 10 white): the choice cannot be met
    # by any colour, so it is not refused (7.c reading, docs/rules.md), and the note says why.
    players = ("blue", "orange", "red", "black")
    held = {"blue": {"pink": 8}, "orange": {"pink": 3, "yellow": 5}, "red": {"yellow": 6, "white": 2},
            "black": {"white": 8}}
    pos, move = green_to_tree(trees={(3, -1): [None] * 4}, hands={c: ["P03.G2"] if c == "blue" else [] for c in players},
                              players=players, nutrients=held,
                              spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)},
                              meeples={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)})
    assert check(pos, move).legal
    out = apply(pos, move)
    assert out.position.trees[(3, -1)][0] == "blue" and out.position.nutrients["blue"] == {"pink": 8, "yellow": 0, "white": 0}
    assert any(n.startswith("blue gains no cube: no pink, yellow or white cube is left in the supply (mycorrhiza with tree")
               for n in out.notes), out.notes


def test_mycorrhizal_bonus_nutrient_card():
    pos, move = green_to_tree(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []},
                              cards={"blue": ["a05"]})
    move["choose"] = ["white", "pink"]
    p = apply(pos, move).position
    assert p.nutrients["blue"] == {"pink": 1, "yellow": 0, "white": 1}


def test_full_tree_pays_every_marker_owner():
    pos, move = green_to_tree(trees={(3, -1): ["orange", "orange", "blue", None]},
                              hands={"blue": ["P03.G2"], "orange": []})
    p = apply(pos, move).position
    assert p.nutrient_total("orange") == 2          # 1 per marker
    assert p.nutrient_total("blue") == 1 + 2         # the mycorrhiza, then 1 per marker


def test_replacing_a_marker_gains_nothing():
    pos, move = green_to_tree(trees={(3, -1): ["orange"] * 4}, hands={"blue": ["P03.G2"], "orange": []})
    del move["choose"]   # no cube of choice to name
    p = apply(pos, move).position
    assert p.trees[(3, -1)].count("blue") == 1 and p.nutrient_total("blue") == 0


def test_green_continuity_table_rule():
    pos, move = green_to_tree(trees={(3, -1): [None] * 4}, hands={"blue": ["P03.G2"], "orange": []},
                              options={"mycorrhiza_needs_continuity": True})
    del move["choose"]   # no mycorrhiza, so no cube of choice to name
    assert apply(pos, move).position.trees[(3, -1)] == [None] * 4


# --- 5 cap and supply --------------------------------------------------------------------------

def test_cap_of_eight_discards_the_excess_and_says_so():
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, nutrients={"blue": {"white": 7}},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    out = apply(pos, {"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0})
    assert out.position.nutrient_total("blue") == 8
    # Rulebook 5: the player chooses; by default the most plentiful colour goes back.
    assert out.position.nutrients["blue"] == {"pink": 2, "yellow": 0, "white": 6}
    assert any("returns 1 white" in n for n in out.notes)
    assert out.choices == [{"player": "blue", "kind": "discard", "count": 1, "colors": ["pink", "white"],
                            "why": "cap of 8 nutrients"}]


def test_supply_is_finite():
    from companion.edition import load_edition
    pink = load_edition().nutrient_supply["pink"]
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"},
                        nutrients={"blue": {"pink": pink - 8}, "orange": {"pink": 8}},
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    out = apply(pos, {"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0})
    assert out.position.nutrients["blue"]["pink"] == pink - 8
    assert "blue gains no pink: none is left in the supply (wood substrate degraded)" in " ".join(out.notes), out.notes
    assert not any("only 0" in n for n in out.notes)


# --- 5.c giving ---------------------------------------------------------------------------------

def give(to, **n):
    return {"player": "blue", "action": "give", "to": to, "nutrients": n}


def test_give_along_a_shared_network():
    pos = row_position(meeples={"blue": (3, 0), "orange": (1, 0)}, nutrients={"blue": {"pink": 2}, "orange": {"white": 7}})
    p = apply(pos, give("orange", pink=1)).position
    assert p.nutrients["orange"]["pink"] == 1
    assert reason(p, give("orange", pink=1)) == "action_already_taken"
    assert reason(pos, give("orange", pink=2)) == "mission_locked"
    apart = row_position(nutrients={"blue": {"pink": 2}})
    assert reason(apart, give("orange", pink=1)) == "not_same_network"
    full = row_position(meeples={"blue": (3, 0), "orange": (1, 0)}, nutrients={"blue": {"pink": 2}, "orange": {"white": 8}})
    assert reason(full, give("orange", pink=1)) is None  # rulebook 5: the receiver discards down to 8
    full.options["refuse_gift_over_cap"] = True
    assert reason(full, give("orange", pink=1)) == "nutrient_cap"
    assert reason(pos, {"player": "orange", "action": "give", "to": "blue", "nutrients": {"white": 1}}) == "not_your_turn"


def test_mission_abilities_widen_giving():
    tiles = {(3, 0): "G03", (-3, 0): "G03"}
    base = dict(mode="cooperative", difficulty="easy", tiles=tiles, nutrients={"blue": {"pink": 2}},
                meeples={"blue": (3, 0), "orange": (-3, 0)})
    assert reason(make_position(**base), give("orange", pink=1)) == "not_same_network"
    assert reason(make_position(**base, missions=["forest_symbiosis"]), give("orange", pink=1)) is None
    assert reason(make_position(**base, missions=["forest_symbiosis"]), give("orange", pink=2)) == "mission_locked"
    assert reason(make_position(**base, missions=["forest_symbiosis", "funga"]), give("orange", pink=2)) is None


def test_team_mode_gives_to_teammates_only():
    teams = {"blue": "1", "orange": "2", "red": "1", "black": "2"}
    pos = row_position(mode="team", players=("blue", "orange", "red", "black"), teams=teams,
                       spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)},
                       meeples={"blue": (3, 0), "orange": (1, 0), "red": (0, 4), "black": (0, -4)},
                       nutrients={"blue": {"pink": 2}})
    assert reason(pos, give("orange", pink=1)) == "not_teammate"


# --- affordability ------------------------------------------------------------------------------

def test_shortfall_sentence_names_cubes_and_network():
    pos = row_position(tiles={(3, 0): "P03", (2, 0): "P03"}, nutrients={"blue": {"pink": 1, "white": 1}})
    a = can_buy(pos, pos_edition(), "blue", "a04")
    assert not a.can_buy
    assert a.shortfall == "needs 1 more yellow nutrient and a pink network of 3 tiles where your meeple stands (yours has 2)"
    rich = row_position(nutrients={"blue": {"pink": 1, "yellow": 1}})
    ok = can_buy(rich, pos_edition(), "blue", "a01")
    assert ok.can_buy and ok.payable_sets[0]["pick"] == 2 and len(ok.payable_sets[0]["tiles"]) == 3


def pos_edition():
    from companion.edition import load_edition
    return load_edition()
