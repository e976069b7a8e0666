"""Positions of the same tiles and spores share one mycelium graph (``MyceliumGraph.of``); a
position changed in place afterwards must not change what that graph says, and gets its own."""

from __future__ import annotations

from builders import make_position
from companion.edition import load_edition
from companion.hexgrid import Hex
from companion.rules import Board, apply
from companion.networks import MyceliumGraph

ED = load_edition()


def test_a_move_that_leaves_the_tiles_shares_the_graph_and_a_tile_laid_in_place_does_not():
    pos = make_position(tiles={(3, 0): "P03"}, hands={"blue": ["P03", "Y03", "P03"], "orange": []})
    g = Board(pos, ED).graph
    assert [n.spaces for n in g.networks if n.color == "pink"] == [frozenset({Hex(3, 0)})]
    # a meeple move leaves tiles and spores as they were: the same graph
    moved = apply(pos, {"player": "blue", "action": "move", "to": [3, 0], "color": "pink"}, ED).position
    assert Board(moved, ED).graph is g
    # the position changed in place (as the rules do on their own copy): the shared graph
    # still answers for the tiles it was built from, the changed position gets a new one
    pos.tiles[Hex(2, 0)] = "P03"
    assert g.nodes_at(Hex(2, 0)) == []
    Board(pos, ED).invalidate()
    fresh = Board(pos, ED).graph
    assert fresh is not g and fresh.nodes_at(Hex(2, 0)) == [(Hex(2, 0), 0)]
    assert Board(moved, ED).graph is g and MyceliumGraph.of(moved) is g
