"""Where the greedy bots' turns go: per turn, what was played and what the chosen card still
lacked at its end; per game, cubes gained and dropped at the cap, tiles placed and tiles paid,
purchases left on the table, and the victory points of the cards bought.

Run: ``.venv/bin/python bench/bot_turns.py [--mode competitive|team] [--games N] [--seed S]
[--players P] [--solo]``.  Prints figures (no targets): the measurements behind the bot notes in
``docs/rules.md``.

``--solo`` is the feasibility check: blue plays as usual while every other player only
discards a tile (a rock when the hand holds nothing else), so the bag empties at the game's
pace and nobody competes for substrates, trees or cards.  What blue reaches then is what one
player of the bot's strength can reach in the turns the bag gives (figures for blue only).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import economy, movegen  # noqa: E402
from companion import tiles as tilecodes  # noqa: E402
from companion.hexgrid import Hex, distance  # noqa: E402
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


class SoloTable(BotTable):
    """Blue plays with the bot; the other players only discard (the bag still empties at the
    pace of the player count, 2.f and 4.a.3), so blue has the board to itself."""

    hero = "blue"

    def play_actions(self) -> None:
        pos = self.position
        if pos.active == self.hero:
            super().play_actions()
            return
        hand = [t for t in pos.hands[pos.active] if t != tilecodes.ROCK]
        if hand:
            self.maybe({"player": pos.active, "action": "discard", "tile": hand[0]})
        else:   # a rock cannot be discarded (4.a.3): put it down where it hurts blue least
            spots = movegen.rock_spots(Board(pos, self.edition), pos.active)
            hero = pos.meeples.get(self.hero)
            self.maybe(max(spots, key=lambda m: distance(Hex(*m["at"]), hero) if hero else 0) if spots else None)


def count_game(mode: str, seed: int, c: Counter, players: int | None = None, solo: bool = False) -> int:
    """Play one greedy game of ``mode``, add its figures to ``c`` (blue's only when ``solo``)
    and return blue's victory points."""
    players = players or (4 if mode == "team" else 2 + seed % 3)
    cfg = GameConfig(players=COLORS[:players], mode=mode,
                     teams={"blue": "1", "orange": "2", "red": "1", "black": "2"} if mode == "team" else None)
    table = (SoloTable if solo else BotTable)(cfg, seed, bot="greedy", check_invariants=False)
    ed = table.edition
    table.world()
    while table.position.result is None:
        pos = table.position
        if pos.in_setup:
            table.play_turn()
            continue
        p = pos.active
        if solo and p != SoloTable.hero:
            table.play_turn()
            continue
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
    vp = economy.victory_points(table.position, ed, SoloTable.hero)
    c[f"goal_alone_{players}p"] += vp >= ed.competitive_vp
    return vp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["competitive", "team"], default="competitive")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, choices=[2, 3, 4], help="players per game (default: 2 to 4 in turn; 4 in team)")
    ap.add_argument("--solo", action="store_true", help="the others only discard: what blue alone reaches")
    args = ap.parse_args()
    c: Counter = Counter()
    t0 = time.perf_counter()
    blue_vp = [count_game(args.mode, s, c, args.players, args.solo) for s in range(args.seed, args.seed + args.games)]
    dt = (time.perf_counter() - t0) / args.games
    turns, games = c["turns"], c["games"]
    print(f"greedy bots{' (solo: blue only, the others discard)' if args.solo else ''}, {args.mode}, "
          f"{games} games from seed {args.seed}, {turns} turns "
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
    if args.solo:
        vps = sorted(blue_vp)
        print(f"  blue's VP at the end: mean {statistics.mean(vps):.2f}, median {statistics.median(vps)}, max {vps[-1]} "
              f"({' '.join(map(str, vps))}); reached 10 VP: "
              + ", ".join(f"{k}p {c[f'goal_alone_{k}p']}/{c[f'games_{k}p']}" for k in (2, 3, 4) if c[f"games_{k}p"]))
    print("  ended at the VP goal before the bag was empty: " + ", ".join(
        f"{k}p {c[f'ended_early_{k}p']}/{c[f'games_{k}p']}" for k in (2, 3, 4) if c[f"games_{k}p"]))


if __name__ == "__main__":
    main()
