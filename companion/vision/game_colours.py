"""Readings a game cannot hold: a piece in a colour no player of the game has.

Each player plays one colour: meeple, spore token and mycorrhiza markers of the same colour
(rulebook 2.g), and places the spore in the first round, before any tile (rulebook 3), where it
stays.  So on a board with pieces, the colours in play are the colours of the spores on it, and
a mycorrhiza marker of any other colour is something else seen in its slot: the rim of a mug, a
sleeve, a reflection.  Such a reading is kept (the board stays a whole position) but made
unsure, with the reason, so the table holds it and asks; ``read-board`` lists it.

When the game's colours are known (``read-board --colors``, ``BoardReader(players=)``), a
spore or a meeple of another colour is impossible too.  When they are not, the spores read
stand for them, but only on a frame where something is unreadable (covered, or under glare):
there the camera already says it sees more than the pieces, while a board laid out to check the
camera (``camera check``) may hold a marker with no spore of its colour
(docs/rules.md, "Colours the camera may read").
"""

from __future__ import annotations

from companion.vision.meeple_doubts import read_as
from companion.vision.unsure import an

FOREIGN_CONFIDENCE = 0.2
"""Confidence a reading of a colour out of the game is capped at: under the table's bar
(:data:`companion.vision.unsure.LOW_CONFIDENCE`), so it is never taken without asking."""


def game_colours(readings, players=None) -> tuple[set[str], bool]:
    """The colours that may be on the board and whether they are the game's own: ``players``
    (the game's colours) when given, else the colours of the spores read on readable spaces
    (``readings``: :class:`companion.vision.classify.SpaceReading` of every space)."""
    if players:
        return set(players), True
    return {r.player for r in readings if r.kind == "spore" and r.player and not r.reason}, False


def doubt_foreign_colours(readings, players=None) -> list[int]:
    """Cap at :data:`FOREIGN_CONFIDENCE`, with a doubt saying why, every readable space whose
    reading holds a colour out of the game (:func:`game_colours`): a tree's mycorrhiza marker,
    and with ``players`` given also a spore or a meeple.  Without ``players``, only when some
    space is unreadable (``reason``).  ``readings``: every space's reading,
    changed in place.  Returns the indices of the spaces made unsure."""
    colours, known = game_colours(readings, players)
    hidden = any(r.reason for r in readings)
    if not known and not hidden:
        return []
    out = []
    for s, r in enumerate(readings):
        if r.reason:
            continue
        why = None
        markers = sorted({c for c in r.slots if c and c not in colours}) if r.kind == "tree" else []
        if markers:
            c = markers[0]
            if known:
                why = (f"read as a tree with {an(c)} mycorrhiza marker, but {c} is not a colour of this game "
                       f"({', '.join(sorted(colours))}): markers are their player's colour")
            else:
                why = (f"read as a tree with {an(c)} mycorrhiza marker, but no {c} spore is seen on the board: "
                       f"markers are their player's colour")
        elif known and r.kind == "spore" and r.player and r.player not in colours:
            why = f"{read_as(r)}, but {r.player} is not a colour of this game ({', '.join(sorted(colours))})"
        elif known and r.meeple and r.meeple not in colours:
            why = f"{read_as(r)}, but {r.meeple} is not a colour of this game ({', '.join(sorted(colours))})"
        if why:
            if why not in (r.doubt or ""):  # a committed reading passes here again in play
                r.doubt = why if r.doubt is None else f"{r.doubt}; and {why}"
            r.confidence = min(r.confidence, FOREIGN_CONFIDENCE)
            out.append(s)
    return out
