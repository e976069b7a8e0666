"""Live-table benchmark on the simulated table at 1920x1080.

Prints: the latency from the last still frame to the committed event (the stillness window
plus reading, inference and the rules; median and p95; target p95 under 500 ms), the frame
rate the loop sustains (gating every frame, reading the still ones), and the process's peak
RSS (target under 300 MB), then move inference alone: still periods of play, and the set-up's
biggest still periods (every substrate token and every spore laid at once).
Run: ``.venv/bin/python bench/table.py``; ``--quick`` times move inference only.
"""

from __future__ import annotations

import os
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
    if "--quick" in sys.argv[1:]:
        inference_windows()
        setup_inference()
        print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores shared)")
        return
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
    inference_windows()
    setup_inference()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {rss:.0f} MB (target < 300 MB)")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores shared)")


def inference_windows(seeds: int = 6, per_seed: int = 40) -> None:
    """Move inference alone on still periods holding 1 to 3 actions of the active player
    (random legal place/rock, move and removal in any order, from bot games; periods where a
    piece is put down and taken away on the same space are left out, no camera sees them):
    how long the whole-position search takes, and how often it has to ask."""
    import random

    from companion import movegen
    from companion.hexgrid import Hex
    from companion.rules import Board, IllegalMove, apply
    from companion.selfplay import BotTable
    from companion.table.inference import explain, position_key, view_of_position

    times, asked, found, n = [], 0, 0, 0
    for seed in range(seeds):
        table, rng, k = BotTable(GameConfig(), seed=seed), random.Random(seed), 0
        while k < per_seed and table.position.result is None:
            table.play_turn()
            pos = table.position
            if pos.in_setup or pos.taken or pos.meeples.get(pos.active) is None:
                continue
            p, seq = pos, []
            for _ in range(rng.choice([1, 2, 3])):
                b, who = Board(p, table.edition), p.active
                moves = ((movegen.placements(b, who) + movegen.rock_spots(b, who)) if "place" not in p.taken else []) \
                    + (movegen.meeple_moves(b, who) if "move" not in p.taken else []) \
                    + (movegen.removals(b, who) if "remove" not in p.taken else [])
                if not moves:
                    break
                mv = rng.choice(moves)
                try:
                    p = apply(p, mv, table.edition).position
                except IllegalMove:
                    break
                seq.append(mv)
            before, after = view_of_position(pos), view_of_position(p)
            put = {tuple(m["at"]) for m in seq if m["action"] in ("place", "rock")}
            gone = {tuple(m["at"]) for m in seq if m["action"] == "remove"}
            if not seq or any(before.spaces.get(Hex(*h)) == after.spaces.get(Hex(*h)) for h in put & gone):
                continue   # a piece put down and taken away again leaves no trace (docs/rules.md)
            k += 1
            t = time.perf_counter()
            ex = explain(pos, table.edition, view_of_position(p))
            times.append((time.perf_counter() - t) * 1000)
            n += 1
            found += position_key(p) in {position_key(q) for _, q in ex.matches}
            asked += len(ex.matches) > 1
    times.sort()
    print(f"inference on {n} still periods of 1-3 actions: median {statistics.median(times):.0f} ms, "
          f"p95 {times[int(0.95 * len(times)) - 1]:.0f} ms, max {times[-1]:.0f} ms; true position among the "
          f"candidates {found}/{n}; asked the table {asked}/{n}")


def setup_inference(seeds: int = 10) -> None:
    """Move inference alone on the set-up's biggest still periods, four players: the four
    substrate tokens and the four spores laid at once (8 moves, one explanation expected),
    and the same board with a fifth token (no explanation: a mismatch)."""
    import random

    from companion import movegen
    from companion.edition import load_edition
    from companion.rules import Board, apply
    from companion.setup import new_game
    from companion.table.inference import explain, view_of_board

    ed = load_edition()
    times: dict[str, list[float]] = {"8 set-up moves": [], "a token too many": []}
    explained = 0
    for seed in range(seeds):
        start, _ = new_game(GameConfig(players=["blue", "orange", "red", "black"]), ed, random.Random(seed))
        tokens = sorted(start.substrates.items())
        for at, kind in tokens:
            del start.substrates[at]
            start.pending_substrates.append(kind)
        after = start
        for at, kind in tokens:
            after = apply(after, {"player": "table", "action": "substrate", "kind": kind, "at": list(at)}, ed).position
        for color in start.colors:
            at = movegen.starting_spaces(Board(after, ed), color)[0]
            after = apply(after, {"player": color, "action": "spore", "at": [at.q, at.r]}, ed).position
        board = after.to_json()["board"]
        extra = next(h for h in sorted(ed.spaces) if after.occupant(h) is None and h not in after.substrates)
        for name, b in (("8 set-up moves", board),
                        ("a token too many", dict(board, substrates=board["substrates"] + [{"at": list(extra), "kind": "wood"}]))):
            t = time.perf_counter()
            ex = explain(start, ed, view_of_board(b))
            times[name].append((time.perf_counter() - t) * 1000)
            explained += name == "8 set-up moves" and len(ex.matches) == 1
    for name, ts in times.items():
        ts.sort()
        print(f"set-up inference, {name} ({len(ts)} boards): median {statistics.median(ts):.0f} ms, max {ts[-1]:.0f} ms")
    print(f"set-up boards of 8 moves with one explanation: {explained}/{seeds}")


if __name__ == "__main__":
    main()
