"""Validation and application of every turn action of Mycelium.

``check(position, move)`` answers whether a move is legal, with a machine reason code and a
sentence for the player; ``apply(position, move)`` returns the position after a legal move
(the input is never mutated) and the notes of everything that happened (cubes gained,
meeples sent home...).  Each rule cites its rulebook section
(``../shared/seeds/003_cbf78e28aa7d3d47.txt``; readings of ambiguous sentences are in
``docs/rules.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion import economy
from companion import tiles as tilecodes
from companion.board import (Board, IllegalMove, check_starting_space, clear_space, connections,  # noqa: F401
                             has_place_action, send_home, starting_spaces)
from companion.edition import NUTRIENT_COLORS, SUBSTRATE_COLOR, Edition, load_edition
from companion.hexgrid import Hex, distance, opposite
from companion.market import MARKET_SIZE
from companion.moves import TABLE, Move, parse_move
from companion.networks import SPORE
from companion.options import option
from companion.outcome import check_missions, early_result, final_result
from companion.position import Position, Spore
from companion.purchase import execute_purchase, plan_purchase
from companion.setup_steps import setup_order_message, setup_tokens_pending
from companion.wording import and_list

REASONS: dict[str, str] = {
    "game_over": "the game has ended",
    "unknown_player": "the move names a colour nobody plays",
    "setup_incomplete": "every player must place a spore first (rulebook 3)",
    "setup_order": "the set-up's substrate tokens are laid before the spores and the first turn (2.c, 3)",
    "not_your_turn": "only the active player may do this",
    "action_already_taken": "each action may be taken once per turn (4)",
    "tile_not_in_hand": "the tile is not in the player's hand",
    "space_occupied": "a tile is already there (4.a.1 III)",
    "on_tree": "mycelium cannot be placed on a tree (4.a.1 IV)",
    "on_spore": "mycelium cannot be placed on a spore (4.a.1 V)",
    "spore_on_spore": "a spore cannot be placed on another player's spore (3)",
    "on_rock": "the space holds a rock",
    "off_board": "the space is not on the board",
    "not_connected": "the tile joins no same-colour mycelium and not your spore (4.a.1)",
    "meeple_not_on_network": "your meeple is not on the network being grown (4.a.1)",
    "blocked_by_meeple": "another player's meeple stands between you and the space (4.a.1 I)",
    "from_rock": "mycelium cannot grow from a rock (4.a.1 II)",
    "wrong_substrate_color": "a substrate is degraded only from a network of its colour (5.a)",
    "rock_not_adjacent": "a rock goes next to your meeple (4.a.2)",
    "rock_on_tree": "a rock cannot be placed on a tree (4.a.2)",
    "rock_on_rock": "a rock cannot be placed on another rock (4.a.2)",
    "rock_on_own_spore": "table rule: a rock may not land on your own spore",
    "cannot_discard_rock": "a rock cannot be discarded (4.a.3)",
    "move_changes_color": "a move follows one colour only (4.b I)",
    "move_not_on_network": "the space is not on the chosen network from your meeple (4.b)",
    "move_onto_meeple": "you may pass other meeples but not stop on one (4.b)",
    "move_over_spore": "meeples cannot pass or stop on another player's spore (4.b II)",
    "move_over_own_spore": "table rule: your own spore ends a move but is not crossed (4.b II)",
    "move_over_rock": "meeples cannot pass or stop on rocks (4.b III)",
    "move_over_tree": "meeples cannot pass or stop on trees (4.b IV)",
    "insufficient_nutrients": "not enough nutrients to pay",
    "wrong_payment": "the payment does not match the cost",
    "too_many_colors": "the move names more colours of choice than the player gains (5.b, 7.c)",
    "remove_not_adjacent": "only a tile or rock next to your meeple can be removed (4.c)",
    "nothing_to_remove": "there is no tile or rock there",
    "spore_ability_used": "the spore ability is used until you acquire a mushroom card (4.d)",
    "spore_not_at_start": "the spore ability must be used at the start of the turn (4.d)",
    "spore_turn_over": "after the spore ability no other action can be taken this turn (4.d)",
    "not_starting_space": "spores go on the outermost spaces (3)",
    "too_close_to_spore": "spores must be at least one space away from another spore (3)",
    "spore_not_displaced": "your spore is on the board; nothing to relocate",
    "spore_displaced": "your spore is off the board: say where it goes (spore_to)",
    "relocate_first": "your spore is off the board: put it back before ending the turn (4.a.2)",
    "purchase_ends_actions": "after a purchase the meeple waits on its spore until the next turn (6)",
    "hand_full": "a hand holds 3 tiles (4.a.3)",
    "bag_empty": "the bag is empty",
    "tile_not_in_bag": "no tile of that type is left in the bag",
    "must_place_or_discard": "place or discard a tile before ending the turn (4.a)",
    "must_draw": "draw back to 3 tiles before ending the turn (4.a.3)",
    "no_substrate_pending": "no substrate is waiting to be replaced (5.a)",
    "substrate_due": "the new substrate token replacing one taken off the board is laid before the turn ends (5.a)",
    "substrate_space_taken": "that token's space holds a tree, a spore or a substrate; draw another (5.a)",
    "not_on_token": "no substrate token of that kind shows that space (Components, 2.c, 5.a)",
    "token_just_discarded": "the token showing that space is the one just taken off the board; draw another (5.a)",
    "card_not_in_market": "the card is not face up in the market (6)",
    "card_unknown": "the edition has no card with that id",
    "insufficient_mycelia": "not enough mycelium tiles of the card's colour (6.a)",
    "mycelia_not_one_network": "the paid tiles must form part of one network of the card's colour (6.a)",
    "meeple_not_on_payment_network": "your meeple must be on the network you pay with (6.a)",
    "meeple_on_payment_tiles": "another player's meeple stands on the tiles to pay (6.a)",
    "purchase_limit": "table rule: mushroom cards per turn",
    "nutrient_cap": "a player cannot hold more than 8 nutrients (5)",
    "give_to_self": "nutrients are given to another player, not to yourself (5.c)",
    "not_same_network": "giver and receiver must share a mycelium network (5.c)",
    "not_teammate": "nutrients go to a teammate only (9.b; competitive play: table rule give_in_competitive)",
    "swap_already_used": "the colour swap is once per turn (Swap Nutrient Color)",
    "no_swap_card": "swapping needs a Swap Nutrient Color card",
    "supply_empty": "the supply has no cube of that colour (a swap, or a colour of your choice taken by an earlier player)",
    "mission_locked": "that ability needs a cooperative mission first (7)",
    "no_free_market_slot": "the market row already shows three cards",
    "card_not_in_deck": "that card is not in the face-down deck",
}
"""Every reason code with its one-line meaning (also in docs/position.md)."""



@dataclass(frozen=True)
class Verdict:
    """The answer of :func:`check`: ``legal``, a ``reason`` code (``None`` when legal) and a
    ``message`` for the player."""

    legal: bool
    reason: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "reason": self.reason, "message": self.message}


@dataclass
class Outcome:
    """The result of :func:`apply`: the new position and what happened, in words."""

    position: Position
    notes: list[str] = field(default_factory=list)
    choices: list[dict[str, Any]] = field(default_factory=list)
    """Choices the move left open, filled with the default reading (see :func:`choices_needed`)."""


# The shared board queries live in companion.board; their names stay importable from here.
_connections = connections
_check_starting_space = check_starting_space


# --- public API ---------------------------------------------------------------------------

def check(pos: Position, move: Move | dict[str, Any], edition: Edition | None = None) -> Verdict:
    """Judge ``move`` in ``pos`` without changing anything.

    ``move`` may be a :class:`Move` or its JSON document (a malformed document raises
    :class:`~companion.position.PositionError`).  A move naming colours "of your choice"
    (``choose``) is played on a copy too, so a colour the supply no longer holds after the
    earlier players' choices is refused (``supply_empty``, 7.c; docs/rules.md).
    """
    m = move if isinstance(move, Move) else parse_move(move, edition or load_edition(pos.edition))
    try:
        if any(m.choices.values()):
            apply(pos, m, edition)   # validates, then refuses a colour the supply no longer holds (7.c)
        else:
            _validate(Board(pos, edition), m)
    except IllegalMove as e:
        return Verdict(False, e.reason, e.message)
    return Verdict(True, None, describe(Board(pos, edition), m))


def apply(pos: Position, move: Move | dict[str, Any], edition: Edition | None = None) -> Outcome:
    """Play a legal move and return the new position with notes; raise
    :class:`IllegalMove` (with its reason code) for an illegal one.  ``pos`` is unchanged."""
    m = move if isinstance(move, Move) else parse_move(move, edition or load_edition(pos.edition))
    board = Board(pos, edition)
    _validate(board, m)
    new = pos.copy()
    out = Outcome(new, [describe(board, m)])
    nb = Board(new, board.edition)
    nb.choices = {p: list(c) for p, c in m.choices.items()}
    _APPLY[m.action](nb, m, out.notes)
    nb.invalidate()
    _after_move(nb, m, out.notes)  # changes cubes and missions only: the graph stays valid
    _refuse_extra_colors(nb, m)
    out.choices = nb.asked
    return out


def _refuse_extra_colors(b: Board, m: Move) -> None:
    """Refuse a move whose ``choose`` names more colours for a player than the cubes of their
    choice they gained (5.b, 7.c): the extra colours would be dropped silently and the log
    would not say what was chosen.  Raises :class:`IllegalMove` (``too_many_colors``)."""
    for player, named in m.choices.items():
        gained = b.gained_by_choice.get(player, 0)
        if len(named) > gained:
            cubes = f"{gained} cube{'s' * (gained != 1)}"
            raise IllegalMove("too_many_colors", f"{player} gains {cubes} of their choice here but the move names "
                                                 f"{len(named)} colour{'s' * (len(named) != 1)}")


def choices_needed(pos: Position, move: Move | dict[str, Any], edition: Edition | None = None) -> list[dict[str, Any]]:
    """Whom the table must ask before ``move`` is committed, and what.

    Each entry is ``{"player", "kind", "count", "colors", "why"}``: ``kind`` ``"gain"`` means
    the player picks ``count`` cubes among ``colors`` (5.b, 7.c "of their choice"), ``"discard"``
    that they return ``count`` cubes to get back to the cap (5), ``"pay"`` that they pick the
    ``count`` cubes a removal costs among the ``colors`` they hold (4.c "any 1 nutrient").
    Choices already named in the move (``choose``, ``drop``, ``pay``) are not asked again.
    Raises :class:`IllegalMove` like :func:`apply`.
    """
    return apply(pos, move, edition).choices


# --- validation ---------------------------------------------------------------------------

TURN_ACTIONS = {"place", "rock", "discard", "move", "remove", "spore_ability", "draw", "end_turn",
                "give", "swap", "buy"}
SETUP_ORDERED = (TURN_ACTIONS | {"spore"}) - {"draw"}
"""Moves refused while the set-up's substrate tokens are still to be laid (2.c before 3); the
opening draws are not among them (they do not touch the board, and a bag reader reports a
tile as it is drawn)."""
SLOT = {"place": "place", "rock": "place", "discard": "place", "move": "move", "remove": "remove",
        "spore_ability": "spore", "give": "give"}  # swap has its own reason code


def _validate(b: Board, m: Move) -> None:
    pos = b.pos
    if pos.result is not None:
        raise IllegalMove("game_over", "The game is over" + (f": {pos.result['reason']}." if pos.result.get("reason") else "."))
    if m.player != TABLE and m.player not in pos.colors:
        raise IllegalMove("unknown_player", f"{m.player} is not playing (players: {', '.join(pos.colors)}).")
    if m.action in SETUP_ORDERED and setup_tokens_pending(pos):
        # 2.c before 3: the set-up's substrate tokens first, then the spores and the turns.
        raise IllegalMove("setup_order", setup_order_message(pos))
    if m.action == "draw" and pos.in_setup:
        # Rulebook 3: before the game every player draws 3 tiles; the bag reader cannot tell who
        # drew, so opening draws fill the hands in turn order.
        short = next((c for c in pos.colors if len(pos.hands[c]) < 3), None)
        if short is None:
            raise IllegalMove("hand_full", "Every player already holds 3 tiles; place the spores.")
        if m.player != short:
            raise IllegalMove("not_your_turn", f"The next tile drawn goes to {short}'s hand.")
    elif m.action in TURN_ACTIONS:
        if pos.in_setup:
            raise IllegalMove("setup_incomplete", "Every player places a spore before the first turn.")
        if m.player != pos.active:
            raise IllegalMove("not_your_turn", f"It is {pos.active}'s turn, not {m.player}'s.")
        slot = SLOT.get(m.action)
        if "spore" in pos.taken and m.action not in ("draw", "end_turn"):
            raise IllegalMove("spore_turn_over", "You used the spore ability: draw back to 3 tiles and end your turn.")
        if "buy" in pos.taken and m.action not in ("draw", "end_turn", "buy", "swap"):
            raise IllegalMove("purchase_ends_actions", "You bought a mushroom card: your meeple starts from its spore on your "
                              "next turn (rulebook 6). Draw back to 3 tiles and end your turn.")
        if slot and slot in pos.taken:
            what = {"place": "placed or discarded a tile"}.get(slot, f"used '{slot}'")
            raise IllegalMove("action_already_taken", f"You already {what} this turn.")
    _VALIDATE[m.action](b, m)


def _hand_index(hand: list[str], code: str) -> int | None:
    want = tilecodes.canonical(code)
    for i, c in enumerate(hand):
        if tilecodes.canonical(c) == want:
            return i
    return None


def _v_spore(b: Board, m: Move) -> None:
    pos = b.pos
    short = next((c for c in pos.colors if len(pos.hands[c]) < 3 and pos.bag > 0), None)
    if short is not None:
        raise IllegalMove("setup_incomplete", f"Every player draws 3 tiles first ({short} has {len(pos.hands[short])}).")
    if not pos.in_setup:
        raise IllegalMove("action_already_taken", "Spores are placed in the first round only; use 'relocate' for a displaced spore.")
    if m.player != pos.active:
        raise IllegalMove("not_your_turn", f"It is {pos.active}'s turn to place a spore.")
    if pos.spores.get(m.player) is not None:
        raise IllegalMove("action_already_taken", "Your spore is already on the board.")
    check_starting_space(b, m.player, m.at)


def _v_place(b: Board, m: Move) -> None:
    pos = b.pos
    if m.tile == tilecodes.ROCK:
        raise IllegalMove("tile_not_in_hand", "A rock is placed with the 'rock' action.")
    if _hand_index(pos.hands[m.player], m.tile) is None:
        raise IllegalMove("tile_not_in_hand", f"{m.tile} is not in your hand ({', '.join(pos.hands[m.player]) or 'empty'}).")
    at = m.at
    if not b.on_board(at):
        raise IllegalMove("off_board", f"{b.label(at)} is off the board.")
    occ = pos.occupant(at)
    if occ is not None:
        code = {"tile": "space_occupied", "tree": "on_tree", "spore": "on_spore", "rock": "on_rock"}[occ]
        raise IllegalMove(code, f"{b.label(at)} already holds a {occ}.")
    tile = tilecodes.parse(tilecodes.rotate_code(m.tile, m.rotation))
    joined = _connections(tile, b.frontier(m.player).get(at, set()))
    if not joined:
        _explain_unconnected(b, m.player, at, tile)
    kind = pos.substrates.get(at)
    if kind and option(pos.options, "substrate_requires_matching_color"):
        need_color = SUBSTRATE_COLOR[kind]
        if need_color not in joined:
            raise IllegalMove("wrong_substrate_color",
                              f"{b.label(at)} holds a {kind} substrate: the tile must connect from a {need_color} network "
                              f"(it connects by {', '.join(sorted(joined))}).")


def _explain_unconnected(b: Board, player: str, at: Hex, tile: tilecodes.Tile) -> None:
    """Raise the most helpful reason why ``tile`` at ``at`` does not connect (4.a.1)."""
    pos = b.pos
    if pos.meeples.get(player) is not None and _connections(tile, b.frontier(player, blocked=False).get(at, set())):
        blockers = sorted(c for c, h in pos.meeples.items() if c != player and h is not None)
        raise IllegalMove("blocked_by_meeple",
                          f"The way from your meeple to {b.label(at)} passes another player's meeple ({', '.join(blockers)}).")
    colors = tile.edge_color
    touches_rock = False
    for e in range(6):
        n = at.neighbor(e)
        if n in pos.rocks:
            touches_rock = True
        other = pos.tiles.get(n)
        if other is not None and colors[e] is not None and tilecodes.parse(other).edge_color[opposite(e)] == colors[e]:
            raise IllegalMove("meeple_not_on_network",
                              f"The tile joins the {colors[e]} mycelium at {b.label(n)}, but your meeple is not on that network.")
        if pos.spore_owner(n) == player and colors[e] is not None:
            raise IllegalMove("meeple_not_on_network", "The tile touches your spore, but your meeple is not on it or on a network reaching it.")
    if touches_rock and not any(n in pos.tiles or pos.spore_owner(n) == player for n in at.neighbors()):
        raise IllegalMove("from_rock", f"{b.label(at)} only borders a rock; mycelium cannot grow from a rock.")
    raise IllegalMove("not_connected",
                      f"At {b.label(at)} the tile joins no mycelium of the same colour and not your spore.")


def _v_rock(b: Board, m: Move) -> None:
    pos = b.pos
    if tilecodes.ROCK not in pos.hands[m.player]:
        raise IllegalMove("tile_not_in_hand", "You have no rock in your hand.")
    at = m.at
    if not b.on_board(at):
        raise IllegalMove("off_board", f"{b.label(at)} is off the board.")
    meeple = pos.meeples.get(m.player)
    if meeple is None or distance(meeple, at) != 1:
        raise IllegalMove("rock_not_adjacent", f"A rock goes on a space next to your meeple (at {b.label(meeple)}).")
    if at in pos.trees:
        raise IllegalMove("rock_on_tree", f"{b.label(at)} holds a tree; rocks never go on trees.")
    if at in pos.rocks:
        raise IllegalMove("rock_on_rock", f"{b.label(at)} already holds a rock.")
    if pos.spore_owner(at) == m.player and not option(pos.options, "rock_on_own_spore"):
        raise IllegalMove("rock_on_own_spore", "Table rule: a rock may not land on your own spore.")


def _v_discard(b: Board, m: Move) -> None:
    if m.tile == tilecodes.ROCK:
        raise IllegalMove("cannot_discard_rock", "A rock cannot be discarded; place it or keep it.")
    if _hand_index(b.pos.hands[m.player], m.tile) is None:
        raise IllegalMove("tile_not_in_hand", f"{m.tile} is not in your hand.")


def _v_move(b: Board, m: Move) -> None:
    pos = b.pos
    to, color = m.to, m.color
    meeple = pos.meeples.get(m.player)
    if not b.on_board(to):
        raise IllegalMove("off_board", f"{b.label(to)} is off the board.")
    if meeple is None:
        raise IllegalMove("move_not_on_network", "Your meeple is off the board until your spore is relocated.")
    if to == meeple:
        raise IllegalMove("move_not_on_network", "Your meeple is already there.")
    if to in pos.trees:
        raise IllegalMove("move_over_tree", f"{b.label(to)} is a tree; meeples never stand on trees.")
    if to in pos.rocks:
        raise IllegalMove("move_over_rock", f"{b.label(to)} is a rock; meeples never stand on rocks.")
    owner = pos.spore_owner(to)
    if owner is not None and owner != m.player:
        raise IllegalMove("move_over_spore", f"{b.label(to)} is {owner}'s spore.")
    other = pos.meeple_at(to)
    if other is not None:
        raise IllegalMove("move_onto_meeple", f"{other}'s meeple stands on {b.label(to)}; you may pass it but not stop there.")
    starts = b.meeple_starts(m.player, color)
    if not starts:
        raise IllegalMove("move_not_on_network", f"Your meeple's space has no {color} mycelium to follow.")
    if any(n[0] == to for n in b.meeple_reach(m.player, color)):
        return
    own = frozenset([m.player])
    if any(n[0] == to for n in b.graph.walk(starts, color, frozenset(), own, bridge=True)):
        raise IllegalMove("move_over_own_spore", f"The only {color} way to {b.label(to)} crosses your spore; "
                          "table rule: your spore is an end point, not a bridge.")
    if _reachable_any_color(b, m.player, meeple, to):
        raise IllegalMove("move_changes_color", f"{b.label(to)} is reached only by changing colour; a move follows one {color} network.")
    everyone = frozenset(pos.spores)
    if any(n[0] == to for n in b.graph.walk(starts, color, frozenset(), everyone, bridge=True)):
        raise IllegalMove("move_over_spore", f"The only {color} way to {b.label(to)} crosses a spore; "
                          "spores are not mycelium, meeples cannot pass over them.")
    raise IllegalMove("move_not_on_network", f"{b.label(to)} is not on a {color} network from your meeple.")


def _reachable_any_color(b: Board, player: str, start: Hex, to: Hex) -> bool:
    """Whether ``to`` is reachable when the meeple may switch colour on a tile."""
    g = b.graph.graph
    seen = {start}
    stack = [start]
    while stack:
        h = stack.pop()
        for node in b.graph.nodes_at(h):
            if node[1] == SPORE and g.nodes[node]["owner"] != player:
                continue
            for nb in g.neighbors(node):
                if nb[1] == SPORE:
                    continue  # spores are end points, never bridges
                if nb[0] not in seen:
                    if nb[0] == to:
                        return True
                    seen.add(nb[0])
                    stack.append(nb[0])
    return False


def _removal_cost(b: Board, at: Hex) -> tuple[str, int]:
    return ("mycophages", 1) if at in b.pos.tiles else ("lichens", 2)


def _v_remove(b: Board, m: Move) -> None:
    pos = b.pos
    at = m.at
    meeple = pos.meeples.get(m.player)
    if not b.on_board(at):
        raise IllegalMove("off_board", f"{b.label(at)} is off the board.")
    if at not in pos.tiles and at not in pos.rocks:
        raise IllegalMove("nothing_to_remove", f"{b.label(at)} holds no mycelium tile and no rock.")
    if meeple is None or distance(meeple, at) != 1:
        raise IllegalMove("remove_not_adjacent", f"{b.label(at)} is not next to your meeple.")
    name, cost = _removal_cost(b, at)
    held = pos.nutrients[m.player]
    if m.pay is not None:
        if sum(m.pay.values()) != cost:
            raise IllegalMove("wrong_payment", f"{name.capitalize()} cost exactly {cost} nutrient{'s' * (cost > 1)} of any colour.")
        short = economy.shortfall(held, m.pay)
        if short:
            raise IllegalMove("insufficient_nutrients", f"You lack {_cubes(short)} for that payment.")
    elif sum(held.values()) < cost:
        raise IllegalMove("insufficient_nutrients", f"{name.capitalize()} cost {cost} nutrient{'s' * (cost > 1)}; you have {sum(held.values())}.")


def _v_spore_ability(b: Board, m: Move) -> None:
    pos = b.pos
    spore = pos.spores.get(m.player)
    if spore is None or spore.used:
        raise IllegalMove("spore_ability_used", "Your spore ability is used; it returns when you acquire a mushroom card.")
    if pos.taken:
        raise IllegalMove("spore_not_at_start", "The spore ability is used at the start of the turn, before any other action.")
    if spore.at is None:
        raise IllegalMove("spore_ability_used", "Your spore is displaced; relocate it first.")
    if m.mode == "redraw":
        if m.discard == tilecodes.ROCK:
            if tilecodes.ROCK not in pos.hands[m.player]:
                raise IllegalMove("tile_not_in_hand", "You have no rock in your hand.")
        elif _hand_index(pos.hands[m.player], m.discard) is None:
            raise IllegalMove("tile_not_in_hand", f"{m.discard} is not in your hand.")
    else:
        if m.to == spore.at:
            raise IllegalMove("not_starting_space", "The spore ability relocates to another starting space (rulebook 4.d).")
        check_starting_space(b, m.player, m.to)


def _v_relocate(b: Board, m: Move) -> None:
    spore = b.pos.spores.get(m.player)
    if spore is None or spore.at is not None:
        raise IllegalMove("spore_not_displaced", "Your spore is on the board; there is nothing to relocate.")
    check_starting_space(b, m.player, m.to)


def _v_draw(b: Board, m: Move) -> None:
    pos = b.pos
    if len(pos.hands[m.player]) >= 3:
        raise IllegalMove("hand_full", "Your hand already holds 3 tiles.")
    if pos.bag <= 0:
        raise IllegalMove("bag_empty", "The bag is empty.")
    if pos.bag_tiles is not None and pos.bag_tiles[tilecodes.canonical(m.tile)] <= 0:
        raise IllegalMove("tile_not_in_bag", f"No {m.tile} is left in the bag (every one is on the board, in a hand or "
                           "discarded): check which tile was drawn.")


def _v_end_turn(b: Board, m: Move) -> None:
    pos = b.pos
    spore = pos.spores.get(m.player)
    if spore is not None and spore.at is None:
        _refuse_with_spore_off(b, m.player)
    if "place" not in pos.taken and "spore" not in pos.taken:
        if has_place_action(pos, b.edition):
            raise IllegalMove("must_place_or_discard", "Place a tile, place a rock or discard a tile before ending your turn.")
    if tokens_due(b):
        raise IllegalMove("substrate_due", substrate_due_message(b))
    if len(pos.hands[m.player]) < 3 and pos.bag > 0:
        raise IllegalMove("must_draw", f"Draw {3 - len(pos.hands[m.player])} tile(s) from the bag before ending your turn.")


def _refuse_with_spore_off(b: Board, player: str) -> None:
    """4.a.2 "The affected player must relocate the spore": a player whose spore a rock pushed
    off ends no turn before putting it back; with no starting space free there is nowhere to
    put it, so the turn may end and the spore waits (docs/rules.md)."""
    spaces = starting_spaces(b, player)
    if not spaces:
        return
    labels = sorted((b.label(h) for h in spaces), key=label_order)
    shown = ", ".join(labels[:6]) + (f" and {len(labels) - 6} more" if len(labels) > 6 else "")
    gap = option(b.pos.options, "spore_min_distance")
    raise IllegalMove("relocate_first", "Your spore is off the board (a rock landed on it): put it back before ending "
                      f"your turn, on a free outermost space at least {gap} spaces from the other spores: {shown}.")


def _v_substrate(b: Board, m: Move) -> None:
    pos = b.pos
    if m.kind not in pos.pending_substrates:
        raise IllegalMove("no_substrate_pending", f"No {m.kind} substrate is waiting to be replaced.")
    if not b.on_board(m.at):
        raise IllegalMove("off_board", f"{b.label(m.at)} is off the board.")
    _refuse_unprinted_space(b, m.kind, m.at)
    if m.at in discarded_token_spaces(pos, m.kind):
        raise IllegalMove("token_just_discarded",
                          f"The {m.kind} token showing {b.label(m.at)} is the one just taken off the board (5.a: it is "
                          "discarded): draw another.")
    held = token_space_holds(pos, m.at)
    if held is not None:
        raise IllegalMove("substrate_space_taken",
                          f"The token's space {b.label(m.at)} holds {held}: discard that token and draw another (5.a).")


def _refuse_unprinted_space(b: Board, kind: str, at: Hex) -> None:
    """Refuse (``not_on_token``) a ``kind`` token on a space no token of that kind shows
    (Components: each token shows a board space; 2.c, 5.a "placed according to their
    coordinates"), naming the spaces they do show.  An edition listing no token of ``kind``
    cannot say, and refuses nothing."""
    printed = token_spaces(b, kind)
    if printed and at not in printed:
        raise IllegalMove("not_on_token", f"No {kind} token shows {b.label(at)}: the {kind} tokens show "
                          f"{', '.join(b.label(h) for h in printed)}.")


def discarded_token_spaces(pos: Position, kind: str) -> set[Hex]:
    """The spaces shown by the ``kind`` tokens taken off the board and not yet replaced
    (``pos.vacated_substrates``): those tokens are discarded (5.a), so no new token shows them.
    Tokens discarded earlier in the game are not tracked (docs/rules.md)."""
    return {h for k, h in pos.vacated_substrates if k == kind}


def drawable_token_spaces(b: Board, kind: str) -> list[Hex]:
    """The spaces the next ``kind`` token may show (:func:`token_spaces` without the tokens just
    discarded, :func:`discarded_token_spaces`), in label order; a space holding a tree, a spore
    or a substrate is kept (the table drew it and must be told to draw another)."""
    gone = discarded_token_spaces(b.pos, kind)
    return [h for h in token_spaces(b, kind) if h not in gone]


def token_space_holds(pos: Position, at: Hex) -> str | None:
    """What keeps a new substrate token off ``at``, in words (``"a tree"``, ``"blue's spore"``,
    ``"a soil substrate"``), or ``None`` when a token may land there.  2.c and 5.a: a token
    falling on a tree is discarded and another drawn; the same holds for a spore or a
    substrate (docs/rules.md).  A tile, rock or meeple does not stop it: it is cleared."""
    if at in pos.trees:
        return "a tree"
    owner = pos.spore_owner(at)
    if owner is not None:
        return f"{owner}'s spore"
    if at in pos.substrates:
        return f"a {pos.substrates[at]} substrate"
    return None


def token_spaces(b: Board, kind: str) -> list[Hex]:
    """The board spaces printed on the edition's ``kind`` tokens (Components: 18 of each),
    each once, in label order; a space a token may not land on now is kept (the table drew it
    and must be told to draw another, :func:`token_space_holds`)."""
    spaces = {h for h in b.edition.substrate_tokens.get(kind, ()) if b.on_board(h)}
    return sorted(spaces, key=lambda h: label_order(b.label(h)))


def label_order(label: str) -> tuple[str, int, str]:
    """Sort key of a space label: ``A1 .. A9, A10, B1 ..`` (letters, then the number)."""
    letters = label.rstrip("0123456789")
    digits = label[len(letters):]
    return (letters, int(digits) if digits else 0, label)


def tokens_due(b: Board) -> list[str]:
    """The substrate kinds whose new token must be laid before the active player's turn ends
    (5.a "randomly replaced with another of the same colour"; 4.a.2 "Then another Substrate
    must be placed"), oldest first: every kind waiting in play that some token of the edition
    can still land on now.  A kind no token can reach (every printed space holds a tree, a spore
    or a substrate) waits without holding up the turn.  Empty during the set-up (its tokens are
    refused by ``setup_order`` instead, 2.c)."""
    pos = b.pos
    if pos.in_setup or setup_tokens_pending(pos):
        return []
    return [k for k in pos.pending_substrates
            if not b.edition.substrate_tokens.get(k)
            or any(token_space_holds(pos, h) is None for h in drawable_token_spaces(b, k))]


def token_words(b: Board, kind: str, nth: int = 0) -> str:
    """The ``nth`` due token of ``kind`` in words: ``"the wood substrate token drawn to replace
    the one at D4"``, or ``"a new wood substrate token"`` when the replaced space is not known
    (a position file without ``pending.vacated``)."""
    spaces = [h for k, h in b.pos.vacated_substrates if k == kind]
    if nth < len(spaces):
        return f"the {kind} substrate token drawn to replace the one at {b.label(spaces[nth])}"
    return f"a new {kind} substrate token"


def substrate_due_message(b: Board) -> str:
    """The sentence refusing ``end_turn`` while tokens are due (:func:`tokens_due`): ``"Lay the
    wood substrate token drawn to replace the one at D4 (5.a): draw a token and put it on its
    space."``"""
    how = "draw a token and put it on its space" if len(tokens_due(b)) == 1 else "draw the tokens and put each on its space"
    return f"Lay {due_tokens_words(b)} (5.a): {how}."


def due_tokens_words(b: Board) -> str:
    """Every token due (:func:`tokens_due`) in words, joined: ``"the wood substrate token drawn
    to replace the one at D4 and a new soil substrate token"``; ``""`` when none is due."""
    due = tokens_due(b)
    return and_list([token_words(b, k, due[:i].count(k)) for i, k in enumerate(due)]) if due else ""


def gift_amounts(pos: Position) -> tuple[int, ...]:
    """How many nutrients one gift may hold now: ``(1,)``, or ``(1, 2)`` once the team has
    accomplished the Funga mission (rulebook 5.c "ONE nutrient", 7.b "two at once").  The
    dashboard's Give dialog offers these amounts and no others."""
    return (1, 2) if "funga" in pos.missions else (1,)


def gift_receivers(pos: Position, giver: str) -> list[str]:
    """The players ``giver`` may give nutrients to in this game's mode, in turn order: the
    teammate in team play (9.b "give nutrients to their teammate", never an opponent), every
    other player in cooperative play (5.c "to another"), and in competitive play every other
    player with the table rule ``give_in_competitive`` (default on), nobody without it.  Whether
    a gift can be made now also depends on the networks (5.c, 7.a): :func:`check` says."""
    if pos.mode == "competitive" and not option(pos.options, "give_in_competitive"):
        return []
    side = pos.teammates(giver) if pos.mode == "team" else pos.colors
    return [c for c in side if c != giver]


def gift_offer(pos: Position, edition: Edition | None = None) -> dict[str, Any] | None:
    """What the active player may put in a gift now, for the dashboard's Give dialog:
    ``{"player", "to": the receivers :func:`check` accepts a one-cube gift to now, "refused":
    [{"player", "reason", "message"}] for every other player of the mode's receivers
    (:func:`gift_receivers`: not on one network, 5.c; the gift already made this turn...),
    "held": {colour: cubes held, > 0}, "amounts": the cube counts one gift may hold
    (:func:`gift_amounts`) that the player can pay}``; ``None`` during the set-up and once the
    game is over.  A giver holding no cube has no receiver (each is refused for it).  A gift
    of two may mix colours (7.b "any two nutrients")."""
    if pos.result is not None or pos.in_setup:
        return None
    giver = pos.active
    held = {k: n for k, n in pos.nutrients[giver].items() if n > 0}
    probe = next(iter(held), "pink")   # the colour changes nothing but whether it is held
    to: list[str] = []
    refused: list[dict[str, Any]] = []
    for receiver in gift_receivers(pos, giver):
        v = check(pos, {"player": giver, "action": "give", "to": receiver, "nutrients": {probe: 1}}, edition)
        if v.legal:
            to.append(receiver)
        else:
            refused.append({"player": receiver, "reason": v.reason, "message": v.message})
    return {"player": giver, "to": to, "refused": refused, "held": held,
            "amounts": [a for a in gift_amounts(pos) if a <= sum(held.values())]}


def _v_give(b: Board, m: Move) -> None:
    pos, ed = b.pos, b.edition
    target = m.give
    if target == m.player:
        raise IllegalMove("give_to_self", "You cannot give nutrients to yourself: name another player (5.c).")
    if target not in pos.colors:
        raise IllegalMove("unknown_player", f"{target} is not another player at this table.")
    if target not in gift_receivers(pos, m.player):
        if pos.mode == "team":
            raise IllegalMove("not_teammate", f"{target} is not your teammate: in team play nutrients go to "
                              f"your teammate only ({and_list(gift_receivers(pos, m.player))}, 9.b).")
        raise IllegalMove("not_teammate", f"Table rule: nutrients are not given to opponents ({target}) in this game.")
    amount = sum(m.nutrients.values())
    short = economy.shortfall(pos.nutrients[m.player], m.nutrients)
    shared = _share_network(b, m.player, target)
    green = _on_green(b, m.player) and _on_green(b, target)
    symbiosis = "forest_symbiosis" in pos.missions
    if amount > 2:
        raise IllegalMove("wrong_payment", "At most two nutrients can be given at once (two only with the Funga mission, 7.b).")
    if amount == 2 and 2 not in gift_amounts(pos):
        raise IllegalMove("mission_locked", "Giving two nutrients at once needs the Funga mission (7.b); otherwise give one.")
    if not shared:
        if not (symbiosis and green):
            if symbiosis:
                raise IllegalMove("not_same_network", f"You and {target} share no network, and you are not both on green mycelium.")
            raise IllegalMove("not_same_network", f"You and {target} are not on the same mycelium network.")
    if short:
        raise IllegalMove("insufficient_nutrients", f"You lack {_cubes(short)}.")
    if pos.nutrient_total(target) + amount > ed.nutrient_cap and option(pos.options, "refuse_gift_over_cap"):
        raise IllegalMove("nutrient_cap", f"Table rule: {target} would hold more than {ed.nutrient_cap} nutrients.")


def _share_network(b: Board, a: str, c: str) -> bool:
    """Both meeples stand on one network of some colour (5.c); a meeple on its spore is on
    the networks touching that spore."""
    pa, pc = b.pos.meeples.get(a), b.pos.meeples.get(c)
    if pa is None or pc is None:
        return False
    for color in tilecodes.COLORS.values():
        starts = b.meeple_starts(a, color)
        if not starts:
            continue
        reached = b.graph.walk(starts, color, frozenset(), frozenset([a, c]))
        if any(n[0] == pc for n in reached):
            return True
    return False


def _on_green(b: Board, color: str) -> bool:
    at = b.pos.meeples.get(color)
    return at is not None and at in b.pos.tiles and "green" in tilecodes.parse(b.pos.tiles[at]).colors()


def _v_swap(b: Board, m: Move) -> None:
    pos, ed = b.pos, b.edition
    if not economy.effects_of(pos, ed, m.player)["swap_nutrient"]:
        raise IllegalMove("no_swap_card", "Swapping a nutrient's colour needs a Swap Nutrient Color card.")
    if "swap" in pos.taken:
        raise IllegalMove("swap_already_used", "You already swapped a nutrient this turn.")
    if m.give == m.take:
        raise IllegalMove("wrong_payment", "Swap one colour for a different one.")
    if pos.nutrients[m.player][m.give] < 1:
        raise IllegalMove("insufficient_nutrients", f"You have no {m.give} nutrient to swap.")
    if economy.supply(pos, ed)[m.take] < 1:
        raise IllegalMove("supply_empty", f"The supply has no {m.take} nutrient left.")


def _v_buy(b: Board, m: Move) -> None:
    pos = b.pos
    card = b.edition.cards.get(m.card)
    if card is None:
        raise IllegalMove("card_unknown", f"The edition has no card {m.card}.")
    if m.card not in pos.market.get(card.deck, []):
        raise IllegalMove("card_not_in_market", f"{card.name} ({m.card}) is not face up in the market.")
    if "place" not in pos.taken:
        if has_place_action(pos, b.edition):
            raise IllegalMove("must_place_or_discard", "Purchases come last in the turn (Turn Sequence Summary 2): "
                              "place or discard a tile first.")
    limit = option(pos.options, "max_purchases_per_turn")
    if pos.taken.count("buy") >= limit:
        raise IllegalMove("purchase_limit", f"You may buy {limit} mushroom card(s) per turn.")
    plan_purchase(b, m)  # raises IllegalMove with the exact reason


def _v_reveal(b: Board, m: Move) -> None:
    """2.d, 6: the card turned up must be one of that deck's face-down cards."""
    pos, ed = b.pos, b.edition
    deck = m.deck.upper()
    card = ed.cards.get(m.card)
    if card is None:
        raise IllegalMove("card_unknown", f"The edition has no card {m.card!r}: pick one of deck {deck}'s cards.")
    name = f"{card.name} ({m.card})"
    if card.deck != m.deck:
        raise IllegalMove("card_not_in_deck", f"{name} is a card of deck {card.deck.upper()}, not of deck {deck}.")
    if len(pos.market[m.deck]) >= MARKET_SIZE:
        raise IllegalMove("no_free_market_slot", f"Deck {deck}'s row already shows {MARKET_SIZE} cards.")
    if pos.decks[m.deck] <= 0:
        raise IllegalMove("card_not_in_deck", f"Deck {deck} is empty: no card is left to turn up.")
    if m.card in pos.market[m.deck]:
        raise IllegalMove("card_not_in_deck", f"{name} is already face up in the market, not in the deck.")
    owner = next((c for c, held in pos.cards.items() if m.card in held), None)
    if owner is not None:
        raise IllegalMove("card_not_in_deck", f"{name} was bought by {owner}: it is no longer in the deck.")


_VALIDATE = {
    "spore": _v_spore, "place": _v_place, "rock": _v_rock, "discard": _v_discard, "move": _v_move,
    "remove": _v_remove, "spore_ability": _v_spore_ability, "relocate": _v_relocate, "draw": _v_draw,
    "end_turn": _v_end_turn, "substrate": _v_substrate, "give": _v_give, "swap": _v_swap, "buy": _v_buy,
    "reveal": _v_reveal,
}


# --- application --------------------------------------------------------------------------

def _cubes(cost: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in cost.items() if v) or "nothing"


def describe(b: Board, m: Move) -> str:
    """A one-line account of a move for the log, in words (``blue places a pink tile at E6,
    turned twice``): tile codes stay in the move's JSON."""
    who = m.player
    from companion.wording import placement_words, tile_words
    if m.action == "place":
        return f"{who} places {placement_words(m.tile, b.label(m.at), m.rotation)}"
    if m.action == "rock":
        return f"{who} places a rock at {b.label(m.at)}"
    if m.action == "discard":
        return f"{who} discards {tile_words(m.tile)}"
    if m.action == "move":
        return f"{who} moves along {m.color} to {b.label(m.to)}"
    if m.action == "remove":
        return f"{who} removes the {'tile' if m.at in b.pos.tiles else 'rock'} at {b.label(m.at)}"
    if m.action == "spore_ability":
        return f"{who} flips the spore: " + ("redraws the hand" if m.mode == "redraw" else f"relocates to {b.label(m.to)}")
    if m.action in ("spore", "relocate"):
        return f"{who} puts the spore on {b.label(m.at or m.to)}"
    if m.action == "draw":
        return f"{who} draws {tile_words(m.tile)}"
    if m.action == "end_turn":
        return f"{who} ends the turn"
    if m.action == "substrate":
        return f"a {m.kind} substrate token lands on {b.label(m.at)}"
    if m.action == "give":
        return f"{who} gives {_cubes(m.nutrients)} to {m.give}"
    if m.action == "swap":
        return f"{who} swaps a {m.give} nutrient for a {m.take} one"
    if m.action == "buy":
        card = b.edition.cards.get(m.card)
        return f"{who} buys {card.name if card else m.card} ({m.card})"
    if m.action == "reveal":
        card = b.edition.cards.get(m.card)
        return f"{card.name if card else 'card'} ({m.card}) is turned face up on deck {m.deck.upper()}"
    return f"{who} {m.action}"


def _a_spore(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    pos.spores[m.player] = Spore(m.at, False)
    pos.meeples[m.player] = m.at
    waiting = [c for c in pos.colors if pos.spores.get(c) is None]
    pos.active = waiting[0] if waiting else pos.colors[0]


def _a_place(b: Board, m: Move, notes: list[str]) -> None:
    pos, ed = b.pos, b.edition
    placed = tilecodes.rotate_code(m.tile, m.rotation)
    joined = _connections(tilecodes.parse(placed), b.frontier(m.player).get(m.at, set()))
    pos.hands[m.player].pop(_hand_index(pos.hands[m.player], m.tile))
    pos.tiles[m.at] = placed
    pos.taken.append("place")
    b.invalidate()
    kind = pos.substrates.get(m.at)
    if kind and SUBSTRATE_COLOR[kind] in joined:
        # Substrate degradation (5.a): 2 cubes of its colour, +1 per degradation bonus card.
        del pos.substrates[m.at]
        n = 2 + economy.effects_of(pos, ed, m.player)[economy.DEGRADATION_BONUS[kind]]
        economy.gain(pos, ed, m.player, SUBSTRATE_COLOR[kind], n, f"{kind} substrate degraded", notes)
        _vacate(pos, kind, m.at)
        notes.append(f"a new {kind} substrate token must be drawn")
    elif kind:
        del pos.substrates[m.at]
        _vacate(pos, kind, m.at)
        notes.append(f"the {kind} substrate under the tile is covered without nutrients (table rule) and replaced")
    _form_mycorrhizae(b, m, placed, joined, notes)


def _form_mycorrhizae(b: Board, m: Move, placed: str, joined: set[str], notes: list[str]) -> None:
    """Mycorrhizae (5.b): each green path of the new tile facing a tree forms one."""
    pos, ed = b.pos, b.edition
    tile = tilecodes.parse(placed)
    ids = economy.tree_ids(pos, ed)
    for e, color in enumerate(tile.edge_color):
        tree_at = m.at.neighbor(e)
        if color != "green" or tree_at not in pos.trees:
            continue
        if option(pos.options, "mycorrhiza_needs_continuity") and "green" not in joined:
            continue
        slots = pos.trees[tree_at]
        name = f"tree {ids.get(tree_at, '?')}"
        if economy.markers_left(pos, m.player) <= 0:
            # Components: 8 markers per colour; without a marker no mycorrhiza is formed.
            notes.append(f"{m.player} has no mycorrhiza marker left ({economy.MARKERS_PER_COLOR} per colour): "
                         f"no mycorrhiza with {name}")
            continue
        if None in slots:
            slots[slots.index(None)] = m.player
            for k in b.pick(m.player, 1, ("pink", "yellow", "white"), f"mycorrhiza with {name}", notes):
                economy.gain(pos, ed, m.player, k, 1, f"mycorrhiza with {name}", notes)
            bonus = economy.effects_of(pos, ed, m.player)["mycorrhizal_bonus_nutrient"]
            for k in b.pick(m.player, bonus, ("pink", "yellow"), "Mycorrhizal Bonus Nutrient", notes) if bonus else []:
                economy.gain(pos, ed, m.player, k, 1, "Mycorrhizal Bonus Nutrient", notes)
            if None not in slots:
                # Full tree: every marker owner gains 1 per marker, each of their choice.
                for owner in sorted(set(slots), key=pos.colors.index):
                    count = slots.count(owner)
                    for k in b.pick(owner, count, ("pink", "yellow", "white"), f"{name} is full", notes):
                        economy.gain(pos, ed, owner, k, 1, f"{name} is full", notes)
        else:
            others = [c for c in slots if c != m.player]
            if not others:
                notes.append(f"{name} is full of {m.player}'s markers; no mycorrhiza formed")
                continue
            victim = m.replace if m.replace in others else others[0]
            slots[slots.index(victim)] = m.player
            notes.append(f"{m.player} replaces {victim}'s mycorrhiza marker on {name} (no nutrient)")


def _a_rock(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    pos.hands[m.player].remove(tilecodes.ROCK)
    pos.taken.append("place")
    at = m.at
    clear_space(b, at, notes, "crushed by a rock")
    kind = pos.substrates.pop(at, None)
    if kind:
        _vacate(pos, kind, at)
        notes.append(f"the {kind} substrate at {b.label(at)} is discarded without nutrients; a new one must be drawn")
    owner = pos.spore_owner(at)
    if owner is not None:
        pos.spores[owner].at = None
        if pos.meeples.get(owner) == at:
            pos.meeples[owner] = None
        notes.append(f"{owner}'s spore is displaced and must be relocated to a starting space")
    pos.rocks.add(at)


def _a_discard(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    code = pos.hands[m.player].pop(_hand_index(pos.hands[m.player], m.tile))
    pos.discard.append(tilecodes.canonical(code))
    pos.taken.append("place")


def _a_move(b: Board, m: Move, notes: list[str]) -> None:
    b.pos.meeples[m.player] = m.to
    b.pos.taken.append("move")


def _a_remove(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    name, cost = _removal_cost(b, m.at)
    payment = m.pay if m.pay is not None else _removal_payment(b, m, name, cost)
    economy.pay(pos, m.player, payment, name, notes)
    clear_space(b, m.at, notes, name)
    pos.taken.append("remove")


def _removal_payment(b: Board, m: Move, name: str, cost: int) -> dict[str, int]:
    """The cubes a removal without ``pay`` takes: the largest stacks (docs/rules.md).

    4.c: Mycophages cost "any 1 nutrient", Lichens "any 2 nutrients", so the player chooses
    which cubes.  When that is a real choice (more than one colour held and more cubes than
    the cost) it is recorded in :attr:`Board.asked` as a ``"pay"`` entry so the table asks;
    with one colour held, or exactly ``cost`` cubes, the payment is forced.
    """
    held = b.pos.nutrients[m.player]
    colors = [k for k in NUTRIENT_COLORS if held.get(k, 0) > 0]
    if len(colors) > 1 and sum(held.values()) > cost:
        what = "tile" if m.at in b.pos.tiles else "rock"
        b.asked.append({"player": m.player, "kind": "pay", "count": cost, "colors": colors,
                        "why": f"{name.capitalize()}: the {what} at {b.label(m.at)} (4.c)"})
    return economy.any_payment(held, cost)


def _a_spore_ability(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    spore = pos.spores[m.player]
    spore.used = True
    pos.taken.append("spore")
    if m.mode == "redraw":
        hand = pos.hands[m.player]
        i = hand.index(tilecodes.ROCK) if m.discard == tilecodes.ROCK else _hand_index(hand, m.discard)
        pos.discard.append(tilecodes.canonical(hand.pop(i)))
        for code in hand:
            pos.bag += 1
            if pos.bag_tiles is not None:
                pos.bag_tiles[tilecodes.canonical(code)] += 1
        notes.append(f"{len(hand)} tile(s) go back into the bag")
        hand.clear()
    else:
        spore.at = m.to
        pos.meeples[m.player] = m.to


def _a_relocate(b: Board, m: Move, notes: list[str]) -> None:
    b.pos.spores[m.player].at = m.to
    if b.pos.meeples.get(m.player) is None:
        b.pos.meeples[m.player] = m.to


def _a_draw(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    pos.hands[m.player].append(m.tile)
    pos.bag -= 1
    if pos.bag_tiles is not None:
        pos.bag_tiles[tilecodes.canonical(m.tile)] -= 1
        if pos.bag_tiles[tilecodes.canonical(m.tile)] == 0:
            del pos.bag_tiles[tilecodes.canonical(m.tile)]
    if pos.bag == 0:
        notes.append("the last tile has been drawn from the bag")
        pos.result = final_result(pos, b.edition, "the last tile was drawn from the bag")


def _a_end_turn(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    i = pos.colors.index(pos.active)
    pos.active = pos.colors[(i + 1) % len(pos.colors)]
    if i + 1 == len(pos.colors):
        pos.turn_number += 1
    pos.taken = []


def _vacate(pos: Position, kind: str, at: Hex) -> None:
    """A substrate of ``kind`` left ``at`` in play: its replacement token is due (5.a)."""
    pos.pending_substrates.append(kind)
    pos.vacated_substrates.append((kind, at))


def _a_substrate(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    pos.pending_substrates.remove(m.kind)
    # the token replaces the oldest substrate of its kind taken off the board
    gone = next((v for v in pos.vacated_substrates if v[0] == m.kind), None)
    if gone is not None:
        pos.vacated_substrates.remove(gone)
    clear_space(b, m.at, notes, f"a {m.kind} substrate lands there")
    pos.substrates[m.at] = m.kind


def _a_give(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    for k, v in m.nutrients.items():
        pos.nutrients[m.player][k] -= v
        pos.nutrients[m.give][k] += v
    pos.taken.append("give")


def _a_swap(b: Board, m: Move, notes: list[str]) -> None:
    pos = b.pos
    pos.nutrients[m.player][m.give] -= 1
    pos.nutrients[m.player][m.take] += 1
    pos.taken.append("swap")


def _a_buy(b: Board, m: Move, notes: list[str]) -> None:
    execute_purchase(b, m, notes)


def _a_reveal(b: Board, m: Move, notes: list[str]) -> None:
    b.pos.market[m.deck].append(m.card)
    b.pos.decks[m.deck] -= 1


_describe = describe  # the old private name, kept for existing callers (companion/table/live.py)


_APPLY = {
    "spore": _a_spore, "place": _a_place, "rock": _a_rock, "discard": _a_discard, "move": _a_move,
    "remove": _a_remove, "spore_ability": _a_spore_ability, "relocate": _a_relocate, "draw": _a_draw,
    "end_turn": _a_end_turn, "substrate": _a_substrate, "give": _a_give, "swap": _a_swap, "buy": _a_buy,
    "reveal": _a_reveal,
}


def _after_move(b: Board, m: Move, notes: list[str]) -> None:
    """Missions and victory checks after every move (rulebook 7 and 8)."""
    pos = b.pos
    if pos.result is not None or pos.in_setup:
        _settle_caps(b, m, notes)
        return
    b.invalidate()
    check_missions(b, notes)
    _settle_caps(b, m, notes)
    res = early_result(pos, b.edition)
    if res is not None:
        pos.result = res
        notes.append(res["reason"])


def _settle_caps(b: Board, m: Move, notes: list[str]) -> None:
    """Everyone above the cap discards down to it, by the move's ``drop`` or the most
    plentiful colour (rulebook 5; docs/rules.md)."""
    for color in b.pos.colors:
        over = b.pos.nutrient_total(color) - b.edition.nutrient_cap
        if over <= 0:
            continue
        default = economy.settle_cap(b.pos, b.edition, color, m.drop.get(color), notes)
        if default:
            b.asked.append({"player": color, "kind": "discard", "count": sum(default.values()),
                            "colors": sorted(k for k, v in b.pos.nutrients[color].items() if v or default.get(k)),
                            "why": f"cap of {b.edition.nutrient_cap} nutrients"})
