"""Tile path codes: the one way every part of the project names a tile.

A tile's mycelium is written as paths separated by ``.``; each path is a colour letter
``P`` (pink, grows through wood), ``Y`` (yellow, soil) or ``G`` (green, mycorrhizal)
followed by the sorted edge digits (0..5) it touches.  A path with one edge is a spur
from that edge to the centre.  ``P03.G1`` is a pink path joining edges 0 and 3 and a green
spur on edge 1.  Rocks are ``ROCK``.  Edge numbering is :data:`companion.hexgrid.DIRECTIONS`.

Rotation k turns a tile k x 60 degrees so that edge e moves to (e + k) mod 6.  Two placed
tiles are joined in colour c across a shared side when both have colour c on that side
(rulebook section 4.a.1, "connected by at least one mycelium of the same color").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ROCK = "ROCK"

COLORS: dict[str, str] = {"P": "pink", "Y": "yellow", "G": "green"}
"""Path colour letter -> colour name used in moves and the position JSON."""
COLOR_LETTER: dict[str, str] = {v: k for k, v in COLORS.items()}

_PATH_RE = re.compile(r"^([PYG])([0-5]{1,6})$")


class TileCodeError(ValueError):
    """A string is not a well-formed tile path code; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Path:
    """One path on a tile: its colour name and the edges (0..5) it touches."""

    color: str
    edges: frozenset[int]

    def code(self) -> str:
        """This path in code form, e.g. ``P03``."""
        return COLOR_LETTER[self.color] + "".join(str(e) for e in sorted(self.edges))


@dataclass(frozen=True, slots=True)
class Tile:
    """A mycelium tile as a tuple of paths, in code order.  Immutable and hashable.

    ``edge_color[e]`` is the colour name on edge e or ``None``; an edge carries at most one
    path.  Build one with :func:`parse`.
    """

    paths: tuple[Path, ...]

    @property
    def code(self) -> str:
        """The normalised path code (paths sorted by colour letter, then edges)."""
        return ".".join(p.code() for p in self.paths)

    @property
    def edge_color(self) -> tuple[str | None, ...]:
        """Colour name on each edge 0..5, or ``None`` for a bare edge."""
        return _edge_colors(self.code)

    def path_on_edge(self, edge: int) -> int | None:
        """Index into :attr:`paths` of the path touching ``edge``, or ``None``."""
        for i, p in enumerate(self.paths):
            if edge in p.edges:
                return i
        return None

    def colors(self) -> frozenset[str]:
        """The set of colour names on this tile."""
        return frozenset(p.color for p in self.paths)

    def rotated(self, k: int) -> "Tile":
        """This tile turned k x 60 degrees: edge e moves to (e + k) mod 6."""
        return parse(rotate_code(self.code, k))

    def __str__(self) -> str:
        return self.code


def _sort_key(p: Path) -> tuple[int, list[int]]:
    return ("PYG".index(COLOR_LETTER[p.color]), sorted(p.edges))


@lru_cache(maxsize=4096)
def parse(code: str) -> Tile:
    """Parse and normalise a path code such as ``"G1.P03"`` (-> ``P03.G1``).

    Raises :class:`TileCodeError` for ``ROCK`` (not a mycelium tile), an empty code, an
    unknown colour letter, an edge digit outside 0..5, a repeated edge within a path, or an
    edge used by two paths.
    """
    if not isinstance(code, str) or not code:
        raise TileCodeError(f"tile code must be a non-empty string, got {code!r}")
    if code == ROCK:
        raise TileCodeError("ROCK is a rock, not a mycelium tile")
    used: set[int] = set()
    paths = []
    for part in code.split("."):
        m = _PATH_RE.match(part)
        if not m:
            raise TileCodeError(
                f"bad path {part!r} in tile code {code!r}: expected a colour letter P, Y or G "
                "followed by edge digits 0-5"
            )
        digits = [int(c) for c in m.group(2)]
        if len(set(digits)) != len(digits):
            raise TileCodeError(f"path {part!r} in {code!r} repeats an edge")
        if used & set(digits):
            raise TileCodeError(f"tile code {code!r} puts two paths on edge {sorted(used & set(digits))[0]}")
        used |= set(digits)
        paths.append(Path(COLORS[m.group(1)], frozenset(digits)))
    return Tile(tuple(sorted(paths, key=_sort_key)))


def is_rock(code: str) -> bool:
    """True for the rock code ``ROCK``."""
    return code == ROCK


def validate(code: str) -> str:
    """Return the normalised form of a tile code or ``ROCK``; raise :class:`TileCodeError`."""
    return ROCK if code == ROCK else parse(code).code


@lru_cache(maxsize=4096)
def rotate_code(code: str, k: int) -> str:
    """Rotate a path code by k x 60 degrees (edge e -> (e + k) mod 6); ``ROCK`` is unchanged."""
    if code == ROCK:
        return ROCK
    tile = parse(code)
    paths = [Path(p.color, frozenset((e + k) % 6 for e in p.edges)) for p in tile.paths]
    return Tile(tuple(sorted(paths, key=_sort_key))).code


@lru_cache(maxsize=4096)
def canonical(code: str) -> str:
    """The rotation-independent name of a tile type: the smallest code over its 6 rotations.

    Two codes name the same physical tile type exactly when their canonical forms match.
    """
    if code == ROCK:
        return ROCK
    return min(rotate_code(code, k) for k in range(6))


@lru_cache(maxsize=4096)
def rotation_between(type_code: str, placed_code: str) -> int | None:
    """Smallest k with ``rotate_code(type_code, k) == placed_code``, or ``None``."""
    target = parse(placed_code).code
    for k in range(6):
        if rotate_code(type_code, k) == target:
            return k
    return None


@lru_cache(maxsize=4096)
def distinct_rotations(code: str) -> tuple[tuple[int, str], ...]:
    """``(k, placed_code)`` for each rotation that gives a different placed tile.

    A symmetric tile (e.g. ``P03``) has fewer than 6, which keeps legal-move lists free of
    duplicates.
    """
    seen: dict[str, int] = {}
    for k in range(6):
        seen.setdefault(rotate_code(code, k), k)
    return tuple((k, c) for c, k in seen.items())


@lru_cache(maxsize=4096)
def _edge_colors(code: str) -> tuple[str | None, ...]:
    out: list[str | None] = [None] * 6
    for p in parse(code).paths:
        for e in p.edges:
            out[e] = p.color
    return tuple(out)
