"""What the live table pays for the camera setup page and the dashboard's hint.

- ``CameraFeed.offer`` per 1080p frame, lazy (as ``run`` uses it): while no setup page watches
  (a return, no copy) and while one does (a copy at most every half second);
- ``GET /api/hint`` once per change of the game (the greedy bot's one-ply search and a plan per
  card), over positions of bot games.

Run: ``.venv/bin/python bench/setup_feed.py [--frames N] [--positions N]``.  Prints figures
with the load average beside them; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from web.setup import CameraFeed  # noqa: E402


def offer_cost(frames: int) -> None:
    frame = np.random.default_rng(0).integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    for watched in (False, True):
        feed = CameraFeed(lazy=True)
        if watched:
            feed._watched_t = time.monotonic() + 3600   # a page that keeps asking
        times = []
        for _ in range(frames):
            t = time.perf_counter()
            feed.offer(frame)
            times.append((time.perf_counter() - t) * 1e6)
            time.sleep(1 / 30)    # a 30 fps camera
        print(f"offer, 1920x1080, {'a page watches' if watched else 'nobody watches'}: "
              f"median {statistics.median(times):.1f} us, max {max(times):.0f} us, "
              f"{feed.copies} copies in {frames} frames (~{frames / 30:.0f} s)   load {os.getloadavg()[0]:.2f}")


def hint_cost(positions: int) -> None:
    from companion.hints import hint
    from companion.selfplay import BotTable
    from companion.setup import GameConfig

    times = []
    for seed in range(positions):
        t = BotTable(GameConfig(players=["blue", "orange", "red"]), seed, bot="greedy", check_invariants=False)
        t.world()
        for _ in range(6 + seed % 20):
            if t.position.result is not None:
                break
            t.play_turn()
        if t.position.result is not None:
            continue
        t0 = time.perf_counter()
        hint(t.position, t.edition)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(f"hint over {len(times)} positions: median {statistics.median(times):.1f} ms, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms, max {times[-1]:.1f} ms   load {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=90)
    ap.add_argument("--positions", type=int, default=40)
    a = ap.parse_args()
    offer_cost(a.frames)
    hint_cost(a.positions)


if __name__ == "__main__":
    main()
