"""How clearly ``calibrate pieces`` tells a good calibration photo from one with a piece missing
or a tile turned (:func:`calibration.layout_check.check_spaces`), per art style and light.

    .venv/bin/python bench/calibration_spaces.py [--seeds N] [--lights daylight,warm lamp]

For every style (the held-out ones included) and light it photographs the three layouts as
documented and, for each layout, once per change: each piece kind removed in turn (the first
tile, rock, tree, substrate, spore and meeple listed) and every tile turned by one sixth-turn.  It prints the lowest space fit on the good photos (refused wrongly when under
:data:`calibration.layout_check.MIN_SPACE_FIT`) and whether each change was caught at its
own space.  No parameter was tuned on the held-out styles.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.colours import load_layout  # noqa: E402
from calibration.layout_check import MIN_SPACE_FIT, check_spaces  # noqa: E402
from companion.sim.calibration import calibration_layouts, load_layout_board, render_calibration_frames  # noqa: E402
from companion.sim.light import light_preset
from companion.sim.render import make_camera, random_conditions, render_styled  # noqa: E402
from companion.sim.styles import HELD_OUT_STYLES, STYLES  # noqa: E402
from companion.tiles import parse, rotate_code  # noqa: E402
from companion.vision.profile import CLASSES, ColourProfile  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402
from companion.vision.registration import BoardTracker  # noqa: E402


def changes(layout: dict, turns=(1,)) -> list[tuple[str, tuple[int, int], dict]]:
    """(what changed, the space, the changed board) for one missing piece of each kind and
    every tile turned by each of ``turns`` sixth-turns (when that changes its look)."""
    out = []
    for key in ("tiles", "rocks", "trees", "substrates"):
        for i, item in enumerate(layout.get(key, [])[:1]):
            at = item if key == "rocks" else item["at"]
            b = copy.deepcopy(layout)
            del b[key][i]
            out.append((f"{key[:-1]} missing", tuple(at), b))
    for key in ("spores", "meeples"):
        for p in list(layout.get(key, {}))[:1]:
            at = layout[key][p] if key == "meeples" else layout[key][p]["at"]
            b = copy.deepcopy(layout)
            del b[key][p]
            out.append((f"{key[:-1]} missing", tuple(at), b))
    for i, t in enumerate(layout.get("tiles", [])):
        for k in turns:
            code = rotate_code(t["paths"], k)
            if parse(code).edge_color == parse(t["paths"]).edge_color:
                continue
            b = copy.deepcopy(layout)
            b["tiles"][i]["paths"] = code
            out.append((f"tile turned {k}", tuple(t["at"]), b))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--lights", default="daylight,warm lamp,dim warm lamp,glare 20")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--good-only", action="store_true", help="only the photos as documented (no changed photos)")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    flat = ColourProfile(np.zeros((len(CLASSES), 3), np.float32), np.ones((len(CLASSES), 3), np.float32))
    reader = BoardReader(profile=flat, tile_codes=[])
    spaces = list(reader.geo.spaces)
    files = calibration_layouts()
    t0 = time.time()
    lays = [load_layout(n) for n in (1, 2, 3)]
    good_runs, wrongly, caught, missed, elsewhere, runs = 0, 0, 0, [], 0, 0

    def sample(img):
        return reader.sample(img, BoardTracker(reader.geo, None).register(img))

    for style in args.styles.split(","):
        for light in args.lights.split(","):
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                cam = make_camera(reader.geo, random_conditions(rng), size)
                lamp = light_preset(light, np.random.default_rng(seed))
                frames = render_calibration_frames(style, lamp, seed, size, cam, reader.geo)
                labs = [sample(f.image) for f in frames]
                refused = len({m.photo for m in check_spaces(labs, lays, spaces)})
                wrongly += refused
                good_runs += 3
                found, runs_before = 0, runs
                for n, path in enumerate(files):
                    for what, at, board in [] if args.good_only else changes(load_layout_board(path)):
                        img = render_styled(board, reader.geo, style, lamp, rng=np.random.default_rng(seed + 1),
                                            size=size, camera=cam).image
                        changed = list(labs)
                        changed[n] = sample(img)
                        bad = check_spaces(changed, lays, spaces)
                        runs += 1
                        elsewhere += any(m.space != at or m.photo != n for m in bad)
                        if any(m.space == at and m.photo == n for m in bad):
                            caught += 1
                            found += 1
                        else:
                            missed.append(f"{style}/{light}/{seed} layout {n + 1}: {what} at {at}")
                tag = " (held out)" if style in HELD_OUT_STYLES else ""
                print(f"{style:<9} {light:<14} seed {seed}: good photos refused {refused} of 3, changes caught "
                      f"{found} of {runs - runs_before}{tag}", flush=True)
    print(f"changed photos where another space was named too: {elsewhere} of {runs}")
    print(f"good photos refused wrongly: {wrongly} of {good_runs}; changes caught {caught} of "
          f"{caught + len(missed)}")
    for m in missed:
        print(f"  missed: {m}")
    print(f"threshold {MIN_SPACE_FIT}; {time.time() - t0:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
