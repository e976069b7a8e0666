"""``mycelium-companion rfid ...``: listen to the tile-bag reader, enroll tags.

``rfid listen`` prints one JSON object a line (``event``, and ``uid``/``tile`` for tags).
``rfid enroll`` walks the owner through scanning every tile once.  Exit codes follow
:mod:`companion.cli`: 0 success, 2 bad arguments or input files (a port that does not
exist or is not a terminal, an unwritable registry, a bad ``--expect``), 1 runtime failure
(``listen`` ended with no reader ever answering: it says where it looked).  ``--port auto``
searches the USB serial ports as ``run --rfid auto`` does.
While the reader is missing, a "waiting for the reader on ..." line goes to stderr every
few seconds; ``listen`` keeps its stdout strictly to JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import time
from collections.abc import Callable
from pathlib import Path

from firmware_bridge import discovery
from firmware_bridge import events as E
from firmware_bridge.cursor import Cursor, CursorFile, default_state_path
from firmware_bridge.drivers import DRIVERS, make_driver
from firmware_bridge.enroll import DEFAULT_TILES, Enrollment, expected_from_tiles_json, parse_expect
from firmware_bridge.errors import BridgeError
from firmware_bridge.reader import BagReader
from firmware_bridge.registry import TagRegistry


def default_registry() -> Path:
    """``$XDG_CONFIG_HOME/mycelium-companion/tags.json`` (``~/.config/...`` by default)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mycelium-companion" / "tags.json"


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the ``rfid`` command group to the top-level parser."""
    p = sub.add_parser("rfid", help="tile-bag reader: listen, enroll tags")
    p.set_defaults(func=lambda args: p.print_help() or 2)
    rs = p.add_subparsers(dest="rfid_command", metavar="ACTION")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument(
            "--port",
            help="device path, usb:VID:PID, or 'auto' (every USB serial port with a reader's id, as 'run --rfid auto'); "
            f"default: auto (companion) or {discovery.DEFAULT_UART} (rdm6300, pn532)",
        )
        q.add_argument("--driver", choices=sorted(DRIVERS), default="companion", help="reader type (default companion)")
        q.add_argument("--registry", type=Path, default=None, help=f"tag registry JSON (default {default_registry()})")

    ls = rs.add_parser("listen", help="print reader events as JSON lines")
    common(ls)
    ls.add_argument("--seconds", type=float, default=None, help="stop after this many seconds (default: until Ctrl-C)")
    ls.add_argument("--state", type=Path, default=None,
                    help=f"where the last printed event's position is kept, so a restart prints only newer "
                    f"events (default {default_state_path()})")
    ls.set_defaults(func=cmd_listen)

    en = rs.add_parser("enroll", help="scan every tile once to pair tags with tile types")
    common(en)
    en.add_argument("--expect", help="tile counts as CODE=N,CODE=N,... (default: the edition's tiles.json)")
    en.add_argument("--tiles", type=Path, default=DEFAULT_TILES, help="edition tiles.json to take counts from")
    en.add_argument("--seconds", type=float, default=None, help="give up after this many seconds")
    en.set_defaults(func=cmd_enroll)


PREFIX = "mycelium-companion rfid: "
"""Every error and warning line starts so, as the other commands' do."""


def _port(args: argparse.Namespace) -> tuple[str | Callable[[], str | None], str]:
    """The port (a path, or a lookup callable) and how to name it to the owner.

    Raises :class:`BridgeError` for a malformed ``usb:VID:PID`` or a path that does not
    exist or is not a terminal (:func:`discovery.check_port`).
    """
    spec = args.port
    if spec == "auto" or (not spec and args.driver == "companion"):
        # as 'run --rfid auto': every USB serial port with a reader's id, the one that
        # answered last time first, each passed over once it gives no valid frame
        return discovery.Discovery(memory=discovery.default_memory_path()), discovery.describe_ids()
    if spec and spec.startswith("usb:"):
        try:
            ids = [discovery.parse_usb_id(spec[4:])]
        except ValueError as e:
            raise BridgeError(str(e)) from None
        return (lambda: discovery.find_port(ids)), discovery.describe_ids(ids)
    path = spec or discovery.DEFAULT_UART
    discovery.check_port(path)
    return path, path


def _registry(args: argparse.Namespace, *, writable: bool = False) -> TagRegistry:
    reg = TagRegistry(args.registry or default_registry())
    if writable:
        reg.check_writable()
    return reg


def _notice(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _events(args: argparse.Namespace, registry: TagRegistry,
            resume: Cursor | None = None) -> tuple[BagReader, "queue.Queue[E.Event]", str]:
    """Start a reader on the chosen port; returns it, its event queue and the port's name.
    ``resume``: the last event delivered before (companion driver)."""
    q: "queue.Queue[E.Event]" = queue.Queue()
    port, label = _port(args)
    driver = make_driver(args.driver)
    if resume is not None and hasattr(driver, "resume"):
        driver.resume(resume)
    reader = BagReader(driver, port, q.put_nowait, registry.lookup, on_waiting=_notice, port_label=label)
    return reader.start(), q, label


def cmd_listen(args: argparse.Namespace) -> int:
    """Print every event as one JSON line until Ctrl-C or ``--seconds``.

    Exits 1 when no reader answered in that time, saying where it was looked for (the ports
    tried, or the serial ports there are); 0 after a reader answered.

    After printing an event that carries the board's event position, the position is saved
    in the state file, so a restarted ``listen`` asks the board only for newer events.  A
    ``kill -9`` between the print and the save (well under a millisecond) prints that one
    event again on restart; nothing is lost.
    """
    state = CursorFile(args.state or default_state_path())
    try:
        resume = state.load()
    except ValueError as e:
        print(f"{PREFIX}warning: {e}; starting without it (events the board still holds are skipped)", file=sys.stderr)
        resume = None
    started = time.monotonic()  # the wait a user sees includes opening and searching the ports
    try:
        registry = _registry(args)
        reader, q, _ = _events(args, registry, resume)
    except BridgeError as e:
        print(f"{PREFIX}{e}", file=sys.stderr)
        return 2
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    save_failed = False
    answered = False
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                ev = q.get(timeout=0.1)
            except queue.Empty:
                continue
            answered = answered or isinstance(ev, E.ReaderConnected)
            print(json.dumps(E.as_dict(ev)), flush=True)
            at = getattr(ev, "reader", None)
            if at:
                try:
                    state.save(Cursor.from_json(at))
                    save_failed = False
                except OSError as e:
                    if not save_failed:  # say it once per failure streak, keep listening
                        print(f"{PREFIX}warning: cannot save the reader position to {state.path}: {e.strerror or e}; "
                              "a restart may print recent events again", file=sys.stderr, flush=True)
                    save_failed = True
    except KeyboardInterrupt:
        pass   # the usual way to stop listening
    finally:
        reader.stop()
    if not answered:
        answered = reader.connected.is_set()   # a reader that answered just before the end
    if not answered:
        print(f"{PREFIX}no reader answered in {time.monotonic() - started:.1f} s: {reader.search_report()}",
              file=sys.stderr)
        return 1
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    """Interactive enrollment; progress and refusals go to stdout, a scan that could not be
    saved to stderr (the tile is asked for again)."""
    try:
        if args.expect is not None:
            expected = parse_expect(args.expect)
        elif args.tiles.exists():
            expected = expected_from_tiles_json(args.tiles)
        else:
            print(
                f"{PREFIX}no edition tile list at {args.tiles}; pass --expect CODE=N,... "
                "(e.g. --expect P03=4,ROCK=3) or --tiles FILE",
                file=sys.stderr,
            )
            return 2
        registry = _registry(args, writable=True)
        enrollment = Enrollment(expected, registry)
        reader, q, label = _events(args, registry)
    except BridgeError as e:
        print(f"{PREFIX}{e}", file=sys.stderr)
        return 2
    print(f"Registry: {registry.path}  ({enrollment.done} of {enrollment.total} tiles have a tag)")
    print(f"Still without a tag: {enrollment.missing_text()}")
    if enrollment.next_type() is not None:
        print(f"Waiting for the reader on {label} ...", flush=True)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    prompted = False
    try:
        while enrollment.next_type() is not None:
            if deadline is not None and time.monotonic() > deadline:
                break
            try:
                ev = q.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(ev, (E.TileDrawn, E.UnknownTag)):
                out = enrollment.offer(ev.uid)
                if out.error:
                    print(f"{PREFIX}{out.message}", file=sys.stderr, flush=True)
                else:
                    print(out.message if out.accepted else f"refused: {out.message}")
                print(enrollment.prompt(), flush=True)
            elif isinstance(ev, E.ReaderDisconnected):
                print(f"reader disconnected ({ev.reason}); waiting for it to come back", flush=True)
            elif isinstance(ev, E.ReaderConnected):
                print(f"reader connected on {ev.port}", flush=True)
                if not prompted:
                    prompted = True
                    print(enrollment.prompt(), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        reader.stop()
    if enrollment.next_type() is None:
        print(f"Done: all {enrollment.total} tiles have a tag.")
        return 0
    print(f"Stopped at {enrollment.done} of {enrollment.total}; still without a tag: {enrollment.missing_text()}")
    return 1
