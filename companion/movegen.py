"""Legal-move generation for the active player (used for hints, bots and move inference).

Every move returned passes :func:`companion.rules.check`; the tests hold the two to each
other.  Table inputs that come from the world rather than a choice (``draw``,
``substrate``, ``reveal``) are not generated: the bag, the token pile and the deck decide.
"""

from __future__ import annotations

from typing import Any, Iterator

from companion import economy
from companion import tiles as tilecodes
from companion.edition import SUBSTRATE_COLOR, Edition, load_edition
from companion.hexgrid import Hex
from companion.options import option
from companion.position import Position
from companion.board import (Board, IllegalMove, check_starting_space, connections, has_place_action,  # noqa: F401
                             rock_spots, starting_spaces)
from companion.rules import check
from companion.setup_steps import setup_tokens_pending


def _hx(h: Hex) -> list[int]:
    return [h.q, h.r]


def placement_options(b: Board, player: str) -> Iterator[tuple[str, int, str, Hex, Any]]:
    """Every legal placement as ``(hand code, rotation, placed code, space, joined colours)``:
    hand tile x distinct rotation x frontier space whose paths join the player's networks and,
    with ``substrate_requires_matching_color``, match the substrate's colour (4.a.1, 5.a)."""
    pos = b.pos
    frontier = b.frontier(player)
    strict = option(pos.options, "substrate_requires_matching_color")
    for code in dict.fromkeys(c for c in pos.hands[player] if c != tilecodes.ROCK):
        for k, placed in tilecodes.distinct_rotations(code):
            tile = tilecodes.parse(placed)
            for at, attach in frontier.items():
                joined = connections(tile, attach)
                if not joined:
                    continue
                kind = pos.substrates.get(at)
                if kind and strict and SUBSTRATE_COLOR[kind] not in joined:
                    continue
                yield code, k, placed, at, joined


def placements(b: Board, player: str) -> list[dict[str, Any]]:
    """Every legal ``place`` move: hand tile x distinct rotation x space (4.a.1, 5.a)."""
    return [{"player": player, "action": "place", "tile": code, "at": _hx(at), "rotation": k}
            for code, k, _placed, at, _joined in placement_options(b, player)]


def meeple_moves(b: Board, player: str) -> list[dict[str, Any]]:
    """Every legal ``move``: destination x colour along one network (4.b)."""
    pos = b.pos
    meeple = pos.meeples.get(player)
    if meeple is None:
        return []
    out = []
    taken = {h for c, h in pos.meeples.items() if c != player and h is not None}
    for color in tilecodes.COLORS.values():
        dests = {n[0] for n in b.meeple_reach(player, color)}
        if not dests:
            continue
        for h in sorted(dests - taken - {meeple}):
            out.append({"player": player, "action": "move", "to": _hx(h), "color": color})
    return out


def removals(b: Board, player: str) -> list[dict[str, Any]]:
    """Every affordable ``remove`` (mycophages, lichens; 4.c) with the default payment."""
    pos = b.pos
    meeple = pos.meeples.get(player)
    if meeple is None:
        return []
    held = pos.nutrients[player]
    out = []
    for n in meeple.neighbors():
        cost = 1 if n in pos.tiles else 2 if n in pos.rocks else 0
        if cost and sum(held.values()) >= cost:
            out.append({"player": player, "action": "remove", "at": _hx(n), "pay": economy.any_payment(held, cost)})
    return out


def legal_moves(pos: Position, edition: Edition | None = None) -> list[dict[str, Any]]:
    """All legal choices of the active player (and of any player with a displaced spore)
    in ``pos``, as move documents.  Empty when the game is over, while the set-up's
    substrate tokens are still to be laid (2.c, before the spores of 3) and during the opening
    draws (a draw is the bag's, not a choice; rulebook 3).  A substrate token is never listed
    (it is drawn at random), so while one is due in play the end of the turn is missing too
    (5.a, :func:`companion.rules.tokens_due`)."""
    ed = edition or load_edition(pos.edition)
    if pos.result is not None:
        return []
    b = Board(pos, ed)
    p = pos.active
    out: list[dict[str, Any]] = []
    for color, spore in pos.spores.items():
        if spore is not None and spore.at is None:
            out += [{"player": color, "action": "relocate", "to": _hx(h)} for h in starting_spaces(b, color)]
    if setup_tokens_pending(pos):
        return out   # the set-up's substrate tokens come first (2.c), laid from the token pile
    if pos.in_setup:
        if any(len(pos.hands[c]) < 3 for c in pos.colors) and pos.bag > 0:
            return out   # the opening draws come first (3), and a draw is the bag's, not a choice
        return [{"player": p, "action": "spore", "at": _hx(h)} for h in starting_spaces(b, p)]
    taken = pos.taken
    if "buy" in taken:
        # After a purchase only more purchases (table rule), swaps, draws and the end remain.
        out += [m for m in economy_moves(b, p) if m["action"] in ("buy", "swap")]
    elif "spore" not in taken:
        if "place" not in taken:
            out += placements(b, p)
            out += rock_spots(b, p)
            out += [{"player": p, "action": "discard", "tile": c} for c in dict.fromkeys(pos.hands[p]) if c != tilecodes.ROCK]
        if "move" not in taken:
            out += meeple_moves(b, p)
        if "remove" not in taken:
            out += removals(b, p)
        if not taken:
            spore = pos.spores.get(p)
            if spore is not None and not spore.used and spore.at is not None:
                out += [{"player": p, "action": "spore_ability", "mode": "redraw", "discard": c} for c in dict.fromkeys(pos.hands[p])]
                out += [{"player": p, "action": "spore_ability", "mode": "relocate", "to": _hx(h)}
                        for h in starting_spaces(b, p) if h != spore.at]
        out += economy_moves(b, p)
    end = {"player": p, "action": "end_turn"}
    if check(pos, end, ed).legal:
        out.append(end)
    return out


ACTION_SLOT = {"place": "place", "rock": "place", "discard": "place", "move": "move", "remove": "remove",
               "spore_ability": "spore", "give": "give", "buy": "buy"}
"""The turn action a move uses up, for the actions a player is told are still open (rulebook 4, 6)."""


def open_actions(pos: Position, edition: Edition | None = None) -> list[str]:
    """The turn actions the active player may still take now, as slot names out of
    ``"place"`` (a placement, a rock or a discard, 4.a), ``"move"`` (4.b), ``"remove"`` (4.c),
    ``"spore"`` (the spore ability, 4.d), ``"give"`` (7.b) and ``"buy"`` (6), in that order.

    A slot is open when :func:`legal_moves` offers at least one move of it, so the list never
    names an action :func:`companion.rules.check` would refuse: the spore ability only before
    any other action, nothing but purchases after a purchase, a gift only to a player it may
    reach.  Empty during the set-up and once the game is over."""
    if pos.in_setup or pos.result is not None:
        return []
    used = {ACTION_SLOT.get(m["action"]) for m in legal_moves(pos, edition) if m["player"] == pos.active}
    return [slot for slot in dict.fromkeys(ACTION_SLOT.values()) if slot in used]


def economy_moves(b: Board, p: str) -> list[dict[str, Any]]:
    """Purchases (with automatic tile choice), gifts and swaps that are legal now."""
    pos, ed = b.pos, b.edition
    out: list[dict[str, Any]] = []
    candidates: list[dict[str, Any]] = []
    for deck in ("a", "b"):
        for cid in pos.market[deck]:
            candidates.append({"player": p, "action": "buy", "card": cid})
    for other in pos.colors:
        if other == p:
            continue
        for k in ("pink", "yellow", "white"):
            if pos.nutrients[p][k]:
                candidates.append({"player": p, "action": "give", "to": other, "nutrients": {k: 1}})
    if economy.effects_of(pos, ed, p)["swap_nutrient"] and "swap" not in pos.taken:
        for give in ("pink", "yellow", "white"):
            for take in ("pink", "yellow", "white"):
                if give != take and pos.nutrients[p][give]:
                    candidates.append({"player": p, "action": "swap", "give": give, "take": take})
    for mv in candidates:
        if check(pos, mv, ed).legal:
            out.append(mv)
    return out


_economy_moves = economy_moves  # the old private name, kept for existing callers
