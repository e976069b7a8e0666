"""CRC-16/CCITT-FALSE, the checksum of the companion protocol (PROTOCOL.md section 4).

Parameters (Rocksoft model): width 16, poly 0x1021, init 0xFFFF, refin false, refout false,
xorout 0x0000.  Check value for the nine ASCII bytes ``"123456789"``: ``0x29B1``.  The
same catalogue entry is also called CRC-16/IBM-3740 and CRC-16/AUTOSAR.
"""

from __future__ import annotations

CHECK_VALUE = 0x29B1
"""``crc16_ccitt_false(b"123456789")``."""


def _table() -> tuple[int, ...]:
    out = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        out.append(crc & 0xFFFF)
    return tuple(out)


_TABLE = _table()


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data``; pass ``crc`` to continue a running checksum."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc
