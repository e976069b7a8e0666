"""Finding the reader's serial port: an explicit path, or a USB device by VID:PID."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable

from serial.tools import list_ports

from firmware_bridge.errors import PortError

KNOWN_USB_IDS: tuple[tuple[int, int], ...] = (
    (0x1A86, 0x7523),  # CH340: most Nano clones
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
