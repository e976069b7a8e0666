"""Table-rule options: every reading of the rulebook that players could dispute.

Each option has a default (the project's reading, argued in ``docs/rules.md``) and can be
changed per game in the position's ``options`` object or the game config.
"""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    # Rulebook 3: "leaving at least one space away from another player's Spore".
    "spore_min_distance": 2,
    # Rulebook 4.a.2 lists "another player's Spore"; may a rock also land on your own spore?
    "rock_on_own_spore": True,
    # Rulebook 5.a: a tile on a substrate must connect from a network of the substrate's colour.
    "substrate_requires_matching_color": True,
    # Rulebook 5.b: "It is not necessary for these Green Mycelia to have a connection continuity
    # with a previous tile."  False: any green path of a legally placed tile facing a tree forms
    # a mycorrhiza.  True: only a green path that is itself joined to the network it grew from.
    "mycorrhiza_needs_continuity": False,
    # Rulebook 5.c lets a player give to "another"; 9.b speaks of teammates.  In competitive
    # play, may you give to an opponent?
    "give_in_competitive": True,
    # Turn Sequence Summary 2 "Get Mushroom cards" (plural): purchases per turn.
    "max_purchases_per_turn": 1,
    # Rulebook 6.b.2 "each player on the team pays": each member pays their own meeple
    # colour's cost ("each_member"), or the buyer may pay it all ("buyer_pays_all").
    "team_payment": "each_member",
    # Rulebook 4.b II forbids "another player's Spore"; 4.a.1 lets a tile connect to the active
    # player's own spore.  True: your own spore joins the networks touching it, for growth and
    # for flow (one colour in, the same colour out).  False: it is an end point only.
    "own_spore_joins_networks": True,
    # Rulebook 5: above 8 nutrients "nutrients must be discarded".  True: a gift that would take
    # the receiver above 8 is refused instead of the receiver discarding.
    "refuse_gift_over_cap": False,
    # Not a rulebook reading: the dashboard's "What can I do?" button (the bot's suggestion and
    # a plan per card).  Off unless the table turns it on.
    "hints": False,
}

DESCRIPTIONS: dict[str, str] = {
    "spore_min_distance": "minimum hex distance between two spores (2 = one empty space between)",
    "rock_on_own_spore": "a rock may land on the active player's own spore (it is then relocated)",
    "substrate_requires_matching_color": "a tile on a substrate must connect from a network of the substrate's colour",
    "mycorrhiza_needs_continuity": "the green path facing a tree must itself be joined to the network grown from",
    "give_in_competitive": "nutrients may be given to opponents in competitive mode",
    "max_purchases_per_turn": "mushroom cards a player may buy in one turn",
    "team_payment": "who pays the cooperative/team nutrient cost: each_member or buyer_pays_all",
    "own_spore_joins_networks": "your own spore joins the networks touching it, for growth and for moving across it",
    "refuse_gift_over_cap": "a gift that would take the receiver above 8 nutrients is refused (else they discard)",
    "hints": "the dashboard offers a 'What can I do?' button for the active player",
}


def option(options: dict[str, Any] | None, name: str) -> Any:
    """The value of table-rule option ``name`` (``KeyError`` for an unknown name)."""
    if name not in DEFAULTS:
        raise KeyError(f"unknown table-rule option {name!r}")
    if options and name in options:
        return options[name]
    return DEFAULTS[name]


def check_options(options: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the first unknown option or a value of the wrong type."""
    for name, value in options.items():
        if name not in DEFAULTS:
            raise ValueError(f"unknown table-rule option {name!r} (known: {sorted(DEFAULTS)})")
        default = DEFAULTS[name]
        if type(value) is not type(default):
            raise ValueError(f"table-rule option {name!r} must be {type(default).__name__}, got {value!r}")
    if options.get("team_payment", "each_member") not in ("each_member", "buyer_pays_all"):
        raise ValueError("table-rule option 'team_payment' must be each_member or buyer_pays_all")
    if options.get("spore_min_distance", 2) < 1:
        raise ValueError("table-rule option 'spore_min_distance' must be at least 1")
    if options.get("max_purchases_per_turn", 1) < 1:
        raise ValueError("table-rule option 'max_purchases_per_turn' must be at least 1")
