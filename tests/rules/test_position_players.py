"""A position's players follow the game's set-up rules: a competitive game alone, or a team
game that is not two teams of two, is refused naming the rule, as the set-up refuses it."""

from __future__ import annotations

import pytest

from builders import make_position
from companion.position import PositionError


def test_a_competitive_game_alone_is_refused_and_a_solo_cooperative_one_is_kept():
    with pytest.raises(PositionError, match="2 to 4 players") as e:
        make_position(players=("blue",), spores={"blue": (4, 0)})
    assert e.value.field == "players"
    solo = make_position(players=("blue",), spores={"blue": (4, 0)}, mode="cooperative", difficulty="easy")
    assert solo.colors == ["blue"]


def test_a_team_game_needs_two_teams_of_two():
    with pytest.raises(PositionError, match="two teams of two"):
        make_position(players=("blue", "orange"), mode="team", teams={"blue": "1", "orange": "2"})
    four = make_position(players=("blue", "orange", "red", "black"), mode="team",
                         teams={"blue": "1", "orange": "2", "red": "1", "black": "2"},
                         spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)})
    assert len(four.colors) == 4


def test_a_substrate_on_a_tree_or_a_tile_is_refused():
    # 2.c: a token drawn onto a tree is drawn again; 5.a: one landing on a tile discards it
    with pytest.raises(PositionError, match="never shares its space") as e:
        make_position(trees=[(1, 0)], substrates={(1, 0): "wood"})
    assert e.value.field == "board.substrates[0].at"
    with pytest.raises(PositionError, match="holds a tile"):
        make_position(tiles={(2, 0): "P03"}, substrates={(2, 0): "soil"})
