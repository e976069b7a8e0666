""""What can I do?": the greedy bot's next action for the active player, with its reason in
words, and for every face-up card the shortest plan to afford it.

Off by default at the table (table rule ``hints``): some groups do not want it.  The command
line ``mycelium-companion hint --position P.json`` always answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from companion import economy
from companion.bots import GreedyBot
from companion.edition import SUBSTRATE_COLOR, Edition
from companion.hexgrid import Hex, distance
from companion.position import Position
from companion.purchase import can_buy
from companion.rules import Board, IllegalMove, apply

SOURCE = {"pink": "wood", "yellow": "soil"}


@dataclass
class CardPlan:
    """What ``player`` still needs for ``card``, step by step (empty ``steps``: buy it now)."""

    card: str
    name: str
    vp: int
    can_buy: bool
    steps: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "name": self.name, "vp": self.vp, "can_buy": self.can_buy, "steps": self.steps}


@dataclass
class Hint:
    """The suggested action (a move document, or ``None`` when the turn is done), why, and
    the plan for every face-up card."""

    player: str
    move: dict[str, Any] | None
    reason: str
    cards: list[CardPlan]

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "move": self.move, "reason": self.reason,
                "cards": [c.to_json() for c in self.cards]}


def _nearest(ed: Edition, frm: list[Hex], goals: list[Hex]) -> tuple[Hex, int | None] | None:
    """The goal nearest to any space of ``frm`` and its distance in spaces; with nothing to
    grow from yet (no spore placed), the first goal and ``None``."""
    if not goals:
        return None
    if not frm:
        return goals[0], None
    return min(((g, min(distance(f, g) for f in frm)) for g in goals), key=lambda gd: gd[1])


def _away(d: int | None, text: str) -> str:
    """``text`` with the distance ``d`` (spaces) filled in, or nothing when the player has no
    network to grow from yet."""
    return text.format(d) if d is not None else ""


def card_plans(pos: Position, ed: Edition, player: str) -> list[CardPlan]:
    """For each face-up card: the tiles to grow and the cubes to collect, with the nearest
    substrate (5.a) or tree (5.b) to collect them from."""
    b = Board(pos, ed)
    reach = [h for h, _ in b.frontier(player).items()] or [h for h in [pos.meeples.get(player)] if h is not None]
    out = []
    for card in economy.face_up_cards(pos, ed):
        a = can_buy(pos, ed, player, card.id)
        steps = []
        if a.missing_tiles:
            need = economy.mycelia_needed(pos, ed, card, player)
            steps.append(f"grow {a.missing_tiles} more {card.mycelia_color} tile(s) on the network your meeple "
                         f"stands on ({need} needed in one network, 6.a)")
        for payer, short in a.missing_nutrients.items():
            who = "you" if payer == player else payer
            for color, n in short.items():
                if color in SOURCE:
                    spots = [h for h, k in pos.substrates.items() if k == SOURCE[color]]
                    near = _nearest(ed, reach, spots)
                    where = (f"degrade the {SOURCE[color]} substrate at {ed.label(near[0])} "
                             f"{_away(near[1], '({} space(s) from where you can grow) ')}with a {color} tile, 5.a") if near else \
                        f"wait for a {SOURCE[color]} substrate"
                    steps.append(f"{who}: {n} {color} cube(s): {where}")
                else:
                    trees = [h for h, s in pos.trees.items() if None in s]
                    near = _nearest(ed, reach, trees)
                    where = (f"form a mycorrhiza with the tree at {ed.label(near[0])} (a green path facing it, "
                             f"{_away(near[1], '{} space(s) away, ')}5.b)") if near else "every tree is full: a gift or a colour swap"
                    steps.append(f"{who}: {n} white cube(s): {where}")
        out.append(CardPlan(card.id, card.name, card.vp, a.can_buy, steps))
    out.sort(key=lambda c: (len(c.steps), -c.vp))
    return out


def _reason(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot) -> str:
    player = move["player"]
    try:
        notes = apply(pos, move, ed).notes
    except IllegalMove as e:   # cannot happen for a bot move; say so rather than guess
        return f"(the suggestion is refused: {e.message})"
    gains = [n for n in notes[1:] if " gains " in n or "mission accomplished" in n or "returns to its spore" in n]
    target = bot.target(pos, ed, player)
    aim = ""
    if target is not None:
        card = ed.cards[target.card]
        aim = f"; it works toward {card.name} ({target.card}, {card.vp} VP)"
    what = notes[0]
    if move["action"] == "buy":
        return f"{what}: you can afford it now"
    if gains:
        return f"{what}: " + "; ".join(gains) + aim
    if move["action"] == "move" and "place" in pos.taken and bot._move_to_plan(Board(pos, ed), player) == move:
        return (f"{what}: from that network you can lay the tile in your hand that the team's Forest "
                f"Communication network needs (7.c)")
    if move["action"] == "spore_ability" and move.get("mode") == "redraw":
        return (f"{what}: your network reaches a space of the team's Forest Communication network (7.c), "
                f"but no tile in your hand has the green path it needs; the bag still holds such tiles (4.d)")
    if move["action"] == "move":
        return f"{what}: from there your hand grows further toward substrates, trees or your next card{aim}"
    if move["action"] == "rock":
        return f"{what}: a rock in hand must be placed some time (4.a.3), here it hurts least or blocks an opponent"
    if move["action"] == "discard":
        return f"{what}: no tile in hand grows anywhere useful"
    if move["action"] == "place":
        kind = None
        at = Hex(*move["at"])
        for h, k in pos.substrates.items():
            if distance(h, at) <= 2:
                kind = (h, k)
        near = f", near the {kind[1]} substrate at {ed.label(kind[0])} ({SUBSTRATE_COLOR[kind[1]]})" if kind else ""
        return f"{what}: it extends your network{near}{aim}"
    return what + aim


def hint(pos: Position, ed: Edition, seed: int = 0) -> Hint:
    """The hint for the active player of ``pos`` (deterministic for a given ``seed``)."""
    bot = GreedyBot(random.Random(seed))
    player = pos.active
    move = None if pos.result is not None or pos.in_setup else bot.next_action(pos, ed)
    if pos.in_setup:
        move = bot.spore_space(pos, ed)
        reason = "the starting space closest to substrates and trees (3)"
    elif move is None:
        missing = min(3 - len(pos.hands[player]), pos.bag)
        if missing > 0:   # the draw names the tile that comes out of the bag: the table's to make
            reason = f"nothing more pays off this turn: draw {missing} tile(s) from the bag, then end the turn (4.a.3)"
        else:
            move = {"player": player, "action": "end_turn"}
            reason = apply(pos, move, ed).notes[0] + ": nothing more pays off this turn"
    else:
        reason = _reason(pos, ed, move, bot)
    return Hint(player, move, reason, card_plans(pos, ed, player))
