"""Live-table benchmark on the simulated table at 1920x1080.

Prints: the latency from the last still frame to the committed event (the stillness window
plus reading, inference and the rules; median and p95; target p95 under 500 ms), the frame
rate the loop sustains (gating every frame, reading the still ones), and the process's peak
RSS (target under 300 MB).  Run: ``.venv/bin/python bench/table.py``.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from companion.setup import GameConfig  # noqa: E402
from companion.sim.table import SimulatedTable  # noqa: E402
from companion.table.gating import StillnessGate  # noqa: E402
from companion.table.sources import Frame  # noqa: E402


def main() -> None:
    cv2.setNumThreads(1)
    size = (1920, 1080)
    sim = SimulatedTable(GameConfig(), seed=21, fast=True, size=size)
    sim.px_per_mm = 2.5
    t0 = time.perf_counter()
    report = sim.run()
    wall = time.perf_counter() - t0
    window = sim.live.gate.still_ms
    lat = sorted(window + x for x in report.latencies_ms)
    p95 = lat[int(0.95 * len(lat)) - 1]
    print(f"simulated game at {size[0]}x{size[1]}: {report.events} events, {len(lat)} committed from the camera, "
          f"log matches truth: {report.log_matches_truth}, {wall:.0f} s")
    print(f"last still frame -> committed event (stillness window {window:.0f} ms included): "
          f"median {statistics.median(lat):.0f} ms, p95 {p95:.0f} ms (target p95 < 500 ms)")

    # Sustained frame rate: the loop gates every frame and reads one still frame in ten
    # (a move every second at 10 fps).
    image = sim._still
    gate = StillnessGate()
    n, t = 0, time.perf_counter()
    reader = sim.live.reader
    while time.perf_counter() - t < 5.0:
        for i in range(10):
            f = Frame(image, n * 100.0)
            if gate.feed(f.image, f.t_ms) or i == 0:
                reader.read(f.image)
            n += 1
    fps = n / (time.perf_counter() - t)
    print(f"frames per second the loop sustains at {size[0]}x{size[1]} (one read per 10 frames): {fps:.0f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {rss:.0f} MB (target < 300 MB)")


if __name__ == "__main__":
    main()
