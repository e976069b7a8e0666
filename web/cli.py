"""``mycelium-companion serve``: the dashboard over a bot-driven demo game."""

from __future__ import annotations

import argparse
import errno
import sys
import time

from companion.argtypes import at_least


def port_number(text: str) -> int:
    """An ``argparse`` type for a TCP port: an integer from 0 (any free port) to 65535.

    >>> parser.add_argument("--port", type=port_number, default=8080)
    """
    try:
        port = int(text, 10)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number: use 0 to 65535 (0 picks a free one)")
    return port


def register(sub) -> None:
    """Add the ``serve`` subcommand to the top-level parser's subparsers."""
    p = sub.add_parser("serve", help="the tablet dashboard over a bot demo game",
                       description="Serve the tablet dashboard while bots play a demo game. Prints the "
                                   "address, a QR code to join and the table PIN.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 for the table's Wi-Fi)")
    p.add_argument("--port", type=port_number, default=8080, help="TCP port (default 8080; 0 picks a free one)")
    p.add_argument("--pin", help="table PIN, 6 to 8 digits (default: a random 6-digit PIN)")
    p.add_argument("--mode", choices=["competitive", "cooperative", "team"], default="competitive")
    p.add_argument("--players", type=int, choices=[2, 3, 4], default=3, help="players (default 3; team mode: 4)")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="easy")
    p.add_argument("--seed", type=at_least(0), default=1)
    p.add_argument("--pace", type=at_least(0, float), default=1.0, help="seconds between bot moves (default 1.0)")
    p.add_argument("--no-bots", action="store_true", help="serve the game without bots playing it")
    p.add_argument("--bot", choices=["greedy", "random"], default="greedy",
                   help="the bots' level: greedy plays to win (default, as in 'demo'), random only exercises the rules")
    p.add_argument("--hints", action="store_true",
                   help="turn on the table rule 'hints': the dashboard's \"What can I do?\" button")
    p.add_argument("--loop", type=at_least(0, float), default=None, metavar="S",
                   help="start a new game S seconds after each result")
    p.add_argument("--db", help="SQLite game log (default: the shared log; its games are marked dashboard-only)")
    p.add_argument("--no-qr", action="store_true", help="do not draw the QR code in the terminal")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from companion.commands import default_db
    from companion.eventlog import EventLog, EventLogError
    from companion.setup import SetupError
    from web.demo import DemoDriver, demo_session
    from web.server import serve

    from companion.table.cli import port_busy
    from web.auth import check_pin_format

    # Everything that can refuse the start is checked before a game is put in the log.
    if args.pin is not None:
        try:
            check_pin_format(args.pin)
        except ValueError as e:
            print(f"mycelium-companion: --pin: {e}", file=sys.stderr)
            return 2
    problem = port_busy(args.host, args.port, no_web=False)
    if problem:
        print(f"mycelium-companion: {problem}", file=sys.stderr)
        return 2
    try:
        log = EventLog(args.db or default_db(), create_dirs=args.db is None)
        session = demo_session(args.mode, args.players, args.seed, log, args.difficulty,
                               {"hints": True} if args.hints else None)
    except (EventLogError, SetupError) as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        return 2
    try:
        srv = serve(session, host=args.host, port=args.port, pin=args.pin, qr=not args.no_qr)
    except (ValueError, OSError) as e:
        if session.game.game_id:
            log.discard_if_empty(session.game.game_id)   # the game never started
        if isinstance(e, ValueError):
            print(f"mycelium-companion: --pin: {e}", file=sys.stderr)
            return 2
        hint = ("; another program (another dashboard?) is using it: stop it or pick another --port"
                if e.errno == errno.EADDRINUSE else "")
        print(f"mycelium-companion: cannot listen on {args.host}:{args.port}: {e.strerror or e}{hint}", file=sys.stderr)
        return 1
    driver = None
    try:
        if not args.no_bots:
            driver = DemoDriver(session, seed=args.seed, pace=args.pace, loop=args.loop, bot=args.bot).start()
        print("Press Ctrl+C to stop.", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        if driver:
            driver.stop()
        srv.shutdown()
    return 0
