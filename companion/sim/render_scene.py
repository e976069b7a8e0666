"""Random but plausible board positions for the synthetic camera (plain JSON dicts).

A board has 4 trees with random mycorrhiza markers, 2 wood and 2 soil substrates, a spore
per player on an outermost space, mycelium tiles from the catalogue in random rotations, a few
rocks, and each player's meeple on its spore or on a tile.
"""

from __future__ import annotations

import numpy as np

from companion.tiles import rotate_code
from companion.vision.geometry import BoardGeometry

PLAYERS = ("blue", "orange", "red", "black")


def random_board(
    rng: np.random.Generator,
    geo: BoardGeometry,
    codes: list[str],
    n_tiles: tuple[int, int] = (8, 30),
    n_players: int | None = None,
    meeples_on_tiles: float = 0.5,
) -> dict:
    """A random board part of a position.

    ``codes``: tile type codes to draw from (rotation 0).  ``meeples_on_tiles``: chance that a
    meeple stands on a tile rather than on its spore.
    """
    spaces = [tuple(h) for h in geo.spaces]
    outer = set(tuple(h) for h in geo.outermost)
    inner = [h for h in spaces if h not in outer]
    free = set(spaces)

    def take(pool: list[tuple[int, int]]) -> tuple[int, int]:
        choices = [h for h in pool if h in free]
        h = choices[int(rng.integers(len(choices)))]
        free.discard(h)
        return h

    players = list(PLAYERS[: n_players or int(rng.integers(2, 5))])
    board: dict = {"tiles": [], "rocks": [], "trees": [], "substrates": [], "spores": {}, "meeples": {}}
    for _ in range(4):
        slots = [None if rng.random() < 0.5 else players[int(rng.integers(len(players)))] for _ in range(4)]
        board["trees"].append({"at": list(take(inner)), "mycorrhizae": slots})
    for kind in ("wood", "wood", "soil", "soil"):
        board["substrates"].append({"at": list(take(spaces)), "kind": kind})
    for p in players:
        board["spores"][p] = {"at": list(take(sorted(outer))), "used": bool(rng.random() < 0.4)}
    for _ in range(int(rng.integers(n_tiles[0], n_tiles[1] + 1))):
        if not free:
            break
        code = codes[int(rng.integers(len(codes)))]
        board["tiles"].append({"at": list(take(spaces)), "paths": rotate_code(code, int(rng.integers(6)))})
    for _ in range(int(rng.integers(0, 4))):
        if free:
            board["rocks"].append(list(take(spaces)))
    tile_spaces = [tuple(t["at"]) for t in board["tiles"]]
    for p in players:
        options = [h for h in tile_spaces if list(h) not in board["meeples"].values()]
        if options and rng.random() < meeples_on_tiles:
            board["meeples"][p] = list(options[int(rng.integers(len(options)))])
        else:
            board["meeples"][p] = list(board["spores"][p]["at"])
    return board
