"""Board reader bench: accuracy on a fixed-seed synthetic suite, and time per frame.

    .venv/bin/python bench/vision.py            # 150 standard + 150 hard frames, 1920x1080
    .venv/bin/python bench/vision.py --n 20     # first 20 frames of each suite
    .venv/bin/python bench/vision.py --quick    # same as --n 30 --timing-frames 10

Standard: tilt <= 15 degrees, mild light.  Hard: tilt up to 30, strong gradient and glare,
blur, noise, a meeple on about 20 % of tiles, hands in some frames (registered first on a
hand-free frame of the same fixed camera, as the table loop does).  A space is wrong when
anything on it differs (tile code, hence type and rotation; meeple; spore side; mycorrhizae).
Targets (issue 4): standard <= 0.1 % per-space error and >= 99 % perfect boards; hard <= 0.5 %
and >= 95 %; median time per frame on a cached registration <= 25 ms with cv2.setNumThreads(1),
and (issue 10) <= 10 ms per frame in play, when the last committed reading is passed in and
only a few spaces changed.  The hard suite's glare comes from the renderer's glare model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.intrinsics import Intrinsics  # noqa: E402
from companion.sim.render import make_camera, random_conditions, render  # noqa: E402
from companion.sim.render_scene import random_board  # noqa: E402
from companion.tiles import validate  # noqa: E402
from companion.vision.geometry import load_board, load_tile_codes  # noqa: E402
from companion.vision.reader import BoardReader  # noqa: E402
from companion.vision.rectify import rectify_maps  # noqa: E402

SIZE = (1920, 1080)


def per_space(board: dict, spaces) -> dict:
    out = {}
    for t in board.get("tiles", []):
        out[tuple(t["at"])] = ("tile", validate(t["paths"]))
    for r in board.get("rocks", []):
        out[tuple(r)] = ("rock",)
    for t in board.get("trees", []):
        out[tuple(t["at"])] = ("tree", tuple(t["mycorrhizae"]))
    for s in board.get("substrates", []):
        out[tuple(s["at"])] = (s["kind"],)
    for p, s in board.get("spores", {}).items():
        out[tuple(s["at"])] = ("spore", p, bool(s["used"]))
    meeples = {tuple(v): p for p, v in board.get("meeples", {}).items()}
    return {h: (out.get(h, ("empty",)), meeples.get(h)) for h in spaces}


def run_suite(name: str, n: int, hard: bool, seed: int, geo, codes, timing_frames: int) -> dict:
    rng = np.random.default_rng(seed)
    wrong = total = perfect = failed = hands = hands_imperfect = 0
    kinds: Counter = Counter()
    times, floors, play = [], [], []
    for i in range(n):
        board = random_board(rng, geo, codes, n_tiles=(15, 22) if hard else (8, 30), meeples_on_tiles=1.0 if hard else 0.5)
        cond = random_conditions(rng, hard)
        cam = make_camera(geo, cond, SIZE)
        intr = Intrinsics(cam.k, cam.dist, SIZE, 0.0)
        reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
        frame = render(board, geo, cond, rng, size=SIZE, camera=cam)
        truth = per_space(board, geo.spaces)
        try:
            if cond.hands:
                clean = cond.__class__(**{**cond.__dict__, "hands": 0})
                reader.tracker.register(render(board, geo, clean, np.random.default_rng(i), size=SIZE, camera=cam).image)
            reading = reader.read(frame.image)
            got = per_space(reading.board, geo.spaces)
        except ValueError as exc:
            failed += 1
            got = {h: (("unread",), None) for h in geo.spaces}
            print(f"  {name} #{i}: {exc}")
        bad = [h for h in geo.spaces if truth[h] != got[h]]
        for h in bad:
            kinds[(truth[h][0][0] + ("+meeple" if truth[h][1] else ""), got[h][0][0] + ("+meeple" if got[h][1] else ""))] += 1
        wrong += len(bad)
        total += len(geo.spaces)
        perfect += not bad
        hands += bool(cond.hands)
        hands_imperfect += bool(cond.hands) and bool(bad)
        if i < timing_frames and not failed:
            reader.read(frame.image)  # warm: registration cached from here on
            for _ in range(5):
                t0 = time.perf_counter()
                reader.read(frame.image)
                times.append((time.perf_counter() - t0) * 1000)
            # in play: the last committed reading is known and only a few spaces changed
            committed = reader.read(frame.image)
            reg = reader.tracker.current
            changed = frame.image.copy()
            for h in geo.spaces[i % 7::29][:2]:
                x, y = reg.to_image(np.array([geo.center_mm(h)], np.float32))[0]
                cv2.circle(changed, (int(x), int(y)), 14, (60, 120, 200), -1)  # a piece put down
            for _ in range(5):
                t0 = time.perf_counter()
                reader.read(changed, previous=committed)
                play.append((time.perf_counter() - t0) * 1000)
            m1, m2 = rectify_maps(reg, geo, 2.0)
            for _ in range(5):
                t0 = time.perf_counter()
                rect = cv2.remap(frame.image, m1, m2, cv2.INTER_LINEAR)
                cv2.cvtColor(rect, cv2.COLOR_BGR2Lab)
                floors.append((time.perf_counter() - t0) * 1000)
    return {"name": name, "frames": n, "space_error": wrong / max(total, 1), "perfect": perfect / max(n, 1),
            "failed": failed, "kinds": kinds, "times": times, "floors": floors, "play": play, "hands": (hands, hands_imperfect)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=150, help="frames per suite (default 150, 300 in all)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--timing-frames", type=int, default=20, help="frames per suite also timed (default 20)")
    ap.add_argument("--suite", choices=["standard", "hard", "both"], default="both")
    ap.add_argument("--quick", action="store_true", help="fixed-seed subset for iterating: --n 30 --timing-frames 10")
    args = ap.parse_args()
    if args.quick:
        args.n, args.timing_frames = 30, 10
    cv2.setNumThreads(1)
    geo, codes = load_board(), load_tile_codes()
    print(f"board reader bench: {args.n} frames per suite, {SIZE[0]}x{SIZE[1]}, seed {args.seed}, cv2.setNumThreads(1), OpenCV {cv2.__version__}")
    targets = {"standard": (0.001, 0.99), "hard": (0.005, 0.95)}
    all_times, all_floors, all_play = [], [], []
    for name, hard, seed in (("standard", False, args.seed), ("hard", True, args.seed + 1)):
        if args.suite not in (name, "both"):
            continue
        t0 = time.perf_counter()
        r = run_suite(name, args.n, hard, seed, geo, codes, args.timing_frames)
        err_t, perf_t = targets[name]
        print(f"{name:8s}: per-space error {100 * r['space_error']:.3f} % (target <= {100 * err_t:.1f} %), "
              f"perfect boards {100 * r['perfect']:.1f} % (target >= {100 * perf_t:.0f} %), "
              f"unregistered {r['failed']}, suite {time.perf_counter() - t0:.0f} s")
        if r["hands"][0]:
            print(f"          frames with a hand in view: {r['hands'][0]}, of them imperfect: {r['hands'][1]} "
                  "(a space under the hand can't be read)")
        if r["kinds"]:
            print("          most common mistakes (truth -> read): " +
                  ", ".join(f"{a} -> {b} x{c}" for (a, b), c in r["kinds"].most_common(5)))
        all_times += r["times"]
        all_floors += r["floors"]
        all_play += r["play"]
    med, floor = statistics.median(all_times), statistics.median(all_floors)
    print(f"time per frame, cached registration: median {med:.1f} ms, p90 {np.percentile(all_times, 90):.1f} ms (target <= 25 ms)")
    print(f"time per frame in play (last committed reading given, 1-2 spaces changed): median {statistics.median(all_play):.1f} ms "
          f"(target <= 10 ms)")
    print(f"load average while timing: {', '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores shared)")
    print(f"floor (remap undistort+warp to 2 px/mm + Lab of the same frame): median {floor:.1f} ms; reader / floor = {med / floor:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
