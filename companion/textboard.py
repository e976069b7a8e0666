"""The board as text for the terminal (the demo and ``mycelium-companion show``).

Each space is a 5-character cell in staggered rows, pointy-top like the board:
``PYG``: a tile with pink, yellow and green mycelium; ``B`` before it: blue's meeple on it;
``#``: rock; ``T2``: a tree with 2 mycorrhizae; ``s:b``: blue's spore (``x:b`` once its ability
is used); ``~w~``/``~s~``: a wood/soil substrate; ``.``: empty.  Players are ``B`` blue, ``O``
orange, ``R`` red and ``K`` black (blue and black share a first letter).  Letters make every
colour readable without colour vision; ANSI colours are added only on a terminal.
:func:`legend` says all of this under the board.
"""

from __future__ import annotations

from companion import tiles as tilecodes
from companion.edition import Edition
from companion.hexgrid import Hex
from companion.position import Position

_ANSI = {"P": "\033[95m", "Y": "\033[93m", "G": "\033[92m", "#": "\033[90m", "T": "\033[32m", "~": "\033[33m"}
_RESET = "\033[0m"
PLAYER_LETTER = {"blue": "B", "orange": "O", "red": "R", "black": "K"}
"""One letter per player colour; black is K, as blue takes B."""


def _letter(color: str) -> str:
    return PLAYER_LETTER.get(color, color[:1].upper())


def cell(pos: Position, at: Hex) -> str:
    """The (up to) 5-character text of one space."""
    meeple = pos.meeple_at(at)
    prefix = _letter(meeple) if meeple else ""
    if at in pos.tiles:
        letters = "".join(sorted({"PYG"["pink yellow green".split().index(p.color)] for p in tilecodes.parse(pos.tiles[at]).paths},
                                 key="PYG".index))
        return prefix + letters
    if at in pos.rocks:
        return "#"
    if at in pos.trees:
        return f"T{sum(1 for s in pos.trees[at] if s)}"
    owner = pos.spore_owner(at)
    if owner:
        return prefix + ("x:" if pos.spores[owner].used else "s:") + _letter(owner).lower()
    if at in pos.substrates:
        return "~w~" if pos.substrates[at] == "wood" else "~s~"
    return "."


def render(pos: Position, edition: Edition, color: bool = False) -> str:
    """The whole board, one text line per row of spaces (r from top to bottom)."""
    lines = []
    radius = edition.radius
    for r in range(-radius, radius + 1):
        qs = sorted(h.q for h in edition.spaces if h.r == r)
        indent = " " * (3 * abs(r))
        cells = []
        for q in qs:
            text = cell(pos, Hex(q, r)).center(5)
            if color:
                key = next((ch for ch in text if ch in _ANSI), None)
                if key:
                    text = _ANSI[key] + text + _RESET
            cells.append(text)
        lines.append(f"{'ABCDEFGHI'[r + radius] if radius == 4 else r:>2} " + indent + " ".join(cells))
    return "\n".join(lines)


def legend(pos: Position) -> str:
    """What the board's letters mean, for the players of ``pos`` (printed under the board)."""
    players = ", ".join(f"{_letter(c)} {c}" for c in pos.colors)
    first = pos.colors[0] if pos.colors else "blue"
    b, lo = _letter(first), _letter(first).lower()
    return (f"key: PYG tile with pink, yellow, green paths; {b}PY {first}'s meeple on a tile; # rock; "
            f"T2 tree with 2 mycorrhizae;\n     s:{lo} {first}'s spore (x:{lo} once used); ~w~ wood, ~s~ soil "
            f"substrate; . empty; players {players};\n     spaces are named by row and place from the left "
            "(E5: row E, 5th space)")


def summary(pos: Position, edition: Edition) -> str:
    """Hands, nutrients, cards and the market, one line per player."""
    from companion.economy import victory_points
    out = []
    for c in pos.colors:
        n = pos.nutrients[c]
        mark = ">" if c == pos.active else " "
        out.append(f"{mark}{c:<7} hand {' '.join(pos.hands[c]) or '-':<30} nutrients P{n['pink']} Y{n['yellow']} W{n['white']}"
                   f"  cards {len(pos.cards[c])} ({victory_points(pos, edition, c)} VP)")
    out.append(f" bag {pos.bag}  market a: {' '.join(pos.market['a'])}  b: {' '.join(pos.market['b'])}")
    return "\n".join(out)
