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
from companion.tiles import rotate_code

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
    goals: list[str] = field(default_factory=list)
    """Cooperative: what the team still lacks for the win (8), one sentence per mission not yet
    accomplished (7) and one for the VP target; empty in the other modes."""

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "move": self.move, "reason": self.reason,
                "cards": [c.to_json() for c in self.cards], "goals": self.goals}


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


def tree_name(pos: Position, ed: Edition, at: Hex) -> str:
    """``tree B (D5)``: a tree by its letter, as the dashboard's Goals tab names it, and its
    space's printed label."""
    return f"tree {economy.tree_ids(pos, ed).get(at, '?')} ({ed.label(at)})"


MISSION_TITLES = {"funga": "Funga", "forest_symbiosis": "Forest Symbiosis", "forest_communication": "Forest Communication"}


def team_goals(pos: Position, ed: Edition) -> list[str]:
    """Cooperative (7, 8): one sentence per mission not yet accomplished, with its progress as
    the Goals tab gives it, and the team's victory points against the difficulty's target.
    Empty in the other modes."""
    if pos.mode != "cooperative" or not pos.difficulty:
        return []
    out = [f"{MISSION_TITLES.get(m.mission, m.mission)} (7): {m.detail}"
           for m in economy.missions(pos, ed) if not m.done]
    total = sum(economy.victory_points(pos, ed, c) for c in pos.colors)
    target = ed.cooperative_vp[pos.difficulty]
    if total < target:
        out.append(f"victory points (8): the team has {total} of {target}")
    return out


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
                    where = (f"form a mycorrhiza with {tree_name(pos, ed, near[0])} (a green path facing it, "
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
        if not can_buy(pos, ed, player, target.card).can_buy:
            aim = f"; it works toward {card.name} ({target.card}, {card.vp} VP)"
        elif move["action"] not in ("buy", "spore_ability"):   # the spore ability ends the turn (4.d)
            aim = f"; then buy {card.name} ({target.card}, {card.vp} VP), which you can afford now"
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
        if pos.mode == "cooperative":
            return f"{what}: a rock in hand must be placed some time (4.a.3), here it hurts the team's networks least"
        return f"{what}: a rock in hand must be placed some time (4.a.3), here it hurts least or blocks an opponent"
    if move["action"] == "discard":
        return f"{what}: no tile in hand grows anywhere useful"
    if move["action"] == "place" and _lays_blueprint(pos, ed, move, bot):
        return (f"{what}: it lays a tile of the network the team plans for Forest Communication, "
                f"every tree on one green network (7.c){aim}")
    if move["action"] == "place":
        kind = None
        at = Hex(*move["at"])
        for h, k in pos.substrates.items():
            if distance(h, at) <= 2:
                kind = (h, k)
        near = f", near the {kind[1]} substrate at {ed.label(kind[0])} ({SUBSTRATE_COLOR[kind[1]]})" if kind else ""
        return f"{what}: it extends your network{near}{aim}"
    return what + aim


def _lays_blueprint(pos: Position, ed: Edition, move: dict[str, Any], bot: GreedyBot) -> bool:
    """True when the cooperative placement ``move`` lays a tile of the blueprint the simulated
    team follows for Forest Communication (7.c)."""
    bp = bot.pending_blueprint(Board(pos, ed))   # None outside cooperative play or once the mission is done
    return bp is not None and bp.fits(Hex(*move["at"]), rotate_code(move["tile"], move.get("rotation", 0)))


def hint(pos: Position, ed: Edition, seed: int = 0) -> Hint:
    """The hint for the active player of ``pos`` (deterministic for a given ``seed``)."""
    bot = GreedyBot(random.Random(seed))
    player = pos.active
    move = None if pos.result is not None or pos.in_setup else bot.next_action(pos, ed)
    if pos.in_setup:
        move = bot.spore_space(pos, ed)
        reason = (f"{player} puts the spore and the meeple on {ed.label(Hex(*move['at']))}: the starting space "
                  "closest to substrates and trees (3)")
    elif move is None:
        missing = min(3 - len(pos.hands[player]), pos.bag)
        if missing > 0:   # the draw names the tile that comes out of the bag: the table's to make
            reason = f"nothing more pays off this turn: draw {missing} tile(s) from the bag, then end the turn (4.a.3)"
        else:
            move = {"player": player, "action": "end_turn"}
            reason = apply(pos, move, ed).notes[0] + ": nothing more pays off this turn"
    else:
        reason = _reason(pos, ed, move, bot)
    return Hint(player, move, reason, card_plans(pos, ed, player), team_goals(pos, ed))
