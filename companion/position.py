"""The position JSON: everything the rules need to judge the next move, nothing of history.

Like FEN for chess.  The format is documented in ``docs/position.md``; this module turns
it into a :class:`Position` (raising :class:`PositionError` naming the field on malformed
input) and back.  Coordinates are axial (q, r) on the edition's board.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion import tiles as tilecodes
from companion.edition import NUTRIENT_COLORS, SUBSTRATE_COLOR, json_words, kind_name
from companion.hexgrid import Hex

MODES = ("competitive", "cooperative", "team")
MISSIONS = ("funga", "forest_symbiosis", "forest_communication")
TURN_SLOTS = ("place", "move", "remove", "spore", "give", "swap", "buy")
"""Names recorded in ``turn.taken``: each turn action may be taken once (rulebook 4 and the
Turn Sequence Summary).  ``place`` covers placing a tile, placing a rock and discarding."""


class PositionError(ValueError):
    """A position (or move) document is malformed; ``field`` names the offending field."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass
class Player:
    """A seat at the table: meeple colour and, in team play, the team name."""

    color: str
    team: str | None = None


@dataclass
class Spore:
    """A player's spore token: its space (``None`` while displaced) and whether its ability
    has been used (token flipped, rulebook 4.d)."""

    at: Hex | None
    used: bool = False


@dataclass
class Position:
    """A game position.  Mutable, but rules functions never mutate their input: they work
    on :meth:`copy`.

    Board fields map axial :class:`~companion.hexgrid.Hex` keys to contents: ``tiles`` to
    the path code *as placed* (rotation applied), ``trees`` to the four mycorrhiza slots
    (player colour or ``None``), ``substrates`` to ``"wood"``/``"soil"``.
    """

    players: list[Player]
    active: str
    edition: str = "default"
    mode: str = "competitive"
    difficulty: str | None = None
    taken: list[str] = field(default_factory=list)
    tiles: dict[Hex, str] = field(default_factory=dict)
    rocks: set[Hex] = field(default_factory=set)
    trees: dict[Hex, list[str | None]] = field(default_factory=dict)
    substrates: dict[Hex, str] = field(default_factory=dict)
    spores: dict[str, Spore] = field(default_factory=dict)
    meeples: dict[str, Hex | None] = field(default_factory=dict)
    hands: dict[str, list[str]] = field(default_factory=dict)
    bag: int = 0
    nutrients: dict[str, dict[str, int]] = field(default_factory=dict)
    cards: dict[str, list[str]] = field(default_factory=dict)
    market: dict[str, list[str]] = field(default_factory=lambda: {"a": [], "b": []})
    # Extensions (optional in the JSON; see docs/position.md) -------------------------
    bag_tiles: Counter[str] | None = None
    """Tile code -> count still in the bag, when known (the companion tracks it)."""
    discard: list[str] = field(default_factory=list)
    """Tiles out of the game: discarded, crushed, removed, paid (for conservation)."""
    decks: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    """Face-down cards left in each mushroom deck."""
    pending_substrates: list[str] = field(default_factory=list)
    """Substrate kinds waiting for a replacement token to be drawn (rulebook 5.a)."""
    vacated_substrates: list[tuple[str, Hex]] = field(default_factory=list)
    """``(kind, space)`` of each substrate taken off the board in play (degraded, covered or
    crushed) whose replacement is still due, oldest first: the space is named when the table
    is asked to lay the new token (5.a).  The set-up's tokens replace nothing and are not here."""
    turn_number: int = 1
    missions: list[str] = field(default_factory=list)
    """Cooperative missions already accomplished (their abilities are unlocked, rulebook 7)."""
    result: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    """Table-rule options in force (docs/rules.md); missing keys take their defaults."""
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Derived data (the mycelium graph) computed once per position; cleared by mutators."""

    # ---------------------------------------------------------------------------------
    def copy(self) -> "Position":
        """A deep copy, safe to mutate (written out by hand: it is on every move's path)."""
        new = copy.copy(self)
        new.players = [Player(p.color, p.team) for p in self.players]
        new.taken = list(self.taken)
        new.tiles = dict(self.tiles)
        new.rocks = set(self.rocks)
        new.trees = {h: list(s) for h, s in self.trees.items()}
        new.substrates = dict(self.substrates)
        new.spores = {c: (None if s is None else Spore(s.at, s.used)) for c, s in self.spores.items()}
        new.meeples = dict(self.meeples)
        new.hands = {c: list(h) for c, h in self.hands.items()}
        new.nutrients = {c: dict(n) for c, n in self.nutrients.items()}
        new.cards = {c: list(v) for c, v in self.cards.items()}
        new.market = {k: list(v) for k, v in self.market.items()}
        new.bag_tiles = None if self.bag_tiles is None else Counter(self.bag_tiles)
        new.discard = list(self.discard)
        new.decks = dict(self.decks)
        new.pending_substrates = list(self.pending_substrates)
        new.vacated_substrates = list(self.vacated_substrates)
        new.missions = list(self.missions)
        new.result = copy.deepcopy(self.result)
        new.options = dict(self.options)
        new.cache = {}
        return new

    @property
    def colors(self) -> list[str]:
        """Player colours in turn order."""
        return [p.color for p in self.players]

    def player(self, color: str) -> Player:
        """The seat with meeple ``color``; ``KeyError`` if nobody plays it."""
        for p in self.players:
            if p.color == color:
                return p
        raise KeyError(color)

    def teammates(self, color: str) -> list[str]:
        """Colours on ``color``'s side, itself included: everyone in cooperative mode, the
        team in team mode, only itself in competitive mode."""
        if self.mode == "cooperative":
            return self.colors
        if self.mode == "team":
            team = self.player(color).team
            return [p.color for p in self.players if p.team == team]
        return [color]

    def occupant(self, at: Hex) -> str | None:
        """What stands on a space: ``tile``, ``rock``, ``tree``, ``spore`` or ``None``
        (substrates and meeples do not occupy a space for placement purposes)."""
        if at in self.tiles:
            return "tile"
        if at in self.rocks:
            return "rock"
        if at in self.trees:
            return "tree"
        if any(s.at == at for s in self.spores.values()):
            return "spore"
        return None

    def spore_owner(self, at: Hex) -> str | None:
        """Colour of the spore on ``at``, or ``None``."""
        for color, s in self.spores.items():
            if s.at == at:
                return color
        return None

    def meeple_at(self, at: Hex) -> str | None:
        """Colour of the meeple standing on ``at``, or ``None``."""
        for color, m in self.meeples.items():
            if m == at:
                return color
        return None

    @property
    def in_setup(self) -> bool:
        """True while some player has not yet placed a spore (first round, rulebook 3)."""
        return any(self.spores.get(c) is None for c in self.colors)

    def nutrient_total(self, color: str) -> int:
        """Cubes held by ``color``."""
        return sum(self.nutrients[color].values())

    # --- JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The position document (docs/position.md), with extensions included."""
        def hx(h: Hex | None) -> list[int] | None:
            return None if h is None else [h.q, h.r]

        doc: dict[str, Any] = {
            "edition": self.edition,
            "mode": self.mode,
            "difficulty": self.difficulty,
            "players": [{"color": p.color, "team": p.team} for p in self.players],
            "active": self.active,
            "turn": {"taken": list(self.taken), "number": self.turn_number},
            "board": {
                "tiles": [{"at": hx(h), "paths": c} for h, c in sorted(self.tiles.items())],
                "rocks": [hx(h) for h in sorted(self.rocks)],
                "trees": [{"at": hx(h), "mycorrhizae": list(s)} for h, s in self.trees.items()],
                "substrates": [{"at": hx(h), "kind": k} for h, k in sorted(self.substrates.items())],
                "spores": {c: {"at": hx(s.at), "used": s.used} for c, s in self.spores.items()},
                "meeples": {c: hx(m) for c, m in self.meeples.items()},
            },
            "hands": {c: list(h) for c, h in self.hands.items()},
            "bag": self.bag,
            "nutrients": {c: dict(n) for c, n in self.nutrients.items()},
            "cards": {c: list(v) for c, v in self.cards.items()},
            "market": {k: list(v) for k, v in self.market.items()},
            "decks": dict(self.decks),
            "discard": list(self.discard),
            "pending": self._pending_json(hx),
            "missions": list(self.missions),
            "result": copy.deepcopy(self.result),
            "options": dict(self.options),
        }
        if self.bag_tiles is not None:
            doc["bag_tiles"] = dict(sorted(self.bag_tiles.items()))
        return doc

    def _pending_json(self, hx) -> dict[str, Any]:
        """``pending``: the kinds due, and where the substrates they replace lay when known
        (``vacated``, written only when there is one, so older documents read the same)."""
        doc: dict[str, Any] = {"substrates": list(self.pending_substrates)}
        if self.vacated_substrates:
            doc["vacated"] = [{"kind": k, "at": hx(h)} for k, h in self.vacated_substrates]
        return doc

    @classmethod
    def from_json(cls, doc: Any, edition: Any = None) -> "Position":
        """Parse a position document and check it against its edition's components (loaded by
        name when ``edition`` is ``None``).  Raises :class:`PositionError` naming the field."""
        if edition is None:
            from companion.edition import EditionError, load_edition
            try:
                edition = load_edition(_edition_name(doc))
            except EditionError as e:
                raise PositionError("edition", str(e)) from None
        pos = _parse_position(doc, edition.meeple_colors)
        check_against_edition(pos, edition)
        if not isinstance(doc, dict) or doc.get("decks") is None:
            pos.decks = decks_left(pos, edition)
        return pos


MARKERS_PER_COLOR = 8
"""Mycorrhiza markers of each player colour (components: "Mycorrhizal markers (32)", four
colours): a position with more of one colour on the trees is impossible."""


def check_substrate_count(pos: Position, edition: Any) -> None:
    """Raise :class:`PositionError` on ``board.substrates`` unless each substrate kind has the
    edition's number of tokens (2 wood, 2 soil in the default edition) on the board or waiting
    for a replacement in ``pending.substrates``: rulebook 5.a "There must always be 2 Substrates
    of each color on the board".

    Checked on whole positions given from outside (position files, docs/position.md), not in
    :meth:`Position.from_json`: the rules judge a move on a partial position as well, and tests
    of one rule build positions without the substrates they do not need.
    """
    for kind, want in edition.substrates_on_board.items():
        laid = sum(1 for k in pos.substrates.values() if k == kind)
        waiting = pos.pending_substrates.count(kind)
        if laid + waiting != want:
            where = f"{laid} {kind} substrate{'s' * (laid != 1)} on the board" + \
                (f" and {waiting} waiting in pending.substrates" if waiting else "")
            raise PositionError("board.substrates", f"{where}, {want} expected: there are always {want} substrates "
                                "of each colour on the board (rulebook 5.a; one waiting in pending.substrates counts)")


def decks_left(pos: Position, edition: Any) -> dict[str, int]:
    """Face-down cards left per deck when a position does not say (its optional ``decks``): the
    edition's deck less the cards face up in the market and those the players hold (2.d, 6)."""
    out_of_deck = [c for row in pos.market.values() for c in row] + [c for held in pos.cards.values() for c in held]
    return {k: max(0, len(edition.deck(k)) - sum(1 for c in out_of_deck if c in edition.cards
                                                 and edition.cards[c].deck == k)) for k in ("a", "b")}


# --- parsing helpers, shared with the move parser --------------------------------------

def need(obj: Any, key: str, kind: type | tuple[type, ...], where: str, what: str | None = None) -> Any:
    """``obj[key]`` checked to be of ``kind``; raises PositionError naming ``where.key`` and
    saying what it must be in JSON terms (``what``, e.g. ``"a card id string"``, else the JSON
    kind: "an object", "a string") and what it is ("got null")."""
    path = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise PositionError(where or "(top level)", "must be a JSON object")
    if key not in obj:
        raise PositionError(path, "is missing")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise PositionError(path, f"must be {what or kind_name(kinds)}, got {json_words(value)}")
    return value


def parse_hex(value: Any, where: str) -> Hex:
    """An axial coordinate ``[q, r]``; raises PositionError naming ``where``."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise PositionError(where, f"must be an axial coordinate [q, r] of two integers, got {value!r}")
    return Hex(int(value[0]), int(value[1]))


def parse_code(value: Any, where: str, allow_rock: bool = True) -> str:
    """A normalised tile path code (or ``ROCK``); raises PositionError naming ``where``."""
    if not isinstance(value, str):
        raise PositionError(where, f"must be a tile code string, got {value!r}")
    if value == tilecodes.ROCK:
        if not allow_rock:
            raise PositionError(where, "a rock has no mycelium paths")
        return value
    try:
        return tilecodes.parse(value).code
    except tilecodes.TileCodeError as e:
        raise PositionError(where, str(e)) from None


POSITION_FIELDS = ("edition", "mode", "difficulty", "players", "active", "turn", "board", "hands", "bag",
                   "nutrients", "cards", "market", "bag_tiles", "discard", "decks", "pending", "missions",
                   "result", "options")
"""Top-level fields of a position document (docs/position.md); any other is refused."""


def _edition_name(doc: Any) -> str:
    """The ``edition`` field of a position document (``"default"`` when left out or null)."""
    if not isinstance(doc, dict):
        raise PositionError("(top level)", "a position must be a JSON object")
    edition = doc.get("edition", "default")
    if edition is None:
        edition = "default"
    if not isinstance(edition, str) or not edition:
        raise PositionError("edition", f"must be an edition name such as \"default\", got {edition!r}")
    return edition


def _parse_position(doc: Any, meeple_colors: tuple[str, ...]) -> Position:
    """The position document ``doc`` whose players play the edition's ``meeple_colors``."""
    edition = _edition_name(doc)
    unknown = sorted(k for k in doc if k not in POSITION_FIELDS)
    if unknown:
        # a misspelt field ("optoins") would otherwise be dropped and its value silently lost
        raise PositionError(unknown[0], f"unknown field (known: {', '.join(POSITION_FIELDS)})")
    mode = need(doc, "mode", str, "")
    if mode not in MODES:
        raise PositionError("mode", f"must be one of {list(MODES)}, got {mode!r}")
    difficulty = doc.get("difficulty")
    if difficulty not in (None, "easy", "medium", "hard"):
        raise PositionError("difficulty", f"must be null, easy, medium or hard, got {difficulty!r}")
    players = []
    for i, p in enumerate(need(doc, "players", list, "")):
        color = need(p, "color", str, f"players[{i}]")
        if color not in meeple_colors:
            raise PositionError(f"players[{i}].color", f"{color!r} is not a meeple colour of the edition "
                                f"({', '.join(meeple_colors)})")
        team = p.get("team")
        if team is not None and not isinstance(team, str):
            raise PositionError(f"players[{i}].team", "must be a string or null")
        if mode == "team" and team is None:
            raise PositionError(f"players[{i}].team", "team mode needs a team for every player")
        if mode != "team" and team is not None:
            raise PositionError(f"players[{i}].team", f"teams exist only in team mode, not {mode}")
        players.append(Player(color, team))
    colors = [p.color for p in players]
    if len(set(colors)) != len(colors):
        raise PositionError("players", "a colour is listed twice")
    if not 1 <= len(players) <= 4:
        raise PositionError("players", f"Mycelium is played by 1 to 4 players, got {len(players)}")
    if len(players) == 1 and mode != "cooperative":
        raise PositionError("players", f"a {mode} game needs 2 to 4 players (rulebook 2.f); "
                                       "only a cooperative game may be played alone")
    if mode == "team" and sorted(Counter(p.team for p in players).values()) != [2, 2]:
        raise PositionError("players", "team mode needs 4 players in two teams of two (rulebook 9)")
    active = need(doc, "active", str, "")
    if active not in colors:
        raise PositionError("active", f"{active!r} is not one of the players {colors}")
    turn = doc.get("turn", {"taken": []})
    if not isinstance(turn, dict):
        raise PositionError("turn", "must be an object with 'taken' (and optionally 'number')")
    taken = need(turn, "taken", list, "turn")
    for i, t in enumerate(taken):
        if t not in TURN_SLOTS:
            raise PositionError(f"turn.taken[{i}]", f"unknown action {t!r} (known: {list(TURN_SLOTS)})")
        if t != "buy" and taken.count(t) > 1:
            raise PositionError("turn.taken", f"{t!r} is listed twice: each action is taken once per turn")
    if "spore" in taken and any(t not in ("spore",) for t in taken):
        raise PositionError("turn.taken", "the spore ability is used at the start of a turn and ends its actions (rulebook 4.d)")
    number = turn.get("number", 1)
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise PositionError("turn.number", f"must be a whole number >= 1, got {number!r}")
    board = need(doc, "board", dict, "")
    pos = Position(players=players, active=active, edition=edition, mode=mode,
                   difficulty=difficulty, taken=list(taken), turn_number=int(number))
    occupied: dict[Hex, str] = {}

    def claim(h: Hex, what: str, where: str) -> None:
        if h in occupied:
            raise PositionError(where, f"{list(h)} already holds a {occupied[h]}")
        occupied[h] = what

    for i, t in enumerate(need(board, "tiles", list, "board")):
        h = parse_hex(need(t, "at", list, f"board.tiles[{i}]"), f"board.tiles[{i}].at")
        claim(h, "tile", f"board.tiles[{i}].at")
        pos.tiles[h] = parse_code(need(t, "paths", str, f"board.tiles[{i}]"), f"board.tiles[{i}].paths", allow_rock=False)
    for i, r in enumerate(board.get("rocks", [])):
        h = parse_hex(r, f"board.rocks[{i}]")
        claim(h, "rock", f"board.rocks[{i}]")
        pos.rocks.add(h)
    for i, t in enumerate(board.get("trees", [])):
        h = parse_hex(need(t, "at", list, f"board.trees[{i}]"), f"board.trees[{i}].at")
        claim(h, "tree", f"board.trees[{i}].at")
        slots = t.get("mycorrhizae", [None] * 4)
        if not isinstance(slots, list) or any(s is not None and s not in colors for s in slots):
            raise PositionError(f"board.trees[{i}].mycorrhizae", "must list player colours or null, one per slot")
        pos.trees[h] = list(slots)
    for c in colors:
        on_trees = sum(slots.count(c) for slots in pos.trees.values())
        if on_trees > MARKERS_PER_COLOR:
            raise PositionError("board.trees", f"{c} has {on_trees} mycorrhiza markers on the trees, but the game "
                                               f"holds {MARKERS_PER_COLOR} per colour (Components: 32 mycorrhiza "
                                               "markers, one set per player colour)")
    for i, s in enumerate(board.get("substrates", [])):
        h = parse_hex(need(s, "at", list, f"board.substrates[{i}]"), f"board.substrates[{i}].at")
        kind = need(s, "kind", str, f"board.substrates[{i}]")
        if kind not in SUBSTRATE_COLOR:
            raise PositionError(f"board.substrates[{i}].kind", f"must be wood or soil, got {kind!r}")
        if h in pos.substrates:
            raise PositionError(f"board.substrates[{i}].at", f"{list(h)} already holds a substrate")
        if occupied.get(h) in ("tree", "tile", "rock"):
            # 2.c / 5.a: a token drawn onto a tree is drawn again; one landing on a tile or rock
            # discards it, so a token never shares its space with any of them
            raise PositionError(f"board.substrates[{i}].at", f"{list(h)} holds a {occupied[h]}: a substrate never "
                                "shares its space with a tree, tile or rock (rulebook 2.c, 5.a)")
        pos.substrates[h] = kind
    spores = board.get("spores") or {}
    if not isinstance(spores, dict):
        raise PositionError("board.spores", "must be an object: colour -> {\"at\": [q, r], \"used\": bool}")
    for color, s in spores.items():
        if color not in colors:
            raise PositionError(f"board.spores.{color}", "is not a player colour")
        if s is None:
            continue
        if not isinstance(s, dict):
            raise PositionError(f"board.spores.{color}", "must be an object {\"at\": [q, r], \"used\": bool}")
        at = s.get("at")
        h = None if at is None else parse_hex(at, f"board.spores.{color}.at")
        if h is not None:
            claim(h, "spore", f"board.spores.{color}.at")
        used = s.get("used", False)
        if not isinstance(used, bool):
            raise PositionError(f"board.spores.{color}.used", "must be true or false")
        pos.spores[color] = Spore(h, used)
    seen_meeples: set[Hex] = set()
    meeples = board.get("meeples") or {}
    if not isinstance(meeples, dict):
        raise PositionError("board.meeples", "must be an object: colour -> [q, r] or null")
    for color, m in meeples.items():
        if color not in colors:
            raise PositionError(f"board.meeples.{color}", "is not a player colour")
        h = None if m is None else parse_hex(m, f"board.meeples.{color}")
        if h is not None and h in seen_meeples:
            raise PositionError(f"board.meeples.{color}", f"two meeples on {list(h)}")
        if h is not None:
            seen_meeples.add(h)
        pos.meeples[color] = h
    hands = need(doc, "hands", dict, "")
    for c in hands:
        if c not in colors:
            raise PositionError(f"hands.{c}", f"is not a player colour ({', '.join(colors)})")
    for c in colors:
        hand = hands.get(c, [])
        if not isinstance(hand, list):
            raise PositionError(f"hands.{c}", "must be a list of tile codes")
        pos.hands[c] = [parse_code(x, f"hands.{c}[{i}]") for i, x in enumerate(hand)]
        pos.meeples.setdefault(c, None)
    bag = need(doc, "bag", int, "")
    if bag < 0:
        raise PositionError("bag", "cannot be negative")
    pos.bag = bag
    nutrients = doc.get("nutrients", {})
    for c in colors:
        n = nutrients.get(c, {}) if isinstance(nutrients, dict) else None
        if not isinstance(n, dict):
            raise PositionError(f"nutrients.{c}", "must be an object of nutrient colour counts")
        pos.nutrients[c] = {}
        for k in NUTRIENT_COLORS:
            v = n.get(k, 0)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise PositionError(f"nutrients.{c}.{k}", f"must be a whole number >= 0, got {v!r}")
            pos.nutrients[c][k] = v
        for k in n:
            if k not in NUTRIENT_COLORS:
                raise PositionError(f"nutrients.{c}.{k}", f"unknown nutrient colour (known: {list(NUTRIENT_COLORS)})")
    cards = doc.get("cards", {})
    for c in colors:
        v = cards.get(c, []) if isinstance(cards, dict) else None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise PositionError(f"cards.{c}", "must be a list of card ids")
        pos.cards[c] = list(v)
    market = doc.get("market", {"a": [], "b": []})
    if not isinstance(market, dict):
        raise PositionError("market", "must be an object with decks a and b")
    for k in market:
        if k not in ("a", "b"):
            raise PositionError(f"market.{k}", "the mushroom decks are a and b")
    pos.market = {}
    for k in ("a", "b"):
        v = market.get(k, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise PositionError(f"market.{k}", "must be a list of card ids")
        pos.market[k] = list(v)
    decks = doc.get("decks") or {"a": 0, "b": 0}
    if not isinstance(decks, dict):
        raise PositionError("decks", "must be an object: {\"a\": n, \"b\": n} face-down cards left")
    for k in ("a", "b"):
        v = decks.get(k, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise PositionError(f"decks.{k}", f"must be a whole number >= 0, got {v!r}")
        pos.decks[k] = v
    if "bag_tiles" in doc and doc["bag_tiles"] is not None:
        bt = need(doc, "bag_tiles", dict, "")
        pos.bag_tiles = Counter()
        for k, v in bt.items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise PositionError(f"bag_tiles.{k}", f"must be a whole number >= 0, got {v!r}")
            if v:
                pos.bag_tiles[tilecodes.canonical(parse_code(k, f"bag_tiles.{k}"))] += v
        if sum(pos.bag_tiles.values()) != bag:
            raise PositionError("bag_tiles", f"holds {sum(pos.bag_tiles.values())} tiles but bag says {bag}")
    pos.discard = [parse_code(x, f"discard[{i}]") for i, x in enumerate(doc.get("discard", []))]
    pending = doc.get("pending") or {}
    if not isinstance(pending, dict):
        raise PositionError("pending", "must be an object, e.g. {\"substrates\": [\"wood\"]}")
    kinds = pending.get("substrates", [])
    if not isinstance(kinds, list) or any(k not in SUBSTRATE_COLOR for k in kinds):
        raise PositionError("pending.substrates", "must list substrate kinds (wood, soil)")
    pos.pending_substrates = list(kinds)
    pos.vacated_substrates = _parse_vacated(pending.get("vacated", []), kinds)
    missions = doc.get("missions", [])
    if not isinstance(missions, list) or any(m not in MISSIONS for m in missions) or len(set(missions)) != len(missions):
        raise PositionError("missions", f"must list accomplished missions among {list(MISSIONS)}, each once")
    pos.missions = list(missions)
    result = doc.get("result")
    if result is not None and (not isinstance(result, dict) or not isinstance(result.get("reason"), str)
                               or not isinstance(result.get("winners", []), list)):
        raise PositionError("result", "must be null, or {\"winners\": [...], \"reason\": \"...\"}")
    if result is not None and any(w not in colors for w in result.get("winners", [])):
        raise PositionError("result.winners", "names a colour nobody plays")
    pos.result = result
    opts = doc.get("options", {})
    if not isinstance(opts, dict):
        raise PositionError("options", "must be an object of table-rule options")
    from companion.options import check_options
    try:
        check_options(opts)
    except ValueError as e:
        name = next((k for k in opts if f"'{k}'" in str(e)), "")
        raise PositionError(f"options.{name}" if name else "options", str(e)) from None
    pos.options = dict(opts)
    return pos


def _parse_vacated(items: Any, kinds: list[str]) -> list[tuple[str, Hex]]:
    """``pending.vacated``: ``[{"kind": "wood", "at": [q, r]}, ...]``, at most one entry per
    kind waiting in ``pending.substrates``; :class:`PositionError` naming the field otherwise."""
    if not isinstance(items, list):
        raise PositionError("pending.vacated", "must list {\"kind\", \"at\"} objects")
    out: list[tuple[str, Hex]] = []
    for i, item in enumerate(items):
        where = f"pending.vacated[{i}]"
        if not isinstance(item, dict) or item.get("kind") not in SUBSTRATE_COLOR:
            raise PositionError(where, "must be {\"kind\": \"wood\" or \"soil\", \"at\": [q, r]}")
        out.append((item["kind"], parse_hex(item.get("at"), f"{where}.at")))
    for kind in SUBSTRATE_COLOR:
        if sum(k == kind for k, _ in out) > kinds.count(kind):
            raise PositionError("pending.vacated", f"names more {kind} substrates than pending.substrates waits for")
    return out


def check_against_edition(pos: Position, edition) -> None:
    """Raise :class:`PositionError` when ``pos`` cannot happen with ``edition``'s components:
    a piece off the board, a meeple on neither a tile nor its own spore, a spore off the
    starting spaces, more than 3 tiles in a hand, more than the nutrient cap, a tree without
    the edition's number of slots, an unknown or repeated card, a cooperative game without a
    difficulty."""
    spaces = edition.spaces

    def on_board(h: Hex, where: str) -> None:
        if h not in spaces:
            raise PositionError(where, f"{list(h)} is not a space of the board (radius {edition.radius})")

    for h in pos.tiles:
        on_board(h, f"board.tiles at {list(h)}")
    for h in pos.rocks:
        on_board(h, f"board.rocks {list(h)}")
    for h, slots in pos.trees.items():
        on_board(h, f"board.trees at {list(h)}")
        if len(slots) != edition.slots_per_tree:
            raise PositionError(f"board.trees at {list(h)}.mycorrhizae", f"a tree has {edition.slots_per_tree} mycorrhiza slots")
    for h in pos.substrates:
        on_board(h, f"board.substrates at {list(h)}")
        if pos.spore_owner(h) is not None:
            raise PositionError(f"board.substrates at {list(h)}", "a substrate cannot lie under a spore")
    for c, sp in pos.spores.items():
        if sp is not None and sp.at is not None:
            on_board(sp.at, f"board.spores.{c}.at")
            if sp.at not in edition.outermost:
                raise PositionError(f"board.spores.{c}.at", f"{edition.label(sp.at)} is not an outermost space (rulebook 3)")
    for c, m in pos.meeples.items():
        spore = pos.spores.get(c)
        if m is None:
            if spore is not None and spore.at is not None:
                raise PositionError(f"board.meeples.{c}", f"{c}'s spore is on the board, so its meeple is too (on a tile or on the spore)")
            continue
        on_board(m, f"board.meeples.{c}")
        if m not in pos.tiles and not (spore is not None and spore.at == m):
            raise PositionError(f"board.meeples.{c}", f"a meeple stands on a mycelium tile or on its own spore, not on {edition.label(m)}")
    for c in pos.colors:
        if len(pos.hands[c]) > 3:
            raise PositionError(f"hands.{c}", f"a hand holds at most 3 tiles, got {len(pos.hands[c])}")
        if pos.nutrient_total(c) > edition.nutrient_cap:
            raise PositionError(f"nutrients.{c}", f"a player holds at most {edition.nutrient_cap} nutrients (rulebook 5)")
    seen: set[str] = set()
    for where, ids in [(f"cards.{c}", v) for c, v in pos.cards.items()] + [(f"market.{k}", v) for k, v in pos.market.items()]:
        for cid in ids:
            if cid not in edition.cards:
                raise PositionError(where, f"unknown card {cid!r} (the edition's cards are {min(edition.cards)}..{max(edition.cards)})")
            if cid in seen:
                raise PositionError(where, f"card {cid} appears twice")
            seen.add(cid)
    for k, ids in pos.market.items():
        if any(edition.cards[cid].deck != k for cid in ids):
            raise PositionError(f"market.{k}", "holds a card of the other deck")
        if len(ids) > 3:
            raise PositionError(f"market.{k}", f"three cards of each deck lie face up (rulebook 2.d), not {len(ids)}")
        in_play = len(ids) + sum(1 for v in pos.cards.values() for cid in v if edition.cards[cid].deck == k)
        if in_play + pos.decks[k] > len(edition.deck(k)):
            raise PositionError(f"decks.{k}", f"deck {k} has {len(edition.deck(k))} cards; {in_play} are in play, "
                                f"so at most {len(edition.deck(k)) - in_play} can be face down")
    from collections import Counter as _Counter
    from companion.tiles import ROCK as _ROCK
    players = max(len(pos.colors), 2)
    if players in edition.bag_by_players:
        bag = edition.bag_composition(players)
        rocks = len(pos.rocks) + sum(h.count(_ROCK) for h in pos.hands.values()) + pos.discard.count(_ROCK)
        if pos.bag_tiles is not None:
            rocks += pos.bag_tiles.get(_ROCK, 0)
        if rocks > bag[_ROCK]:
            raise PositionError("board.rocks", f"{rocks} rocks are in play but the {players}-player bag holds {bag[_ROCK]}")
        total = len(pos.tiles) + len(pos.rocks) + sum(len(h) for h in pos.hands.values()) + len(pos.discard) + pos.bag
        if total > sum(bag.values()):
            raise PositionError("bag", f"{total} tiles counted (board, hands, discard, bag) but the {players}-player "
                                f"game uses {sum(bag.values())}")
    cubes: _Counter = _Counter()
    for c in pos.colors:
        cubes.update(pos.nutrients[c])
    for k, n in cubes.items():
        if n > edition.nutrient_supply.get(k, 0):
            raise PositionError("nutrients", f"players hold {n} {k} cubes but the game has {edition.nutrient_supply.get(k, 0)}")
    from companion.hexgrid import distance as _distance
    from companion.options import option as _option
    gap = _option(pos.options, "spore_min_distance")
    placed = [(c, sp.at) for c, sp in pos.spores.items() if sp is not None and sp.at is not None]
    for i, (c1, a) in enumerate(placed):
        for c2, b in placed[i + 1:]:
            if _distance(a, b) < gap:
                raise PositionError(f"board.spores.{c2}.at", f"{c1}'s and {c2}'s spores are closer than {gap} spaces (rulebook 3)")
    if pos.mode == "cooperative" and pos.difficulty is None:
        raise PositionError("difficulty", "a cooperative game needs its missions' difficulty (easy, medium or hard)")
