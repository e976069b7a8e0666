"""Moves and fixes in the words a player reads: tile colours and turns, never tile codes.

The log, the terminal and the dashboard show these; the codes stay in the JSON
(``docs/position.md``).
"""

from __future__ import annotations

from typing import Any

from companion import tiles as tilecodes

TURNS = {1: "turned once", 2: "turned twice"}

MISSION_TITLES = {"funga": "Funga", "forest_symbiosis": "Forest Symbiosis", "forest_communication": "Forest Communication"}
"""The cooperative missions as the rulebook's connectivity cards name them (7), as the
dashboard's Goals tab shows them."""


def mission_title(mission: str) -> str:
    """``"forest_communication"`` -> ``"Forest Communication"`` (7); an unknown id as is."""
    return MISSION_TITLES.get(mission, mission)


def and_list(names: list[str]) -> str:
    """``[]`` -> ``""``; ``["blue"]`` -> ``"blue"``; ``["blue", "orange", "red"]`` ->
    ``"blue, orange and red"``."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def counted(n: int, noun: str) -> str:
    """``(1, "cube")`` -> ``"1 cube"``; ``(2, "cube")`` -> ``"2 cubes"`` (regular English plurals)."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def tile_words(code: str) -> str:
    """``"P01.Y23.G45"`` -> ``"a pink-yellow-green tile"``; ``"ROCK"`` -> ``"a rock"``.

    Colours are named in the tile's path order, each once; an unreadable code is given as is.
    """
    if code == tilecodes.ROCK:
        return "a rock"
    try:
        tile = tilecodes.parse(code)
    except tilecodes.TileCodeError:
        return f"tile {code}"
    names: list[str] = []
    for p in tile.paths:
        if p.color not in names:
            names.append(p.color)
    return f"a {'-'.join(names)} tile"


def turn_words(rotation: int) -> str:
    """Rotation k (k x 60 degrees, ``companion/tiles.py``) as ``"turned twice"``;
    ``""`` for no turn."""
    k = int(rotation) % 6
    if k == 0:
        return ""
    return TURNS.get(k, f"turned {k} times")


def placement_words(code: str, label: str, rotation: int) -> str:
    """``"a pink-yellow-green tile at F8, turned twice"``."""
    turn = turn_words(rotation)
    return f"{tile_words(code)} at {label}" + (f", {turn}" if turn else "")


def fix_words(label: str, content: dict[str, Any] | None) -> str:
    """A fix of a misread space: ``"F8 set by hand: a rock"``, or trusting the camera again."""
    if content is None:
        return f"{label}: the camera is trusted again"
    kind = content.get("kind")
    if kind == "tile":
        what = tile_words(str(content.get("paths")))
    elif kind == "rock":
        what = "a rock"
    elif kind == "empty":
        what = "nothing"
    else:
        what = f"a {kind}"
    return f"{label} set by hand: {what}"
