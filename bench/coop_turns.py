"""Where the cooperative bots' turns go: per game, the turn each mission was accomplished, the
team's Forest Communication blueprint (when it was first made, its tiles placed against those
it needed, the turns it stood still, the tiles it still lacked at the end), three-way green
tiles lost, and why the game ended.

Run: ``.venv/bin/python bench/coop_turns.py [--difficulty easy|medium] [--games N] [--seed S]
[--players P] [--verbose] [--why] [--set team_target=0]``.  Prints figures (no targets): the measurements behind the 7.c
notes in ``docs/rules.md``.  Games are those of ``selfplay --mode cooperative`` (same seeds,
2 to 4 players in turn unless ``--players``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import forest_plan  # noqa: E402
from companion import tiles as tilecodes  # noqa: E402
from companion.hexgrid import Hex  # noqa: E402
from companion.selfplay import BotTable  # noqa: E402
from companion.setup import GameConfig  # noqa: E402

COLORS = ["blue", "orange", "red", "black"]
MISSIONS = ("forest_communication", "funga", "forest_symbiosis")


def _three_way_green(code: str) -> bool:
    g = forest_plan.green_path(code) if code != tilecodes.ROCK else None
    return g is not None and len(g) >= 3


def plan_reach(table: BotTable, bp: forest_plan.Blueprint) -> str:
    """Why the active player could not lay a blueprint tile this turn, judged at its start:
    ``no space``: no empty blueprint space is on their frontier, from where the meeple stands
    or after a move; ``no tile``: one is, but no tile in hand carries the planned green path
    there; ``shape, cannot join``: a tile in hand has a planned green path but joins no network where
    it would go; ``could``: a blueprint tile was playable."""
    from companion import movegen
    from companion.rules import Board
    pos, ed = table.position, table.edition
    p = pos.active
    todo = set(bp.todo(pos))
    boards = [Board(pos, ed)] + [Board(table.bot._with_meeple(pos, p, Hex(*mv["to"])), ed)
                                 for mv in movegen.meeple_moves(Board(pos, ed), p)]
    reach = False
    for b in boards:
        if not todo & set(b.frontier(p)):
            continue
        for _code, _k, placed, at, _j in movegen.placement_options(b, p):
            if at in todo:
                reach = True
                if bp.fits(at, placed):
                    return "could"
    if not reach:
        return "no space"
    shapes = {frozenset(bp.spaces[h]) for h in todo}
    for code in pos.hands[p]:
        if code == tilecodes.ROCK:
            continue
        for _k, placed in tilecodes.distinct_rotations(code):
            if forest_plan.green_path(placed) in shapes:
                return "shape, cannot join"
    return "no tile"


def play(seed: int, difficulty: str, players: int | None, why_still: bool = False,
         settings: dict | None = None) -> dict:
    """One greedy cooperative game with the figures of the module docstring; ``settings``:
    bot attributes to set first (``team_target``, ``plan_reach``), to measure one against
    the other."""
    n = players or 2 + seed % 3
    cfg = GameConfig(players=COLORS[:n], mode="cooperative", difficulty=difficulty)
    table = BotTable(cfg, seed, bot="greedy", check_invariants=False)
    ed = table.edition
    bot = table.bot
    for k, v in (settings or {}).items():
        if not hasattr(bot, k):
            raise SystemExit(f"the greedy bot has no setting {k!r}")
        setattr(bot, k, v)
    g: dict = {"seed": seed, "players": n, "mission_turn": {}, "plan_first": None, "plan_size": None,
               "plan_tiles": Counter(), "plan_still": 0, "plan_turns": 0, "replans": 0,
               "three_way_lost": 0, "buys_before_fc": 0, "redraws": 0, "places": 0, "turns": 0}
    last_plan = None
    play_event = table.play

    def traced(move):
        # The plan the bot holds when the move is played: a placement fits it or not.
        kept = getattr(bot, "_forest", None)
        bp = kept[1] if kept else None
        pos = table.position
        if move["action"] == "place" and "forest_communication" not in pos.missions:
            placed = tilecodes.rotate_code(move["tile"], move["rotation"])
            at = Hex(*move["at"])
            if bp is not None and bp.fits(at, placed):
                g["plan_tiles"][move["player"]] += 1
        if move["action"] == "discard" and _three_way_green(move["tile"]):
            g["three_way_lost"] += 1
        if move["action"] == "buy" and "forest_communication" not in pos.missions:
            g["buys_before_fc"] += 1
        if move["action"] == "place":
            g["places"] += 1
        if move["action"] == "spore_ability" and move.get("mode") == "redraw":
            g["redraws"] += 1
        return play_event(move)

    table.play = traced
    table.world()
    while table.position.result is None:
        pos = table.position
        if pos.in_setup:
            table.play_turn()
            continue
        before = sum(g["plan_tiles"].values())
        kept = getattr(bot, "_forest", None)
        why = (plan_reach(table, kept[1]) if why_still and kept and kept[1] is not None
               and "forest_communication" not in pos.missions else None)
        table.play_actions()
        table.end_turn()
        g["turns"] += 1
        pos = table.position
        kept = getattr(bot, "_forest", None)
        bp = kept[1] if kept else None
        if bp is not None and "forest_communication" not in pos.missions:
            if g["plan_first"] is None:
                g["plan_first"] = g["turns"]
                g["plan_size"] = len(bp.spaces)
            if last_plan is not None and bp.spaces != last_plan.spaces:
                g["replans"] += 1
            last_plan = bp
            g["plan_turns"] += 1
            still = sum(g["plan_tiles"].values()) == before
            g["plan_still"] += still
            if still and why:
                g.setdefault("still_why", Counter())[why] += 1
            g["plan_left"] = len(bp.todo(pos))
        for m in MISSIONS:
            if m in pos.missions and m not in g["mission_turn"]:
                g["mission_turn"][m] = g["turns"]
    pos = table.position
    g["won"] = bool(pos.result and pos.result["winners"])
    g["bag_left"] = pos.bag
    g["vp"] = sum(ed.cards[c].vp for v in pos.cards.values() for c in v)
    g["vp_target"] = ed.cooperative_vp[difficulty]
    g["three_way_discarded"] = sum(_three_way_green(c) for c in pos.discard)
    g["missions"] = list(pos.missions)
    return g


def report(games: list[dict], difficulty: str, dt: float) -> None:
    n = len(games)
    won = sum(g["won"] for g in games)
    print(f"greedy bots, cooperative {difficulty}, {n} games ({dt:.1f} s/game, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}): won {won}/{n}")
    for m in MISSIONS:
        turns = [g["mission_turn"][m] for g in games if m in g["mission_turn"]]
        med = f", median turn {statistics.median(turns):.0f} of {statistics.median(g['turns'] for g in games):.0f}" if turns else ""
        print(f"  {m:<21} {len(turns)}/{n}{med}")
    vp_met = sum(g["vp"] >= g["vp_target"] for g in games)
    print(f"  VP target met {vp_met}/{n} (team VP median {statistics.median(g['vp'] for g in games)}, "
          f"target {games[0]['vp_target']})")
    why = Counter()
    for g in games:
        if g["won"]:
            why["won"] += 1
        else:
            lacking = [m for m in MISSIONS if m not in g["missions"]] + (["VP"] if g["vp"] < g["vp_target"] else [])
            why["lost, lacking " + " + ".join(lacking)] += 1
    for k, v in why.most_common():
        print(f"    {v:3d}  {k}")
    planned = [g for g in games if g["plan_first"] is not None]
    if planned:
        print(f"  blueprint made in {len(planned)}/{n} games, first at turn median "
              f"{statistics.median(g['plan_first'] for g in planned):.0f}, size median "
              f"{statistics.median(g['plan_size'] for g in planned):.0f} tiles; replans median "
              f"{statistics.median(g['replans'] for g in planned):.0f}")
        print(f"  plan tiles placed per game median {statistics.median(sum(g['plan_tiles'].values()) for g in planned):.0f}; "
              f"turns with a plan median {statistics.median(g['plan_turns'] for g in planned):.0f}, of them standing "
              f"still median {statistics.median(g['plan_still'] for g in planned):.0f}")
        why = Counter()
        for g in planned:
            why.update(g.get("still_why", {}))
        total = sum(why.values()) or 1
        if why:
            print("  turns standing still, at the turn's start: " + ", ".join(
                f"{k} {v / total:.0%}" for k, v in why.most_common()) +
                " (see plan_reach)")
        unfinished = [g for g in planned if "forest_communication" not in g["missions"]]
        if unfinished:
            print(f"  games ending without it: plan tiles still to place median "
                  f"{statistics.median(g.get('plan_left', 0) for g in unfinished):.0f}")
        top = [max(g["plan_tiles"].values()) / sum(g["plan_tiles"].values()) for g in planned if g["plan_tiles"]]
        if top:
            print(f"  share of plan tiles laid by the player laying most: {statistics.mean(top):.0%}")
    print(f"  three-way green tiles discarded from hand per game: {sum(g['three_way_lost'] for g in games) / n:.2f}, "
          f"in the discard at the end {sum(g['three_way_discarded'] for g in games) / n:.2f}; "
          f"purchases before Forest Communication {sum(g['buys_before_fc'] for g in games) / n:.1f}; "
          f"spore redraws per game {sum(g['redraws'] for g in games) / n:.1f}")


def parse_settings(items: list[str]) -> dict:
    """``--set NAME=VALUE`` items as bot settings: a number where VALUE is one, else a switch
    (off for ``false``, ``off`` or nothing)."""
    settings = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            settings[name] = float(value)
        except ValueError:
            settings[name] = value not in ("false", "off", "")
    return settings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="easy")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, choices=[2, 3, 4], default=None)
    ap.add_argument("--verbose", action="store_true", help="one line per game")
    ap.add_argument("--why", action="store_true", help="say why the blueprint stood still (slower)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a bot setting: team_target=0|1, plan_reach=0|1, plan_moves=0|1, substrate_sides=0|1, fish_plan=0|1, joined_ends=0|1, frontier_gain=12, blueprint_pull=3.0")
    args = ap.parse_args()
    settings = parse_settings(args.set)
    t0 = time.perf_counter()
    games = []
    for s in range(args.seed, args.seed + args.games):
        g = play(s, args.difficulty, args.players, args.why, settings)
        games.append(g)
        if args.verbose:
            print(f"seed {s} {g['players']}p won={g['won']} missions={g['mission_turn']} turns={g['turns']} "
                  f"vp={g['vp']} plan first={g['plan_first']} size={g['plan_size']} placed={dict(g['plan_tiles'])} "
                  f"still={g['plan_still']}/{g['plan_turns']} left={g.get('plan_left')} replans={g['replans']} "
                  f"3way lost={g['three_way_lost']}/{g['three_way_discarded']} buys<fc={g['buys_before_fc']} redraws={g['redraws']} why={dict(g.get('still_why', {}))}", flush=True)
    report(games, args.difficulty, (time.perf_counter() - t0) / args.games)


if __name__ == "__main__":
    main()
