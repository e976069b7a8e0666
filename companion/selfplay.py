"""Bot games from setup to result, with every invariant checked after every event.

Used by ``mycelium-companion selfplay``, the terminal demo and the property tests.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion import economy
from companion import tiles as tilecodes
from companion.bots import make_bot
from companion.wording import and_list
from companion.edition import Edition, load_edition
from companion.game import Event, Game
from companion.outcome import early_result
from companion.position import Position
from companion.rules import IllegalMove
from companion.setup import GameConfig, Supplies, new_game


class InvariantViolation(AssertionError):
    """A position broke a conservation law or a placement invariant."""


def invariants(pos: Position, edition: Edition, bag_at_setup: Counter[str]) -> list[str]:
    """Every broken invariant of ``pos``, as sentences (empty when all hold).

    - tile conservation: bag + hands + board + discard = the bag at setup (per tile type);
    - no two pieces on one space (tile, rock, tree, spore), no two meeples on one space;
    - every meeple on a mycelium tile or its own spore (or off the board with a displaced spore);
    - cubes: supply >= 0 per colour (supply + players = the edition's cubes), nobody above the cap;
    - cards: market + decks + players' cards = the edition's cards.
    """
    bad: list[str] = []
    seen: Counter[str] = Counter()
    seen.update(tilecodes.canonical(c) for c in pos.tiles.values())
    seen.update([tilecodes.ROCK] * len(pos.rocks))
    for hand in pos.hands.values():
        seen.update(tilecodes.canonical(c) for c in hand)
    seen.update(tilecodes.canonical(c) for c in pos.discard)
    if pos.bag_tiles is not None:
        seen.update(pos.bag_tiles)
        if seen != bag_at_setup:
            bad.append(f"tile conservation broken: {dict((seen - bag_at_setup) + (bag_at_setup - seen))}")
    elif sum(seen.values()) + pos.bag != sum(bag_at_setup.values()):
        bad.append("tile count not conserved")
    spaces: Counter = Counter()
    spaces.update(list(pos.tiles))
    spaces.update(list(pos.rocks))
    spaces.update(list(pos.trees))
    spaces.update(s.at for s in pos.spores.values() if s is not None and s.at is not None)
    doubles = [h for h, n in spaces.items() if n > 1]
    if doubles:
        bad.append(f"two pieces on {doubles}")
    meeples = [h for h in pos.meeples.values() if h is not None]
    if len(meeples) != len(set(meeples)):
        bad.append("two meeples on one space")
    for color, h in pos.meeples.items():
        spore = pos.spores.get(color)
        if h is None:
            if spore is not None and spore.at is not None:
                bad.append(f"{color}'s meeple is off the board although its spore is placed")
        elif h not in pos.tiles and not (spore is not None and spore.at == h):
            bad.append(f"{color}'s meeple stands on {tuple(h)}, neither a tile nor its spore")
    for k, v in economy.supply(pos, edition).items():
        if v < 0:
            bad.append(f"more {k} cubes in play than exist")
    for color in pos.colors:
        if pos.nutrient_total(color) > edition.nutrient_cap:
            bad.append(f"{color} holds more than {edition.nutrient_cap} nutrients")
    cards = [c for v in pos.cards.values() for c in v] + [c for v in pos.market.values() for c in v]
    if len(cards) != len(set(cards)) or len(cards) + sum(pos.decks.values()) != len(edition.cards):
        bad.append("card conservation broken")
    return bad


@dataclass
class GameSummary:
    """What one self-play game came to."""

    seed: int
    mode: str
    result: dict[str, Any] | None
    turns: int
    events: int
    violations: list[str] = field(default_factory=list)
    ended_early: bool = False
    """True when a victory condition ended the game before the last tile was drawn (8, 9)."""
    winner_vp: int = 0
    """Victory points of the best side (player, team, or the cooperative team, won or lost)."""
    cards_bought: int = 0
    removals: int = 0
    """Tiles and rocks removed (4.c) by all players together."""
    missions: list[str] = field(default_factory=list)
    seconds: float = 0.0
    players: int = 0
    difficulty: str | None = None
    """The Forest Communication difficulty: where the trees stand in every mode (rulebook 2.a),
    and in cooperative games also the missions and the VP target (7.c)."""
    tie: str | None = None
    """How a level finish was settled (rulebook 8, 9): ``shared`` (the winners share the
    victory), ``cards`` or ``nutrients`` (the tie-break that decided it); ``None`` when one
    side had the most VP, and always in cooperative games."""

    @property
    def won(self) -> bool:
        """Somebody won: in a cooperative game, the team (all missions and the VP target)."""
        return bool(self.result and self.result["winners"])

    def to_json(self) -> dict[str, Any]:
        """The game as a JSON object, with the fields of its mode only: ``winner_vp`` and
        ``tie`` in competitive and team games, ``won``, ``team_vp`` and ``missions`` in
        cooperative ones (where a lost game has no winner); ``difficulty`` in every mode."""
        doc = {"seed": self.seed, "mode": self.mode, "players": self.players, "result": self.result,
               "turns": self.turns, "events": self.events, "violations": self.violations,
               "ended_early": self.ended_early, "cards_bought": self.cards_bought, "removals": self.removals, "seconds": round(self.seconds, 2),
               "difficulty": self.difficulty}
        if self.mode == "cooperative":
            doc.update(won=self.won, team_vp=self.winner_vp, missions=self.missions)
        else:
            doc.update(winner_vp=self.winner_vp, tie=self.tie)
        return doc


def tie_settled(pos: Position, ed: Edition) -> str | None:
    """How the result of a finished competitive or team game settled a level finish: ``shared``,
    ``cards``, ``nutrients`` or ``None`` (see :attr:`GameSummary.tie`; the tie-breaks are
    :func:`companion.outcome.final_result`'s, rulebook 8 and 9)."""
    result = pos.result
    if result is None or pos.mode == "cooperative":
        return None
    if pos.mode == "team":
        if len(result.get("teams") or []) > 1:
            return "shared"
        vp: dict[str, int] = {}
        for p in pos.players:
            vp[p.team] = vp.get(p.team, 0) + economy.victory_points(pos, ed, p.color)
        return "nutrients" if list(vp.values()).count(max(vp.values())) > 1 else None
    if len(result["winners"]) > 1:
        return "shared"
    vp = {c: economy.victory_points(pos, ed, c) for c in pos.colors}
    level = [c for c in pos.colors if vp[c] == max(vp.values())]
    if len(level) == 1:
        return None
    cards = [len(pos.cards[c]) for c in level]
    return "cards" if cards.count(max(cards)) == 1 else "nutrients"


class BotTable:
    """A game driven by bots, with :class:`~companion.setup.Supplies` standing in for the bag,
    the token pile and the decks.

    ``on_event`` is called with every committed event; ``check_invariants`` runs
    :func:`invariants` after each one and raises :class:`InvariantViolation`.
    """

    def __init__(self, config: GameConfig, seed: int, edition: Edition | None = None,
                 log=None, check_invariants: bool = True,
                 on_event: Callable[[Event, Position], None] | None = None, bot: str = "random"):
        self.edition = edition or load_edition(config.edition)
        self.rng = random.Random(seed)
        pos, self.supplies = new_game(config, self.edition, self.rng)
        self.bag_at_setup = Counter({tilecodes.canonical(c): n for c, n in self.edition.bag_composition(max(len(config.players), 2)).items()})
        self.game = Game(pos, config, self.edition, log=log)
        self.bot = make_bot(bot, self.rng)
        self.fill_choices = True   # players name their cubes "of their choice" in the move
        self.check_invariants = check_invariants
        self.on_event = on_event
        self.max_turns = 400

    @classmethod
    def from_game(cls, game: Game, seed: int, check_invariants: bool = True,
                  on_event: Callable[[Event, Position], None] | None = None, bot: str = "random") -> "BotTable":
        """Bots continue an existing game (e.g. one resumed from the log); the bag, token
        piles and decks are rebuilt from what the position says is left in them."""
        table = cls.__new__(cls)
        table.edition = game.edition
        table.rng = random.Random(seed)
        pos = game.position
        bag = list((pos.bag_tiles or Counter()).elements())
        table.rng.shuffle(bag)
        tokens = {k: list(v) for k, v in table.edition.substrate_tokens.items()}
        for pile in tokens.values():
            table.rng.shuffle(pile)
        in_play = {c for v in pos.cards.values() for c in v} | {c for v in pos.market.values() for c in v}
        decks = {}
        for d in ("a", "b"):
            left = [c.id for c in table.edition.deck(d) if c.id not in in_play]
            table.rng.shuffle(left)
            decks[d] = left[: pos.decks[d]]
        table.supplies = Supplies(bag=bag, tokens=tokens, decks=decks, rng=table.rng)
        players = len(pos.colors)
        table.bag_at_setup = Counter({tilecodes.canonical(c): n for c, n in
                                      table.edition.bag_composition(max(players, 2)).items()})
        table.game = game
        table.bot = make_bot(bot, table.rng)
        table.fill_choices = True
        table.check_invariants = check_invariants
        table.on_event = on_event
        table.max_turns = 400
        return table

    @property
    def position(self) -> Position:
        return self.game.position

    def play(self, move: dict[str, Any]) -> Event:
        if move["action"] in ("place", "give", "buy", "remove") and self.fill_choices and hasattr(self.bot, "choose"):
            move = self.bot.choose(self.position, self.edition, move)   # every player's own choices
        ev = self.game.play(move)
        if self.check_invariants:
            bad = invariants(self.position, self.edition, self.bag_at_setup)
            if bad:
                raise InvariantViolation(f"after event {ev.seq} {ev.move}: {'; '.join(bad)}")
        if self.on_event:
            self.on_event(ev, self.position)
        if move["action"] == "spore_ability" and move.get("mode") == "redraw":
            # The hand went back into the bag: keep the simulated bag in step.
            before = self.game._positions[-2]
            hand = list(before.hands[move["player"]])
            gone = hand.index(move["discard"]) if move["discard"] in hand else next(
                i for i, c in enumerate(hand) if tilecodes.canonical(c) == tilecodes.canonical(move["discard"]))
            hand.pop(gone)
            self.supplies.return_tiles(hand)
        return ev

    def world(self) -> None:
        """Resolve what the table decides: substrate tokens, displaced spores, market refills."""
        pos = self.position
        while pos.result is None and pos.pending_substrates:
            kind = pos.pending_substrates[0]
            at = self.supplies.draw_token(kind, self.edition)
            mv = {"player": "table", "action": "substrate", "kind": kind, "at": list(at)}
            if self.game.check(mv).legal:
                self.play(mv)
            pos = self.position
        for color, spore in list(pos.spores.items()):
            if pos.result is None and spore is not None and spore.at is None:
                mv = self.bot.relocation(pos, self.edition, color)
                if mv:
                    self.play(mv)
                pos = self.position
        for deck in ("a", "b"):
            while pos.result is None and len(pos.market[deck]) < 3 and self.supplies.decks[deck]:
                self.play({"player": "table", "action": "reveal", "deck": deck, "card": self.supplies.decks[deck].pop()})
                pos = self.position

    def maybe(self, move: dict[str, Any] | None) -> None:
        if move is not None and self.position.result is None:
            self.play(move)
            self.world()

    def play_turn(self) -> None:
        """One player's turn (or one spore placement in the first round)."""
        pos = self.position
        if pos.in_setup:
            self.play(self.bot.spore_space(pos, self.edition))
            return
        self.play_actions()
        self.end_turn()

    def play_actions(self) -> None:
        """The active player's actions of the turn, as the bot chooses them (no draw yet)."""
        pos = self.position
        ed = self.edition
        planned = hasattr(self.bot, "next_action")
        ability = None if planned else self.bot.spore_ability(pos, ed)
        if planned:
            for _ in range(8):   # each action fills a slot of the turn, so this ends
                mv = self.bot.next_action(self.position, ed)
                if mv is None or self.position.result is not None:
                    break
                self.maybe(mv)
        elif ability is not None:
            self.maybe(ability)
        else:
            if self.rng.random() < 0.3 and "move" not in self.position.taken:
                self.maybe(self.bot.walk(self.position, ed))
            if "place" not in self.position.taken:
                self.maybe(self.bot.growth(self.position, ed))
            if "move" not in self.position.taken and self.rng.random() < 0.6:
                self.maybe(self.bot.walk(self.position, ed))
            self.maybe(self.bot.optional(self.position, ed))
            # Purchases come last in the turn (Turn Sequence Summary 2).
            self.maybe(self.bot.purchase(self.position, ed))

    def end_turn(self) -> None:
        """Draw back to 3 tiles, end the turn, and let the table resolve what it decides."""
        pos = self.position
        while pos.result is None and len(pos.hands[pos.active]) < 3 and pos.bag > 0:
            self.play({"player": pos.active, "action": "draw", "tile": self.supplies.draw_tile()})
            pos = self.position
        if pos.result is None:
            self.play({"player": pos.active, "action": "end_turn"})
            self.world()

    def run(self) -> Position:
        """Play until the game has a result; raises on an invariant violation or an illegal
        bot move (both would be bugs)."""
        self.world()
        turns = 0
        while self.position.result is None:
            self.play_turn()
            turns += 1
            if turns > self.max_turns:
                raise InvariantViolation(f"no result after {self.max_turns} turns")
        return self.position


def play_games(mode: str, games: int, seed: int, players: int | None = None,
               difficulty: str = "easy", bot: str = "random", check_invariants: bool = True) -> list[GameSummary]:
    """Play ``games`` bot games of ``mode`` with seeds ``seed``, ``seed + 1``, ...

    ``bot`` is a level of :data:`companion.bots.BOTS`.

    Invariant violations and illegal bot moves are recorded in the summaries, not raised.
    """
    out = []
    colors = ["blue", "orange", "red", "black"]
    for i in range(games):
        s = seed + i
        n = players or (4 if mode == "team" else 2 + (s % 3))
        cfg = GameConfig(players=colors[:n], mode=mode, difficulty=difficulty,
                         teams={"blue": "1", "orange": "2", "red": "1", "black": "2"} if mode == "team" else None)
        t0 = time.perf_counter()
        table = BotTable(cfg, s, bot=bot, check_invariants=check_invariants)
        violations: list[str] = []
        try:
            table.run()
        except (InvariantViolation, IllegalMove) as e:
            violations.append(f"{type(e).__name__}: {e}")
        pos = table.position
        ed = table.edition
        early = pos.result is not None and early_result(pos, ed) is not None and pos.bag > 0
        best = max(economy.side_points(pos, ed, c) for c in pos.colors)
        out.append(GameSummary(s, mode, pos.result, pos.turn_number, len(table.game.events), violations,
                               ended_early=early, winner_vp=best,
                               cards_bought=sum(len(v) for v in pos.cards.values()),
                               removals=sum(ev.move.get("action") == "remove" for ev in table.game.events),
                               missions=list(pos.missions), seconds=time.perf_counter() - t0, players=n,
                               difficulty=difficulty, tie=tie_settled(pos, ed)))
    return out


def figure(x: float) -> float | int:
    """A figure for the summary: a whole number as an int, else rounded to 2 decimals."""
    return int(x) if float(x).is_integer() else round(x, 2)


def end_reason(g: GameSummary) -> str:
    """Why ``g`` ended, without who: "a player reached 10 victory points", "a team reached 15
    victory points", "all three missions accomplished and the VP target", "the last tile was
    drawn from the bag", and for a lost cooperative game what the team lacked: "the last tile was
    drawn from the bag: the team loses (missions not accomplished: Forest Communication)"
    (rulebook 8, 9)."""
    import re
    full = g.result["reason"] if g.result else "no result"
    if ": the team loses (" in full:
        # a lost cooperative game keeps what the team lacked (the dashboard's words), its VP
        # count folded into one phrase so that games group
        return re.sub(r"\d+ of \d+ victory points", "short of the VP target", full)
    reason = full.split(":")[0]
    if reason.startswith("all three missions accomplished"):
        return "all three missions accomplished and the VP target"
    m = re.match(r"(team )?.+ reached (\d+ victory points)$", reason)
    if m:
        return f"a {'team' if m.group(1) else 'player'} reached {m.group(2)}"
    return reason


def side_names(g: GameSummary) -> str:
    """Who won ``g``, for counting results: "blue"; "team 1 (blue and red)"; several
    sides sharing the victory joined with "and" ("blue, orange, red and black")."""
    winners = list(g.result["winners"]) if g.result else []
    if g.mode == "team" and g.result and g.result.get("teams"):
        teams = g.result["teams"]
        named = [f"team {t}" for t in teams]
        if len(teams) == 1:
            return f"{named[0]} ({' and '.join(winners)})"
        winners = named
    return and_list(winners)


def results(games: list[GameSummary]) -> dict[str, Any]:
    """How the games ended, per mode.  Competitive and team: ``won`` counts each side's sole
    victories; ``shared`` counts the games still level after every tie-break (rulebook 8, 9),
    once per game, keyed by the sides that share it ("blue, orange, red and black"), never
    under each side's ``won``; games without a result (an invariant broke) are ``unfinished``.
    Cooperative: the games ``won`` and ``lost`` by the team."""
    unfinished = sum(1 for g in games if g.result is None)
    if games and games[0].mode == "cooperative":
        doc: dict[str, Any] = {"won": sum(g.won for g in games), "lost": sum(1 for g in games if g.result and not g.won)}
    else:
        won: Counter[str] = Counter()
        shared: Counter[str] = Counter()
        for g in games:
            if g.result:
                (shared if g.tie == "shared" else won)[side_names(g)] += 1
        doc = {"won": dict(won.most_common()), "shared": dict(shared.most_common())}
    if unfinished:
        doc["unfinished"] = unfinished
    return doc


def summarize(games: list[GameSummary]) -> dict[str, Any]:
    """Figures over many games of one mode, each field only where the mode has it (rates are
    fractions of the games, rounded to 3 decimals; spreads are ``{min, median, max}``, whole
    numbers as ints, others rounded to 2 decimals):

    - every mode: ``ended_early`` / ``ended_by_bag`` (rates), ``cards_bought`` (per game),
      ``removal_games`` (rate of games with at least one removal, 4.c) and ``removals_per_game``
      (mean), ``seconds_per_game``, ``games_by_players`` (a count per player count) and
      ``ended_early_by_players`` (the rate among those games);
    - competitive and team: ``winner_vp`` (the winning side's VP, a shared victory's once),
      ``ties`` (games still level after the tie-breaks, ``shared``, and games a tie-break
      decided, ``broken_by_cards`` (competitive only) / ``broken_by_nutrients``);
    - cooperative: ``cooperative_won`` (rate), ``team_vp`` (the team's VP, won or lost: a lost
      cooperative game has no winner), ``missions`` (rate each was accomplished).
    """
    import statistics
    n = len(games)
    mode = games[0].mode

    def spread(values: list[float]) -> dict[str, float | int]:
        return {"min": figure(min(values)), "median": figure(statistics.median(values)), "max": figure(max(values))}

    doc: dict[str, Any] = {
        "ended_early": round(sum(g.ended_early for g in games) / n, 3),
        "ended_by_bag": round(sum(not g.ended_early for g in games) / n, 3),
    }
    if mode == "cooperative":
        doc["cooperative_won"] = round(sum(g.won for g in games) / n, 3)
        doc["team_vp"] = spread([g.winner_vp for g in games])
        doc["missions"] = {m: round(sum(m in g.missions for g in games) / n, 3)
                           for m in ("funga", "forest_symbiosis", "forest_communication")}
    else:
        doc["winner_vp"] = spread([g.winner_vp for g in games])
        ties = Counter(g.tie for g in games if g.tie)
        doc["ties"] = {"shared": ties["shared"], **({"broken_by_cards": ties["cards"]} if mode == "competitive" else {}),
                       "broken_by_nutrients": ties["nutrients"]}
    doc["cards_bought"] = spread([g.cards_bought for g in games])
    doc["removal_games"] = round(sum(g.removals > 0 for g in games) / n, 3)
    doc["removals_per_game"] = figure(sum(g.removals for g in games) / n)
    doc["seconds_per_game"] = spread([g.seconds for g in games])
    doc["games_by_players"] = {str(k): sum(1 for g in games if g.players == k) for k in sorted({g.players for g in games})}
    doc["ended_early_by_players"] = {str(k): round(sum(g.ended_early for g in games if g.players == k)
                                                   / sum(1 for g in games if g.players == k), 3)
                                     for k in sorted({g.players for g in games})}
    return doc
