"""Game-log benchmark: what the checksummed, append-only log costs at the table.

Prints: the time to append one event durably (WAL, ``synchronous=FULL``; median and p95, ms),
the time to resume a whole game (every event checked and every move replayed by the rules),
the time ``games`` takes to list and check a log of 50 games, and the time to salvage that log.
The load average is printed beside the figures (timings are noisy on a shared machine).
Run: ``.venv/bin/python bench/gamelog.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.eventlog import EventLog, salvage  # noqa: E402
from companion.game import Game, good_prefix  # noqa: E402
from companion.selfplay import BotTable  # noqa: E402
from companion.setup import GameConfig  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        log = EventLog(db)
        table = BotTable(GameConfig(), seed=21, log=log)
        appends = []
        real = log.append

        def timed(*a, **kw):
            t0 = time.perf_counter()
            real(*a, **kw)
            appends.append((time.perf_counter() - t0) * 1000)
        log.append = timed
        table.run()
        gid, n = table.game.game_id, len(table.game.events)
        appends.sort()
        print(f"append one event: median {statistics.median(appends):.2f} ms, "
              f"p95 {appends[int(len(appends) * 0.95)]:.2f} ms over {len(appends)} events")

        t0 = time.perf_counter()
        Game.resume(EventLog(db, readonly=True), gid)
        print(f"resume a whole game ({n} moves, checked and replayed): {(time.perf_counter() - t0) * 1000:.0f} ms")

        for seed in range(49):
            BotTable(GameConfig(), seed=seed, log=log).run()
        t0 = time.perf_counter()
        ro = EventLog(db, readonly=True)
        games = ro.check(ro.games())
        print(f"'games' over {len(games)} games: {(time.perf_counter() - t0) * 1000:.0f} ms")
        ro.close()
        log.close()
        t0 = time.perf_counter()
        salvage(db, check=good_prefix)
        print(f"salvage {len(games)} games (rules replayed): {(time.perf_counter() - t0):.1f} s")
        print(f"load average {os.getloadavg()[0]:.1f} (2 cores shared)")


if __name__ == "__main__":
    main()
