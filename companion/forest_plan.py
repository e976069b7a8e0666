"""A blueprint for Forest Communication: which spaces get which green path (rulebook 7.c).

7.c asks for one green network with a path end facing each of the four trees.  A network
whose paths have two ends is a line with two ends, so it needs at least two paths with three
ends (*branch* paths); every other tile on it carries a two-ended green path (an *arm*
tile).  With the placeholder tiles a two-ended green path either goes straight (opposite
edges) or turns sharply (neighbouring edges), so a network cannot head anywhere it likes:
the search runs over the exact green shapes the bag holds, not over empty spaces.

The blueprint has the shape every such minimal network has: two branch spaces X and Y, one
arm joining an end of X to an end of Y, and four arms from the four other ends to the four
trees (an arm may be empty: the branch tile's own end faces the tree, or X touches Y).
Each arm is a shortest path found by Dijkstra's algorithm over states ``(space, edge it is
entered by)``; a free space costs one tile, a placed tile whose green path continues the arm
costs nothing, anything else (rock, spore, tree, another path) blocks it.  Branch pairs are
tried in order of a lower bound (arms ignoring each other) and the arms of the best ones
are laid for real, one after another, each avoiding the spaces of those before it (branch
and bound on the number of tiles still to place).

A space holding a substrate costs more and takes only a shape some tile carries with the
substrate's colour (5.a); :func:`joins` says from which sides and colours a network can lay a
planned tile (4.a.1).  :func:`plan` returns a :class:`Blueprint` or ``None`` when no network
can be laid; :func:`shapes` says what the bag of a player count offers.  ``bench/rules.py`` and
``docs/rules.md`` (7.c) give the figures.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Iterable

from companion import bag_contents
from companion import tiles as tilecodes
from companion.edition import SUBSTRATE_COLOR, Edition
from companion.options import option
from companion.hexgrid import Hex, opposite
from companion.position import Position

OUTER_RING_COST = 0.25
"""Extra cost of a blueprint space on the outermost ring: spores land there (3, 4.d, 6), and
a spore on a blueprint space forces a new plan."""
REACH_DISCOUNT = 0.4
"""Cost taken off a free blueprint space that a team network already faces by an edge and
colour the planned tile can join (:func:`joins`): the plan bends toward where the team can
lay it now, rather than a space no network can join."""

SUBSTRATE_COST = 0.5
"""Extra cost of a blueprint space holding a substrate: with the table rule
``substrate_requires_matching_color`` (5.a) its tile must join a network of the substrate's
colour, so only some approaches can lay it; a shape no tile carries with that colour cannot
go there at all."""

Reach = dict
"""Space -> {(edge of a tile placed there, colour or ``None`` for a spore)}: where the team's
networks can grow, as :meth:`companion.board.Board.frontier` gives it per player."""


@dataclass(frozen=True)
class Shapes:
    """The green paths a bag offers, as edge sets on a placed tile.

    ``turns``: the changes of heading (in sixths of a turn, 0 = straight on) a two-ended
    green path allows; ``branches``: three-ended green edge sets, each rotation listed;
    ``branch_codes``: canonical codes of the tile types carrying a branch path.
    """

    turns: frozenset[int]
    branches: frozenset[frozenset[int]]
    branch_codes: frozenset[str]


def green_path(code: str) -> frozenset[int] | None:
    """Edges of the green path of a placed tile code (the first one, by code order), or
    ``None`` for a rock or a tile without green."""
    if code == tilecodes.ROCK:
        return None
    for p in tilecodes.parse(code).paths:
        if p.color == "green":
            return p.edges
    return None


def shapes(codes: Iterable[str]) -> Shapes:
    """The green shapes of the tile types ``codes`` (any rotation; rocks ignored)."""
    turns: set[int] = set()
    branches: set[frozenset[int]] = set()
    branch_codes: set[str] = set()
    for code in codes:
        if code == tilecodes.ROCK:
            continue
        for _k, placed in tilecodes.distinct_rotations(code):
            for p in tilecodes.parse(placed).paths:
                if p.color != "green":
                    continue
                if len(p.edges) == 2:
                    a, b = sorted(p.edges)
                    # Entering by edge a, the heading is opposite(a); leaving by b.
                    turns.add((b - opposite(a)) % 6)
                    turns.add((a - opposite(b)) % 6)
                elif len(p.edges) >= 3:
                    branches.add(p.edges)
                    branch_codes.add(tilecodes.canonical(code))
    return Shapes(frozenset(turns), frozenset(branches), frozenset(branch_codes))


_BAG_SHAPES: dict[tuple[int, int], tuple[Edition, Shapes]] = {}


def bag_shapes(edition: Edition, players: int) -> Shapes:
    """:func:`shapes` of the bag for ``players`` players (2 at least), computed once per
    edition object."""
    key = (id(edition), max(2, players))
    got = _BAG_SHAPES.get(key)
    if got is None or got[0] is not edition:
        got = _BAG_SHAPES[key] = (edition, shapes(edition.bag_composition(max(2, players))))
    return got[1]


_JOINS: dict[tuple[int, int, frozenset[int]], tuple[Edition, dict[int, frozenset[str]]]] = {}


def joins(edition: Edition, players: int, want: frozenset[int]) -> dict[int, frozenset[str]]:
    """By which colour a network can reach a blueprint space needing the green path ``want``:
    edge of that space -> colours some tile type of the bag carries on that edge in a
    rotation whose green path is ``want`` (4.a.1: a tile joins by a mycelium of the same
    colour).  A network facing the space on another edge or in another colour cannot lay the
    planned tile there.  Computed once per edition object, player count and shape."""
    key = (id(edition), max(2, players), want)
    got = _JOINS.get(key)
    if got is None or got[0] is not edition:
        out: dict[int, set[str]] = {e: set() for e in range(6)}
        for code in edition.bag_composition(max(2, players)):
            if code == tilecodes.ROCK:
                continue
            for _k, placed in tilecodes.distinct_rotations(code):
                if green_path(placed) != want:
                    continue
                for e, color in enumerate(tilecodes.parse(placed).edge_color):
                    if color is not None:
                        out[e].add(color)
        got = _JOINS[key] = (edition, {e: frozenset(c) for e, c in out.items()})
    return got[1]


@dataclass
class Blueprint:
    """The green network the team lays for Forest Communication.

    ``spaces``: space -> green edges its tile must carry (a placed tile fits when its green
    path has exactly these edges); ``branches``: the spaces needing a three-ended path;
    ``done``: spaces already holding a fitting tile when planned; ``cost``: tiles still to
    place when planned, each counted 1 (:data:`OUTER_RING_COST` more on the outermost
    ring, :data:`REACH_DISCOUNT` less where a team network can join it); ``costs``: that
    cost per space still empty when planned; ``reach``: the team's frontier it was planned
    with.
    """

    spaces: dict[Hex, frozenset[int]]
    branches: frozenset[Hex]
    cost: float
    done: frozenset[Hex] = field(default_factory=frozenset)
    costs: dict[Hex, float] = field(default_factory=dict)
    reach: Reach | None = None

    def fits(self, at: Hex, placed_code: str) -> bool:
        """True when the placed tile ``placed_code`` on ``at`` is the blueprint's tile."""
        want = self.spaces.get(at)
        return want is not None and green_path(placed_code) == want

    def todo(self, pos: Position) -> list[Hex]:
        """Blueprint spaces still without their tile."""
        return [h for h in self.spaces if h not in pos.tiles]

    def remaining(self, pos: Position, edition: Edition) -> float:
        """Cost of the tiles still to place (as :func:`plan` counted it)."""
        return sum(self.costs.get(h, space_cost(edition, h)) for h in self.todo(pos))

    def recosted(self, pos: Position, edition: Edition, reach: Reach | None) -> "Blueprint":
        """The same blueprint with its empty spaces costed against the team's frontier now
        (``reach``), so it compares fairly with a new plan made on that frontier."""
        grid = _Grid(pos, edition, bag_shapes(edition, len(pos.colors)), reach)
        costs = {h: grid.cost(h, self.spaces[h]) for h in self.todo(pos) if grid.free(h)}
        return Blueprint(self.spaces, self.branches, sum(costs.values()), self.done, costs, reach or None)

    def broken(self, pos: Position, edition: Edition | None = None) -> bool:
        """True when a space of the blueprint holds something else than its tile (another
        tile, a rock, a spore), or, given the ``edition``, a substrate its tile cannot be
        laid on (5.a): the plan must be made again."""
        for h, want in self.spaces.items():
            code = pos.tiles.get(h)
            if code is not None:
                if green_path(code) != want:
                    return True
            elif pos.occupant(h) is not None:
                return True
            elif edition is not None and h in pos.substrates and _substrate_blocks(pos, edition, h, want):
                return True
        return False


def branches_available(pos: Position, edition: Edition, sh: Shapes) -> int:
    """Branch tiles the team can still place: in hands and in the bag
    (:func:`companion.bag_contents.tiles_in_bag`)."""
    def is_branch(code: str) -> bool:
        return code != tilecodes.ROCK and tilecodes.canonical(code) in sh.branch_codes
    in_hands = sum(is_branch(c) for hand in pos.hands.values() for c in hand)
    in_bag = sum(n for c, n in bag_contents.tiles_in_bag(pos, edition).items() if is_branch(c))
    return in_hands + in_bag


def _substrate_blocks(pos: Position, edition: Edition, h: Hex, want: frozenset[int]) -> bool:
    """True when no tile of the bag with the green path ``want`` can go on the substrate on
    ``h``: under ``substrate_requires_matching_color`` (5.a) it must carry the substrate's
    colour to join by."""
    if not option(pos.options, "substrate_requires_matching_color"):
        return False
    color = SUBSTRATE_COLOR[pos.substrates[h]]
    return not any(color in cs for cs in joins(edition, len(pos.colors), want).values())


def space_cost(edition: Edition, h: Hex) -> float:
    """What one tile on ``h`` costs a plan: 1, more on the outermost ring."""
    return 1.0 + (OUTER_RING_COST if h in edition.outermost else 0.0)


class _Grid:
    """What each space offers a green arm on one position."""

    def __init__(self, pos: Position, edition: Edition, sh: Shapes, reach: Reach | None = None):
        self.pos = pos
        self.edition = edition
        self.spaces = edition.spaces
        self.outer = edition.outermost
        self.trees = set(pos.trees)
        self.sh = sh
        self.reach = reach or {}
        self.players = len(pos.colors)

    def free(self, h: Hex) -> bool:
        return h in self.spaces and self.pos.occupant(h) is None

    def step_cost(self, h: Hex) -> float:
        return 1.0 + (OUTER_RING_COST if h in self.outer else 0.0)

    def cost(self, h: Hex, edges: frozenset[int]) -> float:
        """What a tile with green path ``edges`` on the free space ``h`` costs the plan
        (infinite on a substrate no such tile can be laid on)."""
        c = self.step_cost(h)
        attach = self.reach.get(h)
        can = joins(self.edition, self.players, edges)
        kind = self.pos.substrates.get(h)
        need = None
        if kind is not None and option(self.pos.options, "substrate_requires_matching_color"):
            need = SUBSTRATE_COLOR[kind]
            if _substrate_blocks(self.pos, self.edition, h, edges):
                return float("inf")
            c += SUBSTRATE_COST
        if attach and any(color is None or (color in can[e] and need in (None, color)) for e, color in attach):
            c -= REACH_DISCOUNT
        return c

    def exits(self, h: Hex, entry: int) -> list[tuple[int, float]]:
        """(edge out, cost) for an arm entering ``h`` by edge ``entry``."""
        if self.free(h):
            heading = opposite(entry)
            if not self.reach.get(h) and h not in self.pos.substrates:
                c = self.step_cost(h)
                return [((heading + t) % 6, c) for t in self.sh.turns]
            return [((heading + t) % 6, self.cost(h, frozenset((entry, (heading + t) % 6)))) for t in self.sh.turns]
        code = self.pos.tiles.get(h)
        if code is None:
            return []
        g = green_path(code)
        if g is None or entry not in g:
            return []
        return [(e, 0.0) for e in g if e != entry]

    def arms(self, start: Hex, edge: int, blocked: frozenset[Hex] = frozenset(),
             limit: float = float("inf")) -> tuple[dict, dict]:
        """Dijkstra from the end ``edge`` of a tile on ``start``: cost and predecessor of
        every state ``(space, entry edge)`` reached for less than ``limit``; the arrival
        cost counts the tiles before it."""
        dist: dict[tuple[Hex, int], float] = {}
        prev: dict[tuple[Hex, int], tuple[Hex, int] | None] = {}
        n = start.neighbor(edge)
        first = (n, opposite(edge))
        heap = [(0.0, n.q, n.r, first[1], None)]
        while heap:
            d, q, r, entry, parent = heapq.heappop(heap)
            state = (Hex(q, r), entry)
            if state in dist:
                continue
            dist[state] = d
            prev[state] = parent
            h = state[0]
            if h in self.trees or h in blocked or h == start:
                continue
            for out, c in self.exits(h, entry):
                m = h.neighbor(out)
                nxt = (m, opposite(out))
                if nxt not in dist and d + c < limit:
                    heapq.heappush(heap, (d + c, m.q, m.r, nxt[1], state))
        return dist, prev


def _trace(prev: dict, state: tuple[Hex, int]) -> list[tuple[Hex, int, int]]:
    """(space, entry edge, exit edge) of each arm tile before ``state``, first to last."""
    out = []
    cur = state
    while prev.get(cur) is not None:
        p = prev[cur]
        h = p[0]
        exit_edge = next(e for e in range(6) if h.neighbor(e) == cur[0])
        out.append((p[0], p[1], exit_edge))
        cur = p
    return out[::-1]


def _tree_arrivals(dist: dict, trees: list[Hex]) -> dict[Hex, tuple[float, tuple[Hex, int]]]:
    """Cheapest arrival on each tree: (cost, the tree state reached)."""
    best: dict[Hex, tuple[float, tuple[Hex, int]]] = {}
    for state, d in dist.items():
        if state[0] in best and best[state[0]][0] <= d:
            continue
        if state[0] in trees:
            best[state[0]] = (d, state)
    return best


def plan(pos: Position, edition: Edition, sh: Shapes | None = None, max_tries: int = 40,
         below: float = float("inf"), reach: Reach | None = None) -> Blueprint | None:
    """The cheapest Forest Communication network still to lay on ``pos`` (7.c).

    Uses the position's placed tiles where their green paths fit and never a space taken by
    anything else.  ``sh``: the shapes to plan with (default: the bag of this player count).
    ``max_tries``: branch pairs laid out for real after the lower-bound ordering;
    ``below``: only a blueprint costing less is wanted (the search stops early without).
    ``reach``: where the team's networks can grow (:data:`Reach`); a space one of them can
    join costs :data:`REACH_DISCOUNT` less.
    Returns ``None`` when there are no trees, fewer than two branch tiles left, or no layout
    (costing less than ``below``).
    """
    trees = list(pos.trees)
    if len(trees) < 2:
        return None
    if sh is None:
        sh = bag_shapes(edition, len(pos.colors))
    if not sh.branches or not sh.turns:
        return None
    grid = _Grid(pos, edition, sh, reach)
    have = branches_available(pos, edition, sh)
    placed = sum(1 for code in pos.tiles.values() if len(green_path(code) or ()) >= 3)
    if have + placed < 2:
        return None   # fewer than two three-way paths left for the whole game

    # Arm costs from every tree, searched from the tree: arms read the same both ways (the
    # turns a bag allows come in mirror pairs), so the cost of an arm from a branch end
    # (h, e) to tree t is the arrival cost of t's search at the state (h, e).
    tree_cost: dict[tuple[Hex, int], dict[Hex, float]] = {}
    for t in trees:
        for f in range(6):
            dist, _ = grid.arms(t, f, limit=below)
            for state, d in dist.items():
                row = tree_cost.setdefault(state, {})
                if d < row.get(t, float("inf")):
                    row[t] = d

    # Candidate branch tiles: a free space with any branch rotation (while the team still
    # has a branch tile to place), or a placed tile with a branch path.
    cands: list[tuple[Hex, frozenset[int], float]] = []
    for h in sorted(edition.spaces):
        if h in grid.trees:
            continue
        if grid.free(h):
            if have >= 1:
                cands += [(h, b, grid.cost(h, b)) for b in sorted(sh.branches, key=sorted)]
        elif h in pos.tiles:
            g = green_path(pos.tiles[h])
            if g is not None and len(g) >= 3:
                cands.append((h, g, 0.0))

    # A combo is a branch tile with the end that joins the other branch: its two other
    # ends reach two trees; pairs[S] is the cheapest way to reach the trees in S.
    inf = float("inf")
    pairs_of = [frozenset(p) for p in itertools.combinations(trees, 2)]
    combos = []
    for k, (h, edges, c) in enumerate(cands):
        for ce in sorted(edges):
            r1, r2 = [(h, e) for e in sorted(edges) if e != ce][:2]
            a, b = tree_cost.get(r1, {}), tree_cost.get(r2, {})
            pairs = {}
            for s in pairs_of:
                t1, t2 = sorted(s)
                pairs[s] = min(a.get(t1, inf) + b.get(t2, inf), a.get(t2, inf) + b.get(t1, inf))
            lb = c + min(pairs.values())
            if lb < inf:
                combos.append((lb, k, ce, pairs))
    combos.sort(key=lambda x: (x[0], x[1], x[2]))
    if len(combos) < 2:
        return None
    min_lb = combos[0][0]
    everyone = frozenset(trees)

    best: Blueprint | None = None
    tried = 0
    for lb_x, i, cx, pairs_x in combos:
        ub = best.cost if best is not None else below
        if lb_x + min_lb >= ub - 1e-9 or tried >= (max_tries if best is not None else 4 * max_tries):
            break
        x, xe, xc = cands[i]
        room = ub - lb_x - min_lb + 1e-9
        dist, _ = grid.arms(x, cx, limit=room)
        found = []
        for lb_y, j, ey, pairs_y in combos:
            y, ye, yc = cands[j]
            if y == x or (xc > 0 and yc > 0 and have < 2):
                continue
            if lb_x + lb_y >= ub - 1e-9:
                break
            conn = dist.get((y, ey))
            if conn is None:
                continue
            bound = xc + yc + conn + min(pairs_x[s] + pairs_y[everyone - s] for s in pairs_of)
            if bound < ub - 1e-9:
                found.append((bound, j, ey))
        for bound, j, ey in sorted(found, key=lambda f: (f[0], f[1], f[2]))[:3]:
            if bound >= (best.cost if best is not None else below) - 1e-9:
                break
            tried += 1
            got = _lay(pos, grid, trees, cands[i], cands[j], cx, ey)
            if got is not None and got.cost < (best.cost if best is not None else below) - 1e-9:
                best = got
    return best


def _lay(pos: Position, grid: _Grid, trees: list[Hex], xc: tuple, yc: tuple, cx: int, ey: int) -> Blueprint | None:
    """Lay the arms of one branch pair for real, each avoiding the spaces of those before
    it; the tree of each end is chosen greedily, cheapest first."""
    x, xe, xcost = xc
    y, ye, ycost = yc
    spaces: dict[Hex, frozenset[int]] = {x: xe, y: ye}
    costs = {h: c for h, c in ((x, xcost), (y, ycost)) if grid.free(h)}
    used = {x, y}
    cost = xcost + ycost
    # The connecting arm first: it is the one that cannot be exchanged.
    dist, prev = grid.arms(x, cx, frozenset(used - {y}))
    if (y, ey) not in dist:
        return None
    for h, a, b in _trace(prev, (y, ey)):
        if h in used:
            return None
        used.add(h)
        spaces[h] = _edges_at(pos, h, a, b)
        if grid.free(h):
            costs[h] = grid.cost(h, spaces[h])
            cost += costs[h]
    ends = [(x, e) for e in xe if e != cx] + [(y, e) for e in ye if e != ey]
    left = set(trees)
    pending = list(ends)
    while pending:
        options = []
        for end in pending:
            dist, prev = grid.arms(end[0], end[1], frozenset(used - {end[0]}))
            for t, (d, state) in _tree_arrivals(dist, list(left)).items():
                options.append((d, end, t, state, prev))
        if not options:
            return None
        # The end with the fewest choices goes first, at its cheapest tree.
        per_end = {end: sum(1 for o in options if o[1] == end) for end in pending}
        d, end, t, state, prev = min(options, key=lambda o: (per_end[o[1]], o[0], o[2]))
        for h, a, b in _trace(prev, state):
            if h in used:
                return None
            used.add(h)
            spaces[h] = _edges_at(pos, h, a, b)
            if grid.free(h):
                costs[h] = grid.cost(h, spaces[h])
                cost += costs[h]
        left.discard(t)
        pending.remove(end)
    done = frozenset(h for h in spaces if h in pos.tiles)
    return Blueprint(spaces, frozenset({x, y}), cost, done, costs, grid.reach or None)


def _edges_at(pos: Position, h: Hex, entry: int, exit_edge: int) -> frozenset[int]:
    """The green edges an arm space needs: a placed tile keeps its own green path."""
    code = pos.tiles.get(h)
    return green_path(code) if code is not None else frozenset((entry, exit_edge))


def reroute(pos: Position, edition: Edition, bp: Blueprint, at: Hex, placed_code: str) -> str | None:
    """Whether ``placed_code`` on the blueprint space ``at`` (a tile whose green path differs
    from the plan's) still leaves a plan: ``"progress"`` when it leaves as few tiles to place
    as the plan's own tile would, ``"contact"`` when no more than before it, else ``None``.
    Lets a hand without the planned shape still join the team's network to the plan."""
    trial = pos.copy()
    trial.tiles[at] = placed_code
    trial.cache.clear()
    left = bp.remaining(pos, edition)
    got = plan(trial, edition, below=left + 1e-6, max_tries=6, reach=bp.reach)
    if got is None:
        return None
    return "progress" if got.cost <= left - bp.costs.get(at, space_cost(edition, at)) + 1e-6 else "contact"
