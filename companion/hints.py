""""What can I do?": the greedy bot's next action for the active player, with its reason in
words, and for every face-up card the shortest plan to afford it.  A card it calls buyable now
is one the suggested turn buys (the bot's turn is played ahead on a copy); an affordable card
says when the rules take the purchase and, when the suggested turn does not buy it, why
(docs/rules.md, "Hints").

Off by default at the table (table rule ``hints``): some groups do not want it.  The command
line ``mycelium-companion hint --position P.json`` always answers.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from companion import economy, movegen
from companion.bots import GreedyBot
from companion.edition import SUBSTRATE_COLOR, Edition
from companion.hexgrid import Hex, distance
from companion.options import option
from companion.position import Position
from companion.purchase import can_buy
from companion.rules import Board, IllegalMove, apply, check, due_tokens_words
from companion.setup_steps import setup_steps, setup_tokens_pending, tokens_to_lay
from companion.tiles import ROCK, rotate_code
from companion.tiles import parse as parse_tile
from companion.wording import and_list, mission_title, tile_words

SOURCE = {"pink": "wood", "yellow": "soil"}


AFTER_PLACEMENT = "can be bought after you place or discard a tile"
"""What a card plan says of a card the player can afford at the start of the turn: the engine
takes a purchase only once a tile is placed or discarded (Turn Sequence Summary 2; rules
``must_place_or_discard``)."""


WAITS = ", but the suggestion waits"
"""What a card plan adds to an affordable card the suggested turn does not buy; why follows."""


@dataclass
class CardPlan:
    """What ``player`` still needs for ``card``, step by step, and whether the hint's
    suggestion buys it.

    ``when``: ``"now"`` when the rules take the purchase now, ``"after_placement"`` when the
    player can afford it but has still to place or discard a tile (Turn Sequence Summary 2),
    ``None`` when it is not affordable (``steps`` then say what is missing).  ``wait``: why the
    suggested turn does not buy an affordable card (the greedy bot's
    :meth:`~companion.bots.GreedyBot.purchase_verdict`, or the engine's refusal), else
    ``None``.  ``can_buy``: the card can be bought now and the suggested action or the
    suggestion's next actions this turn buy it."""

    card: str
    name: str
    vp: int
    can_buy: bool
    steps: list[str] = field(default_factory=list)
    when: str | None = None
    wait: str | None = None

    def status(self) -> str | None:
        """An affordable card's state in words: "can be bought now" only for the card the
        suggested turn buys now (:attr:`can_buy`), "affordable now, but the suggestion waits"
        for one the rules take now and the suggested turn does not buy, "can be bought after
        you place or discard a tile" (with ", but the suggestion waits" when the suggested turn
        does not buy it), or "cannot be bought this turn" (the engine refuses); ``wait`` says
        why it waits.  ``None`` for a card still to afford (its ``steps`` say what is missing);
        docs/rules.md "Hints"."""
        if self.when is None:
            return "cannot be bought this turn" if self.wait else None
        if self.wait is None:
            return {"now": "can be bought now", "after_placement": AFTER_PLACEMENT}[self.when]
        return {"now": "affordable now", "after_placement": AFTER_PLACEMENT}[self.when] + WAITS

    def in_words(self) -> str:
        """The card's line of the hint: its :meth:`status` and why the suggestion waits, or
        its steps."""
        state = self.status()
        if state is None:
            return "; ".join(self.steps)
        return f"{state}: {self.wait}" if self.wait else state

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "name": self.name, "vp": self.vp, "can_buy": self.can_buy, "when": self.when,
                "wait": self.wait, "status": self.status(), "steps": self.steps}


@dataclass
class TurnAhead:
    """The greedy bot's actions for the rest of the active player's turn, each applied with
    the bot's choices: ``moves`` (the suggestion first), ``last`` (the position where the bot
    reaches the purchase step: before its purchase, or where it has nothing more to do) and
    ``bought`` (the card its turn buys, or ``None``)."""

    moves: list[dict[str, Any]]
    last: Position
    bought: str | None = None


TURN_ENDS = ("draw", "end_turn")
"""Actions of the table or of the turn's end: the turn ahead stops before them."""


def turn_ahead(pos: Position, ed: Edition, bot: GreedyBot, first: dict[str, Any] | None) -> TurnAhead:
    """Play the bot's turn on copies of ``pos`` from ``first`` (its suggestion; ``None``:
    nothing to do) until it buys a card, has nothing more to do or the turn ends (4, 6).
    A substrate token a degradation leaves to draw (5.a) stays pending: it holds up no
    action.  Raises nothing: a refused action (a bug of the bot) ends the turn ahead."""
    moves: list[dict[str, Any]] = []
    at, mv = pos, first
    for _ in range(8):   # each action fills a slot of the turn, so this ends
        if mv is None or mv["action"] in TURN_ENDS:
            break
        if mv["action"] == "buy":
            return TurnAhead(moves + [mv], at, mv["card"])
        mv = bot.choose(at, ed, mv)
        try:
            at = apply(at, mv, ed).position
        except IllegalMove:
            break
        moves.append(mv)
        mv = bot.next_action(at, ed)
    return TurnAhead(moves, at)


def _clause(message: str, names: list[str] | tuple[str, ...] = ()) -> str:
    """An engine message ("You may buy 1 mushroom card(s) per turn.") as a clause; one that
    opens with one of ``names`` (a card's printed name) keeps its capital."""
    if any(message.startswith(n) for n in names):
        return message.rstrip(".")
    return (message[:1].lower() + message[1:]).rstrip(".")


def _card_names(ed: Edition) -> list[str]:
    """The cards' printed names: an engine message opening with one keeps it as printed."""
    return [c.name for c in ed.cards.values()]


def _when(pos: Position, ed: Edition, player: str, card: str) -> tuple[str | None, str | None]:
    """``(when, refusal)`` for a card ``player`` can afford (:func:`can_buy`): ``"now"``
    when the engine takes the purchase, ``"after_placement"`` when it asks for the placement
    or discard first (Turn Sequence Summary 2), else ``None`` with the engine's refusal."""
    verdict = check(pos, {"player": player, "action": "buy", "card": card}, ed)
    if verdict.legal:
        return "now", None
    if verdict.reason == "must_place_or_discard":
        return "after_placement", None
    return None, _clause(verdict.message, _card_names(ed))


def _wait(ed: Edition, bot: GreedyBot, turn: TurnAhead, player: str, card: str) -> str | None:
    """Why the turn ahead does not buy ``card``, an affordable card: the bot's
    :meth:`~companion.bots.GreedyBot.purchase_verdict` where its turn reaches the purchase
    step, or the card it buys instead, or the spore ability that ends the turn (4.d); ``None``
    when it buys ``card``."""
    if turn.bought == card:
        return None
    if any(m["action"] == "spore_ability" for m in turn.moves):
        return "the suggested spore ability ends the turn (4.d)"
    if turn.bought is not None:   # the card it buys is the reason, whatever the bot thinks of this one
        other = ed.cards[turn.bought]
        one = " (one mushroom card a turn)" if option(turn.last.options, "max_purchases_per_turn") == 1 else ""
        return f"the suggestion buys {other.name} ({turn.bought}, {other.vp} VP) this turn instead{one}"
    buys, why = bot.purchase_verdict(turn.last, ed, player, card)
    names = _card_names(ed)
    if not buys and turn.moves and not can_buy(turn.last, ed, player, card).can_buy:
        return f"after the suggested actions it is no longer affordable: {_clause(why, names)}"
    if not buys:
        return _clause(why, names)
    return "the suggested turn ends before the purchase"


@dataclass
class Hint:
    """The suggested action (a move document, or ``None`` when the turn is done), why, and
    the plan for every face-up card."""

    player: str
    move: dict[str, Any] | None
    reason: str
    cards: list[CardPlan]
    goals: list[str] = field(default_factory=list)
    """Cooperative: what the team still lacks for the win (8), one sentence per mission not yet
    accomplished (7) and one for the VP target; empty in the other modes."""

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "move": self.move, "reason": self.reason,
                "cards": [c.to_json() for c in self.cards], "goals": self.goals}


def tree_name(pos: Position, ed: Edition, at: Hex) -> str:
    """``tree B (D5)``: a tree by its letter, as the dashboard's Goals tab names it, and its
    space's printed label."""
    return f"tree {economy.tree_ids(pos, ed).get(at, '?')} ({ed.label(at)})"


def team_goals(pos: Position, ed: Edition) -> list[str]:
    """Cooperative (7, 8): one sentence per mission not yet accomplished, with its progress as
    the Goals tab gives it, and the team's victory points against the difficulty's target.
    Empty in the other modes."""
    if pos.mode != "cooperative" or not pos.difficulty:
        return []
    out = [f"{mission_title(m.mission)} (7): {m.detail}"
           for m in economy.missions(pos, ed) if not m.done]
    total = sum(economy.victory_points(pos, ed, c) for c in pos.colors)
    target = ed.cooperative_vp[pos.difficulty]
    if total < target:
        out.append(f"victory points (8): the team has {total} of {target}")
    return out


def _reach(b: Board, who: str, color: str | None = None) -> list[Hex]:
    """Where ``who`` can grow next: the spaces of their own frontier (from where their meeple
    stands, 4.a.1), only those a ``color`` path or their spore joins when ``color`` is given
    and the table asks a substrate to be joined in its colour (5.a); with nothing to grow from
    yet (no spore placed), empty."""
    front = b.frontier(who)
    if color is not None and option(b.pos.options, "substrate_requires_matching_color"):
        joined = [h for h, ends in front.items() if any(c in (color, None) for _, c in ends)]
        if joined:
            return joined
    return list(front) or [h for h in [b.pos.meeples.get(who)] if h is not None]


def _cost(reach: list[Hex], at: Hex) -> int:
    return min((distance(f, at) for f in reach), default=0)


def _assign(demands: list[tuple[str, list[Hex]]], spots: list[Hex]) -> list[Hex | None]:
    """One spot per demand (``(payer, reach)``), no spot twice, with the least total distance
    from each payer's own reach (Hungarian method, scipy's ``linear_sum_assignment``); a demand
    left without a spot (more demands than spots) gets ``None``."""
    out: list[Hex | None] = [None] * len(demands)
    if not demands or not spots:
        return out
    cost = np.array([[_cost(reach, s) for s in spots] for _, reach in demands], dtype=np.int64)
    for row, col in zip(*linear_sum_assignment(cost)):
        out[row] = spots[col]
    return out


def _tiles_first(who: str, player: str, n: int) -> str:
    """How far a substrate or tree is, said the same way for both: the tiles ``who`` must grow
    before the space of the tile that degrades the substrate (laid on it, 5.a) or forms the
    mycorrhiza (laid beside the tree, 5.b) is in reach; 0: in reach now.  A distance, not a
    promise: whether a tile in hand fits there (its colours facing the right way) is not said."""
    whose = "your" if who == player else f"{who}'s"
    if n == 0:
        return f"in reach of {whose} network now"
    return f"{n} tile(s) for {'you' if who == player else who} to grow first"


def _substrate_steps(b: Board, player: str, short: dict[str, dict[str, int]]) -> list[tuple[str, str, str]]:
    """``(payer, colour, where)`` for the pink and yellow cubes each payer lacks: which substrate
    each degrades (5.a).  One degradation gives 2 cubes of its colour (plus the payer's
    degradation bonus cards, 6) and the token goes (it is replaced at random), so no two payers
    are sent to the same substrate, and a payer lacking more than one degradation gives is sent
    to two."""
    pos, ed = b.pos, b.edition
    out = []
    for color, kind in SOURCE.items():
        wants = [(payer, n) for payer, miss in short.items() for c, n in miss.items() if c == color]
        if not wants:
            continue
        demands = []
        for payer, n in wants:
            per = 2 + economy.effects_of(pos, ed, payer)[economy.DEGRADATION_BONUS[kind]]
            reach = _reach(b, payer, color)
            demands += [(payer, reach)] * -(-n // per)
        spots = sorted(h for h, k in pos.substrates.items() if k == kind)
        got = _assign(demands, spots)
        for payer, n in wants:
            mine = [(s, reach) for (p, reach), s in zip(demands, got) if p == payer]
            placed = [(s, reach) for s, reach in mine if s is not None]
            waiting = len(mine) - len(placed)
            parts = [f"degrade the {kind} substrate at {ed.label(s)} "
                     f"{f'({_tiles_first(payer, player, _cost(reach, s))}) ' if reach else ''}with a {color} tile"
                     for s, reach in placed]
            if waiting and placed:   # one degradation is not enough: its replacement token is next
                parts.append(f"then the {kind} substrate drawn to replace it")
            elif waiting:            # every token of that kind is counted on by another payer above
                parts.append(f"a {kind} substrate once the other payer's is replaced" if spots
                             else f"wait for a {kind} substrate")
            out.append((payer, color, " and ".join(parts) + ", 5.a"))
    return out


def _tree_steps(b: Board, player: str, short: dict[str, dict[str, int]],
                also: frozenset[tuple[str, str]] = frozenset()) -> list[tuple[str, str, str]]:
    """``(payer, colour, where)``: the trees each payer forms mycorrhizae with, 1 cube of their
    choice each (5.b), no free circle counted on twice: for every white cube missing (only
    mycorrhizae give white) and for the ``also`` (payer, colour) pairs no substrate on the board
    supplies now."""
    pos, ed = b.pos, b.edition
    wants = [(payer, color, n) for payer, miss in short.items() for color, n in miss.items()
             if n and (color == "white" or (payer, color) in also)]
    wants.sort(key=lambda w: w[1] != "white")   # only mycorrhizae give white: it takes the circles first
    demands = [(payer, _reach(b, payer)) for payer, _color, n in wants for _ in range(n)]
    circles = sorted(h for h, s in pos.trees.items() for slot in s if slot is None)
    n_white = sum(n for _p, color, n in wants if color == "white")
    got = _assign(demands[:n_white], circles)
    left = list(circles)
    for h in got:
        if h is not None:
            left.remove(h)
    got += _assign(demands[n_white:], left)
    out, start = [], 0
    for payer, color, n in wants:
        mine = [(s, reach) for (_p, reach), s in zip(demands[start:start + n], got[start:start + n])]
        start += n
        per_tree: dict[Hex, list[Hex]] = {}
        for s, reach in mine:
            if s is not None:
                per_tree.setdefault(s, reach)
        parts = []
        for at, reach in per_tree.items():
            k = sum(1 for s, _ in mine if s == at)
            # the tile that forms it lies beside the tree: one space nearer than the tree itself
            away = f"{_tiles_first(payer, player, max(0, _cost(reach, at) - 1))}, " if reach else ""
            parts.append(f"{'form a mycorrhiza' if k == 1 else f'form {k} mycorrhizae'} with {tree_name(pos, ed, at)} "
                         f"(a green path facing it, {away}5.b{'' if color == 'white' else ': a cube of your choice'})")
        if color != "white" and not per_tree:
            continue   # the substrate step stands alone
        if not per_tree:
            parts.append("every tree is full: a gift or a colour swap")
        elif sum(1 for s, _ in mine if s is None):
            parts.append("every other circle is full or counted on above: a gift or a colour swap")
        out.append((payer, color, " and ".join(parts)))
    return out


def card_plans(pos: Position, ed: Edition, player: str, bot: GreedyBot | None = None,
               first: dict[str, Any] | None | EllipsisType = ...) -> list[CardPlan]:
    """For each face-up card: the tiles ``player`` still has to grow and the cubes each payer
    lacks, with where each payer collects them from their own networks: a substrate to degrade
    (5.a, 2 cubes each, none counted on by two payers) or a tree to form mycorrhizae with (5.b,
    1 cube each, up to 4 per tree).  Plans are sorted: fewest steps first, then most VP.

    A card ``player`` can afford says when the rules take the purchase and, when the greedy
    bot's turn (:func:`turn_ahead` from ``first``, the suggested action, ``None`` for nothing
    to do; omitted: ``bot``'s own next action) does not buy it, why it waits.  ``bot`` is
    copied, not changed; omitted: a greedy bot with seed 0, as :func:`hint`'s default."""
    b = Board(pos, ed)
    bot = copy.deepcopy(bot) if bot is not None else GreedyBot(random.Random(0))
    turn = None
    out = []
    for card in economy.face_up_cards(pos, ed):
        a = can_buy(pos, ed, player, card.id)
        if a.can_buy:
            if turn is None:   # played once, and only when a card is affordable: it costs a bot turn
                if first is ...:
                    first = bot.next_action(pos, ed) if player == pos.active and not pos.in_setup else None
                turn = turn_ahead(pos, ed, bot, first)
            when, refused = _when(pos, ed, player, card.id)
            wait = refused or _wait(ed, bot, turn, player, card.id)
            out.append(CardPlan(card.id, card.name, card.vp, when == "now" and wait is None, [], when, wait))
            continue
        steps = []
        if a.missing_tiles:
            need = economy.mycelia_needed(pos, ed, card, player)
            steps.append(f"grow {a.missing_tiles} more {card.mycelia_color} tile(s) on the network your meeple "
                         f"stands on ({need} needed in one network, 6.a)")
        from_substrates = _substrate_steps(b, player, a.missing_nutrients)
        # a colour no substrate on the board gives now comes from a mycorrhiza instead (5.b)
        waiting = frozenset((payer, color) for payer, color, text in from_substrates if text.startswith("wait for"))
        where = {(payer, color): text for payer, color, text in
                 from_substrates + _tree_steps(b, player, a.missing_nutrients, also=waiting)}
        for payer, short in a.missing_nutrients.items():
            who = "you" if payer == player else payer
            for color, n in short.items():
                steps.append(f"{who}: {n} {color} {'cube' if n == 1 else 'cubes'}: {where[payer, color]}")
        out.append(CardPlan(card.id, card.name, card.vp, False, steps))
    out.sort(key=lambda c: (len(c.steps), -c.vp))
    return out


BLUEPRINT_REASON = ("it lays a tile of the network the team plans for Forest Communication, "
                    "every tree on one green network (7.c)")
"""What a hint says of a placement on the team's Forest Communication blueprint."""


def _reason(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot,
            plans: list[CardPlan] | None = None) -> str:
    """Why ``bot`` suggests ``move``, in words, after the move's own account; ``plans``: the
    card plans of the same suggestion (:func:`card_plans`; omitted: made here)."""
    player = move["player"]
    try:
        notes = apply(pos, move, ed).notes
    except IllegalMove as e:   # cannot happen for a bot move; say so rather than guess
        return f"(the suggestion is refused: {e.message})"
    gains = _gains(notes)
    if plans is None:
        plans = card_plans(pos, ed, player, bot, move)
    aim = _aim(pos, ed, move, bot, plans)
    what = notes[0]
    if move["action"] == "buy":
        return f"{what}: you can afford it now"
    if gains and move["action"] != "place":
        return f"{what}: " + "; ".join(gains) + aim
    if move["action"] == "move" and "place" in pos.taken and bot._move_to_plan(Board(pos, ed), player) == move:
        return (f"{what}: from that network you can lay the tile in your hand that the team's Forest "
                f"Communication network needs (7.c)")
    if move["action"] == "spore_ability" and move.get("mode") == "redraw":
        return f"{what}: {_redraw_reason(pos, ed, move, bot)}"
    if move["action"] == "move":
        return f"{what}: from there your hand grows further toward substrates, trees or your next card{aim}"
    if move["action"] == "rock":
        if pos.mode == "cooperative":
            return f"{what}: a rock in hand must be placed some time (4.a.3), here it hurts the team's networks least"
        return f"{what}: a rock in hand must be placed some time (4.a.3), here it hurts least or blocks an opponent"
    if move["action"] == "discard":
        return f"{what}: no tile in hand grows anywhere useful"
    if move["action"] == "remove":
        return f"{what}: {_removal_reason(pos, ed, move, bot)}{aim}"
    if move["action"] == "place":
        return f"{what}: {_placement_payoff(pos, ed, move, bot, notes)}{aim}"
    return what + aim


def _gains(notes: list[str]) -> list[str]:
    """The notes of a move (:attr:`companion.rules.Outcome.notes`, its own account first)
    that say what it scores: cubes gained (5.a, 5.b, 7.c), a mission accomplished (7), a
    meeple returned to its spore."""
    return [n for n in notes[1:] if " gains " in n or "mission accomplished" in n or "returns to its spore" in n]


def _placement_payoff(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot,
                      notes: list[str] | None = None) -> str:
    """What the placement ``move`` achieves, in the hint's scoring words: the cubes it gains
    (a substrate degraded, 5.a; mycorrhizae formed, 5.b) and the team's Forest Communication
    tile it lays (7.c), else the network it extends and the substrate near it.  ``notes``:
    the move's notes when already applied (omitted: applied here)."""
    gains = _gains(notes if notes is not None else apply(pos, move, ed).notes)
    lays_plan = _lays_blueprint(pos, ed, move, bot)
    if gains or lays_plan:
        return "; ".join(gains + ([BLUEPRINT_REASON] if lays_plan else []))
    kind = None
    at = Hex(*move["at"])
    for h, k in pos.substrates.items():
        if distance(h, at) <= 2:
            kind = (h, k)
    near = f", near the {kind[1]} substrate at {ed.label(kind[0])} ({SUBSTRATE_COLOR[kind[1]]})" if kind else ""
    return f"it extends your network{near}"


def _aim(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot, plans: list[CardPlan]) -> str:
    """What ``move`` leads to for the card the bot works toward (its target): "; it works
    toward ..." while it is not affordable, "; then buy ..." when the suggested turn buys it,
    "; ... waits: why" when it is affordable and the turn does not buy it (after the spore
    ability, 4.d, which ends the turn); empty for a purchase."""
    target = bot.target(pos, ed, move["player"])
    if target is None:
        return ""
    card = ed.cards[target.card]
    named = f"{card.name} ({target.card}, {card.vp} VP)"
    plan = next((c for c in plans if c.card == target.card), None)
    if plan is None or (plan.when is None and plan.wait is None):
        return f"; it works toward {named}"
    if move["action"] == "buy":
        return ""
    if plan.wait:
        return f"; {named} waits: {plan.wait}"
    return f"; then buy {named}, which you can afford now"


def _placeable(pos: Position, ed: Edition, player: str) -> set[Hex]:
    """The spaces where ``player`` can lay a tile of their hand now (4.a.1, 5.a)."""
    return {at for _c, _k, _p, at, _j in movegen.placement_options(Board(pos, ed), player)}


def _removal_reason(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot) -> str:
    """Why a removal (4.c), checked against the position with and without it: what the
    placement the bot plays next on a space it opens achieves (:func:`_placement_payoff`),
    else the other spaces where a tile of the hand can be laid after it and not before
    (4.a.1; the freed space itself says nothing: a space holding a tile is opened by removing
    it), the Forest Communication space (7.c) it clears of a tile the plan cannot use, or the
    space it frees for the network to grow into; only what holds is said."""
    player, at = move["player"], Hex(*move["at"])
    after = apply(pos, move, ed).position
    placeable = _placeable(after, ed, player) - _placeable(pos, ed, player)
    turn = turn_ahead(pos, ed, copy.deepcopy(bot), move)
    then = turn.moves[1] if len(turn.moves) > 1 else None
    if then is not None and then["action"] == "place" and Hex(*then["at"]) in placeable:
        return (f"it frees {ed.label(Hex(*then['at']))} for {tile_words(then['tile'])} from your hand, which the "
                f"suggestion lays there next: {_placement_payoff(after, ed, then, bot)}")
    opened = sorted(placeable - {at})
    if opened:
        return (f"it opens {and_list([ed.label(h) for h in opened])} to a tile of your hand, which could not "
                "be laid there before (4.a.1)")
    bp = bot.pending_blueprint(Board(pos, ed))
    if bp is not None and at in bp.spaces and not bp.fits(at, pos.tiles.get(at, ROCK)):
        return (f"{ed.label(at)} is a space of the team's Forest Communication network (7.c) and what "
                "stands there does not fit it")
    if at in placeable:
        return f"{ed.label(at)} is free for a tile of your hand to grow into (4.a.1)"
    if at in Board(after, ed).frontier(player):
        return f"{ed.label(at)} is free for your network to grow into, though no tile in your hand fits there now"
    return "it opens no placement for your hand (4.a.1)"


ORDINALS = ("the first", "the second", "the third", "the fourth", "the fifth")
"""A tile's place in a hand, as the dashboard shows the hand left to right (rulebook 4: three
tiles, more only in a moment of the turn)."""


def _redraw_reason(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot) -> str:
    """Why the cooperative spore redraw (4.d, first option): which space of the team's Forest
    Communication network (7.c) the player reaches, which green path it needs, and why the
    tile named in ``move["discard"]`` is the one that goes."""
    b = Board(pos, ed)
    player, gone = move["player"], move["discard"]
    bp = bot.pending_blueprint(b)
    need = ""
    if bp is not None:
        todo = [h for h in bp.todo(pos) if b.placeable(h)]
        front = b.frontier(player)
        at = next((h for h in todo if h in front), None)
        if at is None:   # the bot's reach also counts one move of the meeple first (4.b)
            after = set()
            for mv in movegen.meeple_moves(b, player):
                moved = pos.copy()
                moved.meeples[player] = Hex(*mv["to"])
                after |= set(Board(moved, ed).frontier(player))
            at = next((h for h in todo if h in after), None)
        if at is not None:
            ids = economy.tree_ids(pos, ed)
            sides = [f"tree {ids[n]}" if n in pos.trees else ed.label(n)
                     for n in (at.neighbor(e) for e in sorted(bp.spaces[at]))]
            shape = "a three-way green path" if len(sides) >= 3 else "a green path"
            reached = "reached from your network" if at in front else "reached after a move"
            need = f"{ed.label(at)} ({reached}) needs {shape} joining {and_list(sides)} for Forest Communication (7.c)"
    if not need:
        need = "a space of the team's Forest Communication network (7.c) that you reach needs a green path"
    if gone == ROCK:
        why = "the rock goes, as no other action may discard one (4.a.3)"
    else:
        three_way = [c for c in pos.hands[player] if c != ROCK
                     and any(len(path.edges) >= 3 for path in parse_tile(c).paths)]
        hand = list(pos.hands[player])
        which = tile_words(gone)
        if sum(tile_words(c) == which for c in hand) > 1:   # say which one, as the dashboard lays the hand out
            i = hand.index(gone)
            which += f" ({ORDINALS[i] if i < len(ORDINALS) else f'number {i + 1}'} in your hand, {gone})"
        why = (f"{which} goes, the tile least worth keeping: "
               + ("it has no three-way path and another does" if three_way and gone not in three_way
                  else "none in hand fits the plan"))
    return f"{need}; no tile in your hand has it and the bag still does (4.d); {why}"


def _lays_blueprint(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot) -> bool:
    """True when the cooperative placement ``move`` lays a tile of the blueprint the simulated
    team follows for Forest Communication (7.c)."""
    bp = bot.pending_blueprint(Board(pos, ed))   # None outside cooperative play or once the mission is done
    return bp is not None and bp.fits(Hex(*move["at"]), rotate_code(move["tile"], move.get("rotation", 0)))


def hint(pos: Position, ed: Edition, seed: int = 0) -> Hint:
    """The hint for the active player of ``pos`` (deterministic for a given ``seed``)."""
    bot = GreedyBot(random.Random(seed))
    player = pos.active
    if pos.result is None and not pos.in_setup and setup_tokens_pending(pos):
        # spores down but the set-up's tokens never laid: the first turn waits for them (2.c, 3)
        return Hint(player, None, f"the set-up comes first: lay {tokens_to_lay(pos)} (2.c)", [], team_goals(pos, ed))
    move = None if pos.result is not None or pos.in_setup else bot.next_action(pos, ed)
    if pos.in_setup:
        # Before the meeples stand, no network or card plan means anything: say what the
        # set-up still needs, and where the spore goes once only the spores are left.
        # The team's goals (7, 8) already hold: the trees and the difficulty are set.
        # The steps the spores wait for are those the rules enforce (rules.check and
        # legal-moves): the substrate tokens (2.c) and the opening draws (3); the market (2.d)
        # may be turned up later and is named beside the spore.
        steps = setup_steps(pos, ed)
        before = [step.text for step in steps if step.key in ("substrates", "draw")]
        if before:
            return Hint(player, None, "the set-up comes first: " + "; ".join(before), [], team_goals(pos, ed))
        move = bot.spore_space(pos, ed)
        reason = (f"{player} puts the spore and the meeple on {ed.label(Hex(*move['at']))}: the starting space "
                  "closest to substrates and trees (3)")
        reason += "".join(f"; still to do: {step.text}" for step in steps if step.key == "market")
        return Hint(player, move, reason, [], team_goals(pos, ed))
    spore = pos.spores.get(player)
    if pos.result is None and spore is not None and spore.at is None:
        # a rock put on the spore pushed it off: the owner puts it back before anything else
        # (4.a.2 "The affected player must relocate the spore"), or the meeple stands nowhere
        move = bot.relocation(pos, ed, player)
        if move is not None:
            reason = (f"{player}'s spore is off the board (a rock was put on it): put it back first, on "
                      f"{ed.label(Hex(*move['to']))}, the starting space closest to substrates and trees, "
                      "with the meeple on it (4.a.2)")
            return Hint(player, move, reason, card_plans(pos, ed, player, bot, move), team_goals(pos, ed))
    plans = card_plans(pos, ed, player, bot, move)
    tokens = due_tokens_words(Board(pos, ed)) if pos.result is None else ""
    if move is None:
        missing = min(3 - len(pos.hands[player]), pos.bag)
        if tokens:   # the token is drawn at random: the table lays it, the turn cannot end before (5.a)
            draw = f"draw {missing} tile(s) from the bag (4.a.3) and " if missing > 0 else ""
            reason = f"nothing more pays off this turn: {draw}lay {tokens} (5.a), then end the turn"
        elif missing > 0:   # the draw names the tile that comes out of the bag: the table's to make
            reason = f"nothing more pays off this turn: draw {missing} tile(s) from the bag, then end the turn (4.a.3)"
        else:
            move = {"player": player, "action": "end_turn"}
            reason = apply(pos, move, ed).notes[0] + ": nothing more pays off this turn"
    else:
        reason = _reason(pos, ed, move, bot, plans)
    return Hint(player, move, reason, plans, team_goals(pos, ed))
