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

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def setup_tokens_pending(pos: Position) -> bool:
    """Whether substrate tokens of the set-up (2.c) are still to be laid: a token waits while a
    spore is still to place, or before anything was put on the board in the first round (no
    tile, no rock, no action taken).  A token waiting later in the game is the replacement of a
    degraded or crushed substrate (5.a), not the set-up's.

    The rulebook lays the tokens (2.c) before the spores (3), so :func:`companion.rules.check`
    refuses a spore or a turn action while this holds (reason ``setup_order``); the opening
    draws may come before or after the tokens (they do not touch the board)."""
    if not pos.pending_substrates or pos.result is not None:
        return False
    if pos.in_setup:
        return True
    return pos.turn_number <= 1 and not pos.taken and not pos.tiles and not pos.rocks


def tokens_to_lay(pos: Position) -> str:
    """The set-up's tokens still to lay, in words and in the order 2.c lists them: ``"the 2nd
    wood substrate"``, ``"the 1st and 2nd wood and the 2nd soil substrates"``."""
    waiting = Counter(pos.pending_substrates)
    laid = Counter(pos.substrates.values())
    parts = []
    for kind in sorted(waiting, reverse=True):          # wood, then soil (2.c: "2 wood and 2 soil")
        nth = [ORDINALS.get(n, f"{n}th") for n in range(laid[kind] + 1, laid[kind] + waiting[kind] + 1)]
        parts.append(f"the {and_list(nth)} {kind}")
    return and_list(parts) + (" substrates" if sum(waiting.values()) > 1 else " substrate")


def setup_order_message(pos: Position) -> str:
    """The sentence refusing a move made before the set-up's tokens are laid (2.c, 3)."""
    after = "the spores" if pos.in_setup else "the first turn"
    return f"Lay {tokens_to_lay(pos)} first (2.c): the substrate tokens go on the board before {after} (3)."


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
    ``"place the spore after blue"``, ``"place the spore after the substrate tokens"`` while
    they are still to lay, 2.c), or ``None`` when nothing is left for them or the game
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
    if i == 0:
        return "place the spore after the substrate tokens" if setup_tokens_pending(pos) else "place the spore"
    return f"place the spore after {waiting[i - 1]}"
