"""``mycelium-companion sim-photo``: one simulated overhead photo of a position's board, and
``sim-calibration``: the calibration photos of the same simulated table.

The same renderers the tests and ``bench/vision.py`` measure the board reader against
(``docs/simulated-camera.md``): the reference copy under a plain lamp, or a board in one art
style under one light, with things lying over it if asked (``--object``).  Handy to try
``read-board``, ``calibrate pieces`` or ``camera check`` without a table.  ``--seed`` draws
the table (the mounted camera's pose, the lamp), so ``sim-calibration`` and ``sim-photo`` with
the same ``--seed``, ``--style``, ``--light`` and ``--table`` photograph one table: calibrate on
the first, read the second.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.argtypes import at_least

REFERENCE = "reference"
"""``--style`` for the reference copy (``render.render``), the art the default profile knows."""


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``sim-photo`` to the top-level parser."""
    from companion.sim.light import LIGHTS
    from companion.sim.objects import KINDS
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
    p.add_argument("--seed", type=at_least(0), default=0, help="draws the camera pose, the lamp and the noise (default 0)")
    p.add_argument("--truth", metavar="T.json", help="also write what was drawn (board, homography, camera, light)")
    p.add_argument("--object", action="append", default=[], choices=KINDS, metavar="KIND",
                   help=f"something over the board ({', '.join(KINDS)}; repeat for more), placed, turned and "
                        "held up or lying flat at random from --seed")
    p.set_defaults(func=cmd_sim_photo)

    c = sub.add_parser("sim-calibration", help="the calibration photos of a simulated table (one per layout)")
    c.add_argument("--out", required=True, metavar="DIR", help="folder to write layout1.png, layout2.png, ... into")
    c.add_argument("--style", required=True, choices=list(STYLES), help="art of the copy")
    c.add_argument("--light", default="daylight", choices=LIGHTS,
                   help="lamp (default daylight); its glare spot is left out, as hardware/camera.md asks of a calibration")
    c.add_argument("--table", default="wood", choices=sorted(TABLES), help="table surface around the board (default wood)")
    c.add_argument("--size", default="1920x1080", metavar="WxH", help="frame size in px (default 1920x1080)")
    c.add_argument("--seed", type=at_least(0), default=0, help="the table: camera pose and lamp, as sim-photo's --seed (default 0)")
    c.set_defaults(func=cmd_sim_calibration)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size {text}: give width x height in px, e.g. 1920x1080") from None
    if not (320 <= w <= 8000 and 240 <= h <= 8000):
        raise ValueError(f"--size {text}: each side must be 320 to 8000 px wide and 240 to 8000 px high")
    return w, h


def _table(seed: int, style: str, light: str, size: tuple[int, int]):
    """The simulated table of ``seed``: (geometry, conditions, mounted camera, lamp or ``None``
    for the reference copy, generator in the state the photo is drawn from).  The camera pose is
    a mild random one (``random_conditions``); a styled copy's lamp is drawn next from the preset
    ``light``, so ``sim-photo`` and ``sim-calibration`` of one seed share camera and lamp."""
    import numpy as np

    from companion.sim.light import light_preset
    from companion.sim.render import make_camera, random_conditions
    from companion.vision.geometry import load_board

    geo = load_board()
    rng = np.random.default_rng(seed)
    cond = random_conditions(rng)
    cam = make_camera(geo, cond, size)
    lamp = None if style == REFERENCE else light_preset(light, rng)
    return geo, cond, cam, lamp, rng


def photo(board: dict, style: str = REFERENCE, light: str = "daylight", table: str = "wood",
          size: tuple[int, int] = (1920, 1080), seed: int = 0, objects: list[str] = ()):
    """A simulated photo of ``board`` (a position's ``board`` object): a
    :class:`companion.sim.render.Frame` (``image`` BGR uint8 of shape (h, w, 3), ``truth``).

    Pieces off the board (a spore not placed yet, a meeple not on the board) are not drawn.
    The table (camera pose, lamp) comes from ``seed`` (:func:`_table`).  ``objects``: kinds of
    :data:`companion.sim.objects.KINDS` to lay over the board, each placed, turned and lying flat
    or held up at random from ``seed`` (:func:`companion.sim.objects.random_object`); the truth
    then says what share of each space they hide (``covered``).
    """
    import numpy as np

    from companion.sim.objects import random_object
    from companion.sim.render import render, render_styled
    from companion.sim.styles import get_style

    board = dict(board)
    board["meeples"] = {c: m for c, m in board.get("meeples", {}).items() if m is not None}
    board["spores"] = {c: s for c, s in board.get("spores", {}).items() if s and s.get("at") is not None}
    geo, cond, cam, lamp, rng = _table(seed, style, light, size)
    orng = np.random.default_rng((seed, 1))  # their own generator: the board's frame is the same without them
    art = None if style == REFERENCE else get_style(style)
    obs = [random_object(orng, geo, art, kind) for kind in objects] or None
    if style == REFERENCE:
        return render(board, geo, cond, rng, size=size, camera=cam, objects=obs)
    return render_styled(board, geo, style, lamp, cond, rng, size=size, camera=cam, table=table, objects=obs)


def calibration_photos(style: str, light: str = "daylight", table: str = "wood", size: tuple[int, int] = (1920, 1080),
                       seed: int = 0) -> list:
    """The calibration photos of the table of ``seed`` (:func:`_table`: the camera and lamp of
    :func:`photo` with the same arguments), one :class:`companion.sim.render.Frame` per layout
    (:func:`companion.sim.calibration.calibration_layouts`), the lamp's glare spot left out."""
    from dataclasses import replace

    from companion.sim.calibration import render_calibration_frames

    geo, _cond, cam, lamp, _rng = _table(seed, style, light, size)
    return render_calibration_frames(style, replace(lamp, glare=0.0), seed, size, cam, geo, table)


PHOTO_SUFFIXES = (".png", ".jpg", ".jpeg")
"""What ``sim-photo --out`` may end with: a PNG, or a JPEG."""


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
        if out.suffix.lower() not in PHOTO_SUFFIXES:
            raise InputError(f"--out {out}: sim-photo writes a PNG or a JPEG, chosen by the name's ending "
                             f"({', '.join(PHOTO_SUFFIXES)}); name the file so")
        if args.style == REFERENCE and (args.light or args.table):
            raise InputError(f"--{'light' if args.light else 'table'} draws a styled photo only (--style "
                             "bands, meadow, inkline, woodcut or riso): the reference copy has its own lamp and table")
        args.light, args.table = args.light or "daylight", args.table or "wood"
    except (InputError, ValueError) as e:
        print(f"mycelium-companion sim-photo: {e}", file=sys.stderr)
        return 2
    frame = photo(pos.to_json()["board"], args.style, args.light, args.table, size, args.seed, args.object)
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
    over = f", {' and '.join(args.object)} over the board" if args.object else ""
    how = (f"read it with: mycelium-companion read-board {out}" if args.style == REFERENCE else
           f"another copy's art: read it with 'mycelium-companion read-board {out} --profile P', P calibrated "
           "with 'calibrate pieces' on that copy's layout photos (the built-in profile knows the reference copy): "
           f"'mycelium-companion sim-calibration --style {args.style} --light \"{args.light}\" --table {args.table} "
           f"--seed {args.seed} --out DIR' photographs them on this table")
    print(f"{out}: {size[0]}x{size[1]} px, style {args.style}{lit}, seed {args.seed}{over}; {how}")
    return 0


def cmd_sim_calibration(args: argparse.Namespace) -> int:
    """Write one photo per calibration layout into ``--out`` and say how to calibrate on them;
    exit 2 with one sentence on a bad argument."""
    import cv2

    try:
        size = _size(args.size)
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {out}: this is a file; give a folder")
        out.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as e:
        print(f"mycelium-companion sim-calibration: {e}", file=sys.stderr)
        return 2
    paths = []
    for i, frame in enumerate(calibration_photos(args.style, args.light, args.table, size, args.seed), 1):
        path = out / f"layout{i}.png"
        if not cv2.imwrite(str(path), frame.image):
            print(f"mycelium-companion sim-calibration: cannot write {path}", file=sys.stderr)
            return 2
        paths.append(path)
    images = " ".join(f"--image {p}" for p in paths)
    print(f"{len(paths)} calibration photos in {out}: style {args.style}, light {args.light} (no glare spot), table "
          f"{args.table}, seed {args.seed}; calibrate with: mycelium-companion calibrate pieces {images} "
          f"--out {out / 'profile.json'}")
    return 0
