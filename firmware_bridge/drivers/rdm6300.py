"""RDM6300 125 kHz reader: ``0x02``, 10 hex characters (version byte + 4-byte tag), 2 hex
characters of checksum (XOR of the 5 data bytes), ``0x03``; 14 bytes a frame at 9600 8N1,
repeated about every 60 ms while a tag is near.  Worked example: tag ``13 00 5D 1D A5`` has
checksum ``F6``, i.e. ``02 '13005D1DA5' 'F6' 03``.
"""

from __future__ import annotations

from functools import reduce

from firmware_bridge.drivers.base import Driver, Reading, TagSeen
from firmware_bridge.errors import FrameError

STX = 0x02
ETX = 0x03
FRAME_LEN = 14
_HEX = frozenset(b"0123456789ABCDEFabcdef")


def checksum(data: bytes) -> int:
    """XOR of the 5 data bytes."""
    return reduce(lambda a, b: a ^ b, data, 0)


def encode(tag: bytes) -> bytes:
    """The 14-byte frame for a 5-byte ``tag`` (used by the virtual reader and tests)."""
    if len(tag) != 5:
        raise FrameError("length", f"an RDM6300 tag is 5 bytes, got {len(tag)}")
    return bytes([STX]) + (tag.hex() + f"{checksum(tag):02x}").upper().encode() + bytes([ETX])


def decode(frame: bytes) -> str:
    """UID (10 upper-case hex characters) of one 14-byte frame.

    Raises :class:`FrameError` with kind ``"length"``, ``"framing"`` (missing STX/ETX),
    ``"hex"`` (a non-hex character) or ``"checksum"``.
    """
    if len(frame) != FRAME_LEN:
        raise FrameError("length", f"RDM6300 frame is {FRAME_LEN} bytes, got {len(frame)}")
    if frame[0] != STX or frame[-1] != ETX:
        raise FrameError("framing", f"RDM6300 frame must start 02 and end 03: {frame.hex(' ')}")
    body = frame[1:-1]
    if not set(body) <= _HEX:
        raise FrameError("hex", f"non-hex character in RDM6300 frame {frame!r}")
    raw = bytes.fromhex(body.decode("ascii"))
    if checksum(raw[:5]) != raw[5]:
        raise FrameError(
            "checksum", f"RDM6300 checksum {raw[5]:02X} does not match {checksum(raw[:5]):02X}"
        )
    return raw[:5].hex().upper()


class RDM6300Driver(Driver):
    """Stream decoder for the RDM6300.  Resynchronises on the next ``0x02`` after garbage."""

    name = "rdm6300"
    baudrate = 9600
    repeats_while_present = True
    silence_timeout = None

    def __init__(self) -> None:
        self._buf = bytearray()

    def on_open(self, now: float) -> bytes:
        self._buf.clear()
        return b""

    def feed(self, data: bytes, now: float) -> list[Reading]:
        out: list[Reading] = []
        self._buf += data
        while True:
            start = self._buf.find(STX)
            if start < 0:
                if self._buf:
                    out.append(FrameError("framing", f"{len(self._buf)} bytes outside any frame"))
                self._buf.clear()
                return out
            if start > 0:
                out.append(FrameError("framing", f"{start} bytes outside any frame"))
                del self._buf[:start]
            if len(self._buf) < FRAME_LEN:
                # a second STX inside a short frame means the first frame was cut
                nxt = self._buf.find(STX, 1)
                if nxt > 0:
                    out.append(FrameError("length", "RDM6300 frame cut short"))
                    del self._buf[:nxt]
                    continue
                return out
            frame = bytes(self._buf[:FRAME_LEN])
            try:
                out.append(TagSeen(decode(frame)))
                del self._buf[:FRAME_LEN]
            except FrameError as e:
                out.append(e)
                nxt = self._buf.find(STX, 1)
                del self._buf[: nxt if nxt > 0 else len(self._buf)]
