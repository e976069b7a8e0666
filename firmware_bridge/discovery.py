"""Finding the reader's serial port: an explicit path, or a USB device by VID:PID."""

from __future__ import annotations

from collections.abc import Iterable

from serial.tools import list_ports

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
    if not sep:
        raise ValueError(f"USB id {text!r} must be VID:PID in hex, e.g. 1a86:7523")
    return int(vid, 16), int(pid, 16)


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
