"""Finding the reader's serial port: an explicit path, or a USB device by VID:PID.

:class:`Discovery` is the lookup the bridge uses when no port is given (PROTOCOL.md
section 10): every attached port whose VID:PID is known is a candidate; the one whose USB
serial number answered last time comes first; a candidate that gave no valid frame within
the handshake time (a silent adapter, another device, a wrong baud rate) is passed over
for :data:`ROTATE_AFTER_FAIL` seconds, so the next one is tried.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from serial.tools import list_ports

from firmware_bridge.errors import PortError

KNOWN_USB_IDS: tuple[tuple[int, int], ...] = (
    (0x1A86, 0x7523),  # CH340: most Nano clones
    (0x1A86, 0x55D4),  # CH9102: newer Nano clones
    (0x0403, 0x6001),  # FTDI FT232R: original Nano
    (0x2341, 0x0043),  # Arduino Uno R3 (ATmega16U2)
    (0x10C4, 0xEA60),  # CP2102: USB-UART adapters (PN532 / RDM6300 on USB)
)
"""USB VID:PID pairs tried in order when no port is given."""

DEFAULT_UART = "/dev/serial0"
"""The Raspberry Pi's GPIO UART, where a bare RDM6300 or PN532 is usually wired."""


def parse_usb_id(text: str) -> tuple[int, int]:
    """``"1a86:7523"`` -> ``(0x1A86, 0x7523)``; raises :class:`ValueError` otherwise."""
    vid, sep, pid = text.partition(":")
    try:
        if not sep:
            raise ValueError
        ids = int(vid, 16), int(pid, 16)
    except ValueError:
        raise ValueError(f"USB id {text!r} must be VID:PID in hex, e.g. 1a86:7523") from None
    if not all(0 <= i <= 0xFFFF for i in ids):
        raise ValueError(f"USB id {text!r}: VID and PID are 4 hex digits each, e.g. 1a86:7523")
    return ids


def describe_ids(ids: Iterable[tuple[int, int]] = KNOWN_USB_IDS) -> str:
    """``"any USB serial port with id 1a86:7523 or 0403:6001"``: how to name a lookup by
    VID:PID to the owner."""
    names = [f"{v:04x}:{p:04x}" for v, p in ids]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"any USB serial port with id {listed}"


def check_port(path: str) -> None:
    """Make sure ``path`` names a terminal device that could be the reader's port.

    Opens it briefly (a Nano resets on open; the driver's handshake copes with that).
    Raises :class:`PortError` saying why when nothing exists at ``path``, when it is not a
    terminal (a regular file, a folder, ``/dev/null``) or when the user may not open it.
    A port that is busy (held by another program) passes: the reader loop waits for it.
    """
    hint = " (the Raspberry Pi's UART: enable it with raspi-config, or pass --port)" if path == DEFAULT_UART else ""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PortError(f"no serial port at {path}: nothing by that name{hint}") from None
    except OSError as e:
        raise PortError(f"cannot use {path} as the reader's port: {e.strerror or e}") from None
    if not stat.S_ISCHR(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "a file" if stat.S_ISREG(st.st_mode) else "not a device"
        raise PortError(f"{path} is not a serial port: it is {what}, not a terminal device")
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except PermissionError:
        raise PortError(
            f"no permission to open {path}; add your user to its group (usually 'dialout') and log in again"
        ) from None
    except OSError as e:
        if e.errno == errno.EBUSY:
            return
        raise PortError(f"cannot open {path}: {e.strerror or e}") from None
    try:
        if not os.isatty(fd):
            raise PortError(f"{path} is not a serial port: it is a device but not a terminal")
    finally:
        os.close(fd)


def find_port(ids: Iterable[tuple[int, int]] = KNOWN_USB_IDS) -> str | None:
    """Device path of the first attached USB serial port whose VID:PID is in ``ids``
    (earlier pairs win), or None.  Looked up afresh on every call, so a reader that came
    back on another path after a replug is found again."""
    ports = list(list_ports.comports())
    for vid, pid in ids:
        for p in sorted(ports, key=lambda p: p.device):
            if p.vid == vid and p.pid == pid:
                return p.device
    return None


ROTATE_AFTER_FAIL = 30.0
"""Seconds a port that failed the handshake is passed over while other candidates exist."""


def default_memory_path() -> Path:
    """``$XDG_STATE_HOME/mycelium-companion/reader-port.json``: the last good reader."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "mycelium-companion" / "reader-port.json"


class Discovery:
    """A port lookup for :class:`firmware_bridge.reader.BagReader` that rotates through
    the candidates.

    ``ids``: known VID:PID pairs, earlier first.  ``memory``: JSON file remembering the
    USB serial number of the last reader that answered (None: remember nothing).
    ``comports``: the port lister (``serial.tools.list_ports.comports``; tests pass their
    own).  ``option``: the command-line option that names a port by hand, for :meth:`report`
    (``--port`` in the bridge, ``--rfid`` in ``run``).  Call it for the path to try next (None when nothing is plugged in); the reader
    calls :meth:`failed` after a port gave no valid frame and :meth:`good` after a HELLO.
    """

    def __init__(self, ids: Iterable[tuple[int, int]] = KNOWN_USB_IDS, memory: Path | None = None,
                 comports: Callable[[], Iterable] | None = None,
                 clock: Callable[[], float] = time.monotonic, option: str = "--port") -> None:
        self.ids = tuple(ids)
        self.option = option
        self.memory = memory
        self._comports = comports or (lambda: list_ports.comports())   # looked up at each call
        self._clock = clock
        self._failed: dict[str, float] = {}
        self._serials: dict[str, str | None] = {}
        self.tried: dict[str, str] = {}
        """Each candidate port that gave no valid frame, with why (the last time), for
        :meth:`report`."""
        self.seen: dict[str, str] = {}
        """Every serial port listed at the last look, path -> its USB id ("1a86:7523") or
        "no USB id", for :meth:`report`."""
        self.remembered = self._load()
        """USB serial number of the last good reader, or None."""

    def _load(self) -> str | None:
        if self.memory is None:
            return None
        try:
            doc = json.loads(self.memory.read_text(encoding="utf-8"))
            sn = doc.get("serial_number") if isinstance(doc, dict) else None
            return sn if isinstance(sn, str) else None
        except (OSError, ValueError):
            return None  # nothing remembered (or unreadable): every candidate is equal

    def candidates(self) -> list[str]:
        """Paths of the attached known ports, best first: the remembered reader, then by
        the order of ``ids``, then by path."""
        rank = {vp: i for i, vp in enumerate(self.ids)}
        listed = list(self._comports())
        self.seen = {p.device: (f"{p.vid:04x}:{p.pid:04x}" if p.vid is not None and p.pid is not None else "no USB id")
                     for p in listed}
        found = [p for p in listed if (p.vid, p.pid) in rank]
        self._serials = {p.device: getattr(p, "serial_number", None) for p in found}
        found.sort(key=lambda p: (not (self.remembered and getattr(p, "serial_number", None) == self.remembered),
                                  rank[(p.vid, p.pid)], p.device))
        return [p.device for p in found]

    def __call__(self) -> str | None:
        paths = self.candidates()
        if not paths:
            return None
        now = self._clock()
        fresh = [p for p in paths if now - self._failed.get(p, -1e9) >= ROTATE_AFTER_FAIL]
        if fresh:
            return fresh[0]
        return min(paths, key=lambda p: self._failed.get(p, 0.0))  # all failed: the longest ago

    def failed(self, path: str, reason: str = "") -> None:
        """``path`` is not the reader (no valid frame in the handshake time)."""
        self._failed[path] = self._clock()
        self.tried[path] = reason or "no valid frame"

    def report(self) -> str:
        """Where the reader was looked for and why nothing answered, in a sentence: the
        candidate ports tried (each with why it was passed over), or that no attached serial
        port has a known USB id, listing the ports there are (with their ids)."""
        known = describe_ids(self.ids).removeprefix("any USB serial port with id ")
        if self.tried:
            tried = "; ".join(f"{p} ({self.seen.get(p, 'gone')}): {why}" for p, why in sorted(self.tried.items()))
            return f"tried {len(self.tried)} port(s) with a reader's USB id ({known}): {tried}"
        if not self.seen:
            return f"no serial port is attached (looked for a USB serial port with id {known})"
        others = ", ".join(f"{p} ({vp})" for p, vp in sorted(self.seen.items()))
        if self._serials:
            return f"{', '.join(sorted(self._serials))}: a reader's USB id ({known}), but no answer yet"
        return (f"no attached serial port has a reader's USB id ({known}); ports seen: {others}; "
                f"give the reader's port with {self.option} PATH or usb:VID:PID")

    def good(self, path: str) -> None:
        """``path`` answered: remember its serial number (when it has one)."""
        self._failed.pop(path, None)
        sn = self._serials.get(path)
        if sn and sn != self.remembered:
            self.remembered = sn
            if self.memory is not None:
                try:
                    self.memory.parent.mkdir(parents=True, exist_ok=True)
                    self.memory.write_text(json.dumps({"serial_number": sn, "port": path}), encoding="utf-8")
                except OSError:
                    pass  # remembering is a convenience; the reader works without it
