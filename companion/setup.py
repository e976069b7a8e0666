"""Game setup (rulebook section 2 and 3): trees, substrates, bag, hands, market, turn order.

Randomness comes from a :class:`random.Random` the caller seeds, so a setup is reproducible.
The spores are placed by the players in the first round (``spore`` moves), not here.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion.edition import DIFFICULTIES, Edition
from companion.tiles import canonical
from companion.options import check_options
from companion.position import MODES, Player, Position


class SetupError(ValueError):
    """A game configuration that the rules do not allow; the message says which field."""


@dataclass
class GameConfig:
    """What the table chooses before playing (the dashboard's setup wizard).

    ``players``: meeple colours in turn order (rulebook 3: the first player, then to the left).
    ``teams``: team name per colour, team mode only.  ``difficulty``: the Forest Communication
    card, which places the trees in every mode (2.a, 2.b).
    """

    players: list[str] = field(default_factory=lambda: ["blue", "orange"])
    mode: str = "competitive"
    difficulty: str = "easy"
    teams: dict[str, str] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    edition: str = "default"

    def to_json(self) -> dict[str, Any]:
        return {"players": list(self.players), "mode": self.mode, "difficulty": self.difficulty,
                "teams": self.teams, "options": dict(self.options), "edition": self.edition}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "GameConfig":
        return cls(players=list(doc.get("players", ["blue", "orange"])), mode=doc.get("mode", "competitive"),
                   difficulty=doc.get("difficulty", "easy"), teams=doc.get("teams"),
                   options=dict(doc.get("options", {})), edition=doc.get("edition", "default"))

    def check(self, edition: Edition) -> None:
        """Raise :class:`SetupError` for a configuration the rules do not allow."""
        if self.mode not in MODES:
            raise SetupError(f"mode must be one of {list(MODES)}, got {self.mode!r}")
        if self.difficulty not in DIFFICULTIES:
            raise SetupError(f"difficulty must be one of {list(DIFFICULTIES)}, got {self.difficulty!r}")
        if len(set(self.players)) != len(self.players):
            raise SetupError("players: a colour is listed twice")
        for c in self.players:
            if c not in edition.meeple_colors:   # the colours its cards price (6.b.2), as a position's players
                raise SetupError(f"players: {c!r} is not a meeple colour of the edition "
                                 f"({', '.join(edition.meeple_colors)})")
        n = len(self.players)
        if n not in edition.bag_by_players and not (self.mode == "cooperative" and n == 1):
            raise SetupError(f"players: the bag is set up for {sorted(edition.bag_by_players)} players, not {n}")
        if self.mode == "team":
            if n != 4 or not self.teams or set(self.teams) != set(self.players):
                raise SetupError("team mode needs 4 players and a team for each (2 vs 2, rulebook 9)")
            if sorted(Counter(self.teams.values()).values()) != [2, 2]:
                raise SetupError("team mode needs two teams of two")
            for a, b in zip(self.players, self.players[1:]):
                if self.teams[a] == self.teams[b]:
                    raise SetupError("team mode: turns alternate between the teams (rulebook 9.a); reorder the players")
        try:
            check_options(self.options)
        except ValueError as e:
            raise SetupError(str(e)) from None


@dataclass
class Supplies:
    """The hidden, physical side of a game: bag order, substrate tokens and deck order.

    At a real table these are the bag, the token pile and the decks; in a simulated game this
    object plays their part.  Lists are drawn from the end.
    """

    bag: list[str]
    tokens: dict[str, list[tuple[int, int]]]
    decks: dict[str, list[str]]
    rng: random.Random

    def draw_tile(self) -> str:
        return self.bag.pop()

    def return_tiles(self, codes: list[str]) -> None:
        """Put tiles back in the bag and shake it (spore ability, 4.d)."""
        self.bag.extend(codes)
        self.rng.shuffle(self.bag)

    def draw_token(self, kind: str, edition: Edition) -> tuple[int, int]:
        """The next substrate token of ``kind``; a spent pile is reshuffled from all tokens."""
        pile = self.tokens[kind]
        if not pile:
            pile.extend(edition.substrate_tokens[kind])
            self.rng.shuffle(pile)
        return pile.pop()


def new_game(config: GameConfig, edition: Edition, rng: random.Random, deal: bool = True) -> tuple[Position, Supplies]:
    """Set up a game: trees from the difficulty's card, 2 wood + 2 soil substrates, the bag for
    the player count, 3 face-up cards per deck and 3 tiles per hand (rulebook 2, 3).

    ``deal=False`` sets up a real table instead: hands empty (the players draw through the
    bag reader), substrates and face-up cards still to be placed (seen by the camera, turned up
    on the dashboard).  Raises :class:`SetupError` for an impossible configuration.
    """
    config.check(edition)
    n = len(config.players)
    players = [Player(c, (config.teams or {}).get(c) if config.mode == "team" else None) for c in config.players]
    pos = Position(players=players, active=config.players[0], edition=edition.name, mode=config.mode,
                   difficulty=config.difficulty, options=dict(config.options))
    for _tid, at in edition.trees(config.difficulty):
        pos.trees[at] = [None] * edition.slots_per_tree
    tokens = {k: list(v) for k, v in edition.substrate_tokens.items()}
    for pile in tokens.values():
        rng.shuffle(pile)
    supplies = Supplies(bag=[], tokens=tokens, decks={}, rng=rng)
    for kind, count in edition.substrates_on_board.items():
        if not deal:
            pos.pending_substrates += [kind] * count
            continue
        placed = 0
        while placed < count:
            at = supplies.draw_token(kind, edition)
            # 2.c: a substrate that falls on a tree is discarded and another one placed.
            if at in pos.trees or at in pos.substrates:
                continue
            pos.substrates[at] = kind
            placed += 1
    bag = list((edition.bag_composition(max(n, 2))).elements())
    rng.shuffle(bag)
    supplies.bag = bag
    for c in config.players:
        pos.hands[c] = [supplies.draw_tile() for _ in range(3)] if deal else []
        pos.nutrients[c] = {"pink": 0, "yellow": 0, "white": 0}
        pos.cards[c] = []
        pos.meeples[c] = None
    pos.bag = len(bag)
    pos.bag_tiles = Counter(canonical(c) for c in bag)
    for deck in ("a", "b"):
        ids = [c.id for c in edition.deck(deck)]
        rng.shuffle(ids)
        pos.market[deck] = [ids.pop() for _ in range(min(3, len(ids)))] if deal else []
        supplies.decks[deck] = ids
        pos.decks[deck] = len(ids)
    return pos, supplies
