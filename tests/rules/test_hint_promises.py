"""What the hint promises about each face-up card: a card it calls buyable now is one the
suggested turn buys; an affordable card the greedy bot would not buy says why it waits; at the
start of a turn an affordable card can be bought only after the placement or discard (Turn
Sequence Summary 2, rules ``must_place_or_discard``); a removal's reason (4.c) holds on the
board with and without it."""

from __future__ import annotations

import json
import random

import pytest

from builders import make_position
from companion.bots import GreedyBot
from companion.cli import main
from companion.edition import load_edition
from companion.hints import AFTER_PLACEMENT, _reason, hint
from companion.purchase import can_buy
from companion.rules import Board, apply, check
from companion.selfplay import BotTable
from companion.setup import GameConfig
from test_bots import _play_turn
from test_coop_bots import _pink_chain

ED = load_edition()


def plan_of(h, card):
    (plan,) = [c for c in h.cards if c.card == card]
    return plan


def paying_network(taken=()):
    """Blue's meeple on the pink network of (2, 0) and (3, -1) holding a01's cubes (1 pink,
    1 yellow): a01 (2 pink tiles) is affordable; a02 (3 yellow tiles, a white cube) is not."""
    return make_position(tiles={(3, 0): "Y03.G5", (2, 0): "P1.Y03.G4", (3, -1): "P024.Y1"}, taken=taken,
                         meeples={"blue": (2, 0), "orange": (-4, 0)},
                         hands={"blue": ["Y024.G3", "Y024.G3", "Y03.G5"], "orange": []},
                         nutrients={"blue": {"pink": 1, "yellow": 1}}, market={"a": ["a01", "a02"], "b": []},
                         decks={"a": 5, "b": 5})


def test_an_affordable_card_the_bot_keeps_for_forest_communication_says_why_it_waits():
    # 7.c: a01's two pink tiles would include the three-way green tile the team's Forest
    # Communication network needs; the rules take the purchase, the bot does not make it.
    pos = _pink_chain(2)
    assert check(pos, {"player": "blue", "action": "buy", "card": "a01"}, ED).legal
    h = hint(pos, ED)
    plan = plan_of(h, "a01")
    assert not plan.can_buy and plan.when == "now" and plan.steps == []
    assert plan.wait == ("it would pay away a three-way green tile, which the team's Forest Communication "
                         "network needs (7.c)")
    assert plan.in_words() == f"affordable now, but the suggestion waits: {plan.wait}"
    assert h.move is None or h.move["action"] != "buy"
    assert GreedyBot(random.Random(0)).purchase_verdict(pos, ED, "blue", "a01") == (False, plan.wait)


def test_a_green_card_waits_while_the_team_builds_forest_communication():
    # 7.c: a green card is paid with green tiles; the bot keeps them while the bag holds more
    # than 8 tiles, and the hint says so instead of "can be bought now".
    pos = make_position(tiles={(3, 0): "G03", (2, 0): "G03"}, trees={(0, 0): [None] * 4}, mode="cooperative",
                        difficulty="easy", meeples={"blue": (2, 0), "orange": (-4, 0)}, taken=["place"],
                        hands={"blue": ["Y03"], "orange": []}, nutrients={"blue": {"white": 1}, "orange": {"pink": 1}},
                        market={"a": ["a03"], "b": []}, decks={"a": 5, "b": 5}, bag=30)
    assert check(pos, {"player": "blue", "action": "buy", "card": "a03"}, ED).legal
    plan = plan_of(hint(pos, ED), "a03")
    assert not plan.can_buy and plan.when == "now"
    assert "green tiles the team's Forest Communication network needs (7.c)" in plan.wait
    # near the end of the bag the card is bought, and the hint says so
    pos.bag = 8
    h = hint(pos, ED)
    assert h.move["action"] == "buy" and h.move["card"] == "a03"
    assert plan_of(h, "a03").can_buy and plan_of(h, "a03").wait is None


def test_at_the_start_of_the_turn_an_affordable_card_is_bought_after_the_placement():
    # Turn Sequence Summary 2 (rules must_place_or_discard): a purchase comes after the tile
    # is placed or discarded, so the card is not "can be bought now" yet.
    pos = paying_network()
    assert check(pos, {"player": "blue", "action": "buy", "card": "a01"}, ED).reason == "must_place_or_discard"
    h = hint(pos, ED)
    plan = plan_of(h, "a01")
    assert (plan.when, plan.can_buy, plan.wait) == ("after_placement", False, None)
    assert plan.in_words() == AFTER_PLACEMENT == "can be bought after you place or discard a tile"
    assert plan_of(h, "a02").when is None and plan_of(h, "a02").steps
    # the suggested turn does buy it once the tile is down
    played, _ = _play_turn(GreedyBot(random.Random(0)), pos, ED)
    assert played[0] == h.move and played[-1]["action"] == "buy" and played[-1]["card"] == "a01"
    # after the placement it is bought now, by the suggestion itself
    h = hint(paying_network(taken=["place"]), ED)
    assert h.move["action"] == "buy" and h.move["card"] == "a01"
    assert (plan_of(h, "a01").when, plan_of(h, "a01").can_buy) == ("now", True)


def as_file(pos, path):
    """Write ``pos`` as a position file: a file holds 5.a's 2 wood and 2 soil tokens, laid
    here far from blue's networks."""
    doc = pos.to_json()
    doc["board"]["substrates"] = [{"at": at, "kind": kind} for at, kind in
                                  (([-3, -1], "wood"), ([2, -4], "wood"), ([-1, 4], "soil"), ([4, -3], "soil"))]
    path.write_text(json.dumps(doc))


def test_the_command_says_when_each_card_can_be_bought(tmp_path, capsys):
    path = tmp_path / "p.json"
    as_file(paying_network(), path)
    assert main(["hint", "--position", str(path), "--json"]) == 0
    cards = {c["card"]: c for c in json.loads(capsys.readouterr().out)["cards"]}
    assert cards["a01"]["when"] == "after_placement" and cards["a01"]["can_buy"] is False
    assert cards["a01"]["status"] == AFTER_PLACEMENT and cards["a01"]["wait"] is None
    assert cards["a02"]["when"] is None and cards["a02"]["status"] is None
    assert main(["hint", "--position", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"Amanita muscaria (a01, 2 VP): {AFTER_PLACEMENT}" in text and "can be bought now" not in text
    as_file(_pink_chain(2), path)
    assert main(["hint", "--position", str(path)]) == 0
    assert "affordable now, but the suggestion waits: it would pay away a three-way green tile" in capsys.readouterr().out


def _mid_turn_positions(mode: str, seed: int, turns: int):
    """Positions before each action of a greedy game (the start of a turn and after each
    action of it)."""
    table = BotTable(GameConfig(players=["blue", "orange", "red"], mode=mode), seed, check_invariants=False, bot="greedy")
    seen = []
    for _ in range(turns):
        if table.position.result is not None:
            break
        if table.position.in_setup:
            table.play_turn()
            continue
        for _ in range(8):
            seen.append(table.position)
            mv = table.bot.next_action(table.position, table.edition)
            if mv is None:
                break
            table.maybe(mv)
        table.end_turn()
    return table.edition, seen


@pytest.mark.parametrize("mode,seed", [("competitive", 4), ("cooperative", 6)])
def test_a_card_the_hint_calls_buyable_now_is_bought_by_the_suggested_turn(mode, seed):
    ed, positions = _mid_turn_positions(mode, seed, turns=36)
    checked = 0
    for pos in positions:
        if not any(can_buy(pos, ed, pos.active, c).can_buy for d in ("a", "b") for c in pos.market[d]):
            continue
        h = hint(pos, ed)
        played, _ = _play_turn(GreedyBot(random.Random(0)), pos, ed)
        bought = [m["card"] for m in played if m["action"] == "buy"]
        for plan in h.cards:
            if plan.can_buy:
                assert plan.card in bought, (plan, played)
            if plan.when == "after_placement":
                assert "place" not in pos.taken
            if plan.when is not None and plan.card not in bought:
                assert plan.wait, plan    # affordable and not bought: the hint says why
        checked += 1
    assert checked, "no position with an affordable card"


def test_a_removal_says_it_opens_a_placement_only_when_it_does():
    # 4.c, 4.a.1: the rock at (3, 0) stands next to blue's spore, where any tile of the hand
    # could grow; removed, the space is free for one (the bot lays none there next).  The rocks at (3, -1) and (2, 1) face no path end
    # of the network under blue's meeple: removing them opens nothing, and the hint says so.
    bot = GreedyBot(random.Random(0))
    pos = make_position(rocks=[(3, 0)], hands={"blue": ["P03", "Y03", "P024.Y1"], "orange": []},
                        nutrients={"blue": {"pink": 2}}, market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    move = {"player": "blue", "action": "remove", "at": [3, 0], "pay": {"pink": 2}}
    said = _reason(pos, ED, move, bot)
    assert f"{ED.label((3, 0))} is free for a tile of your hand to grow into (4.a.1)" in said
    pos = make_position(tiles={(3, 0): "P03"}, rocks=[(3, -1), (2, 1)], meeples={"blue": (3, 0), "orange": (-4, 0)},
                        hands={"blue": ["P03", "Y03", "P024.Y1"], "orange": []}, nutrients={"blue": {"pink": 2}},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    before = set(Board(pos, ED).frontier("blue"))
    for at in ((3, -1), (2, 1)):
        move = {"player": "blue", "action": "remove", "at": list(at), "pay": {"pink": 2}}
        assert set(Board(apply(pos, move, ED).position, ED).frontier("blue")) == before
        said = _reason(pos, ED, move, bot)
        assert "it opens no placement for your hand (4.a.1)" in said and " opens " not in said.replace("opens no", ""), said
