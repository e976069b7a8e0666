"""Board queries shared by the rules core: where a player can grow, where a meeple can
flow, what a starting space is, and clearing a space.

The lowest layer of the rules core: :mod:`companion.purchase`, :mod:`companion.outcome`,
:mod:`companion.rules`, :mod:`companion.movegen`, :mod:`companion.bots` and
:mod:`companion.hints` import from here, and this module imports none of them, so the
arrows run one way (board <- purchase, outcome <- rules <- movegen <- bots <- hints).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from companion import tiles as tilecodes
from companion.edition import Edition, load_edition
from companion.hexgrid import Hex, distance, opposite
from companion.networks import SPORE, MyceliumGraph
from companion.options import option
from companion.position import Position


class IllegalMove(Exception):
    """A move the rules forbid.  ``reason`` is a code of :data:`REASONS`; ``message`` is the
    sentence shown to the player."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.chooser: str | None = None
        self.color: str | None = None
        """For ``supply_empty`` of a colour "of your choice": the player whose choice it was
        (``chooser``) and the colour the supply no longer holds (``color``)."""


# --- the context of one judgement --------------------------------------------------------

class Board:
    """One position with its edition and (lazily) its mycelium graph."""

    def __init__(self, pos: Position, edition: Edition | None = None):
        self.pos = pos
        self.edition = edition or load_edition(pos.edition)
        self.choices: dict[str, list[str]] = {}
        """Colours "of your choice" still to use, per player (from the move being applied)."""
        self.asked: list[dict[str, Any]] = []
        """Choices the move left open and the companion filled with the default reading."""
        self.gained_by_choice: dict[str, int] = {}
        """Cubes "of your choice" the move being applied gives each player (:meth:`pick`),
        counted before the supply limits them."""

    def pick(self, player: str, n: int, allowed: tuple[str, ...], why: str,
             notes: list[str] | None = None) -> list[str]:
        """Colours for up to ``n`` cubes of ``player``'s choice (5.b, 7.c), each from what the
        general supply still holds (the cubes picked earlier in the move already gone): from
        the move's ``choose`` for that player, else the allowed colour left that they hold
        fewest of (recorded in :attr:`asked`, with the colours still left, so the table can
        be asked).  Fewer than ``n`` colours when the supply holds fewer allowed cubes, and
        then a sentence in ``notes`` says so.

        Raises :class:`IllegalMove` (``supply_empty``) when a chosen colour is gone from the
        supply while another allowed colour is left: the player must choose again.
        """
        from companion.economy import supply   # economy sits above this module
        from companion.wording import and_list
        left = {k: max(0, v) for k, v in supply(self.pos, self.edition).items() if k in allowed}
        queue = self.choices.setdefault(player, [])
        # the cubes the rule gives, even those an empty supply then withholds (docs/rules.md, 7.c)
        self.gained_by_choice[player] = self.gained_by_choice.get(player, 0) + n
        given: list[str] = []
        while queue and len(given) < n and any(left.values()):
            c = queue.pop(0)
            if c not in allowed:
                continue
            if not left[c]:
                rest = and_list([f"{v} {k}" for k, v in left.items() if v])
                err = IllegalMove("supply_empty", f"{player} chose {c} ({why}), but no {c} cube is left in the "
                                                  f"supply after the earlier choices; left: {rest}")
                err.chooser, err.color = player, c
                raise err
            left[c] -= 1
            given.append(c)
        missing = min(n - len(given), sum(left.values()))
        if missing > 0:
            self.asked.append({"player": player, "kind": "gain", "count": missing,
                               "colors": [k for k in allowed if left[k]], "why": why})
        held = dict(self.pos.nutrients[player])
        for c in given:
            held[c] += 1
        for _ in range(missing):
            c = min((k for k in allowed if left[k]), key=lambda k: (held[k], allowed.index(k)))
            held[c] += 1
            left[c] -= 1
            given.append(c)
        if len(given) < n and notes is not None:
            got = f"{len(given)} cube{'s' if len(given) != 1 else ''} of {n}" if given else "no cube"
            colours = " or ".join([", ".join(allowed[:-1]), allowed[-1]] if len(allowed) > 1 else allowed)
            notes.append(f"{player} gains {got}: no {colours} cube is left in the supply ({why})")
        return given

    def turn_order(self) -> list[str]:
        """The players in turn order starting from the active player (rulebook 3: "Starting
        from this player, the order of turns is established to the left")."""
        colors = self.pos.colors
        i = colors.index(self.pos.active) if self.pos.active in colors else 0
        return colors[i:] + colors[:i]

    @property
    def graph(self) -> MyceliumGraph:
        """The position's mycelium graph, built once and kept in ``pos.cache``."""
        g = self.pos.cache.get("graph")
        if g is None:
            g = self.pos.cache["graph"] = MyceliumGraph.of(self.pos)
        return g

    def invalidate(self) -> None:
        """Forget derived data after the position was changed."""
        self.pos.cache.clear()

    def label(self, h: Hex | None) -> str:
        return "nowhere" if h is None else self.edition.label(h)

    def on_board(self, h: Hex) -> bool:
        return h in self.edition.spaces

    def placeable(self, h: Hex) -> bool:
        """Empty for a mycelium tile: on the board, no tile, rock, tree or spore."""
        return h in self.edition.spaces and self.pos.occupant(h) is None

    def other_meeples(self, player: str) -> frozenset[Hex]:
        return frozenset(h for c, h in self.pos.meeples.items() if c != player and h is not None)

    def meeple_starts(self, player: str, color: str) -> list:
        """Graph nodes the player's meeple stands on for a walk in ``color``."""
        at = self.pos.meeples.get(player)
        if at is None:
            return []
        if at in self.pos.tiles:
            return self.graph.nodes_at(at, color)
        node = self.graph.spore_nodes.get(player)
        return [node] if node is not None and node[0] == at else []

    def frontier(self, player: str, blocked: bool = True) -> dict[Hex, set[tuple[int, str | None]]]:
        """Where ``player`` can grow: empty space -> {(edge of the new tile, colour)}.

        Colour ``None`` means the edge faces the player's own spore, which any colour joins
        (4.a.1 "connect with it with at least one mycelium").  ``blocked``: other players'
        meeples stop the walk from the meeple (4.a.1 I).
        """
        out: dict[Hex, set[tuple[int, str | None]]] = defaultdict(set)
        avoid = self.other_meeples(player) if blocked else frozenset()
        own = frozenset([player])
        spore_reached = False
        spore = self.pos.spores.get(player)
        joins = option(self.pos.options, "own_spore_joins_networks")
        for color in tilecodes.COLORS.values():
            starts = self.meeple_starts(player, color)
            if not starts:
                continue
            for (h, i) in self.graph.walk(starts, color, avoid, own, bridge=joins):
                if i == SPORE:
                    spore_reached = joins
                    continue
                for e in tilecodes.parse(self.pos.tiles[h]).paths[i].edges:
                    n = h.neighbor(e)
                    if self.placeable(n):
                        out[n].add((opposite(e), color))
        if spore is not None and spore.at is not None and (spore_reached or self.pos.meeples.get(player) == spore.at):
            # 4.a.1: a tile may connect "to the Spore token of the active player".
            for e in range(6):
                n = spore.at.neighbor(e)
                if self.placeable(n):
                    out[n].add((opposite(e), None))
        return out

    def meeple_reach(self, player: str, color: str) -> set:
        """Graph nodes the meeple can flow to along ``color`` (4.b): other meeples may be
        passed, other spores neither passed nor entered; the player's own spore joins the
        networks touching it unless the table rule ``own_spore_joins_networks`` is off."""
        starts = self.meeple_starts(player, color)
        if not starts:
            return set()
        joins = option(self.pos.options, "own_spore_joins_networks")
        return self.graph.walk(starts, color, frozenset(), frozenset([player]), bridge=joins)


def connections(tile: tilecodes.Tile, attach: set[tuple[int, str | None]]) -> set[str]:
    """Colours by which a placed tile joins the attach points of :meth:`Board.frontier`
    (4.a.1: "connected by at least one mycelium of the same color")."""
    colors = tile.edge_color
    out = set()
    for e, c in attach:
        ec = colors[e]
        if ec is not None and (c is None or ec == c):
            out.add(ec)
    return out


def check_starting_space(b: Board, player: str, at: Hex) -> None:
    """Raise :class:`IllegalMove` unless ``at`` is a starting space for ``player``: outermost,
    free, and away from other spores (rulebook 3, 4.d, 6)."""
    pos = b.pos
    if not b.on_board(at):
        raise IllegalMove("off_board", f"{b.label(at)} is off the board.")
    if at not in b.edition.outermost:
        raise IllegalMove("not_starting_space", f"{b.label(at)} is not an outermost space; spores start on the edge of the board.")
    occ = pos.occupant(at)
    if occ == "spore" and pos.spore_owner(at) != player:
        raise IllegalMove("spore_on_spore", f"{b.label(at)} holds {pos.spore_owner(at)}'s spore; a spore needs a free "
                          "starting space (3).")
    if occ in ("tile", "rock", "tree"):
        raise IllegalMove({"tile": "space_occupied", "rock": "on_rock", "tree": "on_tree"}[occ],
                          f"{b.label(at)} holds a {occ}; a spore needs a free starting space.")
    if at in pos.substrates:
        raise IllegalMove("space_occupied", f"{b.label(at)} holds a {pos.substrates[at]} substrate; a spore needs a free starting space.")
    other_meeple = pos.meeple_at(at)
    if other_meeple not in (None, player):
        raise IllegalMove("move_onto_meeple", f"{other_meeple}'s meeple stands on {b.label(at)}.")
    gap = option(pos.options, "spore_min_distance")
    for color, s in pos.spores.items():
        if color != player and s is not None and s.at is not None and distance(s.at, at) < gap:
            raise IllegalMove("too_close_to_spore", f"{b.label(at)} is {distance(s.at, at)} space(s) from {color}'s spore; "
                              f"spores must be at least {gap} spaces apart.")


def starting_spaces(b: Board, player: str) -> list[Hex]:
    """Outermost spaces where ``player`` may put a spore now (3, 4.a.2, 4.d, 6), in board order."""
    out = []
    for h in sorted(b.edition.outermost):
        try:
            check_starting_space(b, player, h)
        except IllegalMove:
            continue
        out.append(h)
    return out


def send_home(b: Board, color: str, notes: list[str]) -> None:
    """Return a meeple to its spore (4.a.2, 5.a); off the board if the spore is displaced."""
    spore = b.pos.spores.get(color)
    b.pos.meeples[color] = spore.at if spore else None
    notes.append(f"{color}'s meeple returns to its spore" + ("" if spore and spore.at else " (the spore must be relocated first)"))


def clear_space(b: Board, at: Hex, notes: list[str], why: str) -> None:
    """Discard the tile or rock on ``at`` and send home a meeple standing there."""
    pos = b.pos
    if at in pos.tiles:
        pos.discard.append(tilecodes.canonical(pos.tiles.pop(at)))
        notes.append(f"the tile at {b.label(at)} is discarded ({why})")
    if at in pos.rocks:
        pos.rocks.discard(at)
        pos.discard.append(tilecodes.ROCK)
        notes.append(f"the rock at {b.label(at)} is discarded ({why})")
    who = pos.meeple_at(at)
    if who is not None and pos.spore_owner(at) != who:
        send_home(b, who, notes)


def rock_spots(b: Board, player: str) -> list[dict[str, Any]]:
    """Every legal ``rock`` move (4.a.2): a neighbour of the meeple that is on the board and
    holds no tree and no rock (nor the player's own spore when the table rule forbids it)."""
    pos = b.pos
    meeple = pos.meeples.get(player)
    if tilecodes.ROCK not in pos.hands[player] or meeple is None:
        return []
    own_ok = option(pos.options, "rock_on_own_spore")
    out = []
    for n in meeple.neighbors():
        if not b.on_board(n) or n in pos.trees or n in pos.rocks:
            continue
        if not own_ok and pos.spore_owner(n) == player:
            continue
        out.append({"player": player, "action": "rock", "at": [n.q, n.r]})
    return out


def has_place_action(pos: Position, edition: Edition) -> bool:
    """Whether the active player can still place a tile or rock or discard (4.a is
    mandatory only when one of them is possible)."""
    b = Board(pos, edition)
    p = pos.active
    if any(c != tilecodes.ROCK for c in pos.hands[p]):
        return True
    return bool(rock_spots(b, p))
