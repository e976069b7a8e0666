"""Moves as JSON and as typed objects.

A move names its player and action, e.g.
``{"player": "blue", "action": "place", "tile": "P03", "at": [3, 0], "rotation": 0}``; a space
may also be given by its board label (``"at": "E8"``), as every output names it.
Every action and its fields are listed in ``docs/position.md``.  :func:`parse_move` checks
the shape (not the legality) and raises :class:`~companion.position.PositionError` naming the
field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.edition import NUTRIENT_COLORS, SUBSTRATE_COLOR, Edition, json_words, kind_name, load_edition
from companion.hexgrid import Hex
from companion.position import PositionError, need, parse_code, parse_hex
from companion.tiles import COLOR_LETTER

TABLE = "table"
"""Pseudo-player for table inputs that belong to nobody (a substrate token drawn, a card
revealed)."""

ACTIONS: dict[str, str] = {
    "spore": "place your spore and meeple on a starting space (first round, rulebook 3)",
    "place": "place a mycelium tile from your hand (4.a.1)",
    "rock": "place a rock from your hand (4.a.2)",
    "discard": "discard a tile from your hand (4.a.3)",
    "move": "move your meeple along one mycelium network (4.b)",
    "remove": "remove an adjacent tile (mycophages, 1 nutrient) or rock (lichens, 2) (4.c)",
    "spore_ability": "flip your spore: redraw your hand or relocate (4.d)",
    "relocate": "put a displaced spore back on a starting space (4.a.2)",
    "draw": "draw a tile from the bag (4.a.3, end of turn)",
    "end_turn": "end your turn",
    "substrate": "a new substrate token is placed (5.a)",
    "give": "give nutrients to another player (5.c, 7)",
    "swap": "swap a nutrient's colour with the supply (Swap Nutrient Color card)",
    "buy": "buy a mushroom card (6)",
    "reveal": "a card is turned face up in the market (2.d, 6)",
}


FIELDS: dict[str, frozenset[str]] = {
    "spore": frozenset({"at"}),
    "place": frozenset({"tile", "at", "rotation"}),
    "rock": frozenset({"at"}),
    "discard": frozenset({"tile"}),
    "move": frozenset({"to", "color"}),
    "remove": frozenset({"at", "pay"}),
    "spore_ability": frozenset({"mode", "discard", "to"}),
    "relocate": frozenset({"to"}),
    "draw": frozenset({"tile", "uid"}),
    "end_turn": frozenset(),
    "substrate": frozenset({"kind", "at"}),
    "give": frozenset({"to", "nutrients"}),
    "swap": frozenset({"give", "take"}),
    "buy": frozenset({"card", "tiles", "spore_to", "refill"}),
    "reveal": frozenset({"deck", "card"}),
}
"""The fields each action may carry besides :data:`COMMON_FIELDS` (``docs/position.md``)."""
COMMON_FIELDS = frozenset({"player", "action", "choose", "drop", "replace", "reader"})
"""Fields any move may carry: who and what, the players' choices (5.b, 7.c), the cubes
returned over the cap (5), a replaced substrate token, and ``reader`` (where a restarted
table resumes the RFID reader's stream; kept in the log, not a rule input)."""


@dataclass(frozen=True)
class Move:
    """A parsed move.  Fields not used by the action are ``None``.

    ``raw`` keeps the JSON document as given, so an event log stores exactly what was played.
    ``choose`` holds the mover's colours "of your choice"; ``choices`` every player's (the
    mover's included); ``drop`` the cubes each player returns when a move takes them above the
    nutrient cap (rulebook 5).  Whoever is not named gets the default reading of
    ``docs/rules.md`` and :func:`companion.rules.choices_needed` says whom to ask.
    """

    player: str
    action: str
    tile: str | None = None
    at: Hex | None = None
    rotation: int = 0
    to: Hex | None = None
    color: str | None = None
    pay: dict[str, int] | None = None
    mode: str | None = None
    discard: str | None = None
    card: str | None = None
    tiles: tuple[Hex, ...] | None = None
    spore_to: Hex | None = None
    refill: str | None = None
    kind: str | None = None
    deck: str | None = None
    nutrients: dict[str, int] | None = None
    give: str | None = None
    take: str | None = None
    choose: tuple[str, ...] = ()
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    drop: dict[str, dict[str, int]] = field(default_factory=dict, compare=False)
    replace: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The move document."""
        return dict(self.raw)


NUTRIENTS_LIKE = 'an object of nutrient colour counts like {"pink": 1}'
CARD_ID = 'a card id string like "a03"'


def _nutrient_map(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise PositionError(where, f"must be {NUTRIENTS_LIKE}, got {json_words(value)}")
    out = {}
    for k, v in value.items():
        if k not in NUTRIENT_COLORS:
            raise PositionError(f"{where}.{k}", f"unknown nutrient colour (known: {list(NUTRIENT_COLORS)})")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise PositionError(f"{where}.{k}", f"must be a whole number >= 0, got {json_words(v)}")
        if v:
            out[k] = v
    return out


def _spaces_as_coordinates(doc: dict[str, Any], edition: Edition) -> dict[str, Any]:
    """``doc`` with each space given by label replaced by its ``[q, r]`` (see :func:`parse_move`)."""
    out = dict(doc)
    action = doc.get("action")
    keys = [k for k in ("at", "to", "spore_to") if k in FIELDS.get(action, ()) and isinstance(doc.get(k), str)]
    if action == "give":
        keys = []   # a gift's "to" is a player
    for k in keys:
        out[k] = _space(doc[k], k, edition)
    if action == "buy" and isinstance(doc.get("tiles"), list):
        out["tiles"] = [_space(t, f"tiles[{i}]", edition) if isinstance(t, str) else t for i, t in enumerate(doc["tiles"])]
    return out


def _colour_list(value: Any, where: str) -> tuple[str, ...]:
    """``value`` as a tuple of nutrient colours, one per cube; PositionError naming ``where``."""
    if not isinstance(value, list):
        raise PositionError(where, "must be a list of nutrient colours, one per cube "
                                   f"(e.g. [\"pink\", \"white\"]); got {kind_name(type(value))}")
    for i, c in enumerate(value):
        if c not in NUTRIENT_COLORS:
            raise PositionError(f"{where}[{i}]", f"{json_words(c)} is not a nutrient colour ({', '.join(NUTRIENT_COLORS)})")
    return tuple(value)


def check_choosers(m: Move, players: list[str]) -> None:
    """Refuse a ``choose`` object naming a colour nobody plays (its cubes would be lost
    silently): :class:`PositionError` on ``choose.<colour>``.  ``players``: the game's colours."""
    named = m.raw.get("choose")
    for who in named if isinstance(named, dict) else ():
        if who not in players:
            raise PositionError(f"choose.{who}", f"{who} is not a player in this game (players: {', '.join(players)})")


def _space(value: Any, where: str, edition: Edition) -> list[int]:
    """A space as ``[q, r]``: given as the board's label (``"D8"``, as every output names
    spaces; any case) or as axial coordinates.  PositionError naming ``where``."""
    if isinstance(value, str):
        at = edition.space_of(value)
        if at is None:
            raise PositionError(where, f"{json_words(value)} is not a space of the board: give a label such as E5 "
                                       "or axial coordinates [q, r]")
        return [at.q, at.r]
    return list(parse_hex(value, where))


def parse_move(doc: Any, edition: Edition | None = None) -> Move:
    """Check a move document's shape and return a :class:`Move`.

    A space (``at``, ``to`` of a move or relocation, ``tiles`` and ``spore_to`` of a
    purchase) is a label of ``edition``'s board (``"D8"``; the default edition when
    ``None``) or ``[q, r]``; ``Move.raw`` holds it as ``[q, r]`` either way.  Raises
    :class:`PositionError` naming the first missing or malformed field.
    """
    if isinstance(doc, dict):
        doc = _spaces_as_coordinates(doc, edition or load_edition())
    if not isinstance(doc, dict):
        raise PositionError("(top level)", "a move must be a JSON object")
    player = need(doc, "player", str, "")
    action = need(doc, "action", str, "")
    if action not in ACTIONS:
        raise PositionError("action", f"unknown action {json_words(action)} (known: {', '.join(sorted(ACTIONS))})")
    # A misspelt field ("rotaton") would otherwise be ignored and its default played.
    unknown = sorted(set(doc) - FIELDS[action] - COMMON_FIELDS)
    if unknown:
        known = sorted(FIELDS[action] | COMMON_FIELDS - {"player", "action", "reader"})
        raise PositionError(unknown[0], f"is not a field of a {action} move (its fields: {', '.join(known)})")
    f: dict[str, Any] = {"player": player, "action": action, "raw": dict(doc)}
    if action in ("place", "discard"):
        f["tile"] = parse_code(need(doc, "tile", str, ""), "tile")
    if action in ("place", "rock", "remove", "spore", "substrate"):
        f["at"] = parse_hex(need(doc, "at", list, ""), "at")
    if action == "place":
        rot = need(doc, "rotation", int, "")
        if not isinstance(rot, int) or isinstance(rot, bool) or not 0 <= rot <= 5:
            raise PositionError("rotation", f"must be a whole number 0..5 (x 60 degrees), got {json_words(rot)}")
        f["rotation"] = rot
    if action in ("move", "relocate"):
        f["to"] = parse_hex(need(doc, "to", list, ""), "to")
    if action == "move":
        color = need(doc, "color", str, "")
        if color not in COLOR_LETTER:
            raise PositionError("color", f"must be pink, yellow or green, got {json_words(color)}")
        f["color"] = color
    if action == "remove" and doc.get("pay") is not None:
        f["pay"] = _nutrient_map(doc["pay"], "pay")
    if action == "spore_ability":
        mode = need(doc, "mode", str, "")
        if mode not in ("redraw", "relocate"):
            raise PositionError("mode", f"must be redraw or relocate, got {json_words(mode)}")
        f["mode"] = mode
        if mode == "redraw":
            f["discard"] = parse_code(need(doc, "discard", str, ""), "discard")
        else:
            f["to"] = parse_hex(need(doc, "to", list, ""), "to")
    if action == "draw":
        f["tile"] = parse_code(need(doc, "tile", str, ""), "tile")
    if action == "substrate":
        kind = need(doc, "kind", str, "")
        if kind not in SUBSTRATE_COLOR:
            raise PositionError("kind", f"must be wood or soil, got {json_words(kind)}")
        f["kind"] = kind
    if action == "give":
        f["to_player"] = None
        target = need(doc, "to", str, "")
        f["give"] = target
        f["nutrients"] = _nutrient_map(need(doc, "nutrients", dict, "", NUTRIENTS_LIKE), "nutrients")
        if not f["nutrients"]:
            raise PositionError("nutrients", "give at least one nutrient")
        f.pop("to_player")
    if action == "swap":
        for key in ("give", "take"):
            v = need(doc, key, str, "")
            if v not in NUTRIENT_COLORS:
                raise PositionError(key, f"must be a nutrient colour ({', '.join(NUTRIENT_COLORS)}), got {json_words(v)}")
            f[key] = v
    if action == "buy":
        f["card"] = need(doc, "card", str, "", CARD_ID)
        if doc.get("tiles") is not None:
            ts = need(doc, "tiles", list, "")
            f["tiles"] = tuple(parse_hex(t, f"tiles[{i}]") for i, t in enumerate(ts))
        if doc.get("spore_to") is not None:
            f["spore_to"] = parse_hex(doc["spore_to"], "spore_to")
        if doc.get("refill") is not None:
            f["refill"] = need(doc, "refill", str, "")
    if action == "reveal":
        deck = need(doc, "deck", str, "")
        if deck not in ("a", "b"):
            raise PositionError("deck", f"must be a or b, got {json_words(deck)}")
        f["deck"] = deck
        f["card"] = need(doc, "card", str, "", CARD_ID)
    # "Of your choice" (5.b, 7.c): a list is the mover's own colours; an object names each
    # player's colours, e.g. {"blue": ["pink"], "orange": ["white", "white"]}.
    choose = doc.get("choose", [])
    if isinstance(choose, dict):
        choices = {who: _colour_list(cs, f"choose.{who}") for who, cs in choose.items()}
        f["choices"] = choices
        choose = list(choices.get(player, ()))
    elif not isinstance(choose, list):
        raise PositionError("choose", "must list nutrient colours, one per cube (e.g. [\"pink\", \"white\"]), "
                                      f"or map players to such lists; got {kind_name(type(choose))}")
    f["choose"] = _colour_list(choose, "choose")
    f["choices"] = {**f.get("choices", {}), player: f["choose"]}
    # Over the cap (5): the cubes each player returns, e.g. {"orange": {"pink": 1}}.
    drop = doc.get("drop", {})
    if not isinstance(drop, dict):
        raise PositionError("drop", "must map players to nutrient counts, e.g. {\"orange\": {\"pink\": 1}}")
    f["drop"] = {who: _nutrient_map(v, f"drop.{who}") for who, v in drop.items()}
    if doc.get("replace") is not None:
        f["replace"] = need(doc, "replace", str, "")
    return Move(**f)
