"""Reader drivers behind one interface (:class:`firmware_bridge.drivers.base.Driver`).

* ``companion``: our firmware's protocol v1 (``hardware/PROTOCOL.md``), USB serial.
* ``rdm6300``: a bare 125 kHz RDM6300 module on a UART, 9600 8N1.
* ``pn532``: an NXP PN532 over HSU (UART), 115200 8N1, polled with InListPassiveTarget.
"""

from __future__ import annotations

from firmware_bridge.drivers.base import Driver
from firmware_bridge.drivers.companion import CompanionDriver
from firmware_bridge.drivers.pn532 import PN532Driver
from firmware_bridge.drivers.rdm6300 import RDM6300Driver

DRIVERS: dict[str, type[Driver]] = {
    "companion": CompanionDriver,
    "rdm6300": RDM6300Driver,
    "pn532": PN532Driver,
}


def make_driver(name: str) -> Driver:
    """A fresh driver by name; raises :class:`KeyError` listing the known names."""
    try:
        return DRIVERS[name]()
    except KeyError:
        raise KeyError(f"unknown driver {name!r}; choose one of {', '.join(DRIVERS)}") from None
