"""Does a cooperative turn bring the team closer to its Forest Communication blueprint?

For every turn of a greedy cooperative game (``selfplay --mode cooperative``, same seeds, 2 to
4 players in turn) in which the blueprint stands still and the nearest empty planned space is
one or more spaces beyond the active player's frontier (4.a.1: the empty spaces their meeple's
networks can grow onto, without a meeple move), the distance from that frontier to the
nearest empty planned space after the turn: closer, the same, or farther; and whether any
player's frontier came closer.  Prints figures (no targets): the measurements behind the 7.c
notes in ``docs/rules.md``.

Run: ``.venv/bin/python bench/coop_frontier.py [--difficulty easy|medium] [--games N] [--seed S]
[--set pull_any_color=0]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.hexgrid import Hex, distance  # noqa: E402
from companion.rules import Board  # noqa: E402
from companion.selfplay import BotTable  # noqa: E402
from companion.setup import GameConfig  # noqa: E402
from coop_turns import parse_settings  # noqa: E402

COLORS = ["blue", "orange", "red", "black"]


def frontier_distance(pos, ed, player: str, todo: set[Hex]) -> int | None:
    """Spaces from ``player``'s frontier to the nearest of ``todo`` (0: one is on it)."""
    frontier = Board(pos, ed).frontier(player)
    if not frontier or not todo:
        return None
    return min(distance(f, t) for f in frontier for t in todo)


def team_distance(pos, ed, todo: set[Hex]) -> int | None:
    got = [d for c in pos.colors if (d := frontier_distance(pos, ed, c, todo)) is not None]
    return min(got) if got else None


def play(seed: int, difficulty: str, settings: dict, out: Counter) -> None:
    n = 2 + seed % 3
    table = BotTable(GameConfig(players=COLORS[:n], mode="cooperative", difficulty=difficulty), seed,
                     bot="greedy", check_invariants=False)
    ed, bot = table.edition, table.bot
    for k, v in settings.items():
        if not hasattr(bot, k):
            raise SystemExit(f"the greedy bot has no setting {k!r}")
        setattr(bot, k, v)
    table.world()
    while table.position.result is None:
        pos = table.position
        kept = getattr(bot, "_forest", None)
        bp = kept[1] if kept else None
        if pos.in_setup or bp is None or "forest_communication" in pos.missions:
            table.play_turn() if pos.in_setup else (table.play_actions(), table.end_turn())
            continue
        p = pos.active
        todo = set(bp.todo(pos))
        before, team_before = frontier_distance(pos, ed, p, todo), team_distance(pos, ed, todo)
        table.play_actions()
        after_pos = table.position
        left = set(bp.todo(after_pos))
        if before is not None and before >= 1 and left == todo:
            after = frontier_distance(after_pos, ed, p, left)
            team_after = team_distance(after_pos, ed, left)
            key = min(before, 3)   # 3: three or more
            out[f"{key} beyond"] += 1
            out[(key, "closer" if after is not None and after < before else
                 "same" if after == before else "farther")] += 1
            out["team closer"] += team_after is not None and team_before is not None and team_after < team_before
        table.end_turn()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="easy")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a bot setting, as in coop_turns.py")
    args = ap.parse_args()
    settings = parse_settings(args.set)
    out: Counter = Counter()
    t0 = time.perf_counter()
    for s in range(args.seed, args.seed + args.games):
        play(s, args.difficulty, settings, out)
    turns = sum(out[f"{d} beyond"] for d in (1, 2, 3))
    print(f"greedy bots, cooperative {args.difficulty}, {args.games} games from seed {args.seed} "
          f"({(time.perf_counter() - t0) / args.games:.1f} s/game, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}): {turns} turns with the blueprint standing still "
          f"and its nearest empty space beyond the active player's frontier")
    for d in (1, 2, 3):
        print(f"  {d}{' or more' if d == 3 else ''} beyond: {out[f'{d} beyond']:3d} turns; after the turn closer {out[(d, 'closer')]}, "
              f"the same {out[(d, 'same')]}, farther {out[(d, 'farther')]}")
    print(f"  some player's frontier closer after the turn: {out['team closer']} of {turns}")


if __name__ == "__main__":
    main()
