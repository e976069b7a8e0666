"""Frame check bench: the figures the whole-frame checks decide on, for normal and spoiled frames.

    .venv/bin/python bench/frame_check.py          # 8 standard + 8 hard frames, 1920x1080
    .venv/bin/python bench/frame_check.py --n 3

For each synthetic frame (standard and hard bench light, boards with 10-50 tiles) and each
spoiled copy of it (greyscale, x0.12 dark, x3 bright, a strong cast, red and blue swapped,
hues turned by +-60 degrees), prints the range of: the white paper's level, its weakest/strongest
channel ratio, the board's colourfulness, clipped share and off-profile share, and how often
the check refused it (and as what).  Then the median time of one check on a cached
registration, with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.sim.render import random_conditions, render  # noqa: E402
from companion.sim.render_scene import random_board  # noqa: E402
from companion.vision.check import check_frame, measure_frame  # noqa: E402
from companion.vision.errors import FrameQualityError  # noqa: E402
from companion.vision.geometry import load_board, load_tile_codes  # noqa: E402
from companion.vision.profile import load_profile  # noqa: E402
from companion.vision.registration import BoardTracker  # noqa: E402


def hue_turn(img: np.ndarray, steps: int) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int32)
    hsv[..., 0] = (hsv[..., 0] + steps) % 180
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


SPOILS = {
    "normal": lambda im: im,
    "greyscale": lambda im: cv2.cvtColor(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR),
    "dark x0.12": lambda im: (im * 0.12).astype(np.uint8),
    "dim x0.35": lambda im: (im * 0.35).astype(np.uint8),
    "bright x3": lambda im: np.clip(im * 3.0, 0, 255).astype(np.uint8),
    "cast": lambda im: np.clip(im * np.array([0.3, 0.8, 1.3]), 0, 255).astype(np.uint8),
    "red/blue swapped": lambda im: np.ascontiguousarray(im[:, :, ::-1]),
    "hue +60": lambda im: hue_turn(im, 30),
    "hue -60": lambda im: hue_turn(im, 150),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8, help="frames per suite (standard, hard)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    geo, codes, profile = load_board(), load_tile_codes(), load_profile()
    figures: dict[str, list] = defaultdict(list)
    verdicts: dict[str, Counter] = defaultdict(Counter)
    timing = []
    for hard in (False, True):
        for k in range(args.n):
            rng = np.random.default_rng(500 + k + 1000 * hard)
            cond = random_conditions(rng, hard)
            cond.hands = 0
            img = render(random_board(rng, geo, codes, n_tiles=(10, 50)), geo, cond, rng).image
            reg = BoardTracker(geo).register(img)
            for name, spoil in SPOILS.items():
                frame = spoil(img)
                s = measure_frame(frame, reg, geo, profile)
                w = s.white_bgr
                figures[name].append((float(w.max()), float(w.min() / max(w.max(), 1)), s.chroma, s.clipped, s.off_profile))
                try:
                    check_frame(frame, reg, geo, profile)
                    verdicts[name]["read"] += 1
                except FrameQualityError as exc:
                    verdicts[name][exc.kind] += 1
            for _ in range(5):
                t0, c0 = time.perf_counter(), time.process_time()
                check_frame(img, reg, geo, profile)
                timing.append((time.perf_counter() - t0, time.process_time() - c0))
    rng_of = lambda v: f"{min(v):.2f}-{max(v):.2f}"  # noqa: E731
    print(f"{'frame':<17} {'white':>9} {'weak/strong':>11} {'chroma':>13} {'clipped':>9} {'off profile':>11}  verdicts")
    for name, rows in figures.items():
        cols = list(zip(*rows))
        print(f"{name:<17} {min(cols[0]):4.0f}-{max(cols[0]):<4.0f} {rng_of(cols[1]):>11} "
              f"{min(cols[2]):5.0f}-{max(cols[2]):<5.0f} {rng_of(cols[3]):>9} {rng_of(cols[4]):>11}  "
              + ", ".join(f"{k} {v}" for k, v in verdicts[name].most_common()))
    wall, cpu = (1000 * float(np.median(v)) for v in zip(*timing))
    print(f"check_frame median {wall:.1f} ms wall, {cpu:.1f} ms CPU per 1920x1080 frame "
          f"(cv2.setNumThreads(1), load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
