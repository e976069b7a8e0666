"""Nutrients, mushroom-card costs, missions and scores (rulebook sections 5 to 9).

Pure functions over a :class:`~companion.position.Position`; the functions whose name
starts with ``gain``/``pay`` mutate the position they are given (callers pass a copy).
Every cube movement is written to ``notes`` so the ledger can say where each cube went.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from companion.edition import NUTRIENT_COLORS, Card, Edition
from companion.networks import MyceliumGraph
from companion import position
from companion.position import Position
from companion.tiles import parse
from companion.wording import and_list

# Card effects that change costs or gains ("Mushroom Card Effects").
PERMANENT_NUTRIENT = {"pink": "permanent_pink_nutrient", "yellow": "permanent_yellow_nutrient"}
PERMANENT_MYCELIUM = {
    "pink": "permanent_wood_mycelium",
    "yellow": "permanent_soil_mycelium",
    "green": "permanent_mycorrhizal_mycelium",
}
DEGRADATION_BONUS = {"wood": "wood_degradation_bonus", "soil": "soil_degradation_bonus"}


def supply(pos: Position, edition: Edition) -> dict[str, int]:
    """Cubes left in the general supply per colour: the edition's 32 cubes less every
    player's (rulebook 'Components': 32 nutrients; cubes paid "return to their designated
    area", 6.b)."""
    out = dict(edition.nutrient_supply)
    for held in pos.nutrients.values():
        for k, v in held.items():
            out[k] -= v
    return out


def face_up_cards(pos: Position, edition: Edition) -> list[Card]:
    """The face-up mushroom cards of both markets the edition describes, deck A then deck B,
    each in market order (rulebook 2.d: three face-up cards per deck). A card id the edition
    does not know (a copy's extra card entered by hand) is left out."""
    return [edition.cards[cid] for deck in ("a", "b") for cid in pos.market[deck] if cid in edition.cards]


def effects_of(pos: Position, edition: Edition, color: str) -> Counter[str]:
    """How many of each card effect ``color`` holds (effects stack, rulebook 'IMPORTANT')."""
    return Counter(edition.cards[c].effect for c in pos.cards[color] if c in edition.cards and edition.cards[c].effect)


def pick_colors(pos: Position, color: str, n: int, allowed: tuple[str, ...], choose: list[str]) -> list[str]:
    """Colours for ``n`` cubes "of your choice": taken from ``choose`` (consumed in order)
    when it names allowed colours, else the allowed colour the player holds fewest of."""
    out = []
    held = dict(pos.nutrients[color])
    for _ in range(n):
        while choose and choose[0] not in allowed:
            choose.pop(0)
        pick = choose.pop(0) if choose else min(allowed, key=lambda k: (held[k], allowed.index(k)))
        held[pick] += 1
        out.append(pick)
    return out


GAIN_NOTE = re.compile(rf"^(\S+) gains (\d+) ({'|'.join(NUTRIENT_COLORS)}) \((.*)\)$")
"""The note :func:`gain` writes when the supply gives all ``n`` cubes (player, count, nutrient,
why), for tools that read a move's notes: a cube "of your choice" has the ``why`` of its
choice (:meth:`companion.board.Board.pick`, e.g. "mycorrhiza with tree B")."""


def gain(pos: Position, edition: Edition, color: str, nutrient: str, n: int, why: str, notes: list[str]) -> int:
    """Give ``color`` up to ``n`` cubes of ``nutrient`` from the supply; return how many it got.

    The supply is finite: a colour that runs out gives nothing more.  The cap (rulebook 5) is
    not applied here: the player may stand above it until the move is complete, then
    :func:`settle_cap` has them discard down to 8 cubes of their choice.
    """
    if n <= 0:
        return 0
    available = supply(pos, edition)[nutrient]
    got = max(0, min(n, available))
    pos.nutrients[color][nutrient] += got
    if got == 0:
        notes.append(f"{color} gains no {nutrient}: none is left in the supply ({why})")
    elif got < n:
        notes.append(f"{color} gains {got} {nutrient} of {n}: the supply holds no more ({why})")
    else:
        notes.append(f"{color} gains {got} {nutrient} ({why})")
    return got


def settle_cap(pos: Position, edition: Edition, color: str, drop: dict[str, int] | None,
               notes: list[str]) -> dict[str, int] | None:
    """Discard ``color``'s cubes above the cap (rulebook 5: "If more are obtained, nutrients
    must be discarded until only 8 are left").

    ``drop`` is the player's choice of cubes to return; what it does not cover (or a choice
    naming cubes the player lacks) is taken from the most plentiful colour.  Returns the
    cubes discarded by default (``None`` when the player's choice covered it all or nothing
    was over).
    """
    over = pos.nutrient_total(color) - edition.nutrient_cap
    if over <= 0:
        return None
    held = pos.nutrients[color]
    chosen: Counter[str] = Counter()
    for k, v in (drop or {}).items():
        take = min(v, held.get(k, 0), over - sum(chosen.values()))
        if take > 0:
            chosen[k] += take
    pay(pos, color, dict(chosen), f"discarded by choice: cap of {edition.nutrient_cap} nutrients", notes)
    rest = over - sum(chosen.values())
    if rest <= 0:
        return None
    default = any_payment(pos.nutrients[color], rest) or {}
    pay(pos, color, default, f"discarded, most plentiful colour: cap of {edition.nutrient_cap} nutrients", notes)
    return default


MARKERS_PER_COLOR = position.MARKERS_PER_COLOR
"""Mycorrhiza markers of each player colour (:data:`companion.position.MARKERS_PER_COLOR`)."""


def markers_left(pos: Position, color: str) -> int:
    """Markers ``color`` still has in front of them: 8 less those on the trees."""
    return MARKERS_PER_COLOR - sum(slots.count(color) for slots in pos.trees.values())


RETURN_NOTE = re.compile(r"^(\S+) returns (\d+) (\S+) \((.*)\)$")
"""The note :func:`pay` writes (player, count, nutrient, why), for tools that read a move's
notes: a discard above the cap has "cap of" in its why (:func:`settle_cap`)."""


def pay(pos: Position, color: str, cost: dict[str, int], why: str, notes: list[str]) -> None:
    """Move ``cost`` cubes from ``color`` back to the supply (caller checked they are held)."""
    for k, v in cost.items():
        if v:
            pos.nutrients[color][k] -= v
            notes.append(f"{color} returns {v} {k} ({why})")


def shortfall(held: dict[str, int], cost: dict[str, int]) -> dict[str, int]:
    """Cubes missing to pay ``cost`` from ``held`` (empty when affordable)."""
    return {k: v - held.get(k, 0) for k, v in cost.items() if v > held.get(k, 0)}


def any_payment(held: dict[str, int], n: int) -> dict[str, int] | None:
    """A payment of ``n`` cubes of any colours from ``held`` (largest stacks first), or None."""
    if sum(held.values()) < n:
        return None
    out: Counter[str] = Counter()
    h = dict(held)
    for _ in range(n):
        k = max(NUTRIENT_COLORS, key=lambda c: (h[c], -NUTRIENT_COLORS.index(c)))
        h[k] -= 1
        out[k] += 1
    return dict(out)


# --- card costs ---------------------------------------------------------------------------

def nutrient_costs(pos: Position, edition: Edition, card: Card, buyer: str) -> dict[str, dict[str, int]]:
    """Who pays which cubes for ``card`` bought by ``buyer``: payer colour -> cost.

    Competitive (6.b.1): the buyer pays the card's cost per nutrient colour.  Cooperative and
    team (6.b.2, 9.c): each member on the buyer's side pays the cost printed under their meeple
    colour; a colour nobody plays is not paid.  Permanent pink/yellow nutrient cards reduce
    their holder's own share by 1 each, never below 0 and never for white ('Mushroom Card
    Effects').  With the table rule ``team_payment = buyer_pays_all`` the buyer pays the
    whole team cost.
    """
    from companion.options import option

    if pos.mode == "competitive":
        shares = {buyer: dict(card.nutrients)}
    else:
        shares = {m: dict(card.nutrients_by_meeple.get(m, {})) for m in pos.teammates(buyer)}
    for payer, cost in shares.items():
        eff = effects_of(pos, edition, payer)
        for nut, eff_name in PERMANENT_NUTRIENT.items():
            if cost.get(nut):
                cost[nut] = max(0, cost[nut] - eff[eff_name])
    shares = {p: {k: v for k, v in c.items() if v} for p, c in shares.items()}
    if pos.mode != "competitive" and option(pos.options, "team_payment") == "buyer_pays_all":
        total: Counter[str] = Counter()
        for c in shares.values():
            total.update(c)
        shares = {buyer: dict(total)}
    return {p: c for p, c in shares.items() if c} or {buyer: {}}


def mycelia_needed(pos: Position, edition: Edition, card: Card, buyer: str) -> int:
    """Tiles of the card's colour to pay, less the buyer's permanent mycelium cards (6.a and
    'Permanent Wood/Soil/Mycorrhizal Mycelium')."""
    eff = effects_of(pos, edition, buyer)
    return max(0, card.mycelia_count - eff[PERMANENT_MYCELIUM[card.mycelia_color]])


# --- scores and missions ------------------------------------------------------------------

def victory_points(pos: Position, edition: Edition, color: str) -> int:
    """Victory points of one player's mushroom cards (6: upper right corner)."""
    return sum(edition.cards[c].vp for c in pos.cards[color] if c in edition.cards)


def side_points(pos: Position, edition: Edition, color: str) -> int:
    """Points of ``color``'s side: the player, the team, or the whole cooperative team."""
    return sum(victory_points(pos, edition, c) for c in pos.teammates(color))


@dataclass(frozen=True)
class MissionProgress:
    """One cooperative mission's progress (rulebook 7): ``done`` is ``value >= target``;
    ``detail`` is the sentence the dashboard shows."""

    mission: str
    value: int
    target: int
    done: bool
    detail: str


def tree_ids(pos: Position, edition: Edition) -> dict:
    """Tree space -> id letter, from the edition's layout for the difficulty when it
    matches, else A, B, C... in position order."""
    if pos.difficulty:
        ids = {at: tid for tid, at in edition.trees(pos.difficulty)}
        if set(ids) == set(pos.trees):
            return ids
    return {at: "ABCDEFGH"[i] for i, at in enumerate(pos.trees)}


def green_network_trees(pos: Position, graph: MyceliumGraph) -> frozenset:
    """The trees (spaces) touched by the one green network that touches the most of them;
    empty when no green path faces a tree.

    A tree is touched by a network when one of its green paths ends on a side facing the
    tree (rulebook 7.c: "connect all Trees to the same green Mycelium Network").
    """
    facing: dict[tuple, set] = {}
    for tree in pos.trees:
        for e in range(6):
            h = tree.neighbor(e)
            code = pos.tiles.get(h)
            if code is None:
                continue
            i = parse(code).path_on_edge((e + 3) % 6)
            if i is not None and parse(code).paths[i].color == "green":
                facing.setdefault((h, i), set()).add(tree)
    best: frozenset = frozenset()
    for net in graph.networks:
        if net.color != "green" or not facing:
            continue
        touched = frozenset(t for node in net.nodes & facing.keys() for t in facing[node])
        if len(touched) > len(best):
            best = touched
    return best


def trees_on_one_green_network(pos: Position, graph: MyceliumGraph) -> tuple[int, int]:
    """(most trees touched by one green network, number of trees): see
    :func:`green_network_trees`."""
    return len(green_network_trees(pos, graph)), len(pos.trees)


def trees_joined(pos: Position, graph: MyceliumGraph) -> frozenset:
    """The trees Forest Communication counts as connected (7.c): those of
    :func:`green_network_trees` once that network joins two trees or more.  A tree that
    alone touches a green network is connected to no other tree, so it counts none (with a
    single tree on the board, touching it is the whole mission)."""
    joined = green_network_trees(pos, graph)
    return joined if len(joined) >= min(2, len(pos.trees)) else frozenset()


def symbiosis_progress(pos: Position, pattern: tuple[int, ...]) -> tuple[int, list[int]]:
    """How many of the pattern's trees are satisfied, and the mycorrhiza count per tree.

    Pattern e.g. (3, 2): one tree with >= 3 mycorrhizae and another with >= 2 (7.a).
    Greedy on sorted counts is exact here: the largest need takes the fullest tree.
    """
    counts = sorted((sum(1 for s in slots if s) for slots in pos.trees.values()), reverse=True)
    met = 0
    for need_, have in zip(pattern, counts):
        if have >= need_:
            met += 1
    return met, counts


def missions(pos: Position, edition: Edition, graph: MyceliumGraph | None = None) -> list[MissionProgress]:
    """Progress of the three connectivity missions of the game's difficulty (rulebook 7).

    Empty outside cooperative mode.
    """
    if pos.mode != "cooperative" or not pos.difficulty:
        return []
    d = pos.difficulty
    graph = graph or MyceliumGraph.of(pos)
    cards = sum(len(v) for v in pos.cards.values())
    target = edition.funga[d]
    out = [MissionProgress("funga", cards, target, cards >= target or "funga" in pos.missions,
                           f"mushroom cards {cards} of {target}")]
    pattern = edition.forest_symbiosis[d]
    met, counts = symbiosis_progress(pos, pattern)
    ids = tree_ids(pos, edition)
    per_tree = ", ".join(f"tree {ids[at]} {sum(1 for s in slots if s)}/4" for at, slots in pos.trees.items())
    need_txt = " and ".join(f"{n}" for n in pattern)
    out.append(MissionProgress("forest_symbiosis", met, len(pattern),
                               met >= len(pattern) or "forest_symbiosis" in pos.missions,
                               f"trees with {need_txt} mycorrhizae: {met} of {len(pattern)} ({per_tree})"))
    joined, total = trees_joined(pos, graph), len(pos.trees)
    detail = f"trees joined by one green network {len(joined)} of {total}"
    if joined:
        detail += f" (trees {and_list(sorted(ids[t] for t in joined))})"
    elif (alone := green_network_trees(pos, graph)):
        detail += f" (tree {ids[next(iter(alone))]} touches a green network that joins no other tree yet)"
    out.append(MissionProgress("forest_communication", len(joined), total,
                               (total > 0 and len(joined) >= total) or "forest_communication" in pos.missions,
                               detail))
    return out
