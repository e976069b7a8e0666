"""Reader firmware benchmark in simavr: how long a drawn tag takes to become a TAG frame.

Runs ``hardware/build/reader.elf`` in ``reader_sim`` (``make -C hardware sim``), brings
one tag into the field at a random moment while 0, 4, 8 or 11 other tags lie in the field,
and measures in simulated milliseconds (1 ms steps) until its TAG frame has left the UART.
The harness clocks SPI as the board does (4 MHz); tags answer 80 to 900 us after a command.
Prints median, p99 and max per case, and how fast the simulation ran against the wall
clock (with the load average, since the machine may be shared).  Prints figures only.

    .venv/bin/python bench/firmware_sim.py            # 40 draws per case
    .venv/bin/python bench/firmware_sim.py --draws 10
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from firmware_bridge import protocol as P

HW = Path(__file__).resolve().parents[1] / "hardware"


class Sim:
    def __init__(self, seed: int):
        self.p = subprocess.Popen([str(HW / "build" / "reader_sim"), str(HW / "build" / "reader.elf"), "--seed", str(seed)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.split = P.FrameSplitter()
        self.sim_ms = 0

    def cmd(self, line: str) -> str:
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        reply = self.p.stdout.readline().strip()
        if not reply.startswith("ok"):
            raise SystemExit(f"reader_sim: {line!r} -> {reply!r}")
        return reply

    def run(self, ms: int) -> list[P.Frame]:
        self.sim_ms += ms
        uart = self.cmd(f"run {ms}").rsplit("uart=", 1)[1]
        return [] if uart == "-" else [f for f in self.split.feed(bytes.fromhex(uart)) if isinstance(f, P.Frame)]

    def close(self) -> None:
        self.cmd("quit")
        self.p.wait(5)


def uid(rnd: random.Random) -> str:
    size = rnd.choice([4, 7])
    return (bytes([0x04]) + rnd.randbytes(size - 1)).hex().upper()


def case(resting: int, draws: int, seed: int) -> tuple[list[int], int]:
    rnd = random.Random(seed)
    sim = Sim(seed)
    sim.run(600)  # boot (a fresh EEPROM makes the board id)
    for _ in range(resting):
        sim.cmd(f"tag in {uid(rnd)} {rnd.randint(80, 900)}")
    sim.run(1500)
    out = []
    for _ in range(draws):
        sim.run(rnd.randint(1, 120))  # any phase of the scan cycle
        u = uid(rnd)
        sim.cmd(f"tag in {u} {rnd.randint(80, 900)}")
        for ms in range(1, 2001):
            if any(f.type == P.TAG and P.parse_tag(f) == u for f in sim.run(1)):
                out.append(ms)
                break
        else:
            raise SystemExit(f"tag {u} never reported with {resting} tags resting")
        sim.cmd(f"tag out {u}")
        sim.run(400)
    sim.close()
    return out, sim.sim_ms


def figures(ms: list[int]) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return f"median {statistics.median(ms):5.1f}  p99 {p99:4d}  max {ms[-1]:4d}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=40, help="draws per case")
    args = ap.parse_args()
    build = subprocess.run(["make", "-s", "-C", str(HW), "sim"], capture_output=True, text=True)
    if build.returncode:
        print(build.stdout + build.stderr, file=sys.stderr)
        return 1
    print(f"draw-to-TAG latency in simulated ms, {args.draws} draws per case")
    t0 = time.monotonic()
    sim_total = 0
    for resting in (0, 4, 8, 11):
        lat, ms = case(resting, args.draws, seed=1000 + resting)
        sim_total += ms
        print(f"  {resting:2d} tags resting in the field: {figures(lat)}")
    wall = time.monotonic() - t0
    print(f"simulated about {sim_total / 1000:.1f} s in {wall:.1f} s of wall time "
          f"(load average {', '.join(f'{x:.2f}' for x in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
