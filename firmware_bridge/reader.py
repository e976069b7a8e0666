"""The bridge loop: owns the serial port, feeds a driver, turns readings into events.

:class:`BagReader` opens the port (``exclusive`` access), writes what the driver asks,
decodes what arrives, and reconnects with backoff after an unplug, a ``SerialException`` or
an ``OSError`` (EIO), looking the port up afresh each time because a replugged reader may
come back on another device path.  Events go to one callable ``sink`` (for example
``queue.Queue.put_nowait``); there is no module-level state.

What it guards against (issue 11): the port is opened without a DTR pulse where the OS
allows (:mod:`firmware_bridge.port`); any exception in the loop ends the connection with a
``reader_disconnected`` naming it, and the loop reconnects; writes time out, so
:meth:`BagReader.stop` always returns; line noise is counted, not streamed (one
``frame_error`` per kind and second); a port that sends no well-formed frame for a few
seconds is the wrong device, and a port callable with a ``failed`` method (a
:class:`firmware_bridge.discovery.Discovery`) is told so and offers the next candidate.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable

import serial

from firmware_bridge import events as E
from firmware_bridge.drivers.base import ButtonSeen, Driver, Notice, Ready, TagSeen
from firmware_bridge.errors import FrameError
from firmware_bridge.port import open_port
from firmware_bridge.protocol import Frame

HOLD_MS = 300
"""A tag seen again less than this many ms after its last sighting is the same draw."""
BACKOFF_MIN = 0.05
BACKOFF_MAX = 0.5
"""Reconnect backoff in seconds: doubles from BACKOFF_MIN up to BACKOFF_MAX."""
READ_TIMEOUT = 0.005
"""Seconds one read waits for the first byte; bounds command latency."""
NOTICE_AFTER = 1.0
"""Seconds without a port, after a disconnect, before the first waiting notice (at
start-up the first notice comes at once)."""
NOTICE_EVERY = 5.0
"""Seconds between waiting notices while the port stays missing."""
NOISE_KINDS = frozenset({"crc", "cobs", "length", "checksum", "framing", "hex"})
"""Frame error kinds that line noise makes in bursts: counted and reported once a second."""
NOISE_WINDOW = 1.0
"""Seconds over which noise errors of one kind are added up into one event."""


class BagReader:
    """One reader, one driver, one sink.

    ``port`` is a device path or a callable returning one (or None while nothing is
    plugged in), e.g. :func:`firmware_bridge.discovery.find_port`.  ``lookup`` maps a UID to
    its tile code or None (usually :meth:`TagRegistry.lookup`).  ``clock`` gives seconds
    (monotonic) and ``wall`` the Unix time stamped on events.

    ``on_waiting``, when given, receives a human-readable line ("waiting for the reader on
    /dev/ttyUSB0 (is it plugged in?) ...") while no port can be opened: at once on
    start-up, :data:`NOTICE_AFTER` seconds after a disconnect, then every
    :data:`NOTICE_EVERY` seconds.  It is not an event: the event stream stays as it was.
    ``port_label`` names the port in those lines (default: the path, or "a known USB
    reader" for a lookup callable).
    """

    def __init__(
        self,
        driver: Driver,
        port: str | Callable[[], str | None],
        sink: E.Sink,
        lookup: Callable[[str], str | None] = lambda uid: None,
        *,
        hold_ms: int = HOLD_MS,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        on_waiting: Callable[[str], None] | None = None,
        port_label: str | None = None,
    ) -> None:
        self.driver = driver
        self._port = port
        self._sink = sink
        self._lookup = lookup
        self._hold = hold_ms / 1000.0
        self._clock = clock
        self._wall = wall
        self._on_waiting = on_waiting
        self._label = port_label or (port if isinstance(port, str) else "a known USB reader")
        self._last_seen: dict[str, float] = {}
        self._outbox: deque[bytes] = deque()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._noise: dict[str, list] = {}  # kind -> [window start, count since, last detail]
        self.connected = threading.Event()
        """Set while the reader is connected and has identified itself."""
        self.status: dict = {"state": "starting", "port": None, "detail": "", "frame_errors": 0,
                             "wrong_version": None, "health": None}
        """What the dashboard shows about the reader; updated by the loop (read-only for
        others): ``state`` (``starting``, ``waiting``, ``connected``, ``disconnected``,
        ``wrong_firmware``), ``port``, ``detail``, ``frame_errors`` (total), the refused
        protocol number, the health line."""

    # -- control -------------------------------------------------------------------------
    def start(self) -> "BagReader":
        """Run the loop in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self._supervise, name=f"bag-reader-{self.driver.name}", daemon=True)
        self._thread.start()
        return self

    def _supervise(self) -> None:
        """:meth:`run`, started again after anything that escapes it (reported first)."""
        while not self._stop.is_set():
            try:
                self.run()
            except Exception as e:  # noqa: BLE001 - a bug must not end the reader silently
                self.connected.clear()
                reason = f"internal error in the reader loop: {type(e).__name__}: {e}"
                self.status.update(state="disconnected", detail=reason)
                print(f"mycelium-companion: reader: {reason}; restarting it\n{traceback.format_exc()}", file=sys.stderr, flush=True)
                self._emit(E.ReaderDisconnected("", reason, self._wall()))
                self._stop.wait(BACKOFF_MAX)

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the loop to end and wait up to ``timeout`` seconds for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def send(self, frame: Frame) -> None:
        """Queue a host command (companion driver: SET_LED, BEEP); written on the next turn
        of the loop, or after reconnecting.  Thread-safe."""
        encode = getattr(self.driver, "command", None)
        if encode is None:
            raise FrameError("unsupported", f"the {self.driver.name} reader takes no commands")
        self._outbox.append(encode(frame))

    def search_report(self) -> str:
        """Where the reader was looked for and why nothing answered, for a reader that never
        connected: a :class:`~firmware_bridge.discovery.Discovery` lookup lists the ports it
        tried (or the ports there are); a path says the last error on it."""
        report = getattr(self._port, "report", None)
        where = report() if callable(report) else f"on {self._label}"
        detail = self.status.get("detail") or ""
        if detail and detail not in where and detail != "no reader port found":
            where += f"; last: {detail}"
        return where

    # -- loop ----------------------------------------------------------------------------
    def _resolve(self) -> str | None:
        return self._port() if callable(self._port) else self._port

    def _emit(self, ev: E.Event) -> None:
        try:
            self._sink(ev)
        except Exception:  # noqa: BLE001 - the consumer's failure must not stop the reader
            print(f"mycelium-companion: reader: the consumer of its events failed on {ev.event}:\n{traceback.format_exc()}",
                  file=sys.stderr, flush=True)

    def _waiting(self, path: str | None, error: str | None, waited: float) -> None:
        if self._on_waiting is None:
            return
        where = path if path and path != self._label else self._label
        line = f"waiting for the reader on {where} (is it plugged in?)"
        if waited >= 1.0:
            line += f"; {waited:.0f} s so far"
        if error:
            line += f"; last error: {error}"
        self._on_waiting(line)

    def run(self) -> None:
        """Connect, read, reconnect, until :meth:`stop`."""
        backoff = BACKOFF_MIN
        waiting_since: float | None = None
        next_notice = 0.0
        first = True
        while not self._stop.is_set():
            path = self._resolve()
            ser = None
            error = None
            if path:
                try:
                    ser = open_port(path, self.driver.baudrate, timeout=READ_TIMEOUT)
                except (serial.SerialException, OSError, ValueError) as e:
                    ser, error = None, str(e)
            if ser is None:
                now = self._clock()
                if waiting_since is None:
                    waiting_since = now
                    next_notice = now + (0.0 if first else NOTICE_AFTER)
                if now >= next_notice:
                    next_notice = now + NOTICE_EVERY
                    self._waiting(path, error, now - waiting_since)
                if self.status["state"] != "wrong_firmware":
                    self.status.update(state="waiting", port=path, detail=error or "no reader port found")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
                continue
            backoff = BACKOFF_MIN
            waiting_since = None
            first = False
            try:
                reason = self._session(ser, path)
            except Exception as e:  # noqa: BLE001 - a bug must not kill the thread silently
                reason = f"internal error in the reader loop: {type(e).__name__}: {e}"
            try:
                ser.close()
            except Exception:  # noqa: BLE001 - closing a dead port may fail any way
                pass
            self._flush_noise(force=True)
            wrong_device = reason.startswith("no answer") or reason.startswith("no valid frame")
            failed = getattr(self._port, "failed", None)
            if wrong_device and failed is not None:
                failed(path, reason)
            if self.connected.is_set() or reason != "stopped":
                self.connected.clear()
                if self.status["state"] != "wrong_firmware":
                    self.status.update(state="disconnected", detail=reason)
                self._emit(E.ReaderDisconnected(path, reason, self._wall()))
            if reason != "stopped":
                self._stop.wait(BACKOFF_MIN)

    def _session(self, ser: serial.Serial, path: str) -> str:
        """Talk to one open port; return why it ended."""
        now = self._clock()
        opened = last_valid = now
        valid = valid_at_open = self.driver.valid_frames
        d = self.driver
        try:
            ser.write(d.on_open(now))
            if not d.needs_handshake:
                self._connected(path, {})
            while not self._stop.is_set():
                data = ser.read(max(1, ser.in_waiting))
                now = self._clock()
                if data:
                    for r in d.feed(data, now):
                        self._handle(r, path, now)
                if d.valid_frames != valid:
                    valid, last_valid = d.valid_frames, now
                self._flush_noise(now)
                if d.needs_handshake and d.handshake_timeout and not self.connected.is_set() \
                        and now - opened > d.handshake_timeout and getattr(d, "wrong_version", None) is None:
                    what = "no valid frame" if valid == valid_at_open else "no answer to the handshake"
                    return (f"no answer from {path} in {d.handshake_timeout:g} s ({what}): "
                            "not the reader, or a wrong baud rate; trying the next port")
                if d.silence_timeout and now - last_valid > d.silence_timeout:
                    return (f"no valid frame for {d.silence_timeout:g} s" + (" (only junk)" if data or
                            self._noise else ""))
                out = d.poll(now)
                if self.connected.is_set():
                    while self._outbox:
                        out += self._outbox.popleft()
                if out:
                    ser.write(out)
            return "stopped"
        except (serial.SerialException, OSError) as e:
            return f"io error: {e}"

    def _connected(self, path: str, info: dict) -> None:
        if not self.connected.is_set():
            self.status.update(state="connected", port=path, detail="", wrong_version=None,
                               health=info.get("health"))
            good = getattr(self._port, "good", None)
            if good is not None:
                good(path)
            self._emit(E.ReaderConnected(path, self.driver.name, self._wall(), dict(info)))
            self.connected.set()  # after the event: whoever waits for it finds the event there

    def _flush_noise(self, now: float | None = None, force: bool = False) -> None:
        """Report the noise counted in each finished window (or all, when ``force``)."""
        for kind, (start, count, detail) in list(self._noise.items()):
            if force or now is None or now - start >= NOISE_WINDOW:
                del self._noise[kind]
                if count:
                    self._emit(E.FrameErrorEvent(kind, f"{count} more like: {detail}", self._wall(), count))

    def _frame_error(self, err: FrameError, now: float) -> None:
        self.status["frame_errors"] += 1
        if err.kind == "version":
            self.status.update(state="wrong_firmware", detail=str(err),
                               wrong_version=getattr(self.driver, "wrong_version", None))
        if err.kind not in NOISE_KINDS:
            self._emit(E.FrameErrorEvent(err.kind, str(err), self._wall()))
            return
        slot = self._noise.get(err.kind)
        if slot is None:  # the first of a burst goes out at once
            self._noise[err.kind] = [now, 0, str(err)]
            self._emit(E.FrameErrorEvent(err.kind, str(err), self._wall()))
        else:
            slot[1] += 1
            slot[2] = str(err)

    def _handle(self, r: object, path: str, now: float) -> None:
        if isinstance(r, TagSeen):
            if self.driver.repeats_while_present:
                last = self._last_seen.get(r.uid)
                self._last_seen[r.uid] = now
                if len(self._last_seen) > 1024:  # forget tags long gone; bounded memory
                    self._last_seen = {u: t for u, t in self._last_seen.items() if now - t < self._hold}
                if last is not None and now - last < self._hold:
                    return
            tile = self._lookup(r.uid)
            wall = self._wall()
            at = r.at.to_json() if r.at else None
            self._emit(E.TileDrawn(r.uid, tile, wall, at) if tile else E.UnknownTag(r.uid, wall, reader=at))
        elif isinstance(r, ButtonSeen):
            self._emit(E.Button(r.kind, self._wall(), r.at.to_json() if r.at else None))
        elif isinstance(r, Ready):
            self._connected(path, r.info)
        elif isinstance(r, Notice):
            if r.kind == "health":
                self.status["health"] = r.detail
            self._emit(E.ReaderNotice(r.kind, r.detail, self._wall()))
        elif isinstance(r, FrameError):
            self._frame_error(r, now)
