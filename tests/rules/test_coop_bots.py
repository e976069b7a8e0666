"""Cooperative bots playing as one team (rulebook 6.b.2, 5.c, 7.a, 7.b)."""

from __future__ import annotations

import random

from companion.bots import GreedyBot
from companion.edition import load_edition
from companion.rules import check
from tests.builders import make_position

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
