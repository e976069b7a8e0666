"""Tile-bag bridge benchmark: draws through a real pty, end to end.

Sends N draws at R per second from a virtual reader to a BagReader (pyserial on the pty
slave), with a few unplug/replug cycles in the middle, and prints:
  * lost and duplicated draws (target 0 and 0);
  * scan-to-event latency, median and p99, host side, over draws made while connected
    (target p99 < 20 ms);
  * reconnect time after replug: from the new pty appearing to ``reader_connected``
    (target < 2 s).
It prints figures only; it asserts nothing about timing.

    .venv/bin/python bench/rfid.py                    # 10,000 draws at 50/s (~3.5 min)
    .venv/bin/python bench/rfid.py --draws 1000 --unplugs 2
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections import Counter

from firmware_bridge import events as E
from firmware_bridge.drivers import make_driver
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=10_000)
    ap.add_argument("--rate", type=float, default=50.0, help="draws per second")
    ap.add_argument("--driver", choices=["companion", "rdm6300"], default="companion")
    ap.add_argument("--unplugs", type=int, default=3, help="unplug/replug cycles during the run")
    ap.add_argument("--unplugged-s", type=float, default=0.3, help="seconds the cable stays out")
    args = ap.parse_args()

    sent: dict[str, float] = {}
    during_unplug: set[str] = set()
    got: list[tuple[str, float]] = []
    connected_at: list[float] = []
    lock = threading.Lock()

    def sink(ev: E.Event) -> None:
        now = time.monotonic()
        with lock:
            if isinstance(ev, (E.TileDrawn, E.UnknownTag)):
                got.append((ev.uid, now))
            elif isinstance(ev, E.ReaderConnected):
                connected_at.append(now)

    width = 5 if args.driver == "rdm6300" else 4
    uids = [(0x04000000 + i).to_bytes(width, "big") for i in range(args.draws)]
    unplug_at = {args.draws * (k + 1) // (args.unplugs + 1) for k in range(args.unplugs)}
    replug_times: list[float] = []

    with VirtualReader(args.driver, present_ms=0) as dev:
        reader = BagReader(make_driver(args.driver), lambda: dev.port or None, sink).start()
        if not reader.connected.wait(5):
            print("reader never connected")
            return 1
        period = 1.0 / args.rate
        t0 = time.monotonic()
        unplugged_until = 0.0
        for i, uid in enumerate(uids):
            target = t0 + i * period
            while (d := target - time.monotonic()) > 0:
                time.sleep(min(d, 0.002))
            now = time.monotonic()
            if unplugged_until and now >= unplugged_until:
                dev.replug()
                replug_times.append(time.monotonic())
                unplugged_until = 0.0
            if i in unplug_at:
                dev.unplug()
                unplugged_until = now + args.unplugged_s
            key = uid.hex().upper()
            sent[key] = time.monotonic()
            if unplugged_until:
                during_unplug.add(key)
            dev.draw(uid)
        if unplugged_until:
            dev.replug()
            replug_times.append(time.monotonic())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len({u for u, _ in got}) < len(sent):
            time.sleep(0.05)
        time.sleep(0.5)
        reader.stop()
        elapsed = time.monotonic() - t0

    counts = Counter(u for u, _ in got)
    lost = [u for u in sent if u not in counts]
    dups = sum(n - 1 for n in counts.values() if n > 1)
    first_seen = {}
    for u, t in got:
        first_seen.setdefault(u, t)
    lat = sorted((first_seen[u] - sent[u]) * 1000 for u in sent if u in first_seen and u not in during_unplug)
    reconnect = []
    for r in replug_times:
        after = [c for c in connected_at if c >= r]
        if after:
            reconnect.append(after[0] - r)

    def pct(xs: list[float], p: float) -> float:
        return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")

    print(f"driver {args.driver}: {len(sent)} draws at {args.rate:g}/s in {elapsed:.1f} s, "
          f"{len(replug_times)} unplug/replug cycles of {args.unplugged_s:g} s")
    print(f"lost        {len(lost):>8}      (target 0)")
    print(f"duplicated  {dups:>8}      (target 0)")
    print(f"latency     median {statistics.median(lat) if lat else float('nan'):.2f} ms, "
          f"p99 {pct(lat, 99):.2f} ms, max {max(lat) if lat else float('nan'):.2f} ms "
          f"over {len(lat)} draws   (target p99 < 20 ms)")
    if reconnect:
        print(f"reconnect   median {statistics.median(reconnect) * 1000:.0f} ms, "
              f"max {max(reconnect) * 1000:.0f} ms over {len(reconnect)} replugs   (target < 2000 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
