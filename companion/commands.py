"""The rules-core subcommands of ``mycelium-companion``: check-move, apply-move, legal-moves,
afford, selfplay, show, and the game log's export and games."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from companion.argtypes import at_least
from companion.edition import load_edition
from companion.position import Position, PositionError, check_substrate_count


class InputError(Exception):
    """A file given on the command line cannot be used; exit code 2."""


def _load_json(path: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{what} file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{what} file {path}: not UTF-8 text (byte {e.start}): is it a JSON file?") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{what} file {path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None


def write_output(path: str, text: str) -> None:
    """Write an output file; InputError (exit 2) naming the file when it cannot be written."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None


def load_position(path: str) -> Position:
    """Read a position file (a bare position, or a worked example with a ``position`` key).

    Raises :class:`InputError` naming the file and field.
    """
    doc = _load_json(path, "position")
    if isinstance(doc, dict) and "board" not in doc and isinstance(doc.get("position"), dict):
        doc = doc["position"]
    if isinstance(doc, dict) and "board" in doc and "registration" in doc and "mode" not in doc:
        # the whole output of read-board --json: only its "board" belongs in a position
        raise InputError(f"position file {path}: this is a board reading ('read-board --json'), "
                         "not a position: copy its \"board\" into a position with the players, "
                         "hands and nutrients (docs/position.md)")
    try:
        pos = Position.from_json(doc)
        check_substrate_count(pos, load_edition(pos.edition))
        return pos
    except PositionError as e:
        raise InputError(f"position file {path}: field {e.field}: {e.message}") from None


def load_move(path: str, edition: Any = None) -> Any:
    """Read a move file (a bare move, or a worked example with a ``move`` key) and check its
    shape, spaces named by ``edition``'s labels or [q, r]; raises :class:`InputError` naming
    the file and field."""
    from companion.moves import parse_move
    doc = _load_json(path, "move")
    if isinstance(doc, dict) and "action" not in doc and isinstance(doc.get("move"), dict):
        doc = doc["move"]
    try:
        return parse_move(doc, edition)
    except PositionError as e:
        raise InputError(f"move file {path}: field {e.field}: {e.message}") from None


def load_position_and_move(args: argparse.Namespace) -> tuple[Position, Any]:
    """The ``--position`` and ``--move`` files, the move's ``choose`` checked against the
    position's players; raises :class:`InputError` naming the file and field."""
    from companion.moves import check_choosers
    pos = load_position(args.position)
    move = load_move(args.move, _edition_for(pos))
    try:
        check_choosers(move, pos.colors)
    except PositionError as e:
        raise InputError(f"move file {args.move}: field {e.field}: {e.message}") from None
    return pos, move


def _edition_for(pos: Position):
    from companion.edition import EditionError, load_edition
    try:
        return load_edition(pos.edition)
    except EditionError as e:
        raise InputError(f"edition {pos.edition!r}: {e}") from None


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except InputError as e:
            print(f"mycelium-companion: {e}", file=sys.stderr)
            return 2
    return run


@_guard
def cmd_check_move(args: argparse.Namespace) -> int:
    from companion.rules import check
    pos, move = load_position_and_move(args)
    print(json.dumps(check(pos, move, _edition_for(pos)).to_json()))
    return 0


@_guard
def cmd_apply_move(args: argparse.Namespace) -> int:
    """Play one move: the new position, the notes in words and any choice left to a player.

    Exit 0 when played, 1 when the rules refuse the move (reason on stdout and stderr)."""
    from companion.rules import IllegalMove, apply
    pos, move = load_position_and_move(args)
    try:
        out = apply(pos, move, _edition_for(pos))
    except IllegalMove as e:
        print(json.dumps({"legal": False, "reason": e.reason, "message": e.message}))
        print(f"mycelium-companion: illegal move ({e.reason}): {e.message}", file=sys.stderr)
        return 1
    doc = out.position.to_json()
    if args.out:
        write_output(args.out, json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"legal": True, "notes": out.notes, "choices": out.choices,
                      "position": args.out or doc}))
    return 0


@_guard
def cmd_hint(args: argparse.Namespace) -> int:
    """The active player's suggested action with its reason, and a plan per face-up card."""
    from companion.hints import hint
    pos = load_position(args.position)
    if pos.result is not None:   # as check-move and the dashboard's hint say (rules: game_over)
        print("mycelium-companion: the game is over" + (f": {pos.result['reason']}" if pos.result.get("reason") else "")
              + "; there is nothing to suggest", file=sys.stderr)
        return 1
    ed = _edition_for(pos)
    h = hint(pos, ed)
    if args.json:
        print(json.dumps(h.to_json()))
        return 0
    # a reason that starts with the move already names the player ("blue places ...")
    print(h.reason if h.reason.startswith(f"{h.player} ") else f"{h.player}: {h.reason}")
    if h.move is not None:
        print(f"  move: {json.dumps(h.move)}")
    for goal in h.goals:
        print(f"team still needs: {goal}")
    for c in h.cards:
        head = f"{c.name} ({c.card}, {c.vp} VP)"
        print(f"{head}: {c.in_words()}")
    return 0


@_guard
def cmd_legal_moves(args: argparse.Namespace) -> int:
    from companion.movegen import legal_moves
    from companion.rules import Board, substrate_due_message, tokens_due
    pos = load_position(args.position)
    ed = _edition_for(pos)
    moves = legal_moves(pos, ed)
    doc: dict[str, Any] = {"active": pos.active, "count": len(moves), "moves": moves}
    board = Board(pos, ed)
    if tokens_due(board):   # a token is drawn at random, not chosen: said, not listed (5.a)
        doc["substrate_due"] = substrate_due_message(board)
    print(json.dumps(doc))
    return 0


@_guard
def cmd_afford(args: argparse.Namespace) -> int:
    from companion.purchase import market_affordability
    pos = load_position(args.position)
    ed = _edition_for(pos)
    unknown = [c for d in ("a", "b") for c in pos.market[d] if c not in ed.cards]
    if unknown:
        raise InputError(f"position file {args.position}: field market: unknown card(s) {unknown}")
    out: dict[str, dict[str, Any]] = {c: {} for c in pos.colors}
    for a in market_affordability(pos, ed):
        out[a.player][a.card] = {k: v for k, v in a.to_json().items() if k not in ("card", "player")}
    print(json.dumps({"players": out}))
    return 0


@_guard
def cmd_show(args: argparse.Namespace) -> int:
    from companion.textboard import legend, render, summary
    pos = load_position(args.position)
    ed = _edition_for(pos)
    print(render(pos, ed, color=sys.stdout.isatty()))
    print(legend(pos))
    print(summary(pos, ed))
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    from companion.selfplay import end_reason, figure, play_games, results, summarize
    if args.mode == "team" and args.players not in (None, 4):
        print("mycelium-companion: team mode is 2 vs 2: --players must be 4", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    games = play_games(args.mode, args.games, args.seed, players=args.players, difficulty=args.difficulty,
                       bot=args.bot)
    elapsed = time.perf_counter() - t0
    reasons: Counter[str] = Counter()
    for g in games:
        if g.result:
            reasons[end_reason(g)] += 1
    turns = [g.turns for g in games]
    summary = {
        "mode": args.mode, "difficulty": args.difficulty,  # every mode: it places the trees (2.a)
        "games": len(games), "seed": args.seed, "bot": args.bot,
        "results": results(games), "end_reasons": dict(reasons.most_common()),
        "turns": {"min": min(turns), "median": figure(statistics.median(turns)), "max": max(turns)},
        "events": sum(g.events for g in games),
        "violations": [{"seed": g.seed, "violations": g.violations} for g in games if g.violations],
        "games_per_second": round(len(games) / elapsed, 2),
        **summarize(games),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.per_game:   # each game's own line, seed by seed (GameSummary.to_json, with how it ended)
        summary["per_game"] = [{**g.to_json(), "ended": end_reason(g)} for g in games]
    print(json.dumps(summary))
    return 1 if summary["violations"] else 0


def damage_report(e, command: str) -> str:
    """What to print for a damaged log: the sentence, then how to keep a copy and carry on
    from the last good event with ``command`` (the same command line plus ``--salvage``)."""
    from companion.eventlog import LogDamaged
    text = str(e)
    if isinstance(e, LogDamaged):
        from companion.eventlog import salvage_problem
        upto = f" up to event {e.good}" if e.good >= 0 else ""
        problem = salvage_problem(e.path)
        text += (f".\nIt cannot be salvaged: {problem}" if problem else
                 f".\nTo keep a copy of the damaged file and carry on{upto}: {command} --salvage")
    return text


def open_checked(db: str, game: str | None, salvage_ok: bool, command: str, readonly: bool = False,
                 pick=None):
    """Open the log ``db`` and rebuild ``game`` (``pick(log)`` chooses one when ``None``), every
    event checked.  A damaged log raises :class:`InputError` with :func:`damage_report`'s text,
    unless ``salvage_ok``: then the damaged file is copied aside, rebuilt up to the last good
    event (:func:`companion.eventlog.salvage`) and the game rebuilt from it.

    Returns ``(log, game, note)``; ``note`` says what salvage kept, or is ``None``.
    """
    from companion.eventlog import EventLogError, LogDamaged, salvage
    from companion.game import good_prefix
    try:
        return (*_open_game(db, game, readonly, pick), None)
    except LogDamaged as e:
        if not salvage_ok:
            raise InputError(damage_report(e, command)) from None
        try:
            backup, kept = salvage(db, check=good_prefix)
        except (OSError, EventLogError) as e2:
            raise InputError(f"{e}; it cannot be salvaged: {e2}") from None
        where = (f"game {e.game} kept up to event {kept.get(e.game, -1)}" if e.game
                 else f"{len(kept)} game(s) kept up to their last good event")
        note = f"The damaged log was copied to {backup}; {where}."
    try:
        return (*_open_game(db, game, readonly, pick), note)
    except LogDamaged as e:   # pragma: no cover - salvage keeps only events that read back
        raise InputError(damage_report(e, command)) from None


def _open_game(db: str, game: str | None, readonly: bool, pick):
    """``(log, game)`` for :func:`open_checked`; LogDamaged passes through, other log errors
    become :class:`InputError` (a wrong id lists the ids)."""
    from companion.eventlog import EventLog, EventLogError, LogDamaged
    from companion.game import Game
    log = None
    try:
        log = EventLog(db, readonly=readonly)
        gid = game or (pick(log) if pick else log.latest_game())
        return log, Game.resume(log, gid)
    except LogDamaged:
        if log is not None:
            log.close()
        raise
    except EventLogError as e:
        msg = str(e)
        if log is not None:
            ids = [g.id for g in log.games()]
            if ids and game:
                msg += "; games in this log: " + ", ".join(ids) + " (see 'mycelium-companion games')"
            log.close()
        raise InputError(msg) from None


@_guard
def cmd_export(args: argparse.Namespace) -> int:
    """Print (or write to ``--out``) one game of a log as JSON; the log is ``--db`` or, without
    it, the companion's own log.  Exit 2 with one sentence for a log that is not there."""
    args.db = args.db or default_db()
    if not Path(args.db).is_file():
        from companion.eventlog import no_log_at
        raise InputError(no_log_at(args.db))
    cmd = f"mycelium-companion export --db {args.db}" + (f" --game {args.game}" if args.game else "")
    log, game, note = open_checked(args.db, args.game, args.salvage, cmd, readonly=True)
    log.close()
    if note:
        print(note, file=sys.stderr)
    text = json.dumps(game.export(), indent=1)
    if args.out:
        write_output(args.out, text + "\n")
    else:
        print(text)
    return 0


@_guard
def cmd_games(args: argparse.Namespace) -> int:
    """List the games of a log, oldest first (the log is opened read-only).  The companion's
    own log not made yet is an empty list, not an error: nothing was played on this machine; a
    log named with ``--db`` that does not exist is refused (exit 2), as ``export`` does."""
    from companion.eventlog import EventLog, EventLogError, no_log_at
    named, args.db = args.db is not None, args.db or default_db()
    if Path(args.db).is_dir() or (named and not Path(args.db).exists()):
        raise InputError(no_log_at(args.db))   # a log named on the command line must exist (a typo)
    if not Path(args.db).exists():
        note = f"No game was logged yet ({args.db} is made by the first game played)."
        if args.json:
            print("[]")
            print(note, file=sys.stderr)
        else:
            print(note)
        return 0
    try:
        log = EventLog(args.db, readonly=True)
        games = log.check(log.games())
        log.close()
    except EventLogError as e:
        raise InputError(damage_report(e, f"mycelium-companion export --db {args.db}")) from None
    if args.json:
        print(json.dumps([g.to_json() for g in games]))
    elif not games:
        print(f"No games in {args.db}.")
    else:
        for g in games:
            print(g.line())
    return 0


def default_db() -> str:
    """Where games are logged unless ``--db`` says otherwise."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "mycelium-companion", "games.sqlite3")


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the rules-core subcommands to the top-level parser."""
    p = sub.add_parser("check-move", help="judge one move in a position (JSON out, exit 0 either way)")
    p.add_argument("--position", required=True, metavar="P.json", help="position file ('-' for stdin)")
    p.add_argument("--move", required=True, metavar="M.json", help="move file")
    p.set_defaults(func=cmd_check_move)

    p = sub.add_parser("apply-move", help="play one move: new position and notes in words (JSON out; exit 1 if illegal)")
    p.add_argument("--position", required=True, metavar="P.json", help="position file ('-' for stdin)")
    p.add_argument("--move", required=True, metavar="M.json", help="move file")
    p.add_argument("--out", default=None, metavar="P2.json",
                   help="also write the new position there (stdout then names the file instead of repeating it)")
    p.set_defaults(func=cmd_apply_move)

    p = sub.add_parser("hint", help="the active player's best action with its reason, and a plan per face-up card")
    p.add_argument("--position", required=True, metavar="P.json")
    p.add_argument("--json", action="store_true", help="one JSON document instead of sentences")
    p.set_defaults(func=cmd_hint)

    p = sub.add_parser("legal-moves", help="every legal move of the active player")
    p.add_argument("--position", required=True, metavar="P.json")
    p.set_defaults(func=cmd_legal_moves)

    p = sub.add_parser("afford", help="per player and face-up card: can it be bought now, and the shortfall")
    p.add_argument("--position", required=True, metavar="P.json")
    p.set_defaults(func=cmd_afford)

    p = sub.add_parser("show", help="print a position as a text board")
    p.add_argument("--position", required=True, metavar="P.json")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("selfplay", help="bot games with every invariant checked; one JSON summary")
    p.add_argument("--mode", choices=["competitive", "cooperative", "team"], default="competitive")
    p.add_argument("--games", type=at_least(1), default=10)
    p.add_argument("--seed", type=at_least(0), default=1, help="the first game's seed (default 1)")
    p.add_argument("--players", type=int, choices=[2, 3, 4], default=None,
                   help="players per game (default: 2-4 in turn; 4 in team mode)")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="easy")
    p.add_argument("--bot", choices=["greedy", "random"], default="greedy",
                   help="bot level: greedy (one-ply search, plays to win) or random")
    p.add_argument("--per-game", action="store_true",
                   help="also list each game's summary under per_game (how it ended, winner VP, cards bought, "
                        "removals, missions, seconds)")
    p.set_defaults(func=cmd_selfplay)

    p = sub.add_parser("export", help="write a logged game as JSON")
    p.add_argument("--db", default=None, help="game log (SQLite; opened read-only; default: the companion's own log)")
    p.add_argument("--game", default=None, help="game id (default: the newest; see 'games')")
    p.add_argument("--out", default=None, help="output file (default: stdout)")
    p.add_argument("--salvage", action="store_true",
                   help="if the log is damaged: keep a copy of it, rebuild it up to the last good event, export that")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("games", help="list the games of a log: id, kind, mode, players, moves, start, finished")
    p.add_argument("--db", default=None, help="game log (SQLite; opened read-only; default: the companion's own log)")
    p.add_argument("--json", action="store_true", help="one JSON list instead of lines")
    p.set_defaults(func=cmd_games)
