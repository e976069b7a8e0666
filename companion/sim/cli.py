"""``mycelium-companion sim-photo``: one simulated overhead photo of a position's board.

The same renderers the tests and ``bench/vision.py`` measure the board reader against
(``docs/simulated-camera.md``): the reference copy under a plain lamp, or a board in one art
style under one light.  Handy to try ``read-board`` or ``camera check`` without a table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REFERENCE = "reference"
"""``--style`` for the reference copy (``render.render``), the art the default profile knows."""


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``sim-photo`` to the top-level parser."""
    from companion.sim.light import LIGHTS
    from companion.sim.styles import STYLES, TABLES

    p = sub.add_parser("sim-photo", help="a simulated overhead camera photo of a position's board")
    p.add_argument("--position", required=True, metavar="P.json", help="position file (its board is photographed)")
    p.add_argument("--out", required=True, metavar="PHOTO.png", help="image file to write (PNG or JPEG by its name)")
    p.add_argument("--style", default=REFERENCE, choices=[REFERENCE, *STYLES],
                   help=f"art of the copy (default {REFERENCE}: the copy the built-in profile knows; "
                        "woodcut and riso are held out from tuning, docs/simulated-camera.md)")
    p.add_argument("--light", default=None, choices=LIGHTS,
                   help="lamp, glare included (default daylight; a styled photo only: the reference copy has its own lamp)")
    p.add_argument("--table", default=None, choices=sorted(TABLES), help="table surface around the board (styled photo)")
    p.add_argument("--size", default="1920x1080", metavar="WxH", help="frame size in px (default 1920x1080)")
    p.add_argument("--seed", type=int, default=0, help="draws the camera pose, the lamp and the noise (default 0)")
    p.add_argument("--truth", metavar="T.json", help="also write what was drawn (board, homography, camera, light)")
    p.set_defaults(func=cmd_sim_photo)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size {text}: give width x height in px, e.g. 1920x1080") from None
    if not (320 <= w <= 8000 and 240 <= h <= 8000):
        raise ValueError(f"--size {text}: each side must be 320 to 8000 px wide and 240 to 8000 px high")
    return w, h


def photo(board: dict, style: str = REFERENCE, light: str = "daylight", table: str = "wood",
          size: tuple[int, int] = (1920, 1080), seed: int = 0):
    """A simulated photo of ``board`` (a position's ``board`` object): a
    :class:`companion.sim.render.Frame` (``image`` BGR uint8 of shape (h, w, 3), ``truth``).

    Pieces off the board (a spore not placed yet, a meeple not on the board) are not drawn.
    The camera pose is a mild random one from ``seed`` (``random_conditions``).
    """
    import numpy as np

    from companion.sim.render import make_camera, random_conditions, render, render_styled
    from companion.vision.geometry import load_board

    board = dict(board)
    board["meeples"] = {c: m for c, m in board.get("meeples", {}).items() if m is not None}
    board["spores"] = {c: s for c, s in board.get("spores", {}).items() if s and s.get("at") is not None}
    geo = load_board()
    rng = np.random.default_rng(seed)
    cond = random_conditions(rng)
    cam = make_camera(geo, cond, size)
    if style == REFERENCE:
        return render(board, geo, cond, rng, size=size, camera=cam)
    return render_styled(board, geo, style, light, cond, rng, size=size, camera=cam, table=table)


def cmd_sim_photo(args: argparse.Namespace) -> int:
    """Write the photo (and the truth); exit 2 with one sentence on a bad file or argument."""
    import cv2

    from companion.commands import InputError, load_position
    try:
        size = _size(args.size)
        pos = load_position(args.position)
        out = Path(args.out)
        if not out.parent.is_dir():
            raise InputError(f"--out {out}: the folder {out.parent} does not exist")
        if args.seed < 0:
            raise InputError(f"--seed {args.seed}: give a whole number 0 or more")
        if args.style == REFERENCE and (args.light or args.table):
            raise InputError(f"--{'light' if args.light else 'table'} draws a styled photo only (--style "
                             "bands, meadow, inkline, woodcut or riso): the reference copy has its own lamp and table")
        args.light, args.table = args.light or "daylight", args.table or "wood"
    except (InputError, ValueError) as e:
        print(f"mycelium-companion sim-photo: {e}", file=sys.stderr)
        return 2
    frame = photo(pos.to_json()["board"], args.style, args.light, args.table, size, args.seed)
    try:
        ok = cv2.imwrite(str(out), frame.image)
    except cv2.error:
        ok = False
    if not ok:
        print(f"mycelium-companion sim-photo: cannot write {out} (a name ending .png or .jpg, in a writable folder)",
              file=sys.stderr)
        return 2
    if args.truth:
        Path(args.truth).write_text(json.dumps(frame.truth, default=str))
    lit = f", light {args.light}, table {args.table}" if args.style != REFERENCE else ""
    how = (f"read it with: mycelium-companion read-board {out}" if args.style == REFERENCE else
           f"another copy's art: read it with 'mycelium-companion read-board {out} --profile P', P calibrated "
           "with 'calibrate pieces' on that copy's layout photos (the built-in profile knows the reference copy)")
    print(f"{out}: {size[0]}x{size[1]} px, style {args.style}{lit}, seed {args.seed}; {how}")
    return 0
