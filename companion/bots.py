"""Bots that play by the rules: random legal choices with a taste for nutrients.

They exist to exercise the rules (self-play, property tests, the simulated table), not to
play well.  A bot only ever chooses among moves from :mod:`companion.movegen`.
"""

from __future__ import annotations

import random
from typing import Any

from companion import movegen
from companion import tiles as tilecodes
from companion.edition import Edition
from companion.hexgrid import Hex
from companion.position import Position
from companion.rules import Board, check


class RandomBot:
    """Chooses uniformly among legal moves of a kind, preferring placements that degrade a
    substrate or touch a tree with green mycelium (so games see nutrients and cards)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def spore_space(self, pos: Position, edition: Edition) -> dict[str, Any]:
        b = Board(pos, edition)
        spaces = movegen.starting_spaces(b, pos.active)
        return {"player": pos.active, "action": "spore", "at": list(self.rng.choice(spaces))}

    def relocation(self, pos: Position, edition: Edition, color: str) -> dict[str, Any] | None:
        spaces = movegen.starting_spaces(Board(pos, edition), color)
        return {"player": color, "action": "relocate", "to": list(self.rng.choice(spaces))} if spaces else None

    def growth(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        """A place, rock or discard move (the mandatory action, 4.a)."""
        b = Board(pos, edition)
        p = pos.active
        places = movegen.placements(b, p)
        rocks = movegen.rock_spots(b, p)
        if places and self.rng.random() < 0.6:
            good = [m for m in places if self._scores(pos, m)]
            if good:
                return self.rng.choice(good)
        if rocks and (not places or self.rng.random() < 0.15):
            return self.rng.choice(rocks)
        if places:
            return self.rng.choice(places)
        discards = [c for c in pos.hands[p] if c != tilecodes.ROCK]
        if discards:
            return {"player": p, "action": "discard", "tile": self.rng.choice(discards)}
        return self.rng.choice(rocks) if rocks else None

    @staticmethod
    def _scores(pos: Position, m: dict[str, Any]) -> bool:
        at = Hex(*m["at"])
        if at in pos.substrates:
            return True
        placed = tilecodes.parse(tilecodes.rotate_code(m["tile"], m["rotation"]))
        return any(c == "green" and at.neighbor(e) in pos.trees for e, c in enumerate(placed.edge_color))

    def walk(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        moves = movegen.meeple_moves(Board(pos, edition), pos.active)
        return self.rng.choice(moves) if moves else None

    def purchase(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        cards = [c for d in ("a", "b") for c in pos.market[d]]
        self.rng.shuffle(cards)
        for cid in cards:
            mv = {"player": pos.active, "action": "buy", "card": cid}
            if check(pos, mv, edition).legal:
                spaces = movegen.starting_spaces(Board(pos, edition), pos.active)
                if spaces:
                    mv["spore_to"] = list(self.rng.choice(spaces))
                return mv
        return None

    def optional(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        """Sometimes remove a tile or rock, give a nutrient, or swap one."""
        b = Board(pos, edition)
        p = pos.active
        r = self.rng.random()
        if r < 0.04:
            rem = movegen.removals(b, p)
            return self.rng.choice(rem) if rem else None
        if r < 0.25 and pos.mode != "competitive":
            gifts = [m for m in movegen._economy_moves(b, p) if m["action"] == "give"]
            return self.rng.choice(gifts) if gifts else None
        if r < 0.3:
            swaps = [m for m in movegen._economy_moves(b, p) if m["action"] == "swap"]
            return self.rng.choice(swaps) if swaps else None
        return None

    def spore_ability(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        if self.rng.random() >= 0.03:
            return None
        options = [m for m in movegen.legal_moves(pos, edition) if m["action"] == "spore_ability"]
        return self.rng.choice(options) if options else None
