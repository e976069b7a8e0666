"""The terminal demo: bots play a whole game, every move validated and logged.

Each accepted move is printed as it is committed (with what it caused), the board after every
turn, and the result at the end.  The game is written to the SQLite event log first, so
``--resume`` continues an interrupted demo at the same move.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from companion.edition import load_edition
from companion.eventlog import EventLog, EventLogError
from companion.game import Event, Game
from companion.position import Position
from companion.selfplay import BotTable
from companion.setup import GameConfig
from companion.textboard import render, summary

TEAMS = {"blue": "1", "orange": "2", "red": "1", "black": "2"}


def run_demo(args: argparse.Namespace) -> int:
    """Play the demo game described by ``args`` (see ``mycelium-companion demo --help``)."""
    from companion.commands import default_db

    colors = ["blue", "orange", "red", "black"][: (4 if args.mode == "team" else args.players)]
    config = GameConfig(players=colors, mode=args.mode, difficulty=args.difficulty,
                        teams=TEAMS if args.mode == "team" else None)
    db = args.db or default_db()
    try:
        log = EventLog(db)
    except EventLogError as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        return 2
    edition = load_edition()
    tty = sys.stdout.isatty() and not args.fast
    pace = 0.0 if args.fast else args.pace

    def show(ev: Event, pos: Position) -> None:
        if args.fast:
            return
        print(f"[{ev.seq:4}] {ev.notes[0]}")
        for note in ev.notes[1:]:
            print(f"         - {note}")
        if ev.move["action"] in ("end_turn", "spore") or pos.result:
            print(render(pos, edition, color=tty))
            print(summary(pos, edition))
            print()
        sys.stdout.flush()
        if pace:
            time.sleep(pace)

    if args.resume:
        try:
            game = Game.resume(log)
        except EventLogError as e:
            print(f"mycelium-companion: {e}", file=sys.stderr)
            return 2
        table = BotTable.from_game(game, args.seed, on_event=show)
        if not args.fast:
            print(f"Resuming game {game.game_id} at move {len(game.events)} (log: {db})")
    else:
        table = BotTable(config, args.seed, edition, log=log, on_event=show)
        if not args.fast:
            print(f"Mycelium demo: {args.mode}, {len(colors)} players, seed {args.seed}; game {table.game.game_id} logged in {db}")
            print(render(table.position, edition, color=tty))
            print()
    try:
        table.run()
    except KeyboardInterrupt:
        print(f"\nStopped. Resume with: mycelium-companion demo --resume --db {db}")
        return 130
    pos = table.position
    if args.fast:
        print(json.dumps({"result": pos.result, "events": len(table.game.events), "turns": pos.turn_number,
                          "game": table.game.game_id, "db": db}))
    else:
        print("Result:", pos.result["reason"])
    return 0
