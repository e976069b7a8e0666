"""``mycelium-companion demo`` (the simulated table) and ``mycelium-companion run`` (a real one)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from companion.argtypes import at_least

PROFILE_IN_RECORDING = "profile.json"
"""The colour and piece profile a recording was read with, kept in its folder for its replay."""

TEAMS = {"blue": "1", "orange": "2", "red": "1", "black": "2"}
DEMO_PACE = 0.4
"""Seconds between the demo's moves unless ``--pace`` says otherwise (``--fast``: none)."""
DEMO_SEED = 2
"""The demo's default game: one where the greedy simulated players buy cards and a player
reaches 10 VP before the bag runs out (2-player greedy games do so in about 6 of 10 seeds;
``tests/rules/test_cli.py`` checks this one still does)."""


def _config(args: argparse.Namespace):
    """The game config from the command line; raises SetupError for a table the rules refuse."""
    from companion.setup import GameConfig, SetupError
    if getattr(args, "colors", None):
        colors = [c.strip() for c in args.colors.split(",") if c.strip()]
    else:
        if args.mode == "team" and args.players not in (None, 4):
            raise SetupError("team mode is 2 vs 2: --players must be 4")
        colors = ["blue", "orange", "red", "black"][: (4 if args.mode == "team" else args.players or 2)]
    # Team mode: turns alternate between the teams (rulebook 9.a), so seats 1 and 3 play together.
    return GameConfig(players=colors, mode=args.mode, difficulty=args.difficulty,
                      teams={c: str(i % 2 + 1) for i, c in enumerate(colors)} if args.mode == "team" else None)


def _log(db: str | None):
    """The game log: ``--db`` (its folder must exist) or the default file (folder created)."""
    from companion.commands import default_db
    from companion.eventlog import EventLog
    path = db or default_db()
    if path == ":memory:":
        return None, path
    return EventLog(path, create_dirs=db is None), path


def _invocation() -> str:
    """The command line as typed, to repeat it with one more option."""
    import shlex
    prog = sys.argv[0]
    if prog.endswith(("mycelium-companion", "cli.py", "-m", "__main__.py")):
        return "mycelium-companion " + shlex.join(sys.argv[1:])
    return "the same command"


def resumable(log) -> list:
    """The unfinished ``table`` games of ``log`` worth resuming, oldest first: those with a
    move, or when none has one, the move-less ones (older versions kept a game stopped before
    its first move; offering it beside a real game would make ``--resume`` ask for nothing)."""
    open_games = log.unfinished("table")
    return [g for g in open_games if g.moves > 0] or open_games


def _pick_table_game(log) -> str:
    """The newest unfinished ``table`` game of ``log`` worth resuming (:func:`resumable`): the
    boot service resumes with nobody at a keyboard, so it never stops to ask which one (the
    others are listed once it has resumed, with the command that picks one).  Raises InputError
    when there is none, listing the newest games of any kind."""
    from companion.commands import InputError
    open_games = resumable(log)
    if open_games:
        return open_games[-1].id
    others = log.games()[-5:]
    listing = "".join("\n  " + g.line() for g in others)
    raise InputError(f"{log.path} holds no unfinished table game to resume"
                     + (f"; its newest games:{listing}\nContinue one of them with: "
                        "mycelium-companion run --resume --game ID ..." if others else ""))


SIMULATED_KINDS = {"demo": "a simulated game (demo: simulated players on a simulated table)",
                   "dashboard": "a game of the dashboard's simulated players (serve)",
                   "replay": "a replay of a recording"}
"""What a game of each kind but ``table`` was, in the words ``run --resume --game ID`` says."""


def _describe_game(game) -> str:
    """``table game ID (competitive, blue and orange) at move 74, started 2026-11-30 21:03``."""
    import time as _t

    from companion.wording import and_list
    started = ""
    if game.log is not None:
        info = next((g for g in game.log.games() if g.id == game.game_id), None)
        if info is not None:
            started = ", started " + _t.strftime("%Y-%m-%d %H:%M", _t.localtime(info.created))
    pos = game.position
    return (f"{game.kind} game {game.game_id} ({pos.mode}, {and_list(pos.colors)}) "
            f"at move {len(game.events)}{started}")


def table_pin(db: str | None, args: argparse.Namespace) -> tuple[str | None, str]:
    """The table PIN for a game log: ``--pin`` (stored), ``--new-pin`` (a new random one,
    stored) or the one stored beside the log (``<log>.pin``, mode 0600), created on first use.
    Returns ``(pin, note)``; ``(None, ...)`` for ``:memory:`` (a new PIN each start).
    Raises ValueError for a PIN that is not 6 to 8 digits (a shorter stored one is replaced).
    """
    import os
    import secrets
    pin = getattr(args, "pin", None)
    if pin is not None and not (pin.isdigit() and 6 <= len(pin) <= 8):
        raise ValueError("the PIN must be 6 to 8 digits")
    if db in (None, ":memory:"):
        return pin, "new at each start: no game log to keep it beside"
    path = db + ".pin"
    if pin is None and not getattr(args, "new_pin", False):
        try:
            stored = open(path, encoding="ascii").read().strip()
            if stored.isdigit() and 6 <= len(stored) <= 8:
                return stored, f"kept from {path}; --new-pin for a new one"
        except (OSError, UnicodeDecodeError):
            pass
    if pin is None:
        pin = f"{secrets.randbelow(10**6):06d}"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(pin + "\n")
        os.chmod(path, 0o600)   # an older file may have had wider rights
    except OSError as e:
        from companion.commands import InputError
        raise InputError(f"cannot keep the table PIN in {path} ({e.strerror}); the log's folder must be writable") from None
    return pin, f"stored in {path} (readable only by you)"


def _web(session, args: argparse.Namespace, pin: str | None = None):
    if args.no_web:
        return None
    try:
        from web import serve
    except ImportError as e:  # pragma: no cover - the dashboard ships with the package
        print(f"dashboard unavailable: {e}", file=sys.stderr)
        return None
    try:
        return serve(session, host=args.host, port=args.port, pin=pin)
    except OSError as e:
        print(f"mycelium-companion: cannot start the dashboard on {args.host}:{args.port} ({e.strerror}); "
              "try --port, or --no-web", file=sys.stderr)
        return None


def _wait_for_ctrl_c(srv) -> None:
    if srv is None or not sys.stdin.isatty():
        return
    print(f"The dashboard stays at {srv.url} — Ctrl-C to quit.")
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass


def demo_console(session, out=None):
    """The demo's terminal log: the table's questions are answered by the simulated players
    (with or without a dashboard), and the terminal says so, then prints each answer."""
    from companion.table.console import SIMULATED_PLAYERS, ConsoleLog
    return ConsoleLog(session, out=out, answers=SIMULATED_PLAYERS, illegal_hint="the simulated player takes it back")


def cmd_demo(args: argparse.Namespace) -> int:
    """A whole game on the simulated table: rendered camera frames and a reader on a pty."""
    import cv2

    from companion.eventlog import EventLogError
    from companion.setup import SetupError
    from companion.sim.table import SimulatedTable, SimulationAborted

    cv2.setNumThreads(1)
    # What can refuse the start is checked before a game is put in the log.
    problem = check_record_folder(args.record) if args.record else None
    if problem is None and args.fast and (args.port is not None or args.host is not None):
        given = " and ".join(o for o, v in (("--host", args.host), ("--port", args.port)) if v is not None)
        problem = (f"--fast plays without the dashboard, so {given} would be ignored: drop --fast to watch the game "
                   "on the dashboard, or drop " + given)
    elif problem is None and args.fast and args.pace is not None:
        problem = ("--fast plays without pauses between moves, so --pace would be ignored: drop --fast to play at "
                   "that pace, or drop --pace")
    args.pace = DEMO_PACE if args.pace is None else args.pace
    args.host = "127.0.0.1" if args.host is None else args.host
    args.port = 8080 if args.port is None else args.port
    if problem is None and not args.fast and not args.no_web:
        problem = port_busy(args.host, args.port)
    if problem:
        print(f"mycelium-companion: {problem}", file=sys.stderr)
        return 2
    log = None
    started = time.time()
    try:
        log, path = _log(args.db)
        sim = SimulatedTable(_config(args), args.seed, fast=args.fast, pace_s=args.pace, log=log,
                             illegal_every=args.illegal_every)
    except (EventLogError, SetupError) as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # stopped while the simulated table was calibrating: its game has no move yet
        if log is not None:
            for g in log.games():
                if g.kind == "demo" and g.created >= started - 1:
                    log.discard_if_empty(g.id)
        print("\nStopped (Ctrl-C) while the simulated table was being set up: no move was played, nothing kept",
              file=sys.stderr)
        return 130
    srv = None
    if args.record:
        from companion.table.record import Recorder
        try:
            sim.live.recorder = Recorder(args.record, setup=Recorder.setup_doc(sim.session.game))
            sim.profile.save(Path(args.record) / PROFILE_IN_RECORDING)  # the replay reads with it
        except OSError as e:
            if log is not None and sim.session.game.game_id:
                log.discard_if_empty(sim.session.game.game_id)
            print(f"mycelium-companion: --record {args.record}: cannot write there ({e.strerror})", file=sys.stderr)
            return 2
        sim.session.input_hooks.append(sim.live.recorder.input)
        sim.session.game.log_hooks.append(sim.live.recorder.logged)
    if not args.fast:
        srv = _web(sim.session, args)
        if srv is not None:
            from web.setup import attach_table_feed
            attach_table_feed(srv.app, sim.live)   # /setup shows the simulated camera too
        print(f"Simulated table: {args.mode}, {len(sim.session.position.colors)} players, seed {args.seed}; "
              + (f"game {sim.session.game.game_id} logged in {path}" if sim.session.game.game_id
                 else "the game is not logged (--db :memory:)"))
        sim.session.bus.subscribe(demo_console(sim.session))
    try:
        report = sim.run()
    except KeyboardInterrupt:
        g = sim.session.game
        if not g.events and log is not None and g.game_id and log.discard_if_empty(g.game_id):
            kept = "no move was played, nothing kept"
        elif log is not None:
            kept = f"demo game {g.game_id} ({len(g.events)} move(s)) is kept in {path}"
        else:
            kept = f"{len(g.events)} move(s) played; not kept (--db :memory:)"
        print(f"\nStopped (Ctrl-C): {kept}" + (f"; the recording is in {args.record}" if args.record else ""),
              file=sys.stderr)
        return 130
    except SimulationAborted as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        if srv is not None:
            srv.shutdown()
        return 1
    finally:
        if sim.live.recorder is not None:
            sim.live.recorder.close()
    if args.fast:
        print(json.dumps(report.to_json()))
    else:
        r = report.to_json()
        if not r["result"]:    # else the result and the scores were printed as the last move came in
            print("Result: none, the game did not finish")
        print(f"Illegal placements injected {r['illegal_injected']}, caught {r['illegal_caught']}; "
              f"legal moves rejected {r['legal_rejected']}; log matches the bots' game: {r['log_matches_truth']}")
        _wait_for_ctrl_c(srv)
    if srv is not None:
        srv.shutdown()
    return 0 if report.legal_rejected == 0 else 1


def cmd_run(args: argparse.Namespace) -> int:
    """The real table: camera + tile-bag reader + rules + dashboard.

    Devices are opened before the game log is touched, so a start that fails (no camera, a
    bad recording) leaves the log as it was and ``--resume`` still finds the interrupted game.
    """
    import cv2

    from companion.eventlog import EventLogError
    from companion.game import Game
    from companion.hexgrid import Hex
    from companion.setup import SetupError
    from companion.table.console import ConsoleLog
    from companion.table.live import LiveTable
    from companion.table.session import TableSession

    cv2.setNumThreads(2)
    problem = _check_run_args(args)
    if problem:
        print(f"mycelium-companion: {problem}", file=sys.stderr)
        return 2
    if args.resume and args.or_new:
        why = _nothing_to_resume(args)
        if why:
            print(f"Nothing to resume ({why}): starting a new game")
            args.resume = False
    reader = _board_reader(args)
    if reader is None:
        return 2
    from companion.commands import InputError, open_checked
    initial = config = source = items = history = log = game = None
    try:
        if args.replay:
            from companion.table.record import RecordingError, load_history, load_setup, validate
            try:   # the whole recording is checked before the log is touched
                initial, config = load_setup(args.replay)
                history = load_history(args.replay)
                _check_history(initial, config, history or [], args.replay)
                items = validate(args.replay)
            except RecordingError as e:
                print(f"mycelium-companion: {e}", file=sys.stderr)
                return 2
        elif not args.resume:
            import random

            from companion.edition import load_edition
            from companion.setup import new_game
            config = _config(args)
            initial, _ = new_game(config, load_edition(config.edition), random.Random(), deal=False)
        if not args.replay:
            source = _camera(args)
            if source is None:
                return 2
        if args.resume:
            from companion.commands import default_db
            path = args.db or default_db()
            log, game, note = open_checked(path, args.game, args.salvage, _invocation(), pick=_pick_table_game)
            if note:
                print(note)
            if game.position.result is not None:   # nothing to resume: say only that, and what to do
                print(f"That game, {_describe_game(game)}, is over: "
                      f"{game.position.result['reason']}. Nothing to resume: run the same command without "
                      f"--resume for a new game ('mycelium-companion export"
                      f"{f' --db {args.db}' if args.db else ''} --game {game.game_id}' keeps this one as JSON).")
                source.close()
                return 2   # refused, as a missing game or a damaged log is
            print(f"Resuming {_describe_game(game)} (log: {path})")
            if game.kind != "table":
                print(f"Note: this was {SIMULATED_KINDS.get(game.kind, f'a {game.kind} game')}, not a game played at a "
                      "table: the camera sees the real board, so lay the pieces out as the dashboard shows them "
                      "before the next move.")
            waiting = [g for g in resumable(log) if g.id != game.game_id] if args.game is None else []
            if waiting:
                print(f"(Other unfinished table game{'s' if len(waiting) > 1 else ''} in this log: "
                      + ", ".join(f"{g.id} at move {g.moves}" for g in reversed(waiting))
                      + "; 'mycelium-companion run --resume --game ID' continues one instead.)")
            if game.corrections:
                latest = {Hex(*f["at"]): f["text"] for f in game.fixes}
                print(f"{len(game.corrections)} space(s) fixed by hand: "
                      + "; ".join(latest[h] for h in sorted(game.corrections)))
        else:
            log, path = _log(args.db)
            game = Game(initial, config, log=log, kind="replay" if args.replay else "table")
            for kind, payload in history or []:
                game.redo(kind, payload)   # a recording of a resumed game starts where it resumed
            print(f"Game {game.game_id or '(not logged)'}" + (f", logged in {path}" if log else ""))
            waiting = [g for g in log.unfinished("table") if g.id != game.game_id] if log and not args.replay else []
            if waiting:
                print(f"(Unfinished table game{'s' if len(waiting) > 1 else ''} in this log: "
                      + ", ".join(f"{g.id} at move {g.moves}" for g in waiting)
                      + "; 'mycelium-companion run --resume --game ID' continues one.)")
        pin, pin_note = (None, "") if args.replay or args.no_web else table_pin(path if log else None, args)
    except (EventLogError, SetupError, InputError, ValueError) as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        if source is not None:
            source.close()
        if log is not None and game is not None and not args.resume and game.game_id:
            log.discard_if_empty(game.game_id)   # the start failed: no game to resume later
        return 2
    session = TableSession(game)
    session.draws_on_dashboard = args.rfid == "none" and not args.replay   # no bag reader: draws are tapped in
    session.real_table = not args.replay   # the cards are turned up on the dashboard; a new game is not dealt
    recorder = None
    if args.record:
        from companion.table.record import Recorder
        try:
            recorder = Recorder(args.record, setup=Recorder.setup_doc(game))
            if args.profile:
                import shutil
                shutil.copyfile(args.profile, Path(args.record) / PROFILE_IN_RECORDING)
        except OSError as e:
            if log is not None and not args.resume and game.game_id:
                log.discard_if_empty(game.game_id)
            if source is not None:
                source.close()
            print(f"mycelium-companion: --record {args.record}: cannot write there ({e.strerror})", file=sys.stderr)
            return 2
        session.input_hooks.append(recorder.input)
        game.log_hooks.append(recorder.logged)
    live = LiveTable(session, reader=reader, recorder=recorder)
    session.feedback = live.feedback
    from companion.table.console import ON_THE_DASHBOARD, no_dashboard
    console = ConsoleLog(session, answers=no_dashboard(log is not None) if args.no_web else ON_THE_DASHBOARD,
                         illegal_hint="put it back" if args.no_web else "put it back, or fix it on the dashboard")
    session.bus.subscribe(console)
    if args.replay:
        from companion.table.record import RecordingError, ReplayDiverged, replay
        if history is None:
            print("mycelium-companion: this recording carries no logged events (made before recordings kept them): "
                  "the replay cannot be checked against the original run", file=sys.stderr)
        try:
            n = replay(args.replay, live, items)
        except ReplayDiverged as e:
            print(f"mycelium-companion: {e}", file=sys.stderr)
            return 1
        except RecordingError as e:
            print(f"mycelium-companion: {e}", file=sys.stderr)
            return 2
        print(json.dumps({"inputs": n, "events": len(session.game.events), "result": session.position.result}))
        return 0
    session.set_status("camera", "starting", f"waiting for the first frame from {source.name}")
    srv = _web(session, args, pin)
    if srv is None:
        console.answers, console.illegal_hint = no_dashboard(log is not None, no_web=args.no_web), "put it back"
    else:
        print(f"(PIN {pin_note})")
        from web.setup import attach_table_feed
        attach_table_feed(srv.app, live)   # the camera setup page (/setup) shows this camera live
    bag = _bag_reader(args, live)
    moves_before = len(session.game.events)
    with _sigterm_stops():
        status = live.run(source, bag)
    if recorder is not None:
        recorder.close()
    if srv is not None:
        srv.shutdown()
    # a new game stopped before its first move is not kept: 'run --resume' would only find it "at move 0"
    dropped = (log is not None and moves_before == 0 and not session.game.events
               and log.discard_if_empty(session.game.game_id))
    print(stop_report(live, bag, moves_before, path if log is not None else None, args.record, dropped=dropped),
          file=sys.stderr)
    return status


class StopRequested(KeyboardInterrupt):
    """A stop asked for from outside (SIGTERM: ``systemctl stop``, a shutdown): the table
    stops as after Ctrl-C, saying what was kept."""


class _sigterm_stops:
    """While entered (in the main thread), SIGTERM stops the live loop like Ctrl-C."""

    def __enter__(self):
        import signal
        import threading

        def stop(signum, frame):
            raise StopRequested("SIGTERM")
        self._old = signal.signal(signal.SIGTERM, stop) if threading.current_thread() is threading.main_thread() else None
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            import signal
            signal.signal(signal.SIGTERM, self._old)
        return False


def stop_report(live, bag, moves_before: int, db: str | None, record: str | None, dropped: bool = False) -> str:
    """What a stopped ``run`` kept and what its devices gave, in a few lines: the game (its
    moves, where it is logged, how to continue it), the camera's frames, the bag reader
    (never found: the ports it tried), the recording.  ``moves_before``: the game's moves
    when this run started (a resumed game has some); ``db``: the log's path (``None``: not
    logged); ``dropped``: the game had no move and was taken out of the log."""
    s = live.session
    game = s.game
    n = len(game.events)
    new = n - moves_before
    if dropped:
        lines = ["no move was played, so no game was kept"]
    elif db is None:
        lines = [f"{n} move(s) played; not kept (--db :memory:)"]
    else:
        this_run = f"{new} move(s) in this run" if moves_before else (
            "no move was played yet" if n == 0 else f"{n} move(s)")
        lines = [f"game {game.game_id} ({this_run}) is kept in {db}"]
        if s.position.result is not None:
            lines.append(f"that game is over: {s.position.result['reason']}")
        else:
            # --resume alone takes the newest unfinished table game: any other game is named
            pick = "" if getattr(game, "kind", "table") == "table" else f" --game {game.game_id}"
            lines.append(f"continue it with 'mycelium-companion run --resume{pick}' (and the same options)")
    st = live.stats
    if st["frames"] == 0:
        lines.append("the camera gave no frame")
    else:
        refused = f", {st['read_errors']} refused by the board reader" if st["read_errors"] else ""
        lines.append(f"the camera gave {st['frames']} frame(s): {st['reads']} still frame(s) read{refused}, "
                     f"{st['moves_read']} move(s) seen")
    if bag is not None:
        if st["reader_connects"] == 0:
            lines.append(f"the bag reader never answered: {bag.search_report()}")
        else:
            lines.append(f"the bag reader gave {st['reader_events']} tag read(s) and button press(es)")
    if record:
        lines.append(f"the recording is in {record} (replay it with 'mycelium-companion run --replay {record}')")
    kept = ":" if dropped else "; kept:"
    head = f"Stopped ({live.interrupted}){kept}" if live.interrupted else ("Done:" if dropped else "Kept:")
    return head + "\n  " + "\n  ".join(lines)


def _check_history(initial, config, history, folder) -> None:
    """Play a recording's ``history`` on a scratch game; RecordingError if it does not fit."""
    from companion.game import Game
    from companion.position import PositionError
    from companion.rules import IllegalMove
    from companion.table.record import RecordingError
    scratch = Game(initial, config)
    for i, (kind, payload) in enumerate(history):
        try:
            scratch.redo(kind, payload)
        except (IllegalMove, PositionError, KeyError, TypeError, ValueError) as e:
            raise RecordingError(f"{folder}/setup.json: field history[{i}]: {getattr(e, 'message', e)}") from None


def _check_run_args(args: argparse.Namespace) -> str | None:
    """Everything that can be checked before a device or the log is touched; a sentence, or
    ``None`` when the arguments hang together."""
    import os
    if args.game and not args.resume:
        return "--game names the game to continue: use it with --resume"
    if args.or_new and not args.resume:
        return "--or-new says what --resume does when there is no game to continue: use it with --resume"
    if args.salvage and not args.resume:
        return "--salvage recovers a damaged log to resume from: use it with --resume"
    if args.pin is not None and args.new_pin:
        return "--pin sets the PIN and --new-pin draws a new one: give one of them"
    if args.pin is not None and not (args.pin.isdigit() and 6 <= len(args.pin) <= 8):
        return f"--pin {args.pin}: the PIN must be 6 to 8 digits"
    if args.resume and not args.or_new and (args.db in (None, ":memory:") or not os.path.isfile(args.db)):
        if args.db == ":memory:":
            return "--resume needs a game log; ':memory:' keeps none"
        from companion.commands import default_db
        path = args.db or default_db()
        if not os.path.isfile(path):
            from companion.eventlog import no_log_at
            return f"--resume: {no_log_at(path)}"
    if args.colors and args.players is not None and len(args.colors.split(",")) != args.players:
        return f"--players {args.players} but --colors names {len(args.colors.split(','))} colours"
    if args.rfid == "none" and args.no_web and not args.replay:
        return ("--rfid none --no-web: without a bag reader each draw (and each card turned up) is entered on the "
                "dashboard, so with no dashboard no draw could be entered; leave out --no-web, or give the reader "
                "with --rfid PORT or --rfid auto")
    if args.replay and args.camera != "picamera2":
        return "--replay plays the recorded frames; leave out --camera"
    if not args.replay and (Path(args.camera) / "index.jsonl").is_file():
        return (f"--camera {args.camera} is a recording made with --record: replay it with "
                f"'mycelium-companion run --replay {args.camera}' (it carries the game's setup and the reader's draws, "
                "which a folder of frames lacks)")
    if not args.replay and args.rfid not in ("none", "auto"):
        from firmware_bridge.discovery import check_port
        from firmware_bridge.errors import PortError
        try:
            check_port(args.rfid)
        except PortError as e:
            return (f"--rfid: {e} (--rfid none plays without the reader: each draw is then entered on the "
                    "dashboard with 'Drew a tile')")
    if not args.replay and not args.no_web:
        problem = port_busy(args.host, args.port)
        if problem:
            return problem
    if args.record:
        return check_record_folder(args.record)
    return None


def check_record_folder(folder: str) -> str | None:
    """A sentence when ``--record FOLDER`` cannot take a new recording (a file, a folder that
    already holds one, a place that cannot be written), else ``None``; creates the folder."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        return f"--record {folder}: this is a file; give a folder for the recording (it is created if missing)"
    if (path / "index.jsonl").exists():
        return (f"--record {folder}: this folder already holds a recording; give a new folder "
                "(replay this one with 'mycelium-companion run --replay')")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"--record {folder}: cannot create this folder ({e.strerror})"
    import os
    if not os.access(path, os.W_OK):
        return f"--record {folder}: this folder cannot be written"
    return None


def _nothing_to_resume(args: argparse.Namespace) -> str | None:
    """Why ``--resume --or-new`` starts a new game (no log yet, no game in it, the game is
    over), or ``None`` when there is a game to continue.  Reads the log, writes nothing."""
    import os

    from companion.commands import default_db
    from companion.eventlog import EventLog, EventLogError
    from companion.game import Game
    path = args.db or default_db()
    if path == ":memory:" or not os.path.isfile(path):
        return f"no game log at {path} yet"
    try:
        log = EventLog(path, readonly=True)
        if args.game is None:
            # --resume takes the newest unfinished table game (asking when there are several)
            return None if log.unfinished("table") else f"{path} holds no unfinished table game"
        game = Game.resume(log, args.game)
    except EventLogError as e:
        return str(e)
    if game.position.result is not None:
        return f"game {game.game_id} is over"
    return None


def port_busy(host: str, port: int, no_web: bool = True) -> str | None:
    """A sentence when the dashboard could not listen on ``host``:``port``, else ``None``;
    ``no_web``: the command has ``--no-web`` to offer as the other way out."""
    import errno
    import socket
    other = ", or --no-web" if no_web else ""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as e:
        why = e.strerror or str(e)
        # the host is at fault (no such name, not an address of this computer): another port
        # would fail the same way
        pick = f"pick another --host (127.0.0.1: this computer only; 0.0.0.0: the table's Wi-Fi){other}"
        if isinstance(e, socket.gaierror):
            fault = ("no such host name" if e.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None))
                     else f"the host name cannot be looked up ({why})")
            return f"--host {host}: {fault}, so the dashboard cannot listen there; {pick}"
        if e.errno == errno.EADDRNOTAVAIL:
            return (f"the dashboard cannot listen on --host {host}: it is not an address of this computer ({why}); "
                    + pick)
        if e.errno in (errno.EADDRINUSE, errno.EACCES):
            return f"the dashboard cannot listen on {host}:{port} ({why}); pick another --port{other}"
        return f"the dashboard cannot listen on {host}:{port} ({why}); check --host and --port{other}"
    return None


def _board_reader(args: argparse.Namespace):
    from companion.vision.reader import BoardReader
    kw = {}
    try:
        if args.intrinsics:
            from calibration.intrinsics import load_intrinsics
            kw["intrinsics"] = load_intrinsics(args.intrinsics)
        profile = args.profile
        if profile is None and getattr(args, "replay", None) and (Path(args.replay) / PROFILE_IN_RECORDING).is_file():
            profile = str(Path(args.replay) / PROFILE_IN_RECORDING)  # the profile the recording was read with
        if profile:
            from companion.vision.profile import load_profile
            kw["profile"] = load_profile(profile)
    except (OSError, ValueError) as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        return None
    return BoardReader(**kw)


def _camera(args: argparse.Namespace):
    from companion.table.sources import SourceError, open_camera
    settings = getattr(args, "camera_settings", None)
    if settings is None and args.profile:
        from companion.table.camera_controls import settings_beside
        settings = settings_beside(args.profile)
    if (settings is not None and (args.camera == "picamera2" or args.camera.isdigit())
            and not Path(settings).is_file()):
        print(f"No locked camera controls in {settings} (the profile was made from photos): the camera's controls "
              "settle now and are kept there; 'calibrate pieces --camera ...' measures the profile under them")
    try:
        source = open_camera(args.camera, settings_path=settings)
    except SourceError as e:
        print(f"mycelium-companion: {e}", file=sys.stderr)
        return None
    locked = getattr(source, "settings", None) or getattr(source, "locked", None)
    if locked is not None:
        print(locked.describe())
    return source


def _bag_reader(args: argparse.Namespace, live):
    if args.rfid == "none":
        return None
    from firmware_bridge.cli import default_registry
    from firmware_bridge.drivers import make_driver
    from firmware_bridge.events import as_dict
    from firmware_bridge.reader import BagReader
    from firmware_bridge.registry import TagRegistry
    from firmware_bridge.cursor import Cursor
    from firmware_bridge.discovery import Discovery, default_memory_path
    from companion.tilebag import resume_cursor
    registry = TagRegistry(args.registry or default_registry())
    port = Discovery(memory=default_memory_path(), option="--rfid") if args.rfid == "auto" else args.rfid
    driver = make_driver(args.driver)
    at = resume_cursor(live.session.game.events)  # the game log says how far the reader got
    if at is not None and hasattr(driver, "resume"):
        try:
            driver.resume(Cursor.from_json(at))
        except ValueError as e:
            print(f"mycelium-companion: the game log's reader position is unreadable ({e}); "
                  "events the board still holds are skipped", file=sys.stderr)
    return BagReader(driver, port, lambda e: live.on_reader_event(as_dict(e)), registry.lookup).start()


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=["competitive", "cooperative", "team"], default="competitive")
    p.add_argument("--players", type=int, choices=[2, 3, 4], default=None, help="players (default 2; team mode: 4)")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="easy")
    p.add_argument("--db", default=None, help="game log (SQLite; default under ~/.local/share; ':memory:' for none)")
    p.add_argument("--record", metavar="DIR", default=None, help="save frames, reader events and inputs for replay")
    p.add_argument("--no-web", action="store_true", help="do not start the dashboard")
    p.add_argument("--host", default="127.0.0.1", help="dashboard address (0.0.0.0 to let tablets join)")
    from web.server import port_number
    p.add_argument("--port", type=port_number, default=8080, help="dashboard port (default 8080)")


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``demo`` and ``run`` to the top-level parser."""
    p = sub.add_parser("demo", help="a whole game on the simulated table (camera frames + pty reader)")
    _common(p)
    p.add_argument("--fast", action="store_true",
                   help="no pauses and no dashboard (refused with --host, --port or --pace); end with one JSON "
                        "summary line")
    p.set_defaults(host=None, port=None)   # given or not: --fast refuses them (cmd_demo fills the defaults in)
    p.add_argument("--seed", type=at_least(0), default=DEMO_SEED,
                   help=f"the simulated game (default {DEMO_SEED}: it ends with a player reaching 10 VP)")
    p.add_argument("--pace", type=at_least(0, float), default=None,
                   help=f"seconds between moves (default {DEMO_PACE}; not with --fast)")
    p.add_argument("--illegal-every", type=at_least(0), default=12,
                   help="about one deliberate illegal placement per this many placements (0: none)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("run", help="the real table: camera + tile-bag reader + rules + dashboard")
    _common(p)
    p.add_argument("--camera", default="picamera2", help="picamera2, a webcam index (0), a video file, a folder or a URL")
    p.add_argument("--rfid", default="auto", help="serial port of the bag reader, 'auto' (USB id) or 'none' (each draw is entered on the dashboard)")
    p.add_argument("--driver", choices=["companion", "rdm6300", "pn532"], default="companion")
    p.add_argument("--registry", default=None, help="tag registry file (default: the one 'rfid enroll' writes)")
    p.add_argument("--colors", default=None, help="player colours in turn order, e.g. blue,orange,red")
    p.add_argument("--resume", action="store_true",
                   help="continue the newest unfinished table game of the log that has a move, listing the others "
                        "(--game ID picks one; see 'games')")
    p.add_argument("--game", default=None, help="with --resume: the game id to continue (see 'games')")
    p.add_argument("--or-new", action="store_true",
                   help="with --resume: start a new game when the log has none to continue (the boot service)")
    p.add_argument("--salvage", action="store_true",
                   help="with --resume, if the log is damaged: keep a copy, rebuild it up to the last good event, go on")
    p.add_argument("--pin", default=None, help="set the table PIN (6 to 8 digits; kept beside the log for restarts)")
    p.add_argument("--new-pin", action="store_true", help="draw a new table PIN instead of the one kept beside the log")
    p.add_argument("--replay", metavar="DIR", default=None, help="replay a recording through the same code")
    p.add_argument("--intrinsics", default=None, help="camera intrinsics JSON from 'calibrate camera'")
    p.add_argument("--profile", default=None, help="colour profile JSON from 'calibrate pieces'")
    p.add_argument("--camera-settings", default=None,
                   help="locked exposure/gain/white balance/focus (default: camera-settings.json beside --profile, "
                        "written by 'calibrate pieces --camera'; settled and written on the first start when missing)")
    p.set_defaults(func=cmd_run)
