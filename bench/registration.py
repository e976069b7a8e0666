"""Registration bench: markers stuck off their place, and stray copies of a marker.

    .venv/bin/python bench/registration.py             # 8 boards per offset, 0-6 mm, 1920x1080
    .venv/bin/python bench/registration.py --n 3       # quicker
    .venv/bin/python bench/registration.py --style woodcut   # another copy of the game's art

Each board is drawn by the synthetic camera (standard bench conditions: tilt up to 15 degrees,
lens distortion, warm and cold light, noise, JPEG) with every corner marker stuck the given
distance off its documented place, each in a random direction.  It is read twice with the
camera's intrinsics: with the marker homography only, and with the homography refined on the
printed grid (the default).  Printed per offset: spaces read wrong, boards read perfectly,
the largest error of the space centres in px, how often a marker was reported off its place,
and the refinement time (with the load average: the machine may be shared).  With ``--style``
the boards are drawn in that art style (``companion.sim.styles``; ``woodcut`` is held out of
all tuning) under daylight instead of the default art.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.intrinsics import Intrinsics  # noqa: E402
from companion.sim.render import make_camera, random_conditions, render, render_styled  # noqa: E402
from companion.sim.render_scene import random_board  # noqa: E402
from companion.tiles import validate  # noqa: E402
from companion.vision.geometry import Marker, load_board, load_tile_codes  # noqa: E402
from companion.vision.gridfit import displaced_markers, refine_registration  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402

SIZE = (1920, 1080)


def space_states(board: dict) -> dict:
    """(q, r) -> everything on that space, for a per-space comparison."""
    out: dict = {}

    def add(at, item):
        out.setdefault(tuple(at), []).append(item)

    for t in board.get("tiles", []):
        add(t["at"], ("tile", validate(t["paths"])))
    for r in board.get("rocks", []):
        add(r, ("rock",))
    for t in board.get("trees", []):
        add(t["at"], ("tree", tuple(t["mycorrhizae"])))
    for s in board.get("substrates", []):
        add(s["at"], (s["kind"],))
    for p, s in board.get("spores", {}).items():
        add(s["at"], ("spore", p, bool(s["used"])))
    for p, at in board.get("meeples", {}).items():
        add(at, ("meeple", p))
    return {k: sorted(v, key=repr) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8, help="boards per offset")
    ap.add_argument("--offsets", default="0,1,2,3,4,5,6", help="marker offsets in mm")
    ap.add_argument("--style", default=None, help="art style of companion.sim.styles (default: the plain art)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    geo, codes = load_board(), load_tile_codes()
    spaces = [tuple(h) for h in geo.spaces]
    centres = np.array([geo.center_mm(h) for h in spaces], np.float64).reshape(-1, 1, 2)
    print(f"{'offset mm':>9} | {'wrong before':>12} {'wrong after':>11} | {'perfect before':>14} {'after':>6} | "
          f"{'max px before':>13} {'after':>6} | {'reported off':>12} | refine s (load)")
    for mag in (float(v) for v in args.offsets.split(",")):
        wrong = [0, 0]
        perfect = [0, 0]
        err = [[], []]
        reported, times = 0, []
        for k in range(args.n):
            rng = np.random.default_rng(1000 + k)
            cond = random_conditions(rng)
            board = random_board(rng, geo, codes)
            offs = {}
            for m in geo.markers:
                a = rng.uniform(0, 2 * math.pi)
                offs[m.id] = (m.center_mm[0] + mag * math.cos(a), m.center_mm[1] + mag * math.sin(a))
            drawn = geo.__class__(**{**geo.__dict__, "markers": tuple(Marker(i, c) for i, c in offs.items())})
            cam = make_camera(geo, cond, SIZE)
            if args.style:
                frame = render_styled(board, drawn, args.style, "daylight", cond, rng, size=SIZE, camera=cam)
            else:
                frame = render(board, drawn, cond, rng, size=SIZE, camera=cam)
            intr = Intrinsics(cam.k, cam.dist, SIZE, 0.0)
            truth_h = np.array(frame.truth["homography"])
            truth = space_states(board)
            for j, refine in enumerate((False, True)):
                reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
                reader.tracker.refine = None
                reg = reader.tracker.register(frame.image)
                if refine:
                    t0 = time.perf_counter()
                    reg = refine_registration(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), reg, geo)
                    times.append(time.perf_counter() - t0)
                    reader.tracker.current = reg
                    reported += bool(displaced_markers(reg))
                got = space_states(reader.read(frame.image).board)
                bad = sum(got.get(h, []) != truth.get(h, []) for h in spaces)
                wrong[j] += bad
                perfect[j] += bad == 0
                e = cv2.perspectiveTransform(centres, reg.h) - cv2.perspectiveTransform(centres, truth_h)
                err[j].append(float(np.abs(e).max()))
        n_sp = args.n * len(spaces)
        print(f"{mag:9.1f} | {100 * wrong[0] / n_sp:11.1f}% {100 * wrong[1] / n_sp:10.1f}% | "
              f"{100 * perfect[0] / args.n:13.0f}% {100 * perfect[1] / args.n:5.0f}% | "
              f"{max(err[0]):13.1f} {max(err[1]):6.1f} | {reported:5d} of {args.n:<3d} | "
              f"{np.median(times):.2f} ({os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
