"""Rules-core benchmark: legal-move generation on mid-game positions, bot games per second,
and how the greedy bots play (the targets of issue 14).

Run: ``.venv/bin/python bench/rules.py [--games N] [--seed S]`` (or ``make bench``).  Prints
figures; targets: every legal action of a mid-game position in under 5 ms; with greedy bots,
competitive games end at 10 VP before the bag is empty in >= 60 %, team games reach 15 VP in
>= 50 %, cooperative easy is won in >= 30 % and medium in >= 10 %.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.movegen import legal_moves  # noqa: E402
from companion.selfplay import BotTable, play_games, summarize  # noqa: E402
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


TARGETS = [
    # (mode, difficulty, figure, what, target)
    ("competitive", "easy", "ended_early", "games ending at 10 VP before the bag is empty", 0.60),
    ("team", "easy", "ended_early", "games where a team reaches 15 VP", 0.50),
    ("cooperative", "easy", "cooperative_won", "cooperative easy games won", 0.30),
    ("cooperative", "medium", "cooperative_won", "cooperative medium games won", 0.10),
]


def bot_figures(games: int, seed: int, modes: list[str] | None = None) -> None:
    """Greedy self-play per mode (all of :data:`TARGETS`, or the lines of ``modes``), against
    the issue's targets."""
    print(f"greedy bots, {games} games per line from seed {seed} (selfplay --mode M --games {games} --seed {seed}):")
    for mode, difficulty, key, what, target in TARGETS:
        if modes and mode not in modes and f"{mode}-{difficulty}" not in modes:
            continue
        t0 = time.perf_counter()
        result = play_games(mode, games, seed, difficulty=difficulty, bot="greedy", check_invariants=False)
        s = summarize(result)
        dt = (time.perf_counter() - t0) / games
        rate = s[key]
        missions = "".join(f", {m} {v:.0%}" for m, v in s.get("missions", {}).items())
        if len(s["ended_early_by_players"]) > 1:
            missions += ", ended early by players " + " ".join(f"{k}p {v:.0%}" for k, v in s["ended_early_by_players"].items())
        print(f"  {mode:<11} {difficulty:<6} {what:<46} {rate:5.0%} (target {target:.0%}) {'ok' if rate >= target else 'MISSED'}"
              f"   {'team' if mode == 'cooperative' else 'winner'} VP median {s.get('winner_vp', s.get('team_vp'))['median']}, "
              f"cards bought median {s['cards_bought']['median']}, "
              f"removals in {s['removal_games']:.0%} of games ({s['removals_per_game']} per game)"
              f"{missions}, {dt:.1f} s/game")
    print(f"  (load average {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    # Forest Communication needs one green network with a path end facing each of the 4 trees;
    # paths of 1 or 2 ends give a network at most 2 free ends, so it takes two branching paths.
    from companion import tiles as tilecodes
    from companion.edition import load_edition
    ed = load_edition()
    counts = []
    for players in (2, 3, 4):
        bag = ed.bag_composition(players)
        counts.append(sum(n for code, n in bag.items() if code != tilecodes.ROCK and any(
            p.color == "green" and len(p.edges) >= 3 for p in tilecodes.parse(code).paths)))
    print(f"  tiles with a branching green path in the 2/3/4-player bag: {'/'.join(map(str, counts))} "
          f"(Forest Communication needs at least 2 of them placed on one network)")
    # The smallest network over the bag's exact shapes (companion.forest_plan), per tree layout.
    from companion import forest_plan
    from companion.position import Player, Position
    sizes = []
    for difficulty in ("easy", "medium", "hard"):
        empty = Position(players=[Player("blue"), Player("orange")], active="blue", mode="cooperative",
                         difficulty=difficulty, trees={at: [None] * 4 for _tid, at in ed.trees(difficulty)},
                         hands={"blue": [], "orange": []})
        t0 = time.perf_counter()
        bp = forest_plan.plan(empty, ed)
        sizes.append(f"{difficulty} {len(bp.spaces) if bp else '-'} tiles ({(time.perf_counter() - t0) * 1000:.0f} ms)")
    print(f"  smallest Forest Communication network on an empty board (2-player bag): {', '.join(sizes)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="greedy games per mode (the issue asks for 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-movegen", action="store_true", help="only the bot figures")
    ap.add_argument("--modes", nargs="+", metavar="MODE",
                    help="only these bot lines: competitive, team, cooperative, or cooperative-medium etc.")
    args = ap.parse_args()
    if not args.skip_movegen:
        movegen_figures()
    bot_figures(args.games, args.seed, args.modes)


def movegen_figures() -> None:
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
