"""Buying a mushroom card (rulebook section 6) and what each card would cost right now.

A purchase pays mycelia (tiles of the card's colour, removed from one network where the
buyer's meeple stands, with no other player's meeple on them) and nutrients (competitive:
the card's cost; cooperative and team: each member's meeple colour), then the buyer's spore
is relocated to a starting space with the meeple on it and the spore ability re-enabled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion import economy
from companion import tiles as tilecodes
from companion.board import Board, IllegalMove, check_starting_space, clear_space
from companion.edition import Card, Edition
from companion.hexgrid import Hex
from companion.networks import Network
from companion.position import Position

if TYPE_CHECKING:
    from companion.moves import Move


@dataclass
class Plan:
    """A checked purchase: the card, the tiles paid, and each payer's cubes."""

    card: Card
    tiles: list[Hex]
    payments: dict[str, dict[str, int]]


def _meeple_networks(b: "Board", color: str, player: str) -> list[Network]:
    """Networks of ``color`` the player's meeple stands on (on a tile, or on its spore)."""
    at = b.pos.meeples.get(player)
    if at is None:
        return []
    starts = set(b.meeple_starts(player, color))
    return [n for n in b.graph.networks if n.color == color and n.nodes & starts]


def _eligible(b: "Board", net: Network, player: str) -> list[Hex]:
    """Tiles of a network that may be paid: no other player's meeple on them (6.a)."""
    others = b.other_meeples(player)
    return sorted(h for h in net.spaces if h not in others)


def plan_purchase(b: "Board", m: "Move") -> Plan:
    """Check a ``buy`` move and return its :class:`Plan`; raise
    :class:`~companion.rules.IllegalMove` with the exact reason otherwise."""

    pos, ed = b.pos, b.edition
    card = ed.cards.get(m.card)
    if card is None:
        raise IllegalMove("card_unknown", f"The edition has no card {m.card}.")
    if m.card not in pos.market.get(card.deck, []):
        raise IllegalMove("card_not_in_market", f"{card.name} ({m.card}) is not face up in the market.")
    color = card.mycelia_color
    need = economy.mycelia_needed(pos, ed, card, m.player)
    if m.tiles is not None:
        tiles = list(dict.fromkeys(m.tiles))
        if len(tiles) != len(m.tiles):
            raise IllegalMove("wrong_payment", "A tile is listed twice in the payment.")
        if len(tiles) != need:
            raise IllegalMove("wrong_payment", f"{card.name} takes {need} {color} mycelium tile(s); {len(tiles)} "
                              f"{'was' if len(tiles) == 1 else 'were'} given.")
        for h in tiles:
            code = pos.tiles.get(h)
            if code is None or color not in tilecodes.parse(code).colors():
                raise IllegalMove("insufficient_mycelia", f"{b.label(h)} holds no {color} mycelium.")
        nets = [n for n in b.graph.networks if n.color == color and set(tiles) <= n.spaces]
        if need and not nets:
            raise IllegalMove("mycelia_not_one_network", f"The tiles paid for {card.name} are not all on one {color} network.")
        mine = _meeple_networks(b, color, m.player)
        if need and not any(n in mine for n in nets):
            raise IllegalMove("meeple_not_on_payment_network", f"Your meeple must stand on the {color} network you pay with.")
        blocked = [h for h in tiles if h in b.other_meeples(m.player)]
        if blocked:
            raise IllegalMove("meeple_on_payment_tiles", f"Another player's meeple stands on {b.label(blocked[0])}; that purchase is locked.")
    else:
        tiles = _choose_tiles(b, m.player, color, need, card)
    payments = economy.nutrient_costs(pos, ed, card, m.player)
    for payer, cost in payments.items():
        short = economy.shortfall(pos.nutrients[payer], cost)
        if short:
            who = "You need" if payer == m.player else f"{payer} needs"
            raise IllegalMove("insufficient_nutrients", f"{who} {_more(short)} for {card.name}.")
    if m.spore_to is not None:
        check_starting_space(b, m.player, m.spore_to)
    elif pos.spores.get(m.player) is None or pos.spores[m.player].at is None:
        raise IllegalMove("spore_displaced", "Your spore is off the board: say where it goes after the purchase (spore_to).")
    if m.refill is not None:
        ref = ed.cards.get(m.refill)
        seen = {c for v in pos.cards.values() for c in v} | {c for v in pos.market.values() for c in v}
        if ref is None or ref.deck != card.deck or m.refill in seen:
            raise IllegalMove("card_not_in_deck", f"{m.refill} cannot be the next card of deck {card.deck}: "
                              "it is not a face-down card of that deck.")
        if pos.decks[card.deck] <= 0:
            raise IllegalMove("card_not_in_deck", f"Deck {card.deck} has no face-down card left (decks.{card.deck} is 0).")
    return Plan(card, tiles, payments)


def _more(short: dict[str, int]) -> str:
    return " and ".join(f"{v} more {k} nutrient{'s' * (v > 1)}" for k, v in short.items())


def _choose_tiles(b: "Board", player: str, color: str, need: int, card: Card) -> list[Hex]:
    """Pick ``need`` payable tiles automatically, or raise the exact reason none exist."""

    if need == 0:
        return []
    mine = _meeple_networks(b, color, player)
    best: list[Hex] = []
    for net in mine:
        ok = _eligible(b, net, player)
        if len(ok) >= need:
            # Pay with the tiles farthest from the meeple first: it keeps the network near
            # the meeple, which is what players usually do.
            meeple = b.pos.meeples[player]
            from companion.hexgrid import distance
            return sorted(ok, key=lambda h: (-distance(h, meeple), h))[:need]
        if len(net.spaces) >= need:
            raise IllegalMove("meeple_on_payment_tiles",
                              f"Your {color} network has {len(net.spaces)} tiles but other meeples stand on some; the purchase is locked.")
        best = max(best, ok, key=len)
    if not mine:
        if any(n.color == color and len(n) >= need for n in b.graph.networks):
            raise IllegalMove("meeple_not_on_payment_network",
                              f"{card.name} needs a {color} network of {need} tiles where your meeple stands.")
        raise IllegalMove("insufficient_mycelia", f"{card.name} needs a {color} network of {need} tiles where your meeple stands.")
    raise IllegalMove("insufficient_mycelia",
                      f"{card.name} needs {need} {color} tiles on one network; yours has {len(best)}.")


def execute_purchase(b: "Board", m: "Move", notes: list[str]) -> None:
    """Apply a checked purchase to ``b.pos`` (which the caller owns)."""

    pos, ed = b.pos, b.edition
    plan = plan_purchase(b, m)
    card = plan.card
    for h in plan.tiles:
        clear_space(b, h, notes, f"paid for {card.name}")
    for payer, cost in plan.payments.items():
        economy.pay(pos, payer, cost, card.name, notes)
    pos.market[card.deck].remove(card.id)
    pos.cards[m.player].append(card.id)
    if m.refill is not None:
        pos.market[card.deck].append(m.refill)
        pos.decks[card.deck] -= 1
        notes.append(f"{ed.cards[m.refill].name} is turned face up")
    elif pos.decks[card.deck] > 0:
        notes.append(f"turn up the next card of deck {card.deck.upper()}")
    spore = pos.spores[m.player]
    if m.spore_to is not None:
        spore.at = m.spore_to
    was_used, spore.used = spore.used, False
    pos.meeples[m.player] = spore.at
    # 4.d: the ability is ready again after a purchase; said only when it had been used.
    notes.append(f"{m.player}'s spore is on {b.label(spore.at)} with the meeple"
                 + ("; the spore ability is ready again" if was_used else ""))
    pos.taken.append("buy")


# --- affordability (for the dashboard and the ``afford`` command) ------------------------

@dataclass
class Affordability:
    """Whether ``player`` could buy ``card`` now, and what is missing.

    ``shortfall`` is a sentence ("needs 1 more yellow nutrient and a pink network of 3 tiles
    where your meeple stands"); ``payable_sets`` lists, per network the meeple stands on, the
    tiles that may be paid and how many of them to pick.
    """

    card: str
    player: str
    can_buy: bool
    reason: str | None
    shortfall: str
    missing_nutrients: dict[str, dict[str, int]] = field(default_factory=dict)
    missing_tiles: int = 0
    payable_sets: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card, "player": self.player, "can_buy": self.can_buy, "reason": self.reason,
            "shortfall": self.shortfall, "missing_nutrients": self.missing_nutrients,
            "missing_tiles": self.missing_tiles, "payable_sets": self.payable_sets,
        }


def can_buy(pos: Position, edition: Edition, player: str, card_id: str) -> Affordability:
    """Whether ``player`` could buy face-up card ``card_id`` with the board and cubes as they
    are (turn order aside), with the exact shortfall in nutrients and mycelia."""

    b = Board(pos, edition)
    card = edition.cards[card_id]
    color = card.mycelia_color
    need = economy.mycelia_needed(pos, edition, card, player)
    sets = []
    best = 0
    for net in _meeple_networks(b, color, player):
        ok = _eligible(b, net, player)
        best = max(best, len(ok))
        if len(ok) >= need:
            sets.append({"color": color, "tiles": [list(h) for h in ok], "pick": need})
    missing_tiles = 0 if need == 0 or sets else need - best
    missing = {}
    for payer, cost in economy.nutrient_costs(pos, edition, card, player).items():
        short = economy.shortfall(pos.nutrients[payer], cost)
        if short:
            missing[payer] = short
    parts = []
    if player in missing:
        parts.append(_more(missing[player]))
    if missing_tiles:
        parts.append(f"a {color} network of {need} tiles where your meeple stands"
                     + (f" (yours has {best})" if best else ""))
    sentences = ["needs " + " and ".join(parts)] if parts else []
    sentences += [f"{payer} needs {_more(s)}" for payer, s in missing.items() if payer != player]
    ok = not sentences
    reason = None if ok else ("insufficient_nutrients" if missing else "insufficient_mycelia")
    text = "; ".join(sentences) or "affordable now"
    return Affordability(card_id, player, ok, reason, text, missing, missing_tiles, sets)


def market_affordability(pos: Position, edition: Edition) -> list[Affordability]:
    """:func:`can_buy` for every player and every face-up card."""
    return [can_buy(pos, edition, p, c) for p in pos.colors for deck in ("a", "b") for c in pos.market[deck]]
