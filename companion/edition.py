"""Edition data: the physical components of one copy of the game.

The rulebook fixes the rules but not every printed detail (tile art, tree spaces on the
Forest Communication cards, the coordinates on substrate tokens, the mushroom cards), so
those live in an editable folder of JSON files, ``companion/editions/<name>/``, checked at
load.  A mistake in a file raises :class:`EditionError` naming the file and the field.
See ``docs/edition.md`` for the format.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from companion import tiles as tilecodes
from companion.hexgrid import Hex, distance

EDITIONS_DIR = Path(__file__).parent / "editions"

NUTRIENT_COLORS: tuple[str, ...] = ("pink", "yellow", "white")
"""Nutrient cube colours: pink from wood, yellow from soil, white (rulebook 'Components')."""
SUBSTRATE_COLOR: dict[str, str] = {"wood": "pink", "soil": "yellow"}
"""Substrate kind -> the mycelium (and nutrient) colour that degrades it (rulebook 4.a.1, 5.a)."""
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
CARD_EFFECTS: tuple[str, ...] = (
    "permanent_pink_nutrient",
    "permanent_yellow_nutrient",
    "swap_nutrient",
    "wood_degradation_bonus",
    "soil_degradation_bonus",
    "permanent_wood_mycelium",
    "permanent_soil_mycelium",
    "permanent_mycorrhizal_mycelium",
    "mycorrhizal_bonus_nutrient",
)
"""Every mushroom-card effect of the rulebook section 'Mushroom Card Effects'."""


class EditionError(ValueError):
    """An edition file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Card:
    """One mushroom card (rulebook section 6).

    ``mycelia_color`` / ``mycelia_count``: tiles of that path colour paid from one network.
    ``nutrients``: competitive cost per nutrient colour.  ``nutrients_by_meeple``: the
    cooperative/team cost paid by the member with each meeple colour.
    """

    id: str
    name: str
    deck: str
    vp: int
    mycelia_color: str
    mycelia_count: int
    nutrients: dict[str, int]
    nutrients_by_meeple: dict[str, dict[str, int]]
    effect: str | None


@dataclass(frozen=True)
class Edition:
    """Everything physical about one copy of the game, loaded by :func:`load_edition`."""

    name: str
    radius: int
    hex_size_mm: float
    spaces: frozenset[Hex]
    labels: dict[Hex, str]
    outermost: frozenset[Hex]
    markers: dict[str, Any]
    tile_counts: dict[str, dict[str, int]]          # code -> back colour -> count
    bag_by_players: dict[int, tuple[str, ...]]
    tree_layouts: dict[str, tuple[tuple[str, Hex], ...]]
    slots_per_tree: int
    substrate_tokens: dict[str, tuple[Hex, ...]]
    substrates_on_board: dict[str, int]
    cards: dict[str, Card]
    funga: dict[str, int]
    forest_symbiosis: dict[str, tuple[int, ...]]
    cooperative_vp: dict[str, int]
    competitive_vp: int
    team_vp: int
    forest_communication_bonus: int
    nutrient_cap: int
    nutrient_supply: dict[str, int]
    placeholders: tuple[str, ...] = field(default=())
    meeple_colors: tuple[str, ...] = field(default=())
    """The players' colours: the meeple colours the cards price in ``nutrients_by_meeple``
    (rulebook 2.g, 6.b.2), in the order of the first card."""

    def label(self, at: tuple[int, int]) -> str:
        """Human label of a space (e.g. ``E5``), or ``(q,r)`` off the board."""
        return self.labels.get(Hex(*at), f"({at[0]},{at[1]})")

    def space_of(self, label: str) -> Hex | None:
        """The space labelled ``label`` (``"E5"``, any case), or ``None`` when no space is."""
        return self._by_label.get(label.strip().upper())

    @cached_property
    def _by_label(self) -> dict[str, Hex]:
        return {v.upper(): k for k, v in self.labels.items()}

    def bag_composition(self, players: int) -> Counter[str]:
        """Tile code -> count in the bag for ``players`` players (rulebook 2.f).

        Raises :class:`ValueError` for an unsupported player count.
        """
        try:
            backs = self.bag_by_players[players]
        except KeyError:
            raise ValueError(f"the edition supports {sorted(self.bag_by_players)} players, not {players}") from None
        bag: Counter[str] = Counter()
        for code, counts in self.tile_counts.items():
            n = sum(counts.get(b, 0) for b in backs)
            if n:
                bag[code] = n
        return bag

    def trees(self, difficulty: str) -> tuple[tuple[str, Hex], ...]:
        """(tree id, space) for the Forest Communication card of ``difficulty`` (2.b)."""
        return self.tree_layouts[difficulty]

    def deck(self, name: str) -> list[Card]:
        """The cards of deck ``name`` ("a" or "b") in file order."""
        return [c for c in self.cards.values() if c.deck == name]


# --- checked access ------------------------------------------------------------------

class _Doc:
    """A loaded JSON file with helpers that raise EditionError naming file and field."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise EditionError(f"{path}: file is missing") from None
        except json.JSONDecodeError as e:
            raise EditionError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None

    def fail(self, where: str, what: str) -> EditionError:
        return EditionError(f"{self.path.name}: field {where}: {what}")

    def get(self, obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            raise self.fail(f"{where}.{key}".lstrip("."), "is missing")
        value = obj[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            raise self.fail(f"{where}.{key}".lstrip("."), f"must be {kind_name(kind)}, got {type(value).__name__}")
        return value

    def hex(self, value: Any, where: str) -> Hex:
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise self.fail(where, f"must be an axial coordinate [q, r] of two integers, got {value!r}")
        return Hex(value[0], value[1])

    def count(self, value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.fail(where, f"must be a whole number >= 0, got {value!r}")
        return value


def kind_name(kind: type | tuple[type, ...]) -> str:
    """A JSON kind in words for error messages: ``list`` -> "a list", ``(int, float)`` ->
    "a whole number or a number"."""
    names = {dict: "an object", list: "a list", str: "a string", int: "a whole number",
             float: "a number", bool: "true or false"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def json_words(value: Any) -> str:
    """A value read from JSON as a player would write it, for error messages: ``None`` ->
    ``null``, ``True`` -> ``true``, a string in double quotes, ``3``; a list or an object is
    named by its kind ("a list", "an object")."""
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:40] + "…", ensure_ascii=False)
    return kind_name(type(value))


@lru_cache(maxsize=8)
def load_edition(name: str = "default", root: str | None = None) -> Edition:
    """Load and check the edition folder ``<root>/<name>`` (root defaults to the packaged
    ``companion/editions``).

    Raises :class:`EditionError` naming the file and field of the first problem found.
    """
    folder = Path(root) / name if root else EDITIONS_DIR / name
    if not folder.is_dir():
        raise EditionError(f"no edition folder {folder}")
    placeholders: list[str] = []

    # board.json ------------------------------------------------------------------------
    b = _Doc(folder / "board.json")
    radius = b.get(b.data, "radius", int, "")
    hex_size = float(b.get(b.data, "hex_size_mm", (int, float), ""))
    if b.data.get("hex_size_mm_placeholder"):
        placeholders.append("board.json hex_size_mm")
    labels: dict[Hex, str] = {}
    for i, s in enumerate(b.get(b.data, "spaces", list, "")):
        at = b.hex(b.get(s, "at", list, f"spaces[{i}]"), f"spaces[{i}].at")
        if distance(at, (0, 0)) > radius:
            raise b.fail(f"spaces[{i}].at", f"{list(at)} lies outside a board of radius {radius}")
        label = b.get(s, "label", str, f"spaces[{i}]")
        if at in labels:
            raise b.fail(f"spaces[{i}].at", f"{list(at)} is listed twice")
        if label in labels.values():
            raise b.fail(f"spaces[{i}].label", f"label {label!r} is used twice")
        labels[at] = label
    expected = 3 * radius * (radius + 1) + 1
    if len(labels) != expected:
        raise b.fail("spaces", f"a hexagon of radius {radius} has {expected} spaces, the file lists {len(labels)}")
    outer = frozenset(b.hex(v, f"outermost[{i}]") for i, v in enumerate(b.get(b.data, "outermost", list, "")))
    for h in outer:
        if h not in labels:
            raise b.fail("outermost", f"{list(h)} is not a space of the board")
    markers = b.get(b.data, "markers", dict, "")

    # tiles.json ------------------------------------------------------------------------
    t = _Doc(folder / "tiles.json")
    backs = tuple(b_ for b_ in t.get(t.data, "back_colors", list, ""))
    bag_by_players: dict[int, tuple[str, ...]] = {}
    for k, v in t.get(t.data, "bag_by_players", dict, "").items():
        if not k.isdigit() or not isinstance(v, list) or not set(v) <= set(backs):
            raise t.fail(f"bag_by_players.{k}", f"must map a player count to back colours among {list(backs)}")
        bag_by_players[int(k)] = tuple(v)
    tile_counts: dict[str, dict[str, int]] = {}
    for i, entry in enumerate(t.get(t.data, "tiles", list, "")):
        code = t.get(entry, "code", str, f"tiles[{i}]")
        try:
            code = tilecodes.validate(code)
        except tilecodes.TileCodeError as e:
            raise t.fail(f"tiles[{i}].code", str(e)) from None
        if code in tile_counts:
            raise t.fail(f"tiles[{i}].code", f"{code} is listed twice")
        counts = t.get(entry, "count", dict, f"tiles[{i}]")
        for back, n in counts.items():
            if back not in backs:
                raise t.fail(f"tiles[{i}].count.{back}", f"unknown back colour (known: {list(backs)})")
            t.count(n, f"tiles[{i}].count.{back}")
        tile_counts[code] = dict(counts)
    if t.data.get("placeholder"):
        placeholders.append("tiles.json")

    # trees.json ------------------------------------------------------------------------
    tr = _Doc(folder / "trees.json")
    slots = tr.get(tr.data, "slots_per_tree", int, "")
    layouts: dict[str, tuple[tuple[str, Hex], ...]] = {}
    for diff in DIFFICULTIES:
        lay = tr.get(tr.get(tr.data, "layouts", dict, ""), diff, dict, "layouts")
        trees = []
        for i, tree in enumerate(tr.get(lay, "trees", list, f"layouts.{diff}")):
            where = f"layouts.{diff}.trees[{i}]"
            at = tr.hex(tr.get(tree, "at", list, where), where + ".at")
            if at not in labels:
                raise tr.fail(where + ".at", f"{list(at)} is not a space of the board")
            if at in outer:
                raise tr.fail(where + ".at", f"{list(at)} is an outermost space (reserved for spores)")
            trees.append((tr.get(tree, "id", str, where), at))
        if len(trees) != 4:
            raise tr.fail(f"layouts.{diff}.trees", f"a Forest Communication card places 4 trees, found {len(trees)}")
        layouts[diff] = tuple(trees)
    if tr.data.get("placeholder"):
        placeholders.append("trees.json")

    # substrates.json -------------------------------------------------------------------
    su = _Doc(folder / "substrates.json")
    tokens: dict[str, tuple[Hex, ...]] = {}
    toks = su.get(su.data, "tokens", dict, "")
    on_board = su.get(su.data, "on_board", dict, "")
    for kind in SUBSTRATE_COLOR:
        spaces = []
        for i, v in enumerate(su.get(toks, kind, list, "tokens")):
            at = su.hex(v, f"tokens.{kind}[{i}]")
            if at not in labels:
                raise su.fail(f"tokens.{kind}[{i}]", f"{list(at)} is not a space of the board")
            spaces.append(at)
        tokens[kind] = tuple(spaces)
        su.count(su.get(on_board, kind, int, "on_board"), f"on_board.{kind}")
    if su.data.get("placeholder"):
        placeholders.append("substrates.json")

    # cards.json ------------------------------------------------------------------------
    c = _Doc(folder / "cards.json")
    cards: dict[str, Card] = {}
    meeples: tuple[str, ...] | None = None
    for i, card in enumerate(c.get(c.data, "cards", list, "")):
        where = f"cards[{i}]"
        cid = c.get(card, "id", str, where)
        if cid in cards:
            raise c.fail(where + ".id", f"{cid} is used twice")
        deck = c.get(card, "deck", str, where)
        if deck not in ("a", "b"):
            raise c.fail(where + ".deck", f"must be 'a' or 'b', got {deck!r}")
        myc = c.get(card, "mycelia", dict, where)
        mcolor = c.get(myc, "color", str, where + ".mycelia")
        if mcolor not in tilecodes.COLOR_LETTER:
            raise c.fail(where + ".mycelia.color", f"must be pink, yellow or green, got {mcolor!r}")
        nut = c.get(card, "nutrients", dict, where)
        for k, v in nut.items():
            if k not in NUTRIENT_COLORS:
                raise c.fail(f"{where}.nutrients.{k}", f"unknown nutrient colour (known: {list(NUTRIENT_COLORS)})")
            c.count(v, f"{where}.nutrients.{k}")
        by_meeple = c.get(card, "nutrients_by_meeple", dict, where)
        if meeples is None:
            meeples = tuple(by_meeple)
        elif set(by_meeple) != set(meeples):
            # the meeple colours a game may use are those every card prices (6.b.2)
            raise c.fail(f"{where}.nutrients_by_meeple", f"names the meeples {', '.join(by_meeple) or 'none'}, "
                         f"but cards[0] names {', '.join(meeples)}: every card prices the same meeple colours")
        for meeple, cost in by_meeple.items():
            for k, v in cost.items():
                if k not in NUTRIENT_COLORS:
                    raise c.fail(f"{where}.nutrients_by_meeple.{meeple}.{k}", "unknown nutrient colour")
                c.count(v, f"{where}.nutrients_by_meeple.{meeple}.{k}")
        effect = card.get("effect")
        if effect is not None and effect not in CARD_EFFECTS:
            raise c.fail(where + ".effect", f"unknown effect {effect!r} (known: {list(CARD_EFFECTS)})")
        cards[cid] = Card(
            id=cid, name=c.get(card, "name", str, where), deck=deck,
            vp=c.count(c.get(card, "vp", int, where), where + ".vp"),
            mycelia_color=mcolor, mycelia_count=c.count(c.get(myc, "count", int, where + ".mycelia"), where + ".mycelia.count"),
            nutrients={k: nut.get(k, 0) for k in NUTRIENT_COLORS},
            nutrients_by_meeple={m: {k: v.get(k, 0) for k in NUTRIENT_COLORS} for m, v in by_meeple.items()},
            effect=effect,
        )
    if c.data.get("placeholder"):
        placeholders.append("cards.json")

    # rules.json ------------------------------------------------------------------------
    r = _Doc(folder / "rules.json")
    funga = {d: r.count(r.get(r.get(r.data, "funga", dict, ""), d, int, "funga"), f"funga.{d}") for d in DIFFICULTIES}
    sym: dict[str, tuple[int, ...]] = {}
    for d in DIFFICULTIES:
        pattern = r.get(r.get(r.data, "forest_symbiosis", dict, ""), d, list, "forest_symbiosis")
        if not pattern or not all(isinstance(x, int) and 0 < x <= slots for x in pattern):
            raise r.fail(f"forest_symbiosis.{d}", f"must list mycorrhiza counts between 1 and {slots}, got {pattern!r}")
        sym[d] = tuple(sorted(pattern, reverse=True))
    coop = {d: r.count(r.get(r.get(r.data, "cooperative_vp", dict, ""), d, int, "cooperative_vp"), f"cooperative_vp.{d}") for d in DIFFICULTIES}
    supply = r.get(r.data, "nutrient_supply", dict, "")
    for k in NUTRIENT_COLORS:
        r.count(r.get(supply, k, int, "nutrient_supply"), f"nutrient_supply.{k}")
    if r.data.get("nutrient_supply_placeholder"):
        placeholders.append("rules.json nutrient_supply")

    return Edition(
        name=name, radius=radius, hex_size_mm=hex_size, spaces=frozenset(labels), labels=labels,
        outermost=outer, markers=markers, tile_counts=tile_counts, bag_by_players=bag_by_players,
        tree_layouts=layouts, slots_per_tree=slots, substrate_tokens=tokens,
        substrates_on_board={k: on_board[k] for k in SUBSTRATE_COLOR}, cards=cards,
        funga=funga, forest_symbiosis=sym, cooperative_vp=coop,
        competitive_vp=r.count(r.get(r.data, "competitive_vp", int, ""), "competitive_vp"),
        team_vp=r.count(r.get(r.data, "team_vp", int, ""), "team_vp"),
        forest_communication_bonus=r.count(r.get(r.data, "forest_communication_bonus", int, ""), "forest_communication_bonus"),
        nutrient_cap=r.count(r.get(r.data, "nutrient_cap", int, ""), "nutrient_cap"),
        nutrient_supply={k: supply[k] for k in NUTRIENT_COLORS},
        placeholders=tuple(placeholders), meeple_colors=meeples or (),
    )
