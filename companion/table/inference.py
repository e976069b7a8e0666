"""Move inference: from the committed position and a still board reading to the move made.

The camera sees the result of a move, not the move.  :func:`explain` searches the legal moves
that could have changed the differing spaces (placements with every rotation, rocks, meeple
flow, removals, spore relocations, new substrate tokens, first-round spores), applies each to
the committed position and keeps those whose board equals the reading: one match is committed,
several different ones become a question for the table, none means the change breaks a rule,
and :func:`attempted_move` names the move the players tried so the rules can say why.

Readings are compared as *views*: per space, what stands there (tile code as placed, rock,
tree with its multiset of mycorrhiza markers, substrate, spore and its side) and where each
meeple stands.  Mycorrhiza markers are compared as multisets because a player may use any free
slot.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion import movegen
from companion import tiles as tilecodes
from companion.edition import Edition
from companion.hexgrid import Hex, distance
from companion.position import Position
from companion.rules import Board, IllegalMove, apply

from companion.vision.unsure import LOW_CONFIDENCE  # noqa: E402 - the one bar of read-board and the table
"""A differing space read with less confidence than this is held, not committed."""


@dataclass(frozen=True)
class View:
    """What the camera can see of a position: ``spaces`` maps a space to its content tuple,
    ``meeples`` maps a colour to its space (or ``None``)."""

    spaces: dict[Hex, tuple]
    meeples: dict[str, Hex | None]

    def mismatches(self, other: "View") -> int:
        """How many things differ: spaces whose content differs plus meeples elsewhere (a
        finer measure than :meth:`diff`, where a tile and a meeple on one space count once)."""
        n = sum(self.spaces.get(h) != other.spaces.get(h) for h in self.spaces.keys() | other.spaces.keys())
        return n + sum(self.meeples.get(c) != other.meeples.get(c) for c in self.meeples.keys() | other.meeples.keys())

    def diff(self, other: "View") -> set[Hex]:
        """Spaces whose content or meeple differs."""
        out = {h for h in self.spaces.keys() | other.spaces.keys() if self.spaces.get(h) != other.spaces.get(h)}
        for c in self.meeples.keys() | other.meeples.keys():
            a, b = self.meeples.get(c), other.meeples.get(c)
            if a != b:
                out |= {h for h in (a, b) if h is not None}
        return out


def view_of_board(board: dict[str, Any]) -> View:
    """The view of the board part of a position (as JSON, e.g. a camera reading)."""
    spaces: dict[Hex, tuple] = {}
    for t in board.get("tiles", []):
        spaces[Hex(*t["at"])] = ("tile", tilecodes.parse(t["paths"]).code)
    for r in board.get("rocks", []):
        spaces[Hex(*r)] = ("rock",)
    for t in board.get("trees", []):
        markers = tuple(sorted(Counter(m for m in t.get("mycorrhizae", []) if m).items()))
        spaces[Hex(*t["at"])] = ("tree", markers)
    for s in board.get("substrates", []):
        h = Hex(*s["at"])
        if h not in spaces:
            spaces[h] = ("substrate", s["kind"])
    meeples = {c: (None if m is None else Hex(*m)) for c, m in (board.get("meeples") or {}).items()}
    for color, s in (board.get("spores") or {}).items():
        if s and s.get("at") is not None:
            h = Hex(*s["at"])
            # A meeple standing on its spore hides the symbol: the camera cannot see the side,
            # so neither the reading nor the expected position may count it (docs/rules.md).
            side = None if meeples.get(color) == h else bool(s.get("used"))
            spaces[h] = ("spore", color, side)
    return View(spaces, meeples)


def view_of_position(pos: Position) -> View:
    """The view of a position (what the camera should see if it is right)."""
    return view_of_board(pos.to_json()["board"])


def apply_corrections(view: View, corrections: dict[Hex, dict[str, Any] | None]) -> View:
    """The view with the table's corrections of misread spaces in place of the camera's."""
    if not corrections:
        return view
    spaces = dict(view.spaces)
    for h, c in corrections.items():
        if c is None:
            continue
        kind = c["kind"]
        if kind == "empty":
            spaces.pop(h, None)
        elif kind == "tile":
            spaces[h] = ("tile", tilecodes.parse(c["paths"]).code)
        elif kind == "rock":
            spaces[h] = ("rock",)
        elif kind == "substrate":
            spaces[h] = ("substrate", c.get("substrate", "wood"))
    return View(spaces, view.meeples)


@dataclass
class Explanation:
    """The outcome of :func:`explain`.

    ``diff``: the spaces where the reading differs from the committed position.  ``matches``:
    the move sequences whose result looks exactly like the reading, one per distinct resulting
    position (board, hands, nutrients, cards, spores, turn state), each with that position.
    Sequences that reach the same position in another order are kept in ``orders`` (same index
    as ``matches``) so the table loop can tell "which happened?" from "in which order?".
    """

    diff: set[Hex]
    matches: list[tuple[list[dict[str, Any]], Position]] = field(default_factory=list)
    orders: list[list[list[dict[str, Any]]]] = field(default_factory=list)


def position_key(pos: Position) -> str:
    """A canonical text of the whole position (two positions the rules cannot tell apart give
    the same key): the turn's taken actions are a set to the rules, so their order is dropped."""
    doc = pos.to_json()
    turn = doc.get("turn")
    if isinstance(turn, dict) and isinstance(turn.get("taken"), list):
        doc["turn"] = dict(turn, taken=sorted(turn["taken"]))
    return json.dumps(doc, sort_keys=True)


def _hx(h: Hex) -> list[int]:
    return [h.q, h.r]


def candidate_moves(pos: Position, edition: Edition, diff: set[Hex]) -> list[dict[str, Any]]:
    """Legal moves that change at least one space of ``diff`` (the search space)."""
    b = Board(pos, edition)
    out: list[dict[str, Any]] = []
    for color, spore in pos.spores.items():
        if spore is not None and spore.at is None:
            out += [{"player": color, "action": "relocate", "to": _hx(h)} for h in movegen.starting_spaces(b, color) if h in diff]
    for kind in dict.fromkeys(pos.pending_substrates):
        for h in diff:
            out.append({"player": "table", "action": "substrate", "kind": kind, "at": _hx(h)})
    p = pos.active
    if pos.in_setup:
        return out + [{"player": p, "action": "spore", "at": _hx(h)} for h in movegen.starting_spaces(b, p) if h in diff]
    taken = pos.taken
    if "spore" in taken:
        return out
    if "place" not in taken:
        out += [m for m in movegen.placements(b, p) if Hex(*m["at"]) in diff]
        out += [m for m in movegen.rock_spots(b, p) if Hex(*m["at"]) in diff]
    if "move" not in taken:
        seen = set()
        for m in movegen.meeple_moves(b, p):
            to = Hex(*m["to"])
            if to in diff and to not in seen:   # the colour followed leaves no trace: one is enough
                seen.add(to)
                out.append(m)
    if "remove" not in taken:
        # The camera cannot see which cubes went back to the supply (4.c "any 1 nutrient"):
        # the removal names none, so the table asks the player (docs/rules.md).
        out += [{k: v for k, v in m.items() if k != "pay"} for m in movegen.removals(b, p) if Hex(*m["at"]) in diff]
    if not taken:
        spore = pos.spores.get(p)
        if spore is not None and not spore.used and spore.at is not None:
            out += [{"player": p, "action": "spore_ability", "mode": "relocate", "to": _hx(h)}
                    for h in movegen.starting_spaces(b, p) if h in diff and h != spore.at]
    return out


MAX_DEPTH = 3
"""Moves looked for in one still period in play: a turn has one placement, one meeple move and
one removal (rulebook 4), so three cover everything one player can do before the board is still.
A substrate token laid in play to replace a consumed one (5.a) is forced by the rules, not one
of these actions, and does not count (:func:`explain`)."""


def moves_in_one_go(pos: Position) -> int:
    """How many moves one still period starting at ``pos`` may hold (the search depth).

    In play, :data:`MAX_DEPTH`.  During the set-up, every set-up placement still open (at
    least :data:`MAX_DEPTH`), since a table may lay them all before the camera sees a still
    board: each substrate token waiting (2.c: 2 wood and 2 soil) and each spore not yet
    placed (3: the spores of the first round, in turn order).  The trees are no move: the
    set-up puts them where the Forest Communication card says (2.b) before the first frame.
    Only substrates and spores are candidates during the set-up (:func:`candidate_moves`),
    each on a space that differs, and each step must bring the board closer to the reading,
    so the deeper search stays small (about 0.15 s for 4 tokens and 4 spores).
    """
    if not pos.in_setup:
        return MAX_DEPTH
    # Never fewer than in play: the last spore and the first turn's actions in one still period
    # stay readable.  Not more either: a deeper search would also find a first-turn tile that a
    # set-up token then discards (5.a), the same board by a move nobody made, and ask about it.
    return max(MAX_DEPTH, len(pos.pending_substrates) + sum(pos.spores.get(c) is None for c in pos.colors))
BEAM = 48
"""Partial sequences kept per depth, the closest to the reading first."""


def explain(pos: Position, edition: Edition, observed: View, max_depth: int | None = None, beam: int = BEAM) -> Explanation:
    """Search every sequence of up to ``max_depth`` legal moves turning ``pos`` into ``observed``
    (by default :func:`moves_in_one_go`: three in play, every open set-up placement during the
    set-up).  In play the substrate tokens laid in the sequence are not counted: a token
    consumed by a tile is replaced at once by one of the same kind (rulebook 5.a), so a
    placement on a token, its replacement, a meeple move and a removal are read from one
    still period.

    A step is kept when it brings the board closer to the reading, or when it only changes
    spaces that already differ and a later action of the turn could change them again: that
    is how a hidden effect is reached (a rock put on a tile,
    then removed with Lichens, leaves the same empty space as one Mycophages removal, but the
    hand and the nutrients differ).  The search does not stop at the first depth with a
    match: every sequence that explains the reading is collected, grouped by the whole
    position it leads to (:func:`position_key`), so the caller can ask the table when they
    differ in what the camera cannot see.  During the set-up each match is given in the
    rulebook's order (:func:`in_setup_order`).  Raises nothing; an empty ``matches`` means no
    legal sequence explains the reading.
    """
    if max_depth is None:
        max_depth = moves_in_one_go(pos)
    expected = view_of_position(pos)
    diff = expected.diff(observed)
    ex = Explanation(diff)
    if not diff or _too_many_tokens(pos, observed):
        return ex
    # Each entry: moves so far, the position they lead to, the spaces still differing and how
    # many things still differ.
    frontier: list[tuple[list[dict[str, Any]], Position, set[Hex], int]] = [([], pos, diff, expected.mismatches(observed))]
    found: dict[str, int] = {}
    visited = {position_key(pos)}
    # In play a token laid to replace a consumed one (5.a) is forced by the rules, not one of
    # the player's actions: it does not count against the depth.  Steps that lay one are
    # searched on at the same depth, and a last round looks only for them (after the
    # player's last action).
    free = () if pos.in_setup else ("substrate",)
    for depth in range(max_depth + (1 if free else 0)):
        nxt: list = []
        todo = list(frontier)
        while todo:
            seq, p, p_diff, p_miss = todo.pop(0)
            for mv in candidate_moves(p, edition, p_diff):
                if depth == max_depth and mv["action"] not in free:
                    continue
                try:
                    q = apply(p, mv, edition).position
                except IllegalMove:
                    continue
                view = view_of_position(q)
                left = view.diff(observed)
                if not left:
                    key = position_key(q)
                    if key in found:
                        ex.orders[found[key]].append(seq + [mv])
                    else:
                        found[key] = len(ex.matches)
                        ex.matches.append((seq + [mv], q))
                        ex.orders.append([seq + [mv]])
                    continue
                miss = view.mismatches(observed)
                if not (miss < p_miss or (left <= p_diff and _can_be_undone_later(mv, q, observed))):
                    continue
                key = position_key(q)      # only for kept steps: the key costs a JSON dump
                if key in visited:
                    continue
                visited.add(key)
                (todo if mv["action"] in free else nxt).append((seq + [mv], q, left, miss))
        nxt.sort(key=lambda item: item[3])
        frontier = nxt[:beam]
        if not frontier:
            break
    if pos.in_setup:
        for i, (seq, q) in enumerate(ex.matches):
            ordered = in_setup_order(pos, edition, seq)
            if ordered != seq:
                ex.matches[i] = (ordered, q)
                if ordered not in ex.orders[i]:
                    ex.orders[i].insert(0, ordered)
    return ex


_SETUP_ACTIONS = ("substrate", "spore")
_KIND_RANK = {"wood": 0, "soil": 1}


def in_setup_order(pos: Position, edition: Edition, seq: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Set-up moves laid in one go, in the order the rulebook gives them: the substrate tokens
    first (2.c; wood then soil, as it lists them, each kind by space label: A1, A2, B1...),
    then the spores (3, in turn order, which the rules already force).  The search finds a
    sequence in whatever order it reached the board first; the log should read as the set-up
    is described.  ``seq`` comes back unchanged when it holds another move or when the
    reordered sequence is not legal or leads to another position (a token and a spore never
    share a space, so it always does).
    """
    if any(m["action"] not in _SETUP_ACTIONS for m in seq):
        return seq

    def rank(m: dict[str, Any]) -> tuple:
        if m["action"] == "spore":
            return (1, 0, "", 0)         # sorted() is stable: the spores keep their turn order
        label = edition.label(m["at"])
        letters = label.rstrip("0123456789")
        number = int(label[len(letters):] or 0)
        return (0, _KIND_RANK.get(m["kind"], 2), letters, number)

    ordered = sorted(seq, key=rank)
    if ordered == seq:
        return seq
    p = pos
    try:
        for m in ordered:
            p = apply(p, m, edition).position
    except IllegalMove:
        return seq
    q = pos
    for m in seq:
        q = apply(q, m, edition).position
    return ordered if position_key(p) == position_key(q) else seq


def _too_many_tokens(pos: Position, observed: View) -> bool:
    """Whether the reading shows more substrate tokens of a kind than the game has: the tokens
    on the board and those waiting to be laid stay 2 of each kind (2.c, 5.a "There must always
    be 2 Substrates of each color"), whatever moves a still period holds.  Such a reading is
    no move (a token too many at the set-up), and searching it would try every way of laying
    the waiting tokens on the extra ones."""
    seen = Counter(v[1] for v in observed.spaces.values() if v[0] == "substrate")
    have = Counter(pos.substrates.values()) + Counter(pos.pending_substrates)
    return any(n > have[kind] for kind, n in seen.items())


def _can_be_undone_later(mv: dict[str, Any], q: Position, observed: View) -> bool:
    """Whether a step that brings the board no closer to the reading can still be part of an
    explanation: a space changes twice in one turn only by a piece put down and then removed
    (the space then ends empty), or a piece removed and then a tile or a rock put there (the
    space ends with it, 4.c then 4.a.1 or 4.a.2); rulebook 4: each action once per turn."""
    at = mv.get("at")
    now = observed.spaces.get(Hex(*at)) if at is not None else None
    if mv["action"] in ("place", "rock"):
        return "remove" not in q.taken and (now is None or now[0] == "substrate")
    if mv["action"] == "remove":
        return "place" not in q.taken and now is not None and now[0] in ("tile", "rock")
    return False


def attempted_move(pos: Position, edition: Edition, observed: View) -> dict[str, Any] | None:
    """The move the players seem to have tried when no legal move explains the reading: a new
    tile, a new rock, the active meeple moved, a tile or rock taken away, a spore put down.

    Returned for the rules to judge (and explain); ``None`` when the change names no move.
    """
    expected = view_of_position(pos)
    p = pos.active
    hand = pos.hands.get(p, [])
    for h in sorted(expected.diff(observed)):
        now, before = observed.spaces.get(h), expected.spaces.get(h)
        if now and now[0] == "tile" and (before is None or before[0] != "tile"):
            code = now[1]
            want = tilecodes.canonical(code)
            tile = next((t for t in hand if t != tilecodes.ROCK and tilecodes.canonical(t) == want), code)
            rot = tilecodes.rotation_between(tile, code) or 0
            return {"player": p, "action": "place", "tile": tile, "at": _hx(h), "rotation": rot}
        if now == ("rock",) and before != ("rock",):
            return {"player": p, "action": "rock", "at": _hx(h)}
        if now and now[0] == "spore" and pos.in_setup and now[1] == p:
            return {"player": p, "action": "spore", "at": _hx(h)}
    before_m, now_m = expected.meeples.get(p), observed.meeples.get(p)
    if now_m is not None and now_m != before_m:
        colors = [c for c in tilecodes.COLORS.values()
                  if before_m in pos.tiles and c in tilecodes.parse(pos.tiles[before_m]).colors()] or ["pink"]
        return {"player": p, "action": "move", "to": _hx(now_m), "color": colors[0]}
    for h in sorted(expected.diff(observed)):
        before, now = expected.spaces.get(h), observed.spaces.get(h)
        if before and before[0] in ("tile", "rock") and now is None:
            meeple = pos.meeples.get(p)
            if meeple is not None and distance(meeple, h) == 1:
                return {"player": p, "action": "remove", "at": _hx(h)}
    return None
