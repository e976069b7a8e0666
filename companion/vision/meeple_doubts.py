"""Where a meeple may stand, and the sentences the reader gives when it cannot tell where one does.

The rules put a meeple on a mycelium tile or on its own spore, never on a substrate, a rock, a
tree or another player's spore (rulebook 4 and 5.a; :func:`companion.position.check_against_edition`
refuses any other position).  The reader follows them when it names the space that looks next
most like a meeple, and each space keeps saying what it was read as.
"""

from __future__ import annotations

import numpy as np

from companion.vision.classify import SpaceReading, hypothesis_words
from companion.vision.pieces import PLAYERS

COVERABLE = ("spore", "empty", "wood", "soil")
"""Kinds a space holding a player's spore under its meeple can be read as when that spore is
read nowhere else: another player's spore (its rim's colour misread), or a flat piece (a dark
chip around the meeple looks like the board; an orange chip under a warm lamp like wood)."""


def may_stand(readings: list[SpaceReading], players: tuple[str, ...] = PLAYERS) -> np.ndarray:
    """bool (S, len(players)): whether each player's meeple may stand on each space as read.

    On a tile, on its own spore, and, while that player's spore is read on no space, on a space
    read as a round piece or as empty (:data:`COVERABLE`: its own spore hidden under it and
    misread).  Never on a rock or a tree, nor on a substrate or another player's spore once its
    own spore is read elsewhere (rulebook 4, 5.a)."""
    read = {r.player for r in readings if r.kind == "spore"}
    unread = [name not in read for name in players]
    out = np.zeros((len(readings), len(players)), bool)
    for s, r in enumerate(readings):
        if r.kind == "tile":
            out[s] = True
        elif r.kind in COVERABLE:
            out[s] = unread
            if r.kind == "spore" and r.player in players:
                out[s, players.index(r.player)] = True
    return out


def describe(r: SpaceReading) -> str:
    """What a space was read as, for a sentence: "tile P03", "the black spore", "a wood
    substrate", "an empty space", "a rock"."""
    return hypothesis_words((r.kind, r.code if r.kind == "tile" else r.player))


def read_as(r: SpaceReading) -> str:
    """ "read as tile P03 with blue's meeple on it" """
    return f"read as {describe(r)}" + (f" with {r.meeple}'s meeple on it" if r.meeple else "")


def deduced(r: SpaceReading, side_confidence: float = 1.0, bar: float = 0.5) -> str | None:
    """The reason a spore where a meeple seen clearly on no space was placed
    (:func:`companion.vision.pieces.meeples_at_home`) is unsure, or ``None`` where it is sure
    (confidence ``bar`` or more) or already says why (``r.doubt``).  ``side_confidence``: of
    the side read there (1 where none was claimed).  E.g. "black's meeple, seen clearly on no
    space, is read on its spore here (a meeple is on the board while its spore is); its side is
    not clear"."""
    if r.doubt is not None or r.confidence >= bar or r.kind != "spore" or not r.meeple:
        return None
    what_else = ("its side is not clear" if side_confidence < bar
                 else "the chip around it does not show its colour clearly")
    return (f"{r.meeple}'s meeple, seen clearly on no space, is read on its spore here (a meeple is on the "
            f"board while its spore is); {what_else}")


def hidden_meeple(r: SpaceReading, player: str, spore_at: str, covered: str, symbol_shows: bool,
                  bar: float = 0.5) -> str | None:
    """Why ``r``, the reading of ``player``'s spore (at label ``spore_at``), is unsure while
    something covers the spaces ``covered`` ("D4, D5") and ``player``'s meeple is seen clearly on
    no space: it may stand on its spore or under the object, and the camera cannot tell.

    Where the spore shows its symbol (``symbol_shows``) the meeple is taken to be under the
    object, and a spore read with confidence ``bar`` or more needs no reason (``None``); one read
    under it (its side, its colour) gets a reason about the meeple all the same, since a meeple
    on it would hide its symbol: the side its cap hides is not the doubt a player must settle.
    E.g. "read as the blue spore; blue's meeple is not seen: on its spore at E5 or under what
    covers D4, D5; the camera cannot tell"."""
    if symbol_shows and r.confidence >= bar:
        return None
    return (f"{read_as(r)}; {player}'s meeple is not seen: on its spore at {spore_at} or under what covers "
            f"{covered}; the camera cannot tell")
