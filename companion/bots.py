"""Bots that play by the rules, at two levels.

- :class:`RandomBot`: random legal choices with a taste for nutrients.  It exercises the
  rules (property tests, the simulated table), not the game.
- :class:`GreedyBot`: a one-ply greedy search over the legal actions (each placement scored
  from where the meeple stands and after each possible move) with a hand-written
  evaluation: it targets the card closest to affordable per victory point, grows that
  card's colour and toward the sources of the cubes it still lacks, keeps its cubes for the
  target when over the cap, plays rocks early (they cannot be discarded) and on opponents,
  removes a rock or a tile next to its meeple (4.c) when the placement it opens outscores
  the cubes paid (naming the cubes its card needs least), plays a placement that lets it buy
  a card in the same turn over a rock or any placement scoring less than the card's worth,
  and in cooperative play lays the team's Forest Communication blueprint (one green network
  joining all four trees, planned once by :mod:`companion.forest_plan`), pulling their
  networks toward the sides of its spaces the planned tiles can join (on a substrate, only in
  its colour; tiles with or without green mycelium alike) and scoring the spaces a placement
  takes off the distance from the team's frontier to the plan (an end off the meeple's
  network counts less: it is theirs only after a move), walks the player holding a planned tile onto a network that can lay it, redraws
  with the spore ability (4.d) when its network reaches a planned space but no tile in hand
  has the shape it needs, removes a tile standing where a blueprint at least a tile shorter
  would lay one a hand of the team holds, and
  pays for cards with tiles off it and never with a three-way green tile; the team works toward one card (every
  card costs every player, 6.b.2) and passes teammates the cubes it lacks.  In competitive and team play a card whose colour the network under
  the meeple can no longer grow in counts as a new network, the spore restarts after a
  purchase where what is left of a network starts the next card, and in team play each
  member also gathers their share of the teammate's card (9.c).  No lookahead beyond the
  turn and no rollouts: a look-ahead to the player's next placement, a rule that waits for a
  dearer card and teammates splitting their targets were measured and played no better
  (``docs/rules.md``, "Where the greedy bots' turns go").  Removals are made in about two
  competitive games in three (1.3 per game, mostly tiles) and in about 30 % of
  cooperative ones (rocks), and change the self-play figures within noise only
  (``docs/rules.md``, Removal (4.c)).  Self-play figures:
  ``bench/rules.py``; what one player alone reaches in the bag's turns:
  ``bench/bot_turns.py --solo``.

A bot only ever plays moves the rules accept (:mod:`companion.movegen`, :func:`check`).
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from companion import bag_contents, economy, forest_plan, movegen
from companion import tiles as tilecodes
from companion.edition import SUBSTRATE_COLOR, Edition
from companion.hexgrid import Hex, distance, opposite
from companion.options import option
from companion.position import Position
from companion.rules import Board, IllegalMove, apply, check, choices_needed

SOURCE_PULL = 0.25
"""Weight of the long-range pull toward the sources of missing cubes: measured over 30
competitive games each, 0.25 ended more games at 10 VP than 0 or 0.5."""
REUSE_WEIGHT = 8.0
"""Weight of the next card's cost (turns per VP) when choosing where the spore restarts after
a purchase."""
BLUEPRINT_PULL = 6.0
"""Weight of the pull of an open path end toward the nearest empty space of the team's
Forest Communication blueprint (7.c), per space closer than 6.  Measured over 30
cooperative easy games (seed 1): 3.0 completed Forest Communication in 3, 6.0 in 7, 9.0 in
7 (docs/rules.md, 7.c)."""
FRONTIER_GAIN = 12.0
"""Cooperative play: weight, per space, of bringing the team's frontier closer to the nearest
empty space of the Forest Communication blueprint (7.c; :meth:`GreedyBot._frontier_gain`), two
steps of :data:`BLUEPRINT_PULL`, so it outweighs the two cubes of a substrate (5.a).  Measured
in ``docs/rules.md``, "7.c, round 7"."""
BLUEPRINT_TILE = 50.0
"""Score from which a placement is a tile of the team's Forest Communication blueprint: no
rock is put down instead."""
REROUTE_VALUE = {"progress": 50.0, "contact": 20.0}
"""Value of a tile on a blueprint space that is not the blueprint's own but leaves a plan
as short as the blueprint's tile would (progress) or no longer than before (contact: the
team's network meets the plan where no hand held the planned shape)."""
CUBE_WORTH = 5.0
"""Score of a nutrient cube held, in :meth:`GreedyBot.score_place`'s units: a substrate's two
cubes score 10 (5.a)."""
NEEDED_CUBE = 4.0
"""Score of a cube the target card still lacks, on top of :data:`CUBE_WORTH` (as
:meth:`GreedyBot.score_place` counts a substrate's cubes the target needs)."""
REMOVAL_MARGIN = 2.0
"""A removal (4.c) is made when the placement it opens scores this much more than the best
placement without it, once the cubes paid are counted (:meth:`GreedyBot._removal`).  Chosen,
not tuned: with it the self-play figures stay within noise of a bot that never removes
(``docs/rules.md``, Removal (4.c))."""
CARD_WORTH = 10.0
"""Score, per victory point, of a card a placement lets the player buy in the same turn (6;
:meth:`GreedyBot.buying_placement`), on top of the placement's own score: a card of 2 VP
outscores completing the target's network (22, :meth:`GreedyBot._toward_purchase`).  Chosen,
not tuned."""
BOTS = ("greedy", "random")
"""Bot levels, strongest first."""


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
            gifts = [m for m in movegen.economy_moves(b, p) if m["action"] == "give"]
            return self.rng.choice(gifts) if gifts else None
        if r < 0.3:
            swaps = [m for m in movegen.economy_moves(b, p) if m["action"] == "swap"]
            return self.rng.choice(swaps) if swaps else None
        return None

    def spore_ability(self, pos: Position, edition: Edition) -> dict[str, Any] | None:
        if self.rng.random() >= 0.03:
            return None
        options = [m for m in movegen.legal_moves(pos, edition) if m["action"] == "spore_ability"]
        return self.rng.choice(options) if options else None


# --- bots that play to win ----------------------------------------------------------------

NEEDS = ("pink", "yellow", "white")
GOAL_OF = {"pink": "wood", "yellow": "soil"}


@dataclass
class Target:
    """The card a player works toward and what is still missing (from
    :func:`companion.purchase.can_buy`)."""

    card: str
    color: str
    missing_tiles: int
    missing: dict[str, int]     # the player's own missing cubes
    cost: float                 # rough turns to afford it, per victory point


class GreedyBot:
    """One-ply greedy search with a hand-written evaluation, re-planned before every action.

    Each turn the bot:

    1. picks a *target*: the face-up card with the fewest missing tiles and cubes per victory
       point (:func:`companion.purchase.can_buy`);
    2. scores every ``place`` it has, from where its meeple stands and after each possible
       ``move`` first: cubes from a substrate or a mycorrhiza (more when the target needs that
       colour), growth of the target's colour, open path ends close to a substrate of their
       colour or a tree (green), and in cooperative play trees joined to the green network
       (Forest Communication) and mycorrhizae toward Forest Symbiosis;
    3. first removes a rock or a tile next to its meeple when the placement that opens pays
       for the cubes (4.c, :meth:`_removal`);
    4. plays a placement that lets it buy a card this turn when it outscores the rest with
       the card's worth (:meth:`buying_placement`), else the best pair, else a rock (on an
       opponent's meeple when it pays off), else discards its least useful tile;
    5. after placing, moves onto a network that makes a purchase possible, gives a cube a
       teammate's target lacks, and buys the affordable card worth most.

    Choices "of your choice" (mycorrhiza cubes, Forest Communication for every player) and
    discards above the cap follow each player's target.  Deterministic given ``rng``.
    """

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.last_target: dict[str, str] = {}
        self.team_target = True
        """Cooperative play: the whole team works toward one card (:meth:`_team_target`)."""
        self.blueprint_pull = BLUEPRINT_PULL
        self.plan_reach = False
        """Cooperative play: the Forest Communication blueprint bends toward the spaces the
        team's networks can join now (:data:`companion.forest_plan.REACH_DISCOUNT`).  Off:
        over 30 easy and 30 medium games it completed the mission no more often (4 and 1
        against 3 and 3) and made games slower."""
        self.plan_moves = True
        self.fish_plan = True
        """Cooperative play: a player who reaches an empty blueprint space without its shape in
        hand redraws with the spore ability (:meth:`_fish_for_plan`)."""
        self.pull_any_color = True
        """Cooperative play: a tile without green mycelium is pulled toward the blueprint too
        (its pink or yellow ends open the way to a planned space, 4.a.1)."""
        self.joined_ends = True
        """Cooperative play: an end of a placed tile on a path not joined to the network the
        meeple grows from pulls toward the blueprint as if one space farther (4.b: it is the
        player's only after a meeple move)."""
        self.frontier_gain = FRONTIER_GAIN
        """Cooperative play: weight of the spaces a placement takes off the distance from the
        team's frontier to the blueprint (:meth:`_frontier_gain`); 0: not scored."""
        self.substrate_sides = True
        """Cooperative play: an end facing an empty blueprint space that holds a substrate
        pulls as a side that can join only in the substrate's colour (5.a, table rule
        ``substrate_requires_matching_color``)."""
        """Cooperative play: a player holding a tile an empty blueprint space needs walks, after
        placing, toward a network from which it can lay it next turn (:meth:`_move_to_plan`)."""

    # -- targets and evaluation ------------------------------------------------------------

    def target(self, pos: Position, ed: Edition, player: str, remember: bool = True) -> Target | None:
        from companion.purchase import can_buy
        if pos.mode == "cooperative" and self.team_target:
            return self._team_target(pos, ed, player, remember)
        best = None
        # White cubes come only from mycorrhizae (5.b), Forest Communication or a swap card:
        # once every tree is full, a card whose white the player lacks is out of reach.
        white_source = (economy.effects_of(pos, ed, player)["swap_nutrient"] > 0
                        or (economy.markers_left(pos, player) > 0 and any(None in s for s in pos.trees.values())))
        growing = self._growing_colors(pos, ed, player) if pos.mode != "cooperative" else None
        for card in economy.face_up_cards(pos, ed):
            a = can_buy(pos, ed, player, card.id)
            own = a.missing_nutrients.get(player, {})
            if growing is not None and a.missing_tiles and card.mycelia_color not in growing:
                # The network the meeple stands on cannot grow in this colour: the card takes
                # a new network, started elsewhere.
                a.missing_tiles = economy.mycelia_needed(pos, ed, card, player) + 1
            others = sum(sum(v.values()) for k, v in a.missing_nutrients.items() if k != player)
            cost = (1.0 + a.missing_tiles + 1.5 * sum(own.values()) + 1.0 * others) / card.vp
            if own.get("white") and not white_source:
                cost += 50
            if pos.mode == "cooperative" and card.mycelia_color == "green" and "forest_communication" not in pos.missions:
                cost *= 2.5   # paying with green tiles would cut the network 7.c needs
            if self.last_target.get(player) == card.id:
                cost *= 0.75   # keep a plan unless another card is clearly cheaper
            if best is None or cost < best.cost:
                best = Target(card.id, card.mycelia_color, a.missing_tiles, dict(own), cost)
        if best is not None and remember:
            self.last_target[player] = best.card
        return best

    def _team_target(self, pos: Position, ed: Edition, player: str, remember: bool) -> Target | None:
        """Cooperative play (6.b.2): every card is paid by every player, each the cubes under
        their meeple colour, so the team works toward one card: the face-up card with the fewest
        missing cubes (all players') and tiles (of the player closest to its network) per
        victory point.  ``player``'s :class:`Target` names that card with their own shortfall."""
        from companion.purchase import can_buy
        key = ("team_target", self.last_target.get("team"))
        if key not in pos.cache:
            white_source = any(economy.effects_of(pos, ed, c)["swap_nutrient"] > 0 for c in pos.colors) or (
                any(None in s for s in pos.trees.values()))
            best = None
            for card in economy.face_up_cards(pos, ed):
                per = {c: can_buy(pos, ed, c, card.id) for c in pos.colors}
                tiles = min(a.missing_tiles for a in per.values())
                missing = next(iter(per.values())).missing_nutrients
                cubes = sum(sum(v.values()) for v in missing.values())
                cost = (1.0 + tiles + 1.2 * cubes) / card.vp
                if not white_source and any(v.get("white") for v in missing.values()):
                    cost += 50
                if card.mycelia_color == "green" and "forest_communication" not in pos.missions:
                    cost *= 2.5   # paying with green tiles would cut the network 7.c needs
                if self.last_target.get("team") == card.id:
                    cost *= 0.75   # keep a plan unless another card is clearly cheaper
                if best is None or cost < best[0]:
                    best = (cost, card)
            pos.cache[key] = best
        best = pos.cache[key]
        if best is None:
            return None
        cost, card = best
        if remember:
            self.last_target["team"] = card.id
            self.last_target[player] = card.id
        a = can_buy(pos, ed, player, card.id)
        return Target(card.id, card.mycelia_color, a.missing_tiles, dict(a.missing_nutrients.get(player, {})), cost)

    def _with_team_share(self, pos: Position, ed: Edition, player: str, target: Target) -> Target:
        """Team play (9.c): a card is paid by both members, each the cubes under their meeple
        colour, so the cubes ``player`` gathers include their share of the teammate's target."""
        from companion.purchase import can_buy
        need = dict(target.missing)
        for mate in pos.teammates(player):
            if mate == player:
                continue
            theirs = self.target(pos, ed, mate, remember=False)
            if theirs is None:
                continue
            for k, v in can_buy(pos, ed, mate, theirs.card).missing_nutrients.get(player, {}).items():
                need[k] = need.get(k, 0) + v
        return Target(target.card, target.color, target.missing_tiles, need, target.cost)

    @staticmethod
    def _growing_colors(pos: Position, ed: Edition, player: str) -> set[str]:
        """Colours the networks under ``player``'s meeple can still grow in (an open path end
        on an empty space, 4.a.1); every colour when the meeple stands on its spore with a
        free space beside it."""
        key = ("growing", player)
        if key not in pos.cache:
            colors = {c for att in Board(pos, ed).frontier(player).values() for _e, c in att}
            pos.cache[key] = set(tilecodes.COLORS.values()) if None in colors else colors
        return pos.cache[key]

    def wanted(self, pos: Position, ed: Edition, player: str) -> list[str]:
        """Colours ``player`` would pick "of their choice", most wanted first."""
        t = self.target(pos, ed, player)
        want = []
        if t:
            for k, v in t.missing.items():
                want += [k] * v
        held = pos.nutrients[player]
        want += sorted(NEEDS, key=lambda k: (held[k], NEEDS.index(k))) * 3
        return want

    def _goals(self, pos: Position, player: str) -> dict[str, list[Hex]]:
        goals: dict[str, list[Hex]] = {"pink": [], "yellow": [], "green": []}
        for at, kind in pos.substrates.items():
            goals["pink" if kind == "wood" else "yellow"].append(at)
        left = economy.markers_left(pos, player) > 0
        goals["free_trees"] = []
        for at, slots in pos.trees.items():
            if pos.mode == "cooperative" or (left and None in slots):
                goals["green"].append(at)
            if left and None in slots:
                goals["free_trees"].append(at)
        return goals

    def score_place(self, b: Board, player: str, code: str, at: Hex, joined: set[str],
                    target: Target | None, goals: dict[str, list[Hex]]) -> float:
        pos = b.pos
        tile = tilecodes.parse(code)
        need = target.missing if target else {}
        s = 0.0
        kind = pos.substrates.get(at)
        if kind:
            color = SUBSTRATE_COLOR[kind]
            if color in joined:
                s += 10 + 4 * min(2, need.get(color, 0))
                s -= 6 * max(0, pos.nutrient_total(player) + 2 - b.edition.nutrient_cap) / 2
            else:
                s -= 6
        coop = pos.mode == "cooperative"
        markers = economy.markers_left(pos, player) > 0
        src = 0.0
        for e, color in enumerate(tile.edge_color):
            if color is None:
                continue
            n = at.neighbor(e)
            if n in pos.trees:
                if color == "green" and markers and None in pos.trees[n]:
                    s += 7 + 6 * min(2, need.get("white", 0)) + (5 if coop else 0)
                elif color == "green" and coop:
                    s += 3
                continue
            if not b.placeable(n) and n not in pos.substrates:
                continue
            g = goals.get(color) or []
            if g:
                d = min(distance(n, x) for x in g)
                w = 1.6 if target and color == target.color else 1.0
                if color == "green" and (coop or need.get("white")):
                    w = 1.8
                s += w * max(0, 5 - d)
            if need.get("white") and goals["green"]:
                # Any tile next to a tree forms a mycorrhiza through its green end (5.b), and
                # mycorrhizae are where white cubes come from.
                d = min(distance(n, x) for x in goals["green"]) - 1
                s += 1.5 * max(0, 4 - d)
            src = max(src, self._toward_sources(n, color, need, goals))
        s += src
        if target and target.color in joined and target.missing_tiles > 0:
            s += self._toward_purchase(b, player, at, tile, target)
        if coop and "forest_communication" not in pos.missions:
            if "green" in tile.edge_color:
                s += self._communication(b, at, tile, player)
            elif self.pull_any_color:
                bp = self._blueprint(b)
                if bp is not None:
                    s += self._follow_blueprint(b, bp, at, tile, player)
            s -= self._blocks_network(b, at, tile)
        return s + self.rng.random() * 0.5

    @staticmethod
    def _toward_sources(n: Hex, color: str, need: dict[str, int], goals: dict[str, list[Hex]]) -> float:
        """Long-range pull of an open path end toward where the cubes the target still lacks
        come from: a substrate of the end's colour (5.a, two cubes) or, for a green end, a tree
        with a free slot (5.b, one cube of any colour).  Reaches farther than the short-range
        goal term so a player whose network is far from every source still heads for one."""
        if not need:
            return 0.0
        s = 0.0
        kind = GOAL_OF.get(color)
        if kind and need.get(color) and goals.get(color):
            d = min(distance(n, x) for x in goals[color])
            s += SOURCE_PULL * min(2, need[color]) * max(0, 8 - d)
        if color == "green" and goals.get("free_trees"):
            d = min(distance(n, x) for x in goals["free_trees"]) - 1
            s += SOURCE_PULL * 0.6 * min(2, sum(need.values())) * max(0, 7 - d)
        return s

    def _toward_purchase(self, b: Board, player: str, at: Hex, tile: tilecodes.Tile, target: Target) -> float:
        """Value of a tile that grows the target card's colour: the size of the network it
        forms with its neighbours of that colour, most when it reaches the card's count (6.a)."""
        pos = b.pos
        sizes = pos.cache.get("net_of")
        if sizes is None:
            sizes = pos.cache["net_of"] = {}
            for i, net in enumerate(b.graph.networks):
                for node in net.nodes:
                    if node[1] >= 0:
                        sizes[(node, net.color)] = (i, len(net.spaces))
        nets = {}
        for e, color in enumerate(tile.edge_color):
            if color != target.color:
                continue
            n = at.neighbor(e)
            code = pos.tiles.get(n)
            if code is None:
                continue
            i = tilecodes.parse(code).path_on_edge(opposite(e))
            got = sizes.get(((n, i), color)) if i is not None else None
            if got:
                nets[got[0]] = got[1]
        size = 1 + sum(nets.values())
        need = economy.mycelia_needed(pos, b.edition, b.edition.cards[target.card], player)
        return 22.0 if size >= need else 4.0 + 2.0 * size

    @staticmethod
    def _reach(trees: int, ends: int) -> float:
        """How close a green network is to Forest Communication (7.c): the trees it touches,
        plus half a tree for each open end that could still reach one (a network of paths
        with two ends is a line and touches two trees at most; each three-way path adds an
        end).  A network with no open end left cannot grow: it counts for little."""
        if trees < 4 and ends == 0:
            return 0.25 * trees
        return trees + 0.5 * min(ends, 4 - trees)

    @staticmethod
    def _gap(pos: Position, trees: frozenset | set, ends: list[Hex]) -> float:
        """Rough tiles still to lay before a green network touches every tree: per missing
        tree, the hex distance from the nearest open end to a space next to it, and 3 more
        per missing tree beyond the open ends (a three-way path has to be found)."""
        left = [t for t in pos.trees if t not in trees]
        if not left:
            return 0.0
        if not ends:
            return 8.0 * len(left)
        gap = sum(min(distance(o, t) for o in ends) - 1 for t in left)
        return gap + 3.0 * max(0, len(left) - len(ends))

    def _communication(self, b: Board, at: Hex, tile: tilecodes.Tile, player: str | None = None) -> float:
        """Forest Communication (7.c): value of a tile by how much closer the green network
        it joins comes to touching all four trees: trees touched, open green ends left to
        reach the others (:meth:`_reach`), and the tiles still to lay (:meth:`_gap`)."""
        pos = b.pos
        nets, best_now, gap_now = self._green_nets(b)
        bp = self._blueprint(b)
        if bp is not None:
            return self._follow_blueprint(b, bp, at, tile, player)
        s = 0.0
        for path in tile.paths:
            if path.color != "green":
                continue
            trees: set = set()
            ends: list[Hex] = []
            joined: set[int] = set()
            for e in path.edges:
                n = at.neighbor(e)
                if n in pos.trees:
                    trees.add(n)
                    continue
                code = pos.tiles.get(n)
                if code is not None:
                    i = tilecodes.parse(code).path_on_edge(opposite(e))
                    got = nets.get((n, i)) if i is not None else None
                    if got is not None and got[0] not in joined:
                        joined.add(got[0])
                        trees |= got[1]
                        ends += [o for o in got[2] if o != at]
                elif b.placeable(n):
                    ends.append(n)
            if not joined and not trees:
                if len(path.edges) >= 3:
                    s -= 4   # keep a three-way green path for the network that reaches the trees
                continue
            reach = self._reach(len(trees), len(ends))
            gap = self._gap(pos, trees, ends)
            if reach < best_now and pos.cache.get("green_best_spaces", frozenset()) & {at.neighbor(e) for e in path.edges}:
                s -= 8 * (best_now - reach)   # a spur or a dead end on the best network
            s += (3 * len(trees) if ends or len(trees) == 4 else -3) + 14 * max(0.0, reach - best_now)
            if reach >= best_now:
                s += 3 * max(0.0, gap_now - gap)
        return s

    def _blocks_network(self, b: Board, at: Hex, tile: tilecodes.Tile) -> float:
        """Cost of covering an open end of the green network closest to the trees with a side
        that is not green: that end can no longer grow toward a tree (7.c)."""
        _nets, best_now, _gap = self._green_nets(b)
        bp = self._blueprint(b)
        if bp is not None:
            # A tile without green on a blueprint space: the plan has to be made again.
            return 80.0 if at in bp.spaces and "green" not in tile.edge_color else 0.0
        ends = b.pos.cache.get("green_best_ends") or ()
        if at not in ends or best_now >= 4:
            return 0.0
        pos = b.pos
        cost = 0.0
        for e in range(6):
            n = at.neighbor(e)
            code = pos.tiles.get(n)
            if code is None or n not in (b.pos.cache.get("green_best_spaces") or ()):
                continue
            facing = tilecodes.parse(code).path_on_edge(opposite(e))
            if facing is not None and tilecodes.parse(code).paths[facing].color == "green" and tile.edge_color[e] != "green":
                cost += 8.0
        return cost

    def _green_nets(self, b: Board) -> tuple[dict, float, float]:
        """Green path node -> (network index, trees it touches, its open ends); the best
        :meth:`_reach` of any green network and that network's :meth:`_gap`."""
        cached = b.pos.cache.get("green_nets")
        if cached is not None:
            return cached
        pos = b.pos
        out: dict = {}
        best, best_gap = 0.0, 8.0 * len(pos.trees)
        for k, net in enumerate(b.graph.networks):
            if net.color != "green":
                continue
            touched = set()
            ends = []
            for (h, i) in net.nodes:
                if i < 0:
                    continue
                for e in tilecodes.parse(pos.tiles[h]).paths[i].edges:
                    n = h.neighbor(e)
                    if n in pos.trees:
                        touched.add(n)
                    elif b.placeable(n):
                        ends.append(n)
            touched = frozenset(touched)
            reach = self._reach(len(touched), len(ends))
            gap = self._gap(pos, touched, ends)
            if (reach, -gap) > (best, -best_gap):
                best, best_gap = reach, gap
                b.pos.cache["green_best_spaces"] = net.spaces
                b.pos.cache["green_best_ends"] = frozenset(ends)
            for node in net.nodes:
                out[node] = (k, touched, ends)
        bp = self._blueprint(b)
        if bp is not None:
            # The team's plan is what rocks, payments and meeple moves keep clear of.
            todo = frozenset(bp.todo(pos))
            near = frozenset(n for h in todo for n in h.neighbors() if n in pos.tiles)
            pos.cache["green_best_spaces"] = (frozenset(pos.cache.get("green_best_spaces") or ())
                                              | frozenset(bp.spaces) | near)
            pos.cache["green_best_ends"] = frozenset(pos.cache.get("green_best_ends") or ()) | todo
        b.pos.cache["green_nets"] = (out, best, best_gap)
        return out, best, best_gap

    def _blueprint(self, b: Board) -> forest_plan.Blueprint | None:
        """The team's Forest Communication blueprint (:mod:`companion.forest_plan`), made
        once and kept: made again when one of its spaces was taken by something else, or
        replaced when the tiles now down offer a way at least half a tile shorter; ``None``
        when no network can be laid any more (7.c).  Memoised per board state, so trial
        positions (after each possible move) cost nothing more."""
        pos = b.pos
        if "forest_plan" in pos.cache:
            return pos.cache["forest_plan"]
        sig = self._plan_state(b)
        memo = self.__dict__.setdefault("_forest_memo", {})
        if sig in memo and (memo[sig] is None or not memo[sig].broken(pos, b.edition)):
            bp = memo[sig]
        else:
            kept = getattr(self, "_forest", None)
            reach = self._team_reach(b) if self.plan_reach else None
            if kept is not None and kept[0] == sig[0] and kept[1] is not None and not kept[1].broken(pos, b.edition):
                old = kept[1].recosted(pos, b.edition, reach)
                bp = forest_plan.plan(pos, b.edition, below=old.cost - 0.35, reach=reach) or old
            else:
                bp = forest_plan.plan(pos, b.edition, reach=reach)
            if bp is not None and len(bp.todo(pos)) > pos.bag + sum(len(h) for h in pos.hands.values()):
                bp = None   # more tiles to lay than are left in the game
            if len(memo) > 512:
                memo.clear()
            memo[sig] = bp
        if bp is not None:
            self._forest = (sig[0], bp)
        pos.cache["forest_plan"] = bp
        return bp

    def pending_blueprint(self, b: Board) -> forest_plan.Blueprint | None:
        """The blueprint (:meth:`_blueprint`) while the team still has Forest Communication to
        complete in cooperative play (7.c); ``None`` otherwise or when there is none."""
        pos = b.pos
        if pos.mode != "cooperative" or "forest_communication" in pos.missions:
            return None
        return self._blueprint(b)

    @staticmethod
    def _team_reach(b: Board) -> dict:
        """Where the team's networks can grow now (every player's frontier, 4.a.1, other
        meeples not counted as blocking: they move): a blueprint bends toward it (7.c)."""
        out: dict = {}
        for c in b.pos.colors:
            for h, attach in b.frontier(c, blocked=False).items():
                out.setdefault(h, set()).update(attach)
        return out

    @staticmethod
    def _plan_state(b: Board) -> tuple:
        """What a blueprint depends on: trees, tiles, rocks and substrates on the board, and the
        three-way tiles left."""
        pos = b.pos
        sh = forest_plan.bag_shapes(b.edition, len(pos.colors))
        # Spores are left out: trial positions differ by the spore alone, and a spore on a
        # planned space shows as a broken plan.
        return (frozenset(pos.trees), frozenset(pos.tiles.items()), frozenset(pos.rocks),
                frozenset(pos.substrates.items()), forest_plan.branches_available(pos, b.edition, sh))

    def _near_blueprint(self, b: Board, p: str) -> bool:
        """True when ``p``'s meeple stands on, or can walk to, a tile of the team's Forest
        Communication blueprint (7.c) or one next to its empty spaces: waiting there (a
        teammate's meeple may be in the way this turn) beats starting over on the rim."""
        pos = b.pos
        bp = self.pending_blueprint(b)
        if bp is None:
            return False
        near = {n for h in bp.todo(pos) for n in h.neighbors() if n in pos.tiles} | {
            h for h in bp.spaces if h in pos.tiles}
        return pos.meeples.get(p) in near or any(Hex(*mv["to"]) in near for mv in movegen.meeple_moves(b, p))

    def _follow_blueprint(self, b: Board, bp: forest_plan.Blueprint, at: Hex, tile: tilecodes.Tile,
                          player: str | None = None) -> float:
        """Value of a placement for the team's blueprint (7.c): its own tile on a blueprint
        space is worth more than any cube, the most when it joins blueprint tiles already
        down and for a three-way tile (the scarcest); another tile there breaks the plan; a
        three-way tile off the plan wastes one the plan needs, and a tile of a shape an empty
        blueprint space needs is better kept for it; ends facing an empty blueprint space pull
        the team's networks toward the plan."""
        pos = b.pos
        if at in bp.spaces:
            if not bp.fits(at, tile.code):
                green = forest_plan.green_path(tile.code)
                key = ("forest_reroute", at, green)
                if green is None or len(green) < 2:
                    return -80.0
                if key not in pos.cache:
                    pos.cache[key] = forest_plan.reroute(pos, b.edition, bp, at, tile.code)
                return REROUTE_VALUE.get(pos.cache[key], -80.0)
            s = 60.0 + (20.0 if at in bp.branches else 0.0)
            s += 4.0 * sum(1 for e in bp.spaces[at] if at.neighbor(e) in pos.tiles or at.neighbor(e) in pos.trees)
            return s
        s = 0.0
        green = forest_plan.green_path(tile.code)
        if green is not None and len(green) >= 3:
            needed = len(bp.branches - set(pos.tiles))
            sh = forest_plan.bag_shapes(b.edition, len(pos.colors))
            if needed and forest_plan.branches_available(pos, b.edition, sh) <= needed + 2:
                s -= 40.0   # the plan needs the three-way tiles left
        todo = bp.todo(pos)
        if not todo:
            return s
        key = ("forest_fits", tile.code)
        if key not in pos.cache:
            pos.cache[key] = any(bp.fits(h, placed) for h in todo for _k, placed in tilecodes.distinct_rotations(tile.code))
        if pos.cache[key]:
            s -= 20.0   # a shape the plan still needs: keep it for its space
        pull = 0.0
        players = len(pos.colors)
        strict = option(pos.options, "substrate_requires_matching_color")
        own = (self._joined_paths(b, player, at, tile)
               if player is not None and (self.joined_ends or self.frontier_gain) else None)
        nearest = {True: None, False: None}   # spaces from the plan of the new ends, own network or not
        for e, color in enumerate(tile.edge_color):
            if color is None:
                continue
            n = at.neighbor(e)
            # An end on a path not joined to the meeple's network is the team's only after a
            # meeple move (4.b): it pulls as if one space farther.
            later = own is not None and tile.path_on_edge(e) not in own
            penalty = int(later and self.joined_ends)
            if n in bp.spaces and n not in pos.tiles:
                # An end the planned tile can join (4.a.1: same colour on that edge) opens the
                # space to the team; any other end faces it but cannot lay it.
                joinable = color in forest_plan.joins(b.edition, players, bp.spaces[n])[opposite(e)]
                if joinable and self.substrate_sides and n in pos.substrates and strict:
                    joinable = color == SUBSTRATE_COLOR[pos.substrates[n]]   # 5.a
                step = ((8 if color == "green" else 7) if joinable else 3) - penalty
                d = 0 if joinable else 1
            elif b.placeable(n):
                d = min(distance(n, h) for h in todo)
                step = max(0, 6 - d - penalty)
            else:
                continue
            pull = max(pull, self.blueprint_pull * step)
            if nearest[not later] is None or d < nearest[not later]:
                nearest[not later] = d
        if self.frontier_gain and player is not None:
            pull += self._frontier_gain(b, player, todo, nearest)
        return s + pull

    def _joined_paths(self, b: Board, player: str, at: Hex, tile: tilecodes.Tile) -> set[int]:
        """Indices of the paths of ``tile`` on ``at`` that join the network ``player``'s meeple
        grows from (4.a.1: the same colour on a facing edge, any colour beside their spore)."""
        attach = self._frontier(b, player).get(at, ())
        return {i for i, path in enumerate(tile.paths)
                if any((e, path.color) in attach or (e, None) in attach for e in path.edges)}

    @staticmethod
    def _frontier(b: Board, player: str) -> dict:
        """:meth:`Board.frontier` of ``player``, kept in the position's cache."""
        key = ("frontier", player)
        if key not in b.pos.cache:
            b.pos.cache[key] = b.frontier(player)
        return b.pos.cache[key]

    def _frontier_gain(self, b: Board, player: str, todo: list[Hex], nearest: dict) -> float:
        """Cooperative play (7.c): how much a placement shortens the distance from the team's
        frontier (the empty spaces some player's network can grow onto from where the meeples
        stand, 4.a.1) to the nearest empty blueprint space, in spaces, times
        :attr:`frontier_gain`.  ``nearest[True]``: spaces from the plan of the placement's ends
        on ``player``'s own network; ``nearest[False]``: of its other ends (theirs after a meeple
        move, 4.b), counted half.  A gain over the player's own frontier counts too, half."""
        pos = b.pos
        key = ("plan_frontier", player)
        if key not in pos.cache:
            def gap(c: str) -> int | None:
                f = self._frontier(b, c)
                return min((distance(h, t) for h in f for t in todo), default=None)
            mine = gap(player)
            team = [d for d in (gap(c) for c in pos.colors) if d is not None]
            pos.cache[key] = (mine, min(team) if team else None)
        mine, team = pos.cache[key]
        gain = 0.0
        for joined, weight in ((True, 1.0), (False, 0.5)):
            d = nearest[joined]
            if d is None:
                continue
            if team is not None:
                gain += weight * max(0, team - d)
            if mine is not None:
                gain += 0.5 * weight * max(0, mine - d)
        return self.frontier_gain * gain

    def best_placement(self, b: Board, player: str, target: Target | None) -> tuple[float, dict[str, Any] | None]:
        pos = b.pos
        goals = self._goals(pos, player)
        best: tuple[float, dict[str, Any] | None] = (-1e9, None)
        for code, k, placed, at, joined in movegen.placement_options(b, player):
            sc = self.score_place(b, player, placed, at, joined, target, goals)
            if sc > best[0]:
                best = (sc, {"player": player, "action": "place", "tile": code, "at": [at.q, at.r], "rotation": k})
        return best

    # -- the turn --------------------------------------------------------------------------

    def next_action(self, pos: Position, ed: Edition) -> dict[str, Any] | None:
        """The bot's next action this turn, or ``None`` when it has nothing more to do
        (drawing and ending the turn are the table's)."""
        p = pos.active
        taken = pos.taken
        if "spore" in taken or "buy" in taken:
            return None
        b = Board(pos, ed)
        target = self.target(pos, ed, p)
        if pos.mode == "team" and target is not None:
            target = self._with_team_share(pos, ed, p, target)
        if "place" not in taken:
            if not taken:
                ability = self._spore_ability(b, p, target)
                if ability:
                    return ability
            removal = self._removal(b, p, target)
            if removal:
                return removal   # the placement it opens follows
            return self._growth(b, p, target)
        if "move" not in taken:
            mv = self._move_to_buy(b, p)
            if mv:
                return mv
        if "give" not in taken and pos.mode != "competitive":
            mv = self._coop_gift(b, p) if pos.mode == "cooperative" and self.team_target else self._gift(b, p)
            if mv:
                return mv
            if pos.mode == "cooperative" and self.team_target and "move" not in taken and "place" in taken:
                mv = self._move_to_plan(b, p) if self.plan_moves else None
                mv = mv or self._move_to_give(b, p)
                if mv:
                    return mv
        if "swap" not in taken:
            mv = self._swap(b, p, target)
            if mv:
                return mv
        return self._purchase(b, p)

    def _swap(self, b: Board, p: str, target: Target | None) -> dict[str, Any] | None:
        """Swap Nutrient Color: trade a cube the target does not need for one it lacks."""
        pos, ed = b.pos, b.edition
        if not target or not target.missing or not economy.effects_of(pos, ed, p)["swap_nutrient"]:
            return None
        from companion.purchase import can_buy
        cost = economy.nutrient_costs(pos, ed, ed.cards[target.card], p).get(p, {})
        for take in target.missing:
            for give in NEEDS:
                if give != take and pos.nutrients[p][give] > cost.get(give, 0):
                    mv = {"player": p, "action": "swap", "give": give, "take": take}
                    if check(pos, mv, ed).legal:
                        return mv
        return None

    def _with_meeple(self, pos: Position, player: str, to: Hex) -> Position:
        new = pos.copy()
        new.meeples[player] = to
        if "graph" in pos.cache:
            new.cache["graph"] = pos.cache["graph"]   # tiles and spores unchanged
        return new

    def _best_growth(self, b: Board, p: str, target: Target | None) -> tuple[float, dict[str, Any] | None, dict[str, Any] | None]:
        """The best placement of ``p`` this turn as ``(score, place move, meeple move first or
        None)``: from where the meeple stands or after one of :meth:`_candidate_moves` (4.b,
        half a point less).  Kept in the position's cache, so a removal weighed against it
        (:meth:`_removal`) and the growth that follows score the turn once."""
        pos = b.pos
        key = ("best_growth", p, target.card if target else None, tuple(sorted(target.missing.items())) if target else ())
        if key in pos.cache:
            return pos.cache[key]
        best_score, best = self.best_placement(b, p, target)
        first = None
        if "move" not in pos.taken:
            moves = self._candidate_moves(b, p, target)
            for mv in moves:
                moved = Board(self._with_meeple(pos, p, Hex(*mv["to"])), b.edition)
                sc, pl = self.best_placement(moved, p, target)
                if pl is not None and sc - 0.5 > best_score:
                    best_score, best, first = sc - 0.5, pl, mv
        pos.cache[key] = (best_score, best, first)
        return pos.cache[key]

    def _growth(self, b: Board, p: str, target: Target | None) -> dict[str, Any] | None:
        pos = b.pos
        best_score, best, first = self._best_growth(b, p, target)
        buying = self.buying_placement(b, p, target)
        if buying is not None and buying[0] > best_score:
            return buying[1]   # the card this placement pays for is worth more (6)
        rock = self._rock(b, p)
        # A rock cannot be discarded (4.a.3) and holding one leaves two tiles to choose from:
        # put it down as soon as a spot costs little, at once when a second one clogs the hand.
        rocks = pos.hands[p].count(tilecodes.ROCK)
        if rock is not None and (pos.mode != "cooperative" or best_score < BLUEPRINT_TILE) and (best is None or rock[0] >= best_score or best_score < 4
                                 or (rock[0] >= -1.5 and (rocks >= 2 or best_score < 9))):
            return rock[1]
        if first is not None:
            return first
        if best is not None and best_score > -3:
            return best
        discards = [c for c in pos.hands[p] if c != tilecodes.ROCK]
        if discards:
            return {"player": p, "action": "discard", "tile": min(discards, key=lambda c: (self._keep(pos, c), self.rng.random()))}
        return best or (rock[1] if rock else None)

    @staticmethod
    def _keep(pos: Position, code: str) -> int:
        """How much a tile in hand is worth keeping: a three-way green path is what Forest
        Communication (7.c) lacks most."""
        branches = sum(1 for path in tilecodes.parse(code).paths if len(path.edges) >= 3)
        bp = pos.cache.get("forest_plan")
        if bp is not None and GreedyBot._fits_any(bp, bp.todo(pos), code):
            branches += 3   # a shape the team's Forest Communication blueprint still needs
        green3 = any(path.color == "green" and len(path.edges) >= 3 for path in tilecodes.parse(code).paths)
        return branches + (5 if green3 and pos.mode == "cooperative" and "forest_communication" not in pos.missions else 0)

    def _candidate_moves(self, b: Board, p: str, target: Target | None, limit: int = 16) -> list[dict[str, Any]]:
        """Meeple moves worth trying before the placement (4.b), at most ``limit``: first those
        ending next to an open end of the green network closest to the trees (cooperative,
        7.c) or on a tile holding the target card's colour, then a random sample of the rest."""
        pos = b.pos
        moves = movegen.meeple_moves(b, p)
        if len(moves) <= limit:
            return moves
        wanted: set = set()
        if pos.mode == "cooperative" and "forest_communication" not in pos.missions:
            self._green_nets(b)
            wanted |= set(pos.cache.get("green_best_spaces") or ())
        first, rest = [], []
        for mv in moves:
            to = Hex(*mv["to"])
            code = pos.tiles.get(to)
            on_target = target is not None and code is not None and target.color in tilecodes.parse(code).colors()
            (first if to in wanted or (on_target and mv["color"] == target.color) else rest).append(mv)
        self.rng.shuffle(first)
        picked = first[: limit * 3 // 4]
        return picked + self.rng.sample(rest, min(len(rest), limit - len(picked)))

    def _rock(self, b: Board, p: str) -> tuple[float, dict[str, Any]] | None:
        pos = b.pos
        spots = movegen.rock_spots(b, p)
        if not spots:
            return None
        mine = set(pos.teammates(p))
        here = pos.meeples.get(p)
        own_net = set().union(*[n.spaces for n in b.graph.networks if here in n.spaces])
        fc_net, fc_ends = frozenset(), frozenset()
        if pos.mode == "cooperative" and "forest_communication" not in pos.missions:
            self._green_nets(b)
            fc_net = pos.cache.get("green_best_spaces") or frozenset()
            fc_ends = pos.cache.get("green_best_ends") or frozenset()
            bp = self._blueprint(b)
            if bp is not None:   # never a rock on the team's blueprint (7.c) while elsewhere will do
                spots = [mv for mv in spots if Hex(*mv["at"]) not in bp.spaces] or spots
        best = None
        for mv in spots:
            at = Hex(*mv["at"])
            s = 0.0
            if at in own_net:
                s -= 6   # would cut the network the meeple stands on
            if at in fc_net:
                s -= 15  # would cut the green network closest to Forest Communication (7.c)
            elif at in fc_ends:
                s -= 8   # would block one of its open ends
            who = pos.meeple_at(at)
            owner = pos.spore_owner(at)
            if who in mine or owner in mine:
                s -= 20
            elif who is not None and pos.mode != "cooperative":
                s += 8
            if owner is not None and owner not in mine and pos.mode != "cooperative":
                s += 4
            if at in pos.tiles:
                s -= 4 if pos.mode == "cooperative" else 1
            if at in pos.substrates:
                s -= 3
            if any(n in pos.trees for n in at.neighbors()) and pos.mode == "cooperative":
                s -= 3
            s += self.rng.random() * 0.1
            if best is None or s > best[0]:
                best = (s, mv)
        return best

    # -- removals (4.c) and placements that buy a card (6) ----------------------------------

    @contextmanager
    def _trial(self):
        """Score trial positions without the bot remembering them: the targets (:meth:`target`)
        and the kept Forest Communication blueprint (:meth:`_blueprint`) are put back after."""
        targets, forest = dict(self.last_target), self.__dict__.get("_forest")
        try:
            yield
        finally:
            self.last_target = targets
            if forest is None:
                self.__dict__.pop("_forest", None)
            else:
                self._forest = forest

    def _removal(self, b: Board, p: str, target: Target | None) -> dict[str, Any] | None:
        """A removal before the placement (4.c: Mycophages, a mycelium tile next to the meeple
        for any 1 nutrient; Lichens, a rock for any 2), or ``None``.

        Cooperative play first tries :meth:`_blueprint_removal`.  Otherwise each removal of
        :meth:`_removal_options` is played on a copy of the position and scored by
        :meth:`best_placement`: it is made when the best placement then lies on the freed space
        and beats :meth:`_best_growth` (with or without a meeple move) by more than
        :data:`REMOVAL_MARGIN` once the cubes paid are counted (:meth:`_payment_loss`), and
        scores at least 9 (below that a rock in hand would be put down instead, :meth:`_growth`).
        The move names its payment (``pay``, :meth:`_removal_payment`)."""
        pos, ed = b.pos, b.edition
        if "remove" in pos.taken or "place" in pos.taken:
            return None
        if pos.mode == "cooperative":
            mv = self._blueprint_removal(b, p)
            if mv:
                return mv
        options = self._removal_options(b, p, target)
        if not options:
            return None
        here = self._best_growth(b, p, target)[0]
        best = None
        with self._trial():
            for mv in options:
                at = Hex(*mv["at"])
                score, place = self.best_placement(Board(apply(pos, mv, ed).position, ed), p, target)
                if place is None or Hex(*place["at"]) != at or score < 9:
                    continue
                gain = score - here - self._payment_loss(pos, ed, p, mv["pay"], target)
                if gain > REMOVAL_MARGIN and (best is None or gain > best[0]):
                    best = (gain, mv)
        return best[1] if best else None

    def _removal_options(self, b: Board, p: str, target: Target | None) -> list[dict[str, Any]]:
        """The removals (4.c) worth weighing, each with its payment: every affordable rock next
        to the meeple, and outside cooperative play every tile next to it on no network a
        meeple of ``p``'s side stands on and under no meeple.  None while the hand holds no
        tile to place or two rocks (one of them goes down this turn, 4.a.3)."""
        pos = b.pos
        hand = pos.hands[p]
        if hand.count(tilecodes.ROCK) >= 2 or all(c == tilecodes.ROCK for c in hand):
            return []
        side = {pos.meeples.get(c) for c in pos.teammates(p)} - {None}
        friends = {h for net in b.graph.networks if net.spaces & side for h in net.spaces}
        here = pos.meeples[p]
        own = {h for net in b.graph.networks if here in net.spaces for h in net.spaces} | {here}
        out = []
        for mv in movegen.removals(b, p):
            at = Hex(*mv["at"])
            if at in pos.tiles and (pos.mode == "cooperative" or at in friends or pos.meeple_at(at) is not None):
                continue
            if not self._faces_own_end(pos, own, at):
                continue   # the network under the meeple could not grow onto the freed space
            pay = self._removal_payment(pos, b.edition, p, sum(mv["pay"].values()), target)
            out.append({**mv, "pay": pay})
        return out

    @staticmethod
    def _faces_own_end(pos: Position, own: set[Hex], at: Hex) -> bool:
        """True when a path end of a tile in ``own`` (the spaces of the networks under the
        meeple) faces ``at``, or ``at`` is next to the meeple's own spore (4.a.1)."""
        for e in range(6):
            n = at.neighbor(e)
            if n not in own:
                continue
            code = pos.tiles.get(n)
            if code is None or tilecodes.parse(code).path_on_edge(opposite(e)) is not None:
                return True
        return False

    def _removal_payment(self, pos: Position, ed: Edition, p: str, count: int,
                         target: Target | None) -> dict[str, int]:
        """The ``count`` cubes ``p`` pays for a removal (4.c: any colours), one at a time from
        the colour held most beyond what the target card costs ``p``, a white cube last on a
        tie (only mycorrhizae give white, 5.b): no cube the target needs goes while another
        will do.  The caller checked that ``p`` holds ``count`` cubes."""
        keep = economy.nutrient_costs(pos, ed, ed.cards[target.card], p).get(p, {}) if target else {}
        held = dict(pos.nutrients[p])
        out: dict[str, int] = {}
        for _ in range(count):
            k = max((c for c in NEEDS if held[c] > 0), key=lambda c: (held[c] - keep.get(c, 0), c != "white", held[c]))
            held[k] -= 1
            out[k] = out.get(k, 0) + 1
        return out

    def _payment_loss(self, pos: Position, ed: Edition, p: str, pay: dict[str, int], target: Target | None) -> float:
        """What paying ``pay`` costs ``p`` in :meth:`score_place`'s units: :data:`CUBE_WORTH`
        per cube, and :data:`NEEDED_CUBE` more per cube the target card then lacks."""
        loss = CUBE_WORTH * sum(pay.values())
        if target is None:
            return loss
        cost = economy.nutrient_costs(pos, ed, ed.cards[target.card], p).get(p, {})
        held = pos.nutrients[p]
        left = {k: held[k] - pay.get(k, 0) for k in held}
        lacking = sum(economy.shortfall(left, cost).values()) - sum(economy.shortfall(held, cost).values())
        return loss + NEEDED_CUBE * lacking

    def _blueprint_removal(self, b: Board, p: str) -> dict[str, Any] | None:
        """Cooperative play (7.c with 4.c): remove a tile next to the meeple that stands where
        a shorter Forest Communication blueprint would lay another tile, when a hand of the
        team holds that tile (the team can lay it again): with the space free, the plan
        (:func:`companion.forest_plan.plan`) is at least a tile shorter than what the kept
        blueprint still has to lay, the tile laid again included.  Only tiles within two
        spaces of an empty blueprint space are tried (each try is a plan).  Paid with the
        cube the team's card needs least (:meth:`_removal_payment`)."""
        pos, ed = b.pos, b.edition
        bp = self.pending_blueprint(b)
        if bp is None:
            return None
        todo = bp.todo(pos)
        now = bp.remaining(pos, ed)
        hands = {c for color in pos.colors for c in pos.hands[color] if c != tilecodes.ROCK}
        target = None
        for mv in movegen.removals(b, p):
            at = Hex(*mv["at"])
            if (at not in pos.tiles or at in bp.spaces or pos.meeple_at(at) is not None
                    or not any(distance(at, h) <= 2 for h in todo)):
                continue
            target = target or self.target(pos, ed, p, remember=False)
            mv = {**mv, "pay": self._removal_payment(pos, ed, p, 1, target)}
            new = forest_plan.plan(apply(pos, mv, ed).position, ed, below=now - 0.9)
            if new is not None and at in new.spaces and any(self._fits_any(new, [at], c) for c in hands):
                return mv
        return None

    def buying_placement(self, b: Board, p: str, target: Target | None = None) -> tuple[float, dict[str, Any]] | None:
        """A placement after which ``p`` buys a face-up card in the same turn, from where the
        meeple stands (6), as ``(its score, place move)``: :meth:`score_place` plus
        :data:`CARD_WORTH` per victory point of the card :meth:`_purchase` would buy.
        :meth:`_growth` plays it over a rock or any placement scoring less.  Only cards one
        placement away are tried (:meth:`_cards_one_placement_away`), each with the placements
        that can give what it lacks: a tile joined in its colour, a substrate or a tree for
        cubes.  ``None`` when no placement buys a card."""
        pos, ed = b.pos, b.edition
        if "place" in pos.taken or "buy" in pos.taken or "spore" in pos.taken:
            return None
        near = self._cards_one_placement_away(b, p)
        if not near:
            return None
        goals = self._goals(pos, p)
        best = None
        with self._trial():
            for code, k, placed, at, joined in movegen.placement_options(b, p):
                tree = any(n in pos.trees for n in at.neighbors())
                cards = [card.id for card, tiles, cubes in near
                         if (not tiles or card.mycelia_color in joined) and (not cubes or tree or at in pos.substrates)]
                if not cards:
                    continue
                mv = {"player": p, "action": "place", "tile": code, "at": [at.q, at.r], "rotation": k}
                # Only a mycorrhiza gives cubes of the player's choice (5.b).
                after = apply(pos, self.choose(pos, ed, mv) if tree else mv, ed).position
                if not any(check(after, {"player": p, "action": "buy", "card": c}, ed).legal for c in cards):
                    continue
                buy = self._purchase(Board(after, ed), p, restart=False)
                if buy is None:
                    continue
                score = self.score_place(b, p, placed, at, joined, target, goals) + CARD_WORTH * ed.cards[buy["card"]].vp
                if best is None or score > best[0]:
                    best = (score, mv)
        return best

    def _cards_one_placement_away(self, b: Board, p: str) -> list[tuple[Any, int, int]]:
        """Face-up cards ``p`` cannot buy now but might after one placement, as ``(card, tiles
        lacking, own cubes lacking)``: at most one mycelium tile (6.a), at most 4 cubes of
        ``p``'s own (a substrate gives 2, a mycorrhiza 1, bonuses more: 5.a, 5.b) and none of
        another player's (:func:`companion.purchase.can_buy`)."""
        from companion.purchase import can_buy
        pos, ed = b.pos, b.edition
        out = []
        for card in economy.face_up_cards(pos, ed):
            a = can_buy(pos, ed, p, card.id)
            own = sum(a.missing_nutrients.get(p, {}).values())
            others = any(v for k, v in a.missing_nutrients.items() if k != p)
            if not a.can_buy and not others and a.missing_tiles <= 1 and own <= 4:
                out.append((card, a.missing_tiles, own))
        return out

    def _spore_ability(self, b: Board, p: str, target: Target | None) -> dict[str, Any] | None:
        pos = b.pos
        spore = pos.spores.get(p)
        if spore is None or spore.used or spore.at is None:
            return None
        fish = self._fish_for_plan(b, p) if self.fish_plan else None
        if fish is not None:
            return fish
        if movegen.placements(b, p) or movegen.rock_spots(b, p):
            return None
        if self._near_blueprint(b, p):
            return None
        # Nothing placeable from here: start over from a better starting space.
        to = self.start_space(b, p, exclude=spore.at)
        return {"player": p, "action": "spore_ability", "mode": "relocate", "to": [to.q, to.r]} if to else None

    def _fish_for_plan(self, b: Board, p: str) -> dict[str, Any] | None:
        """Cooperative play (7.c): the spore ability's first option (4.d: discard one tile,
        a rock too, return the other two to the bag, draw three) for a player who can reach an
        empty blueprint space (on their frontier from where the meeple stands or after a move,
        4.a.1, 4.b) but holds no tile with the green path it needs, while the bag still holds
        such tiles.  The discarded tile is a rock, else the one least worth keeping
        (:meth:`_keep`).  ``None`` when that does not hold (the turn is better spent growing)."""
        pos = b.pos
        bp = self.pending_blueprint(b)
        if bp is None or pos.bag < 3:
            return None
        todo = [h for h in bp.todo(pos) if b.placeable(h)]
        if not todo:
            return None
        hand = pos.hands[p]
        if any(self._fits_any(bp, todo, c) for c in hand if c != tilecodes.ROCK):
            return None
        if not self._bag_holds_plan(pos, b.edition, bp, todo):
            return None
        if not self._plan_in_reach(b, p, set(todo)):
            return None
        discard = tilecodes.ROCK if tilecodes.ROCK in hand else min(
            hand, key=lambda c: (self._keep(pos, c), c))
        return {"player": p, "action": "spore_ability", "mode": "redraw", "discard": discard}

    @staticmethod
    def _fits_any(bp: forest_plan.Blueprint, spaces: list[Hex], code: str) -> bool:
        """True when some rotation of ``code`` is the blueprint's tile on one of ``spaces``."""
        return any(bp.fits(h, placed) for h in spaces for _k, placed in tilecodes.distinct_rotations(code))

    def _bag_holds_plan(self, pos: Position, ed: Edition, bp: forest_plan.Blueprint, todo: list[Hex]) -> bool:
        """True when a tile type still in the bag (:func:`companion.bag_contents.tiles_in_bag`)
        fits an empty blueprint space."""
        left = bag_contents.tiles_in_bag(pos, ed)
        return any(self._fits_any(bp, todo, c) for c in left if c != tilecodes.ROCK)

    def _plan_in_reach(self, b: Board, p: str, todo: set[Hex]) -> bool:
        """True when an empty blueprint space in ``todo`` is on ``p``'s frontier from where
        the meeple stands or after one of its moves (4.a.1, 4.b)."""
        if todo & set(b.frontier(p)):
            return True
        return any(todo & set(Board(self._with_meeple(b.pos, p, Hex(*mv["to"])), b.edition).frontier(p))
                   for mv in movegen.meeple_moves(b, p))

    def _move_to_buy(self, b: Board, p: str) -> dict[str, Any] | None:
        """A meeple move onto a network that lets ``p`` buy a card (4.b, 6); ``None`` when a
        purchase is possible from where the meeple stands or after no move."""
        got = self._purchase_this_turn(b, p)
        return got[0] if got else None

    def _purchase_this_turn(self, b: Board, p: str, restart: bool = True) -> tuple[dict[str, Any] | None, dict[str, Any]] | None:
        """``(meeple move or None, purchase)``: the purchase :meth:`_purchase` makes from
        where ``p``'s meeple stands or, while the turn's move is open, after the first meeple
        move that allows one (4.b, 6); ``None`` when neither does.  ``restart=False`` leaves
        out where the spore restarts (costly, and not needed to know that a card is bought)."""
        buy = self._purchase(b, p, restart)
        if buy:
            return None, buy
        if "move" in b.pos.taken:
            return None
        for mv in movegen.meeple_moves(b, p):
            moved = self._with_meeple(b.pos, p, Hex(*mv["to"]))
            buy = self._purchase(Board(moved, b.edition), p, restart)
            if buy:
                return mv, buy
        return None

    def _gift(self, b: Board, p: str) -> dict[str, Any] | None:
        pos, ed = b.pos, b.edition
        mine = self.target(pos, ed, p)
        keep = mine.missing if mine else {}
        for other in pos.teammates(p):
            if other == p:
                continue
            t = self.target(pos, ed, other)
            if not t:
                continue
            for k, v in t.missing.items():
                spare = pos.nutrients[p][k] - keep.get(k, 0)
                if v > 0 and spare > 0:
                    mv = {"player": p, "action": "give", "to": other, "nutrients": {k: 1}}
                    if check(pos, mv, ed).legal:
                        return mv
        return None

    def _coop_gift(self, b: Board, p: str) -> dict[str, Any] | None:
        """The first legal gift of :meth:`_gift_options`."""
        return next((mv for mv in self._gift_options(b, p) if check(b.pos, mv, b.edition).legal), None)

    def _gift_options(self, b: Board, p: str) -> list[dict[str, Any]]:
        """Cooperative play: pass the team's card (6.b.2) the cubes a teammate still lacks for
        their share, from what ``p`` holds beyond their own share; two at once with Funga
        (7.b), through any network shared with them (5.c) or across green mycelium once Forest
        Symbiosis is accomplished (7.a).  Gifts worth trying, most needed first."""
        pos, ed = b.pos, b.edition
        t = self.target(pos, ed, p)
        if t is None:
            return []
        card = ed.cards[t.card]
        costs = economy.nutrient_costs(pos, ed, card, p)
        mine = costs.get(p, {})
        spare = {k: pos.nutrients[p][k] - mine.get(k, 0) for k in NEEDS}
        most = 2 if "funga" in pos.missions else 1
        wants = []
        for other in pos.colors:
            if other == p:
                continue
            short = economy.shortfall(pos.nutrients[other], costs.get(other, {}))
            give: dict[str, int] = {}
            for k, v in sorted(short.items()):
                n = min(v, spare[k] - give.get(k, 0), most - sum(give.values()))
                if n > 0:
                    give[k] = give.get(k, 0) + n
            if give:
                wants.append((-sum(short.values()), other, give))
        options = []
        for _w, other, give in sorted(wants):
            options.append({"player": p, "action": "give", "to": other, "nutrients": give})
            if sum(give.values()) > 1:
                options.append({"player": p, "action": "give", "to": other, "nutrients": {next(iter(give)): 1}})
        return options

    def _plan_networks(self, b: Board, p: str, bp: forest_plan.Blueprint) -> frozenset[Hex]:
        """Spaces of the networks from which ``p`` could lay a tile of their hand on an empty
        space of the blueprint (7.c): a network of colour c with a path end facing the space,
        where the tile in its planned rotation carries c on that edge (4.a.1) and, on a
        substrate, c is the substrate's colour (5.a, table rule
        ``substrate_requires_matching_color``).  Empty when the hand holds no planned shape."""
        pos = b.pos
        strict = option(pos.options, "substrate_requires_matching_color")
        good: set[Hex] = set()
        for at in bp.todo(pos):
            if not b.placeable(at):
                continue
            need = SUBSTRATE_COLOR[pos.substrates[at]] if strict and at in pos.substrates else None
            for code in set(pos.hands[p]) - {tilecodes.ROCK}:
                for _k, placed in tilecodes.distinct_rotations(code):
                    if not bp.fits(at, placed):
                        continue
                    for e, color in enumerate(tilecodes.parse(placed).edge_color):
                        n = at.neighbor(e)
                        if color is None or need not in (None, color) or n not in pos.tiles:
                            continue
                        i = tilecodes.parse(pos.tiles[n]).path_on_edge(opposite(e))
                        net = b.graph.network_of((n, i), color) if i is not None else None
                        if net is not None:
                            good |= net.spaces
        return frozenset(good)

    def _move_to_plan(self, b: Board, p: str) -> dict[str, Any] | None:
        """Cooperative play (7.c): after the placement, a meeple move that brings ``p``, who
        holds a tile an empty blueprint space needs, onto a network from which it can lay it
        (:meth:`_plan_networks`), or else onto a network that reaches one in a further move
        (4.b: one move per turn, along one colour).  ``None`` when the meeple already stands
        on such a network, the hand holds no planned shape, or no move gets closer."""
        pos = b.pos
        bp = self.pending_blueprint(b)
        if bp is None:
            return None
        good = self._plan_networks(b, p, bp)
        if not good or self._can_lay_plan(b, p, bp):
            return None
        here = pos.meeples.get(p)
        near = frozenset(h for net in b.graph.networks if net.spaces & good for h in net.spaces)
        best = None
        for mv in movegen.meeple_moves(b, p):
            to = Hex(*mv["to"])
            if to in good:
                # Another meeple on the way stops growth (4.a.1 I): check the frontier.
                rank = 3 if self._can_lay_plan(Board(self._with_meeple(pos, p, to), b.edition), p, bp) else 2
            else:
                rank = 1 if to in near and here not in near else 0
            if rank and (best is None or rank > best[0]):
                best = (rank, mv)
        return best[1] if best else None

    @staticmethod
    def _can_lay_plan(b: Board, p: str, bp: forest_plan.Blueprint) -> bool:
        """True when ``p`` can lay a tile of their hand on an empty blueprint space from where
        their meeple stands (4.a.1, 5.a)."""
        todo = set(bp.todo(b.pos))
        if not todo & set(b.frontier(p)):
            return False
        return any(at in todo and bp.fits(at, placed)
                   for _c, _k, placed, at, _j in movegen.placement_options(b, p))

    def _move_to_give(self, b: Board, p: str) -> dict[str, Any] | None:
        """A meeple move after the placement that lets ``p`` pass a teammate the cubes the
        team's card lacks (:meth:`_coop_gift`): onto a network the teammate stands on, or onto
        green mycelium when Forest Symbiosis lets green tiles pass cubes (7.a)."""
        pos = b.pos
        options = self._gift_options(b, p)
        if not options:
            return None
        for mv in movegen.meeple_moves(b, p):
            moved = self._with_meeple(pos, p, Hex(*mv["to"]))
            if any(check(moved, g, b.edition).legal for g in options):
                return mv
        return None

    def _purchase(self, b: Board, p: str, restart: bool = True) -> dict[str, Any] | None:
        """The purchase the bot makes now: the face-up card worth most that
        :meth:`purchase_verdict` lets it buy, with its payment and, with ``restart``, where the
        spore restarts (``spore_to``, :meth:`_restart_space`); ``None`` when it buys nothing."""
        pos, ed = b.pos, b.edition
        cards = sorted((c for d in ("a", "b") for c in pos.market[d] if c in ed.cards),
                       key=lambda c: (-ed.cards[c].vp, c))
        for cid in cards:
            buys, _why = self.purchase_verdict(pos, ed, p, cid)
            if not buys:
                continue
            mv = {"player": p, "action": "buy", "card": cid}
            tiles = self._payment_tiles(b, p, cid)
            if tiles is not None:
                mv["tiles"] = tiles
            to = self._restart_space(b, mv) if restart else None
            if to is not None:
                mv["spore_to"] = [to.q, to.r]
            return mv
        return None

    def purchase_verdict(self, pos: Position, ed: Edition, player: str, card: str) -> tuple[bool, str | None]:
        """Whether the bot, playing ``player``, would buy face-up ``card`` now (of the cards it
        would buy, :meth:`_purchase` takes the one worth most): ``(True, None)``, or
        ``(False, why)`` with ``why`` a clause in words
        ("it would pay away ..."), the engine's refusal when the rules do not allow the
        purchase now (6, Turn Sequence Summary 2).  The one test :meth:`_purchase` applies
        card by card, so what the hint says of a card and what the bot does cannot differ.
        Reads ``self.target`` (which remembers the player's target, as a turn does).  Raises
        ``KeyError`` for a card id the edition does not have."""
        b = Board(pos, ed)
        c = ed.cards[card]
        if (pos.mode == "cooperative" and c.mycelia_color == "green"
                and "forest_communication" not in pos.missions and pos.bag > 8):
            return False, ("it would pay away green tiles the team's Forest Communication network needs (7.c); "
                           "a green card waits while the bag holds more than 8 tiles")
        verdict = check(pos, {"player": player, "action": "buy", "card": card}, ed)
        if not verdict.legal:
            return False, verdict.message
        target = self.target(pos, ed, player)
        close = target is not None and target.missing_tiles + sum(target.missing.values()) <= 1
        if close and target.card != card and ed.cards[target.card].vp > c.vp and pos.bag > 6:
            dear = ed.cards[target.card]
            return False, (f"you are one step from {dear.name} ({target.card}, {dear.vp} VP): its network "
                           "is not spent on a cheaper card while the bag holds more than 6 tiles")
        why = self._spends_blueprint(b, self._payment_tiles(b, player, card))
        return why is None, why

    def _payment_tiles(self, b: Board, p: str, cid: str) -> list[list[int]] | None:
        """Which tiles to pay a card with (6.a lets the buyer choose within one network): in
        cooperative play before Forest Communication, tiles off the green network that is
        closest to the trees, so paying does not cut it (7.c).  ``None``: the default."""
        pos, ed = b.pos, b.edition
        if pos.mode != "cooperative" or "forest_communication" in pos.missions:
            return None
        from companion.purchase import can_buy
        self._green_nets(b)
        keep = pos.cache.get("green_best_spaces") or frozenset()
        a = can_buy(pos, ed, p, cid)
        meeple = pos.meeples[p]
        best = None
        three_way = False
        for option_set in a.payable_sets:
            tiles = [Hex(*h) for h in option_set["tiles"]]
            # A three-way green tile is what the network lacks most: paid last of all.
            branch = {h: _three_way_green(pos.tiles[h]) for h in tiles}
            three_way = three_way or any(branch.values())
            tiles.sort(key=lambda h: (branch[h], h in keep, -distance(h, meeple), h))
            pick = tiles[:option_set["pick"]]
            cost = sum(h in keep for h in pick) + 10 * sum(branch[h] for h in pick)
            if best is None or cost < best[0]:
                best = (cost, pick)
        if best is None or not best[0] and not keep and not three_way:
            return None
        return [[h.q, h.r] for h in best[1]]

    def _spends_blueprint(self, b: Board, tiles: list[list[int]] | None) -> str | None:
        """Why a purchase would set the team's Forest Communication blueprint (7.c) back while
        the bag still leaves time to finish it, in words: its payment takes a blueprint tile
        or a three-way green tile, or the buyer's network touches an empty blueprint space.
        The card waits.  ``None``: it does not."""
        pos = b.pos
        if pos.mode != "cooperative" or "forest_communication" in pos.missions or pos.bag <= 4:
            return None
        if any(_three_way_green(pos.tiles.get(Hex(*h), tilecodes.ROCK)) for h in tiles or ()):
            # 7.c needs two, and the bag holds few
            return ("it would pay away a three-way green tile, which the team's Forest Communication "
                    "network needs (7.c)")
        bp = self._blueprint(b)
        if bp is None:
            return None
        if any(Hex(*h) in bp.spaces for h in tiles or ()):
            return "it would pay away the tiles of the Forest Communication network the team plans (7.c)"
        # A buyer whose network touches an empty blueprint space would restart on the rim
        # (6), far from it: they stay to lay it while the bag lasts.
        todo = set(bp.todo(pos))
        if pos.bag > 6 and todo & set(b.frontier(pos.active)):
            return ("your network reaches an empty space of the team's Forest Communication network (7.c): "
                    "buying would restart your spore on the rim, away from it")
        return None

    def _restart_space(self, b: Board, buy: dict[str, Any]) -> Hex | None:
        """Where to put the spore after a purchase (6: "at any starting point (it can be the
        same)"): the starting space with the best placement for the hand, on the board as it
        will be once the card's tiles are paid."""
        from companion.rules import apply
        p = buy["player"]
        after = apply(b.pos, buy, b.edition).position
        spaces = movegen.starting_spaces(b, p)   # judged before the purchase, as the rules do
        if not spaces:
            return None
        coop_target = target = self.target(after, b.edition, p) if after.mode == "cooperative" else None
        best, best_score = None, -1e9
        for h in spaces:
            trial = after.copy()
            trial.spores[p].at = h
            trial.meeples[p] = h
            trial.taken = []
            # The spore joins the networks it touches: a space next to what is left of a
            # network of the next card's colour starts that card with those tiles.
            if coop_target is None:
                target = self.target(trial, b.edition, p, remember=False)
            score, _ = self.best_placement(Board(trial, b.edition), p, target)
            if target is not None and coop_target is None:
                score -= REUSE_WEIGHT * target.cost
            if score > best_score:
                best, best_score = h, score
        return best

    def start_space(self, b: Board, p: str, exclude: Hex | None = None) -> Hex | None:
        """The starting space closest to substrates and trees (3, 4.d, 6)."""
        spaces = [h for h in movegen.starting_spaces(b, p) if h != exclude]
        if not spaces:
            return None
        goals = [h for hs in self._goals(b.pos, p).values() for h in hs] or [Hex(0, 0)]
        others = [s.at for c, s in b.pos.spores.items() if c != p and s is not None and s.at is not None]

        def key(h: Hex) -> float:
            near = sorted(distance(h, g) for g in goals)[:3]
            crowd = sum(1 for o in others if distance(h, o) <= 3)
            return sum(near) + 2 * crowd + self.rng.random()
        return min(spaces, key=key)

    def _cubes_to_give_up(self, pos: Position, ed: Edition, player: str, count: int) -> dict[str, int]:
        """Which ``count`` cubes ``player`` returns above the cap (rulebook 5): one at a time
        from the colour held with the largest surplus over what the target card costs them
        (before this move's gains), one spare white kept since only mycorrhizae give white
        (5.b).  Fewer cubes only when the player holds fewer than ``count``.  A removal's
        payment is :meth:`_removal_payment`'s."""
        held = dict(pos.nutrients[player])
        keep: dict[str, int] = {}
        t = self.target(pos, ed, player)
        if t is not None:
            keep = dict(economy.nutrient_costs(pos, ed, ed.cards[t.card], player).get(player, {}))
        out: dict[str, int] = {}
        for _ in range(count):
            spare = _unused(keep, held)
            have = [c for c in NEEDS if held[c] > 0]
            if not have:
                break
            k = max(have, key=lambda c: (spare[c] - (c == "white"), c != "white", held[c]))
            held[k] -= 1
            out[k] = out.get(k, 0) + 1
        return out

    def _colors_of_choice(self, pos: Position, ed: Edition, asked: list[dict[str, Any]],
                          gone: dict[str, set[str]]) -> dict[str, list[str]]:
        """Each player's colours for the ``gain`` entries of ``asked``: exactly the cubes
        asked, entry by entry, the most wanted colour the entry offers first (:meth:`wanted`),
        leaving out the colours in ``gone[player]`` (the supply had none left at their turn, 7.c)."""
        wishes: dict[str, list[str]] = {}
        out: dict[str, list[str]] = {}
        for a in asked:
            if a["kind"] != "gain":
                continue
            who, skip = a["player"], gone.get(a["player"], set())
            wish = wishes.setdefault(who, [c for c in self.wanted(pos, ed, who) if c not in skip])
            picked = out.setdefault(who, [])
            for _ in range(a["count"]):
                c = next((c for c in wish if c in a["colors"]), None) or next((c for c in a["colors"] if c not in skip), None)
                if c is None:
                    break
                if c in wish:
                    wish.remove(c)
                picked.append(c)
        return {who: cs for who, cs in out.items() if cs}

    # -- the BotTable interface ------------------------------------------------------------

    def spore_space(self, pos: Position, edition: Edition) -> dict[str, Any]:
        to = self.start_space(Board(pos, edition), pos.active)
        return {"player": pos.active, "action": "spore", "at": [to.q, to.r]}

    def relocation(self, pos: Position, edition: Edition, color: str) -> dict[str, Any] | None:
        to = self.start_space(Board(pos, edition), color)
        return {"player": color, "action": "relocate", "to": [to.q, to.r]} if to else None

    def choose(self, pos: Position, edition: Edition, move: dict[str, Any]) -> dict[str, Any]:
        """Fill the choices ``move`` leaves to the players with what each player's target
        needs: cubes of their choice (``choose``, exactly as many as each player gains),
        discards above the cap (``drop``) and a removal's payment (``pay``, 4.c)."""
        try:
            asked = choices_needed(pos, move, edition)
        except IllegalMove:
            return move
        if not asked:
            return move
        out = dict(move)
        drop: dict[str, dict[str, int]] = {}
        for a in asked:
            if a["kind"] == "discard":
                drop[a["player"]] = self._cubes_to_give_up(pos, edition, a["player"], a["count"])
            elif a["kind"] == "pay":
                out["pay"] = self._removal_payment(pos, edition, a["player"], a["count"],
                                                   self.target(pos, edition, a["player"]))
        if drop:
            out["drop"] = drop
        # Players choose in turn order from what the supply still holds (7.c): a colour an
        # earlier player took the last of leaves the later player's wish list.
        gone: dict[str, set[str]] = {}
        for _ in range(len(NEEDS) * len(pos.colors) + 1):
            choose = self._colors_of_choice(pos, edition, asked, gone)
            if not choose:
                break
            out["choose"] = choose
            try:
                apply(pos, out, edition)
                break
            except IllegalMove as e:
                if e.reason != "supply_empty" or e.chooser not in choose:
                    break
                gone.setdefault(e.chooser, set()).add(e.color)
        return out


def _three_way_green(code: str) -> bool:
    """True for a tile with a green path of three or more ends (what 7.c needs two of)."""
    g = forest_plan.green_path(code)
    return g is not None and len(g) >= 3


def _unused(kept: dict[str, int], held: dict[str, int]) -> dict[str, int]:
    return {k: held.get(k, 0) - kept.get(k, 0) for k in NEEDS}


def make_bot(level: str, rng: random.Random):
    """A bot of ``level`` (one of :data:`BOTS`); ``ValueError`` for another name."""
    if level == "greedy":
        return GreedyBot(rng)
    if level == "random":
        return RandomBot(rng)
    raise ValueError(f"unknown bot level {level!r} (known: {', '.join(BOTS)})")
