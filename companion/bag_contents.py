"""What is still in the tile bag, by tile type (rulebook 2.f, 4.a.3).

A position read at the table may not know the bag's contents (``Position.bag_tiles`` is
``None``): then they are the edition's bag for the player count less every tile seen out
of it (on the board, rocks included, in hands and in the discard).  The edition prints its
tile codes in one rotation and the board holds tiles in any, so both sides are counted by
their rotation-independent name (:func:`companion.tiles.canonical`); counting one side by
printed code and the other by canonical code would leave most types never used up.
"""

from __future__ import annotations

from collections import Counter

from companion import tiles as tilecodes
from companion.edition import Edition
from companion.position import Position


def tiles_in_bag(pos: Position, edition: Edition) -> Counter[str]:
    """Tile type (canonical code, or ``ROCK``) -> tiles of that type still in the bag.

    The position's own ``bag_tiles`` when it knows them, else the edition's bag for
    ``max(2, players)`` players (2.f) less the tiles seen out of it; a type seen more often
    than the bag held (a position edited by hand) counts 0, never below.  Raises
    :class:`ValueError` for a player count the edition does not support.
    """
    if pos.bag_tiles is not None:
        return Counter({tilecodes.canonical(c): n for c, n in pos.bag_tiles.items() if n > 0})
    left: Counter[str] = Counter()
    for code, n in edition.bag_composition(max(2, len(pos.colors))).items():
        left[tilecodes.canonical(code)] += n
    seen = list(pos.tiles.values()) + list(pos.discard) + [c for h in pos.hands.values() for c in h]
    left.subtract(tilecodes.canonical(c) for c in seen)
    left[tilecodes.ROCK] -= len(pos.rocks)
    return Counter({c: n for c, n in left.items() if n > 0})
