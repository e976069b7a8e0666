"""Where the greedy bots' turns go: per turn, what was played and what the chosen card still
lacked at its end; per game, cubes gained and dropped at the cap, tiles placed and tiles paid,
purchases left on the table, and the victory points of the cards bought.

Run: ``.venv/bin/python bench/bot_turns.py [--mode competitive|team] [--games N] [--seed S]``.
Prints figures (no targets): the measurements behind the bot notes in ``docs/rules.md``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import economy, movegen  # noqa: E402
from companion.hexgrid import Hex  # noqa: E402
from companion.rules import Board, check  # noqa: E402
from companion.selfplay import BotTable  # noqa: E402
from companion.setup import GameConfig  # noqa: E402

COLORS = ["blue", "orange", "red", "black"]
GAINED = re.compile(r" gains (\d+) ")


def purchase_left(table: BotTable, player: str) -> bool:
    """Whether ``player`` could still buy a face-up card at the end of the turn, from where the
    meeple stands or after its move (when the move is not used yet)."""
    pos, ed = table.position, table.edition
    if "buy" in pos.taken:
        return False
    spots = [None] + (movegen.meeple_moves(Board(pos, ed), player) if "move" not in pos.taken else [])
    for mv in spots:
        trial = pos if mv is None else table.bot._with_meeple(pos, player, Hex(*mv["to"]))
        for cid in trial.market["a"] + trial.market["b"]:
            if check(trial, {"player": player, "action": "buy", "card": cid}, ed).legal:
                return True
    return False


def count_game(mode: str, seed: int, c: Counter) -> None:
    """Play one greedy game of ``mode`` and add its figures to ``c``."""
    players = 4 if mode == "team" else 2 + seed % 3
    cfg = GameConfig(players=COLORS[:players], mode=mode,
                     teams={"blue": "1", "orange": "2", "red": "1", "black": "2"} if mode == "team" else None)
    table = BotTable(cfg, seed, bot="greedy", check_invariants=False)
    ed = table.edition
    table.world()
    while table.position.result is None:
        pos = table.position
        if pos.in_setup:
            table.play_turn()
            continue
        p = pos.active
        start = len(table.game.events)
        table.play_actions()
        for ev in table.game.events[start:]:
            c["act_" + ev.move["action"]] += ev.move["player"] == p
            if ev.move["action"] == "buy":
                c[f"bought_{ed.cards[ev.move['card']].vp}vp"] += 1
            for note in ev.notes:
                if m := GAINED.search(note):
                    c["cubes_gained"] += int(m.group(1))
                if (m := economy.RETURN_NOTE.match(note)) and "cap of" in m.group(4):
                    c["cubes_dropped"] += int(m.group(2))
                c["tiles_paid"] += "paid for" in note
        if table.position.result is None:
            c["turns"] += 1
            target = table.bot.target(table.position, ed, p, remember=False)
            c["purchase_left"] += purchase_left(table, p)
            if target is not None and "buy" not in table.position.taken:
                c["lacked_tiles"] += target.missing_tiles > 0
                c["lacked_cubes"] += bool(target.missing)
        table.end_turn()
    c["games"] += 1
    c[f"games_{players}p"] += 1
    c[f"ended_early_{players}p"] += table.position.bag > 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["competitive", "team"], default="competitive")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    c: Counter = Counter()
    t0 = time.perf_counter()
    for s in range(args.seed, args.seed + args.games):
        count_game(args.mode, s, c)
    dt = (time.perf_counter() - t0) / args.games
    turns, games = c["turns"], c["games"]
    print(f"greedy bots, {args.mode}, {games} games from seed {args.seed}, {turns} turns "
          f"({dt:.1f} s/game, load average {os.getloadavg()[0]:.1f}):")
    print(f"  per turn: place {c['act_place'] / turns:.2f}  rock {c['act_rock'] / turns:.2f}  "
          f"discard {c['act_discard'] / turns:.2f}  spore ability {c['act_spore_ability'] / turns:.2f}  "
          f"buy {c['act_buy'] / turns:.2f}")
    print(f"  at the end of a turn without a purchase the target card still lacked tiles "
          f"{c['lacked_tiles'] / turns:.0%}, cubes {c['lacked_cubes'] / turns:.0%}; a purchase was left "
          f"on the table {c['purchase_left'] / turns:.1%}")
    print(f"  per game: cubes gained {c['cubes_gained'] / games:.1f}, dropped at the cap {c['cubes_dropped'] / games:.1f}; "
          f"tiles placed {c['act_place'] / games:.1f}, paid for cards {c['tiles_paid'] / games:.1f}")
    bought = {k: v for k, v in sorted(c.items()) if k.startswith("bought_")}
    print("  cards bought by VP: " + ", ".join(f"{k[7:]} {v}" for k, v in bought.items()))
    print("  ended at the VP goal before the bag was empty: " + ", ".join(
        f"{k}p {c[f'ended_early_{k}p']}/{c[f'games_{k}p']}" for k in (2, 3, 4) if c[f"games_{k}p"]))


if __name__ == "__main__":
    main()
