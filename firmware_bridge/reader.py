"""The bridge loop: owns the serial port, feeds a driver, turns readings into events.

:class:`BagReader` opens the port (``exclusive`` access), writes what the driver asks,
decodes what arrives, and reconnects with backoff after an unplug, a ``SerialException`` or
an ``OSError`` (EIO), looking the port up afresh each time because a replugged reader may
come back on another device path.  Events go to one callable ``sink`` (for example
``queue.Queue.put_nowait``); there is no module-level state.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

import serial

from firmware_bridge import events as E
from firmware_bridge.drivers.base import ButtonSeen, Driver, Ready, TagSeen
from firmware_bridge.errors import FrameError
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
        self.connected = threading.Event()
        """Set while the reader is connected and has identified itself."""

    # -- control -------------------------------------------------------------------------
    def start(self) -> "BagReader":
        """Run the loop in a daemon thread; returns self."""
        self._thread = threading.Thread(target=self.run, name=f"bag-reader-{self.driver.name}", daemon=True)
        self._thread.start()
        return self

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

    # -- loop ----------------------------------------------------------------------------
    def _resolve(self) -> str | None:
        return self._port() if callable(self._port) else self._port

    def _emit(self, ev: E.Event) -> None:
        self._sink(ev)

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
                    ser = serial.Serial(path, self.driver.baudrate, timeout=READ_TIMEOUT, exclusive=True)
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
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
                continue
            backoff = BACKOFF_MIN
            waiting_since = None
            first = False
            reason = self._session(ser, path)
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass
            if self.connected.is_set() or reason != "stopped":
                self.connected.clear()
                self._emit(E.ReaderDisconnected(path, reason, self._wall()))
            if reason != "stopped":
                self._stop.wait(BACKOFF_MIN)

    def _session(self, ser: serial.Serial, path: str) -> str:
        """Talk to one open port; return why it ended."""
        now = self._clock()
        last_rx = now
        try:
            ser.write(self.driver.on_open(now))
            if not self.driver.needs_handshake:
                self._connected(path, {})
            while not self._stop.is_set():
                data = ser.read(max(1, ser.in_waiting))
                now = self._clock()
                if data:
                    last_rx = now
                    for r in self.driver.feed(data, now):
                        self._handle(r, path, now)
                elif self.driver.silence_timeout and now - last_rx > self.driver.silence_timeout:
                    return "silent"
                out = self.driver.poll(now)
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
            self.connected.set()
            self._emit(E.ReaderConnected(path, self.driver.name, self._wall(), dict(info)))

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
            self._emit(E.TileDrawn(r.uid, tile, wall) if tile else E.UnknownTag(r.uid, wall))
        elif isinstance(r, ButtonSeen):
            self._emit(E.Button(r.kind, self._wall()))
        elif isinstance(r, Ready):
            self._connected(path, r.info)
        elif isinstance(r, FrameError):
            self._emit(E.FrameErrorEvent(r.kind, str(r), self._wall()))
