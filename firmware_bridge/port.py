"""Opening the reader's serial port without resetting the board (PROTOCOL.md section 1).

An Arduino Nano resets when DTR is asserted (its auto-reset capacitor pulses RESET), and
the ring of unacknowledged events survives that only as a warm reset.  What the host can do
depends on the OS:

* Windows honours DTR/RTS set to False before ``open()``: the port opens without a pulse.
* Linux and macOS assert DTR in the kernel at every open, whatever pyserial is told, so a
  pulse cannot be avoided when DTR is down; what can be avoided is DTR going down.  The
  port is opened with DTR left asserted (clearing it would make the *next* open pulse
  again) and ``HUPCL`` is cleared, so closing the port, or a host killed with ``kill -9``,
  leaves DTR asserted and the next open finds it asserted: no edge, no reset.  The first
  open after the cable is plugged in still resets the board (the new port starts with DTR
  down); the firmware keeps its ring across that reset.
"""

from __future__ import annotations

import os

import serial

WRITE_TIMEOUT = 0.5
"""Seconds a write may block (a stuck USB adapter) before the link counts as dead."""


def clear_hupcl(fd: int) -> bool:
    """Clear ``HUPCL`` on the tty ``fd`` so that closing it does not drop DTR.

    Returns False where there is no termios (Windows) or the device refuses it.
    """
    try:
        import termios
    except ImportError:
        return False
    try:
        attrs = termios.tcgetattr(fd)
        if attrs[2] & termios.HUPCL:
            attrs[2] &= ~termios.HUPCL
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
        return True
    except termios.error:
        return False


def open_port(path: str, baudrate: int, *, timeout: float, write_timeout: float = WRITE_TIMEOUT) -> serial.Serial:
    """Open ``path`` at ``baudrate`` bit/s, 8N1, exclusive, without a DTR pulse where the OS
    allows (see the module text).  ``timeout`` and ``write_timeout`` in seconds.

    Raises what :class:`serial.Serial` raises (``SerialException``, ``OSError``,
    ``ValueError``) when the port cannot be opened.
    """
    ser = serial.Serial()
    ser.port = path
    ser.baudrate = baudrate
    ser.timeout = timeout
    ser.write_timeout = write_timeout
    ser.exclusive = True
    if os.name == "nt":
        ser.dtr = False
        ser.rts = False
    ser.open()
    if os.name == "posix" and ser.fd is not None:
        clear_hupcl(ser.fd)
    return ser
