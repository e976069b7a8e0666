"""Rules-core benchmark: legal-move generation on mid-game positions and bot games per second.

Run: ``.venv/bin/python bench/rules.py`` (or ``make bench``).  Prints figures; the issue's
target is every legal action of a mid-game position in under 5 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.movegen import legal_moves  # noqa: E402
from companion.selfplay import BotTable, play_games  # noqa: E402
from companion.setup import GameConfig  # noqa: E402


def mid_game_positions(count: int) -> list:
    """Positions halfway through bot games (2 to 4 players), one per seed."""
    out = []
    seed = 0
    colors = ["blue", "orange", "red", "black"]
    while len(out) < count:
        players = 2 + seed % 3
        table = BotTable(GameConfig(players=colors[:players]), seed, check_invariants=False)
        target = 12 * players
        while table.position.result is None and len(table.position.tiles) < target:
            table.play_turn()
        if table.position.result is None:
            out.append(table.position)
        seed += 1
    return out


def main() -> None:
    positions = mid_game_positions(60)
    tiles = statistics.median(len(p.tiles) for p in positions)
    times, counts = [], []
    for pos in positions:
        fresh = pos.copy()  # nothing cached: the cost a new camera reading pays
        t0 = time.perf_counter()
        moves = legal_moves(fresh)
        times.append((time.perf_counter() - t0) * 1e6)
        counts.append(len(moves))
    times.sort()
    print(f"legal-move generation on {len(positions)} mid-game positions (median {tiles:.0f} tiles on the board, "
          f"median {statistics.median(counts):.0f} legal moves):")
    print(f"  median {statistics.median(times):,.0f} us   p95 {times[int(0.95 * len(times)) - 1]:,.0f} us   "
          f"max {times[-1]:,.0f} us   (target: under 5,000 us)")
    for mode in ("competitive", "cooperative", "team"):
        t0 = time.perf_counter()
        games = play_games(mode, 20, 100)
        dt = time.perf_counter() - t0
        events = sum(g.events for g in games)
        print(f"bot games, {mode:<11}: {len(games) / dt:5.1f} games/s   {events / dt:7.0f} events/s "
              f"(every event validated and every invariant checked)")


if __name__ == "__main__":
    main()
