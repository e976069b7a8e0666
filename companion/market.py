"""The mushroom-card market at a real table: which cards a deck still holds face down, and how
many slots of its row are free (rulebook 2.d, 6).

A real table's decks are shuffled face down, so the companion cannot know the next card; the
players turn it up and enter it (a ``reveal`` move).  These helpers say what they may enter.
"""

from __future__ import annotations

from companion.edition import Edition
from companion.position import Position

MARKET_SIZE = 3
"""Face-up cards per deck (rulebook 2.d)."""

DECKS = ("a", "b")


def free_slots(pos: Position, deck: str) -> int:
    """How many cards deck ``deck`` ("a" or "b") still has to turn up: the free places of its
    row of :data:`MARKET_SIZE`, no more than its face-down cards (0 once it is empty)."""
    return max(0, min(MARKET_SIZE - len(pos.market[deck]), pos.decks[deck]))


def face_down(pos: Position, ed: Edition, deck: str) -> list[str]:
    """The ids of deck ``deck``'s cards that may lie face down, in the edition's order: every
    card of that deck that is neither face up in the market nor held by a player."""
    out_of_deck = {c for held in pos.cards.values() for c in held} | set(pos.market[deck])
    return [c.id for c in ed.deck(deck) if c.id not in out_of_deck]
