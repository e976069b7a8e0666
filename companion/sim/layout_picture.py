"""Pictures of the calibration layouts a person can copy onto the table (``hardware/camera.md``).

Each picture is the board seen from straight above in the reference art
(:func:`companion.sim.render.draw_board_art`), every space named by its printed label, the
meeples drawn as seen from above (a disc in the player colour with a white rim), and beside
the board a list of every piece by space: each tile with its code as printed and how many
sixth-turns it is laid from there, so a tile can be found in the box and checked.

    .venv/bin/python -m companion.sim.layout_picture [--out hardware/img]

writes ``calibration_layout_1.png`` ... from ``companion/vision/calibration_layouts/*.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.sim import render_art as art
from companion.sim.render import draw_board_art
from companion.vision.geometry import DEFAULT_EDITION, BoardGeometry, load_board

FONT = cv2.FONT_HERSHEY_SIMPLEX
PANEL_PX = 700
"""Width of the list of pieces beside the board (px)."""
PX_PER_MM = 2.4
"""Scale of the board drawing: a hex side of 25 mm is 60 px, its label about 14 px high."""
TURNS = ("as printed", "turned 1/6 anticlockwise", "turned 1/3 anticlockwise", "turned half round",
         "turned 1/3 clockwise", "turned 1/6 clockwise")
"""How a tile laid ``rotation`` sixth-turns anticlockwise from its printed code is described."""
TILE_NOTE = ("Tiles: find the code as printed (docs/edition.md), then",
             "turn it as written beside it, seen from above; match",
             "the colours of the paths to the picture.")
"""The footnote under the list: each tile's turn is written out in words (:data:`TURNS`), so the
note gives no direction of its own that could contradict them."""
INK = (40, 40, 40)
PAPER = (250, 250, 247)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour=INK, thick: int = 1,
          centre: bool = False, halo: tuple | None = None) -> None:
    (w, h), _ = cv2.getTextSize(text, FONT, scale, thick)
    x, y = org
    if centre:
        x, y = x - w // 2, y + h // 2
    if halo is not None:  # a tag: the text on a small card of this colour
        cv2.rectangle(img, (x - 3, y - h - 3), (x + w + 3, y + 4), halo, -1)
    cv2.putText(img, text, (x, y), FONT, scale, colour, thick, cv2.LINE_AA)


def _labels(edition_dir: Path) -> dict[tuple[int, int], str]:
    from companion.edition import load_edition

    ed = load_edition(edition_dir.name, str(edition_dir.parent))
    return {h: ed.label(h) for h in load_board(edition_dir).spaces}


def piece_lines(layout: dict, labels: dict[tuple[int, int], str]) -> list[tuple[str, str]]:
    """(space label, what lies there) for every piece of ``layout``, in reading order (row by
    row), the meeples last: what the list beside the picture says."""
    rows: list[tuple[tuple[int, int], str]] = []
    for t in layout.get("tiles", []):
        printed, k = t.get("tile"), t.get("rotation")
        if printed is None:
            rows.append((tuple(t["at"]), f"tile {t['paths']}"))
        else:
            turn = TURNS[int(k) % 6]
            rows.append((tuple(t["at"]), f"tile {printed}, {turn}"))
    for r in layout.get("rocks", []):
        rows.append((tuple(r), "rock"))
    for t in layout.get("trees", []):
        slots = t.get("mycorrhizae", [None] * 4)
        if not any(slots):
            what = "tree, four empty slots"
        else:
            names = ("top-left", "top-right", "bottom-right", "bottom-left")
            what = "tree: " + ", ".join(f"{p} {names[k]}" for k, p in enumerate(slots) if p)
        rows.append((tuple(t["at"]), what))
    for sub in layout.get("substrates", []):
        rows.append((tuple(sub["at"]), f"{sub['kind']} substrate"))
    for p, sp in layout.get("spores", {}).items():
        rows.append((tuple(sp["at"]), f"{p} spore, {'USED' if sp.get('used') else 'unused'} side up"))
    order = sorted(labels, key=lambda h: labels[h])
    rank = {h: i for i, h in enumerate(order)}
    out = [(labels.get(h, str(h)), what) for h, what in sorted(rows, key=lambda r: rank.get(r[0], 0))]
    for p, at in layout.get("meeples", {}).items():
        h = tuple(at)
        under = next((w for hh, w in rows if hh == h), None)
        where = "on the " + under.split(",")[0].split(":")[0] if under else "on the empty space"
        out.append((labels.get(h, str(h)), f"{p} meeple standing {where}"))
    return out


def _meeple_icon(cv: art.Canvas, c: tuple[float, float], s: float, colour) -> None:
    """A mushroom meeple seen from the side, white-rimmed, standing on the space centre: a
    meeple drawn from above would look like a spore chip."""
    for grow, col in ((0.07 * s, art.COLOURS["white"]), (0.0, colour)):
        cap = [(c[0] + (0.36 * s + grow) * np.cos(a), c[1] - 0.02 * s - (0.3 * s + grow) * np.sin(a))
               for a in np.linspace(0, np.pi, 24)]
        cv.poly(cap, col)
        cv.poly([(c[0] - 0.13 * s - grow, c[1] - 0.03 * s), (c[0] + 0.13 * s + grow, c[1] - 0.03 * s),
                 (c[0] + 0.15 * s + grow, c[1] + 0.34 * s + grow), (c[0] - 0.15 * s - grow, c[1] + 0.34 * s + grow)], col)


def draw_layout_picture(layout: dict, title: str, geo: BoardGeometry | None = None,
                        edition_dir: Path = DEFAULT_EDITION) -> np.ndarray:
    """BGR uint8 (h, w, 3): ``layout`` (board part of a position) seen from above, labelled,
    with the list of its pieces beside it and ``title`` on top."""
    geo = geo or load_board(edition_dir)
    labels = _labels(Path(edition_dir))
    s = geo.hex_size_mm
    cv = draw_board_art(layout, geo, np.random.default_rng(0), PX_PER_MM)
    x0, y0, x1, y1 = geo.extent_mm(art.MARKER_QUIET_MM + 6.0)
    (c0, r0), (c1, r1) = (((v >> cv.SHIFT) for v in cv.pt(x, y)) for x, y in ((x0, y0), (x1, y1)))
    occupied = {tuple(t["at"]) for t in layout.get("tiles", [])} | {tuple(r) for r in layout.get("rocks", [])}
    occupied |= {tuple(t["at"]) for t in layout.get("trees", [])} | {tuple(x["at"]) for x in layout.get("substrates", [])}
    occupied |= {tuple(x["at"]) for x in layout.get("spores", {}).values()}
    meeple_at = {tuple(at) for at in layout.get("meeples", {}).values()}
    img = cv.img
    spores_at = {tuple(x["at"]) for x in layout.get("spores", {}).values()}
    for p, at in layout.get("meeples", {}).items():
        # smaller on a spore, so its chip and the side it shows stay in view around the meeple
        _meeple_icon(cv, geo.center_mm(tuple(at)), s * (0.75 if tuple(at) in spores_at else 1.0), art.COLOURS[p])
    for h in geo.spaces:
        c = geo.center_mm(h)
        x, y = (v >> cv.SHIFT for v in cv.pt(*c))
        if h in occupied or h in meeple_at:
            # a tag below the piece: the label must not hide the paths a person copies
            _text(img, labels[h], (x, y + int(0.76 * s * cv.ppm)), 0.45, INK, 1, centre=True, halo=PAPER)
        else:
            _text(img, labels[h], (x, y), 0.45, (205, 215, 195), 1, centre=True)
    for mk in geo.markers:
        mx, my = (v >> cv.SHIFT for v in cv.pt(mk.center_mm[0], mk.center_mm[1] + geo.marker_size_mm / 2 + 4.5))
        _text(img, f"marker {mk.id}", (mx, my), 0.4, INK, 1, centre=True)
    board = img[r0:r1, c0:c1]
    h = board.shape[0]
    panel = np.full((h, PANEL_PX, 3), PAPER, np.uint8)
    y = 40
    _text(panel, title, (20, y), 0.75, INK, 2)
    y += 34
    for line in ("Set the board up exactly like this; every space", "not listed stays empty. Marker 0 top-left."):
        _text(panel, line, (20, y), 0.5, INK)
        y += 24
    y += 10
    for label, what in piece_lines(layout, labels):
        _text(panel, label, (20, y), 0.55, INK, 2)
        _text(panel, what, (78, y), 0.55, INK)
        y += 27
    y += 8
    for line in TILE_NOTE:
        _text(panel, line, (20, y), 0.45, (90, 90, 90))
        y += 21
    return np.hstack([board, panel])


def main(argv: list[str] | None = None) -> int:
    from companion.sim.calibration import calibration_layouts

    ap = argparse.ArgumentParser(description="pictures of the calibration layouts for hardware/camera.md")
    ap.add_argument("--out", default="hardware/img", help="folder to write calibration_layout_N.png into")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in calibration_layouts():
        layout = json.loads(path.read_text())
        target = out / f"calibration_layout_{path.stem}.png"
        picture = draw_layout_picture(layout, f"Calibration layout {path.stem}")
        if not cv2.imwrite(str(target), picture, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
            print(f"cannot write {target}", file=sys.stderr)
            return 2
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
