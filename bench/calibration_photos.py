"""How clearly ``calibrate pieces`` tells a photo of the right calibration layout from one of
another (:func:`calibration.photo_check.layout_fit`), per art style and light.

    .venv/bin/python bench/calibration_photos.py [--seeds N]

Prints, for every style (the held-out one included) and light, the fit of each photo with
the layout it shows and the highest fit with another layout (the layouts of earlier versions,
``old-1`` to ``old-3``, included); the refusal threshold is
:data:`calibration.photo_check.MIN_LAYOUT_FIT`.  No parameter was tuned on these figures."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.colours import OLD_LAYOUT_NAMES, _labels, load_layout  # noqa: E402
from calibration.photo_check import MIN_LAYOUT_FIT, layout_fit  # noqa: E402
from companion.sim.calibration import render_calibration_frames  # noqa: E402
from companion.sim.styles import HELD_OUT, STYLES  # noqa: E402
from companion.vision.profile import CLASSES, ColourProfile  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402
from companion.vision.registration import BoardTracker  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--lights", default="daylight,warm lamp,glare 60")
    args = ap.parse_args()
    flat = ColourProfile(np.zeros((len(CLASSES), 3), np.float32), np.ones((len(CLASSES), 3), np.float32))
    reader = BoardReader(profile=flat, tile_codes=[])
    spaces = list(reader.geo.spaces)
    labels = {n: _labels(load_layout(n), spaces) for n in (1, 2, 3, *OLD_LAYOUT_NAMES)}
    right, wrong = [], []
    t0 = time.time()
    print(f"threshold {MIN_LAYOUT_FIT}")
    print(f"{'style':<10} {'light':<11} {'seed':>4}  right layout (1, 2, 3)   best other layout (1, 2, 3)")
    for style in STYLES:
        for light in args.lights.split(","):
            for seed in range(args.seeds):
                frames = render_calibration_frames(style, light, seed, size=(1280, 720))
                fits, others = [], []
                for n, f in zip((1, 2, 3), frames):
                    reg = BoardTracker(reader.geo, None).register(f.image)
                    lab = reader.sample(f.image, reg)
                    fits.append(layout_fit(lab, labels[n]))
                    others.append(max(layout_fit(lab, labels[m]) for m in labels if m != n))
                right += fits
                wrong += others
                tag = " (held out)" if style == HELD_OUT else ""
                print(f"{style:<10} {light:<11} {seed:>4}  {', '.join(f'{x:.3f}' for x in fits):<24} "
                      f"{', '.join(f'{x:.3f}' for x in others)}{tag}")
    print(f"right layout: min {min(right):.3f}, median {np.median(right):.3f}; "
          f"another layout: max {max(wrong):.3f}, median {np.median(wrong):.3f}")
    print(f"refused wrongly: {sum(x < MIN_LAYOUT_FIT for x in right)} of {len(right)}; "
          f"accepted wrongly: {sum(x >= MIN_LAYOUT_FIT for x in wrong)} of {len(wrong)}")
    print(f"{time.time() - t0:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
