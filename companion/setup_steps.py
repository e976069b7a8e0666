"""What a table still has to do before the first turn (rulebook 2.c, 2.d, 3), in words.

A real table (``mycelium-companion run``) starts with nothing dealt: the substrate tokens are
laid (the camera sees them), three cards per deck are turned up (entered on the dashboard),
every player draws three tiles, then each places a spore.  The dashboard's set-up banner, each
player's row and the hint say what is still open from these steps, never the turn's actions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from companion.edition import Edition
from companion.market import DECKS, MARKET_SIZE, free_slots
from companion.position import Position
from companion.wording import and_list

HAND_SIZE = 3
"""Tiles each player draws before the game (3)."""


@dataclass(frozen=True)
class SetupStep:
    """One step of the set-up still open: ``key`` (``substrates``, ``market``, ``draw`` or
    ``spores``), ``text`` (what to do, with the rulebook section) and ``players`` (the colours
    it waits for; empty for the table's own steps)."""

    key: str
    text: str
    players: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "text": self.text, "players": list(self.players)}


def setup_steps(pos: Position, ed: Edition) -> list[SetupStep]:
    """The set-up steps still open, in the order the rulebook gives them; ``[]`` once every
    spore is placed (the game has started) or the game is over.

    The market stays listed until each deck shows 3 cards or has none left (2.d); the draws
    until every hand holds 3 tiles or the bag is empty (3).
    """
    if pos.result is not None or not pos.in_setup:
        return []
    steps = []
    if pos.pending_substrates:
        kinds = Counter(pos.pending_substrates)
        steps.append(SetupStep("substrates", "lay the substrate tokens: "
                               + and_list([f"{n} {kind}" for kind, n in sorted(kinds.items(), reverse=True)]) + " (2.c)"))
    short_decks = [d for d in DECKS if free_slots(pos, d)]
    if short_decks:
        shown = and_list([f"deck {d.upper()} shows {len(pos.market[d])} of {MARKET_SIZE}" for d in short_decks])
        steps.append(SetupStep("market", f"turn up {MARKET_SIZE} cards per deck: {shown} (2.d)"))
    drawing = [c for c in pos.colors if len(pos.hands[c]) < HAND_SIZE] if pos.bag > 0 else []
    if drawing:
        held = and_list([f"{c} has {len(pos.hands[c])}" for c in drawing])
        steps.append(SetupStep("draw", f"each player draws {HAND_SIZE} tiles from the bag: {held} (3)", drawing))
    placing = [c for c in pos.colors if pos.spores.get(c) is None]
    steps.append(SetupStep("spores", f"place the spores and meeples on the outermost spaces, in turn order: "
                           f"{and_list(placing)} (3)", placing))
    return steps


def player_setup_task(pos: Position, color: str) -> str | None:
    """What ``color`` still does during the set-up (``"draw 2 tiles"``, ``"place the spore"``,
    ``"place the spore after blue"``), or ``None`` when nothing is left for them or the game
    has started (3)."""
    if pos.result is not None or not pos.in_setup:
        return None
    missing = HAND_SIZE - len(pos.hands[color])
    if missing > 0 and pos.bag > 0:
        n = min(missing, pos.bag)
        return f"draw {n} tile{'s' if n > 1 else ''}"
    waiting = [c for c in pos.colors if pos.spores.get(c) is None]
    if color not in waiting:
        return None
    i = waiting.index(color)
    return "place the spore" if i == 0 else f"place the spore after {waiting[i - 1]}"
